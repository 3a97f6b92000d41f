// A compositor's wl_shm buffers (libwayland-server's wl_shm) copied into
// its own memory with uda_wayland_shm_copy: the pixels arrive row for
// row, and a client that shrinks its pool under the compositor gets
// wl_shm's error while the compositor goes on (no SIGBUS).
#include <gtest/gtest.h>

#include <drm_fourcc.h>
#include <string>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>
#include <wayland-client.h>
#include <wayland-server-core.h>

#include <uda/uda_wayland_server.h>

#include "loopback.hpp"
#include "set_spec.hpp"
#include "test_device.h"

using namespace uda_test;

namespace
{

void global(void *data, wl_registry *registry, uint32_t name, const char *interface, uint32_t)
{
	if (std::string(interface) == wl_shm_interface.name)
		*static_cast<wl_shm **>(data) = static_cast<wl_shm *>(wl_registry_bind(registry, name, &wl_shm_interface, 1));
}
void global_remove(void *, wl_registry *, uint32_t) {}
const wl_registry_listener registry_listener = {global, global_remove};

constexpr int32_t WIDTH = 64, HEIGHT = 32, STRIDE = WIDTH * 4 + 64;

class ShmCopy : public ::testing::Test
{
      protected:
	void SetUp() override
	{
		const uda_context_create_info info = {UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO, nullptr,
		                                      UDA_CONTEXT_CREATE_NO_BACKENDS};
		ASSERT_EQ(uda_context_create(&info, &ctx), UDA_SUCCESS);
		ASSERT_EQ(test_device_add_with_memory(
		                  ctx, "compositor memory", 1,
		                  make_list(ctx, {{{layout(DRM_FORMAT_MOD_LINEAR, 0),
		                                    common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_MEMFD),
		                                    common(UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE)}}})
		                          .release(),
		                  &memory, nullptr),
		          UDA_SUCCESS);
		server = wl_display_create();
		ASSERT_EQ(wl_display_init_shm(server), 0);
		int fds[2];
		ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
		server_client = wl_client_create(server, fds[0]);
		client = wl_display_connect_to_fd(fds[1]);
		ASSERT_NE(client, nullptr);
		registry = wl_display_get_registry(client);
		wl_registry_add_listener(registry, &registry_listener, &shm);
		ASSERT_TRUE(pump([&] { return shm != nullptr; }));
	}

	void TearDown() override
	{
		if (shm)
			wl_shm_destroy(shm);
		if (registry)
			wl_registry_destroy(registry);
		if (client)
			wl_display_disconnect(client);
		if (server) {
			wl_display_destroy_clients(server);
			wl_display_destroy(server);
		}
		uda_context_destroy(ctx);
	}

	bool pump(const std::function<bool()> &done)
	{
		return pump_until(client,
		                  [&] {
			                  wl_event_loop_dispatch(wl_display_get_event_loop(server), 0);
			                  wl_display_flush_clients(server);
		                  },
		                  done);
	}

	// A client's buffer in a pool of its own, each pixel its coordinates.
	wl_buffer *client_buffer(int &pool_fd)
	{
		pool_fd = memfd_create("client-pool", MFD_CLOEXEC);
		EXPECT_EQ(ftruncate(pool_fd, STRIDE * HEIGHT), 0);
		std::vector<uint8_t> pixels(STRIDE * HEIGHT);
		for (int y = 0; y < HEIGHT; y++)
			for (int x = 0; x < WIDTH; x++)
				for (int c = 0; c < 4; c++)
					pixels[y * STRIDE + x * 4 + c] = static_cast<uint8_t>(x * 3 + y * 5 + c);
		EXPECT_EQ(pwrite(pool_fd, pixels.data(), pixels.size(), 0), static_cast<ssize_t>(pixels.size()));
		wl_shm_pool *pool = wl_shm_create_pool(shm, pool_fd, STRIDE * HEIGHT);
		wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, WIDTH, HEIGHT, STRIDE, WL_SHM_FORMAT_XRGB8888);
		wl_shm_pool_destroy(pool);
		return buffer;
	}

	// The compositor's side of the client's wl_buffer.
	wl_shm_buffer *served(wl_buffer *buffer)
	{
		const uint32_t id = wl_proxy_get_id(reinterpret_cast<wl_proxy *>(buffer));
		wl_resource *resource = nullptr;
		pump([&] { return (resource = wl_client_get_object(server_client, id)) != nullptr; });
		return resource ? wl_shm_buffer_get(resource) : nullptr;
	}

	uda_allocation *compositor_memory(uint32_t width = WIDTH)
	{
		const uda_usage_atom atom = {UDA_VENDOR_NONE, UDA_USAGE_SAMPLED, 0, nullptr};
		const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &atom};
		const uda_device_usage device = {memory, &usage};
		const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, width, HEIGHT, DRM_FORMAT_XRGB8888, 0};
		const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 1, &device};
		uda_allocation *allocation = nullptr;
		EXPECT_EQ(uda_negotiate_allocate(ctx, &info, &allocation, nullptr, nullptr), UDA_SUCCESS)
		        << uda_context_get_error(ctx);
		return allocation;
	}

	uda_context *ctx = nullptr;
	uda_device *memory = nullptr;
	wl_display *server = nullptr;
	wl_client *server_client = nullptr;
	wl_display *client = nullptr;
	wl_registry *registry = nullptr;
	wl_shm *shm = nullptr;
};

