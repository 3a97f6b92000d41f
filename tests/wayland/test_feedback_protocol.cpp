// uda's compositor-side feedback on the wire: a one-global compositor
// (feedback_server.c) sends uda_wayland_feedback_send's events on a
// socket, and the client side's receiver (the EGL platform's
// wayland_feedback.c, as a uda Wayland client runs it) reads them back:
// the render tranche for a composited surface, the scanout tranche first
// once the surface is on a plane, and back.
#include <gtest/gtest.h>

#include <functional>
#include <poll.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <wayland-client.h>

#include "compositor_devices.hpp"
#include "feedback_server.h"
#include "loopback.hpp"
#include "linux-dmabuf-unstable-v1-client-protocol.h"

extern "C" {
#include "wayland_feedback.h"
}

using namespace uda_test;

namespace
{

// The client's listener does what the platform's does: each event to the
// receiver.
void on_done(void *data, zwp_linux_dmabuf_feedback_v1 *)
{
	feedback_receiver_done(static_cast<feedback_receiver *>(data));
}
void on_format_table(void *data, zwp_linux_dmabuf_feedback_v1 *, int32_t fd, uint32_t size)
{
	feedback_receiver_format_table(static_cast<feedback_receiver *>(data), fd, size);
}
void on_main_device(void *data, zwp_linux_dmabuf_feedback_v1 *, wl_array *device)
{
	feedback_receiver_main_device(static_cast<feedback_receiver *>(data), device->data, device->size);
}
void on_tranche_done(void *data, zwp_linux_dmabuf_feedback_v1 *)
{
	feedback_receiver_tranche_done(static_cast<feedback_receiver *>(data));
}
void on_target(void *data, zwp_linux_dmabuf_feedback_v1 *, wl_array *device)
{
	feedback_receiver_tranche_target_device(static_cast<feedback_receiver *>(data), device->data, device->size);
}
void on_formats(void *data, zwp_linux_dmabuf_feedback_v1 *, wl_array *indices)
{
	feedback_receiver_tranche_formats(static_cast<feedback_receiver *>(data), indices->data, indices->size);
}
void on_flags(void *data, zwp_linux_dmabuf_feedback_v1 *, uint32_t flags)
{
	feedback_receiver_tranche_flags(static_cast<feedback_receiver *>(data), flags);
}
const zwp_linux_dmabuf_feedback_v1_listener feedback_listener = {on_done,   on_format_table, on_main_device,
                                                                 on_tranche_done, on_target, on_formats,
                                                                 on_flags};

void global(void *data, wl_registry *registry, uint32_t name, const char *interface, uint32_t version)
{
	if (std::string(interface) == zwp_linux_dmabuf_v1_interface.name && version >= 4)
		*static_cast<zwp_linux_dmabuf_v1 **>(data) = static_cast<zwp_linux_dmabuf_v1 *>(
		        wl_registry_bind(registry, name, &zwp_linux_dmabuf_v1_interface, 4));
}
void global_remove(void *, wl_registry *, uint32_t) {}
const wl_registry_listener registry_listener = {global, global_remove};

class FeedbackProtocol : public ::testing::Test
{
      protected:
	void SetUp() override
	{
		const uda_context_create_info info = {UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO, nullptr,
		                                      UDA_CONTEXT_CREATE_NO_BACKENDS};
		ASSERT_EQ(uda_context_create(&info, &ctx), UDA_SUCCESS);
		add_compositor_devices(ctx, devices);
		const uint32_t formats[] = {DRM_FORMAT_XRGB8888};
		uda_device *displays[] = {devices.display};
		const uda_wayland_feedback_create_info create = {UDA_STRUCTURE_TYPE_WAYLAND_FEEDBACK_CREATE_INFO,
		                                                 nullptr, devices.gpu, 1, formats, 0, 0, 1, displays};
		ASSERT_EQ(uda_wayland_feedback_create(ctx, &create, &feedback), UDA_SUCCESS);
		int fds[2];
		ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
		server = feedback_server_create(fds[0], feedback);
		ASSERT_NE(server, nullptr);
		client = wl_display_connect_to_fd(fds[1]);
		ASSERT_NE(client, nullptr);
		feedback_receiver_init(&receiver);
		registry = wl_display_get_registry(client);
		wl_registry_add_listener(registry, &registry_listener, &dmabuf);
		ASSERT_TRUE(pump_until([&] { return dmabuf != nullptr; }));
		object = zwp_linux_dmabuf_v1_get_default_feedback(dmabuf);
		zwp_linux_dmabuf_feedback_v1_add_listener(object, &feedback_listener, &receiver);
	}

