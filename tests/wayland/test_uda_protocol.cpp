// uda's own protocol (wayland/protocol/uda-allocation-v1.xml) against
// linux-dmabuf's view, on the wire: a compositor whose display needs rows
// aligned to 256 bytes. linux-dmabuf tells the client a format and a
// modifier (LINEAR), so the client's renderer picks its own pitch and the
// display cannot take the buffer; uda's protocol carries the display's
// whole capability sets, the pitch alignment with them, and the buffer
// the client makes from them is one the display imports.
#include <gtest/gtest.h>

#include <drm_fourcc.h>
#include <string>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

#include "loopback.hpp"
#include "set_spec.hpp"
#include "test_device.h"
#include "uda-allocation-v1-client-protocol.h"
#include "uda_protocol_server.h"

extern "C" {
#include "wayland_uda_sets.h"
}

using namespace uda_test;

namespace
{

struct Globals {
	wl_compositor *compositor = nullptr;
	uda_allocation_manager_v1 *manager = nullptr;
};

void global(void *data, wl_registry *registry, uint32_t name, const char *interface, uint32_t)
{
	auto *g = static_cast<Globals *>(data);
	if (std::string(interface) == wl_compositor_interface.name)
		g->compositor = static_cast<wl_compositor *>(wl_registry_bind(registry, name, &wl_compositor_interface, 4));
	else if (std::string(interface) == uda_allocation_manager_v1_interface.name)
		g->manager = static_cast<uda_allocation_manager_v1 *>(
		        wl_registry_bind(registry, name, &uda_allocation_manager_v1_interface, 1));
}
void global_remove(void *, wl_registry *, uint32_t) {}
const wl_registry_listener registry_listener = {global, global_remove};

void on_format_sets(void *data, uda_surface_sets_v1 *, uint32_t format, int32_t fd, uint32_t size)
{
	uda_sets_receiver_format_sets(static_cast<uda_sets_receiver *>(data), format, fd, size);
}
void on_done(void *data, uda_surface_sets_v1 *)
{
	uda_sets_receiver_done(static_cast<uda_sets_receiver *>(data));
}
const uda_surface_sets_v1_listener sets_listener = {on_format_sets, on_done};

constexpr uint32_t WIDTH = 100, HEIGHT = 64;

class UdaProtocol : public ::testing::Test
{
      protected:
	void SetUp() override
	{
		const uda_context_create_info info = {UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO, nullptr,
		                                      UDA_CONTEXT_CREATE_NO_BACKENDS};
		ASSERT_EQ(uda_context_create(&info, &ctx), UDA_SUCCESS);
		const Cap memfd = common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_MEMFD);
		// The client's renderer: linear rows aligned to 64 bytes.
		ASSERT_EQ(test_device_add_with_memory(
		                  ctx, "client renderer", 1,
		                  make_list(ctx, {{{layout(DRM_FORMAT_MOD_LINEAR, 0), memfd},
		                                   {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 64}}}})
		                          .release(),
		                  &renderer, nullptr),
		          UDA_SUCCESS);
		// The compositor's display: linear rows aligned to 256 bytes.
		ASSERT_EQ(test_device_add_with_memory(
		                  ctx, "compositor display", 2,
		                  make_list(ctx, {{{layout(DRM_FORMAT_MOD_LINEAR, 0), memfd},
		                                   {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 256}}}})
		                          .release(),
		                  &display, nullptr),
		          UDA_SUCCESS);
		// What the compositor's readers agree on: what it sends.
		const uda_usage_atom scanout = {UDA_VENDOR_NONE, UDA_USAGE_SCANOUT, 0, nullptr};
		const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &scanout};
		const uda_device_usage reader = {display, &usage};
		const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, WIDTH, HEIGHT, DRM_FORMAT_XRGB8888, 0};
		const uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 1, &reader};
		ASSERT_EQ(uda_negotiate(ctx, &negotiation, &compositor_sets), UDA_SUCCESS);

		int fds[2];
		ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
		server = uda_protocol_server_create(fds[0], DRM_FORMAT_XRGB8888, compositor_sets, display);
		ASSERT_NE(server, nullptr);
		client = wl_display_connect_to_fd(fds[1]);
		ASSERT_NE(client, nullptr);
		registry = wl_display_get_registry(client);
		wl_registry_add_listener(registry, &registry_listener, &globals);
		ASSERT_TRUE(pump([&] { return globals.compositor && globals.manager; }));
		uda_sets_receiver_init(&receiver, ctx);
	}

	void TearDown() override
	{
		if (sets)
			uda_surface_sets_v1_destroy(sets);
		if (surface)
			wl_surface_destroy(surface);
		if (globals.manager)
			uda_allocation_manager_v1_destroy(globals.manager);
		if (globals.compositor)
			wl_compositor_destroy(globals.compositor);
		if (registry)
			wl_registry_destroy(registry);
		if (client)
			wl_display_disconnect(client);
		uda_protocol_server_destroy(server);
		uda_sets_receiver_finish(&receiver);
		uda_capability_set_list_destroy(compositor_sets);
		uda_context_destroy(ctx);
	}

	bool pump(const std::function<bool()> &done)
	{
		return pump_until(client, [&] { uda_protocol_server_dispatch(server); }, done);
	}

	// The client negotiates its renderer with the compositor's sets as it
	// knows them, allocates, and sends the buffer with its metadata.
	uda_allocation *send_buffer(const uda_capability_set_list *peer_sets)
	{
		const uda_usage_atom render = {UDA_VENDOR_NONE, UDA_USAGE_RENDER_TARGET, 0, nullptr};
		const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &render};
		const uda_device_usage device = {renderer, &usage};
		const uda_negotiation_peer_info peer = {UDA_STRUCTURE_TYPE_NEGOTIATION_PEER_INFO, nullptr, peer_sets};
		const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, WIDTH, HEIGHT, DRM_FORMAT_XRGB8888, 0};
		const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, &peer, &assertion, 1, &device};
		uda_allocation *allocation = nullptr;
		EXPECT_EQ(uda_negotiate_allocate(ctx, &info, &allocation, nullptr, nullptr), UDA_SUCCESS)
		        << uda_context_get_error(ctx);
		if (!allocation)
			return nullptr;
		int fd = -1;
		EXPECT_EQ(uda_allocation_export(allocation, UDA_HANDLE_TYPE_MEMFD, &fd), UDA_SUCCESS);
		std::vector<uint8_t> metadata(4096);
		size_t size = 0;
		EXPECT_EQ(uda_allocation_serialize_metadata(allocation, UDA_HANDLE_TYPE_MEMFD, metadata.data(),
		                                            metadata.size(), &size),
		          UDA_SUCCESS);
		wl_array bytes = {size, metadata.size(), metadata.data()};
		wl_buffer *buffer = uda_allocation_manager_v1_create_buffer(globals.manager, fd, &bytes);
		close(fd);
		const unsigned before = uda_protocol_server_buffers(server);
		const uda_result last = uda_protocol_server_last_import(server);
		pump([&] { return uda_protocol_server_buffers(server) != before || uda_protocol_server_last_import(server) != last; });
		wl_buffer_destroy(buffer);
		return allocation;
	}

	uint64_t pitch_of(uda_allocation *allocation)
	{
		uda_allocation_metadata metadata = {UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
		EXPECT_EQ(uda_allocation_get_metadata(allocation, &metadata), UDA_SUCCESS);
		return metadata.planes[0].pitch;
	}

	uda_context *ctx = nullptr;
	uda_device *renderer = nullptr, *display = nullptr;
	uda_capability_set_list *compositor_sets = nullptr;
	uda_protocol_server *server = nullptr;
	wl_display *client = nullptr;
	wl_registry *registry = nullptr;
	Globals globals;
	wl_surface *surface = nullptr;
	uda_surface_sets_v1 *sets = nullptr;
	uda_sets_receiver receiver;
};