TEST_F(ShmCopy, ThePixelsArriveRowForRow)
{
	int pool_fd = -1;
	wl_buffer *buffer = client_buffer(pool_fd);
	wl_shm_buffer *shm_buffer = served(buffer);
	ASSERT_NE(shm_buffer, nullptr);
	uda_allocation *allocation = compositor_memory();
	ASSERT_NE(allocation, nullptr);
	ASSERT_EQ(uda_wayland_shm_copy(shm_buffer, allocation), UDA_SUCCESS) << uda_context_get_error(ctx);
	uda_allocation_metadata metadata = {UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	ASSERT_EQ(uda_allocation_get_metadata(allocation, &metadata), UDA_SUCCESS);
	void *mapped = nullptr;
	ASSERT_EQ(uda_allocation_map(allocation, UDA_ACCESS_READ, &mapped), UDA_SUCCESS);
	unsigned wrong = 0;
	for (int y = 0; y < HEIGHT; y++)
		for (int x = 0; x < WIDTH; x++)
			for (int c = 0; c < 4; c++)
				wrong += static_cast<const uint8_t *>(mapped)[metadata.planes[0].offset + y * metadata.planes[0].pitch +
				                                              x * 4 + c] != static_cast<uint8_t>(x * 3 + y * 5 + c);
	uda_allocation_unmap(allocation);
	EXPECT_EQ(wrong, 0u);
	uda_allocation_destroy(allocation);
	wl_buffer_destroy(buffer);
	close(pool_fd);
}

// The client shrinks its pool after creating the buffer: the copy reads
// zeros where the pages went, the compositor lives, and the client gets
// wl_shm's invalid_fd error.
TEST_F(ShmCopy, APoolShrunkUnderTheCompositorIsTheClientsError)
{
	int pool_fd = -1;
	wl_buffer *buffer = client_buffer(pool_fd);
	wl_shm_buffer *shm_buffer = served(buffer);
	ASSERT_NE(shm_buffer, nullptr);
	ASSERT_EQ(ftruncate(pool_fd, 0), 0);
	uda_allocation *allocation = compositor_memory();
	ASSERT_NE(allocation, nullptr);
	EXPECT_EQ(uda_wayland_shm_copy(shm_buffer, allocation), UDA_SUCCESS);
	wl_display_flush_clients(server);
	pump([&] { return wl_display_get_error(client) != 0; });
	EXPECT_NE(wl_display_get_error(client), 0) << "the client was not told";
	uint32_t id = 0;
	const wl_interface *interface = nullptr;
	EXPECT_EQ(wl_display_get_protocol_error(client, &interface, &id), static_cast<uint32_t>(WL_SHM_ERROR_INVALID_FD));
	uda_allocation_destroy(allocation);
	wl_buffer_destroy(buffer);
	close(pool_fd);
}

TEST_F(ShmCopy, AnotherSizeOrFormatIsRefused)
{
	int pool_fd = -1;
	wl_buffer *buffer = client_buffer(pool_fd);
	wl_shm_buffer *shm_buffer = served(buffer);
	ASSERT_NE(shm_buffer, nullptr);
	uda_allocation *allocation = compositor_memory(WIDTH / 2);
	ASSERT_NE(allocation, nullptr);
	EXPECT_EQ(uda_wayland_shm_copy(shm_buffer, allocation), UDA_ERROR_INCOMPATIBLE);
	EXPECT_EQ(uda_wayland_shm_copy(nullptr, allocation), UDA_ERROR_INVALID_ARGUMENT);
	uda_allocation_destroy(allocation);
	wl_buffer_destroy(buffer);
	close(pool_fd);
}

// wl_shm's two codes of its own, and the fourccs it uses for the rest.
TEST(ShmFormat, WlShmCodesAreDrmFourccs)
{
	EXPECT_EQ(uda_wayland_shm_format_to_fourcc(WL_SHM_FORMAT_ARGB8888), DRM_FORMAT_ARGB8888);
	EXPECT_EQ(uda_wayland_shm_format_to_fourcc(WL_SHM_FORMAT_XRGB8888), DRM_FORMAT_XRGB8888);
	EXPECT_EQ(uda_wayland_shm_format_to_fourcc(WL_SHM_FORMAT_ABGR8888), DRM_FORMAT_ABGR8888);
	EXPECT_EQ(uda_wayland_shm_format_to_fourcc(WL_SHM_FORMAT_NV12), DRM_FORMAT_NV12);
}

} // namespace