	void TearDown() override
	{
		if (object)
			zwp_linux_dmabuf_feedback_v1_destroy(object);
		if (dmabuf)
			zwp_linux_dmabuf_v1_destroy(dmabuf);
		if (registry)
			wl_registry_destroy(registry);
		if (client)
			wl_display_disconnect(client);
		feedback_server_destroy(server);
		feedback_receiver_finish(&receiver);
		uda_wayland_feedback_destroy(feedback);
		uda_context_destroy(ctx);
	}

	bool pump_until(const std::function<bool()> &done)
	{
		return uda_test::pump_until(client, [&] { feedback_server_dispatch(server); }, done);
	}

	std::vector<uint64_t> modifiers(const feedback_tranche &tranche)
	{
		std::vector<uint64_t> out;
		for (uint32_t i = 0; i < tranche.pair_count; i++) {
			EXPECT_EQ(tranche.pairs[i].format, DRM_FORMAT_XRGB8888);
			out.push_back(tranche.pairs[i].modifier);
		}
		return out;
	}

	uda_context *ctx = nullptr;
	CompositorDevices devices;
	uda_wayland_feedback *feedback = nullptr;
	feedback_server *server = nullptr;
	wl_display *client = nullptr;
	wl_registry *registry = nullptr;
	zwp_linux_dmabuf_v1 *dmabuf = nullptr;
	zwp_linux_dmabuf_feedback_v1 *object = nullptr;
	feedback_receiver receiver;
};

TEST_F(FeedbackProtocol, TheClientReadsTheRenderTranche)
{
	ASSERT_TRUE(pump_until([&] { return receiver.generation == 1; }));
	const struct feedback &fb = receiver.current;
	EXPECT_TRUE(fb.has_main_device);
	EXPECT_EQ(fb.main_device, makedev(226, 128));
	ASSERT_EQ(fb.tranche_count, 1u);
	EXPECT_FALSE(fb.tranches[0].scanout);
	EXPECT_EQ(fb.tranches[0].target_device, makedev(226, 128));
	EXPECT_EQ(modifiers(fb.tranches[0]), (std::vector<uint64_t>{GPU_CCS, GPU_TILED, DRM_FORMAT_MOD_LINEAR}));
}

// The surface goes on the display's plane: the compositor sends the
// feedback again, the scanout tranche first; it comes back to compositing,
// and the render tranche is alone again. The client's negotiation follows
// each (test-wayland-feedback: the scanout tranche's layout leads).
TEST_F(FeedbackProtocol, AScanoutTrancheComesAndGoesOnTheWire)
{
	ASSERT_TRUE(pump_until([&] { return receiver.generation == 1; }));
	feedback_server_resend(server, 0);
	ASSERT_TRUE(pump_until([&] { return receiver.generation == 2; }));
	ASSERT_EQ(receiver.current.tranche_count, 2u);
	EXPECT_TRUE(receiver.current.tranches[0].scanout);
	EXPECT_EQ(receiver.current.tranches[0].target_device, makedev(226, 0));
	EXPECT_EQ(modifiers(receiver.current.tranches[0]), (std::vector<uint64_t>{GPU_TILED, DRM_FORMAT_MOD_LINEAR}));
	EXPECT_TRUE(feedback_has_scanout(&receiver.current, DRM_FORMAT_XRGB8888));
	feedback_server_resend(server, UDA_WAYLAND_NO_SCANOUT);
	ASSERT_TRUE(pump_until([&] { return receiver.generation == 3; }));
	ASSERT_EQ(receiver.current.tranche_count, 1u);
	EXPECT_FALSE(feedback_has_scanout(&receiver.current, DRM_FORMAT_XRGB8888));
}

} // namespace