TEST_F(UdaProtocol, WholeSetsGiveABufferTheDisplayTakesWhereLinuxDmabufsViewDoesNot)
{
	// uda's protocol: the display's sets, constraints included, over the
	// wire.
	surface = wl_compositor_create_surface(globals.compositor);
	sets = uda_allocation_manager_v1_get_surface_sets(globals.manager, surface);
	uda_surface_sets_v1_add_listener(sets, &sets_listener, &receiver);
	ASSERT_TRUE(pump([&] { return receiver.generation == 1; }));
	const uda_capability_set_list *received = uda_sets_receiver_find(&receiver, DRM_FORMAT_XRGB8888);
	ASSERT_NE(received, nullptr);
	EXPECT_EQ(read_list(received), read_list(compositor_sets));

	uda_allocation *good = send_buffer(received);
	ASSERT_NE(good, nullptr);
	EXPECT_EQ(pitch_of(good) % 256, 0u) << "pitch " << pitch_of(good);
	EXPECT_EQ(uda_protocol_server_last_import(server), UDA_SUCCESS) << uda_context_get_error(ctx);
	EXPECT_EQ(uda_protocol_server_buffers(server), 1u);
	uda_allocation_destroy(good);

	// linux-dmabuf's view of the same compositor: a format and a modifier,
	// no more. The client's own pitch alignment decides, and the display
	// refuses the buffer.
	const uda_capability_set_list *only_layout =
	        make_list(ctx, {{{layout(DRM_FORMAT_MOD_LINEAR, 0), common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_MEMFD)}}})
	                .release();
	uda_allocation *guessed = send_buffer(only_layout);
	ASSERT_NE(guessed, nullptr);
	EXPECT_NE(pitch_of(guessed) % 256, 0u) << "pitch " << pitch_of(guessed);
	EXPECT_EQ(uda_protocol_server_last_import(server), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_NE(std::string(uda_context_get_error(ctx)).find("pitch"), std::string::npos) << uda_context_get_error(ctx);
	EXPECT_EQ(uda_protocol_server_buffers(server), 1u);
	uda_allocation_destroy(guessed);
	uda_capability_set_list_destroy(const_cast<uda_capability_set_list *>(only_layout));
}

// What a compositor sends is untrusted: bytes that are no set list, a
// file shorter than its size, a format twice in one group break the group
// and the last good one stays.
TEST_F(UdaProtocol, BrokenSetsAreDroppedAndTheLastGoodOnesStay)
{
	auto file = [](const std::vector<uint8_t> &bytes) {
		int fd = memfd_create("sets", MFD_CLOEXEC);
		EXPECT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
		return fd;
	};
	std::vector<uint8_t> good(65536);
	size_t size = 0;
	ASSERT_EQ(uda_capability_set_list_serialize(compositor_sets, good.data(), good.size(), &size), UDA_SUCCESS);
	good.resize(size);
	uda_sets_receiver_format_sets(&receiver, DRM_FORMAT_XRGB8888, file(good), static_cast<uint32_t>(size));
	uda_sets_receiver_done(&receiver);
	ASSERT_EQ(receiver.generation, 1u);

	std::vector<uint8_t> garbage(size, 0x5a);
	uda_sets_receiver_format_sets(&receiver, DRM_FORMAT_XRGB8888, file(garbage), static_cast<uint32_t>(size));
	uda_sets_receiver_done(&receiver);
	uda_sets_receiver_format_sets(&receiver, DRM_FORMAT_XRGB8888, file(good), static_cast<uint32_t>(size + 64));
	uda_sets_receiver_done(&receiver);
	uda_sets_receiver_format_sets(&receiver, DRM_FORMAT_XRGB8888, file(good), static_cast<uint32_t>(size));
	uda_sets_receiver_format_sets(&receiver, DRM_FORMAT_XRGB8888, file(good), static_cast<uint32_t>(size));
	uda_sets_receiver_done(&receiver);
	uda_sets_receiver_format_sets(&receiver, DRM_FORMAT_XRGB8888, -1, static_cast<uint32_t>(size));
	uda_sets_receiver_done(&receiver);
	EXPECT_EQ(receiver.generation, 1u);
	ASSERT_NE(uda_sets_receiver_find(&receiver, DRM_FORMAT_XRGB8888), nullptr);
	EXPECT_EQ(read_list(uda_sets_receiver_find(&receiver, DRM_FORMAT_XRGB8888)), read_list(compositor_sets));
}

} // namespace
