/* The v4l2 backend module: every V4L2 video node the kernel lists (a
 * camera, a decoder, an encoder, a converter), or, when UDA_V4L2_REPLAY
 * names recorded drivers (v4l2_replay.h), those instead. No /dev/video*
 * (a container, a desktop without a camera): a backend with no devices. */
#include <stdlib.h>

#include "v4l2_device.h"
#include "v4l2_replay.h"

static uda_result v4l2_load(uda_context *ctx, void **out_backend_data)
{
	*out_backend_data = NULL;
	const struct v4l2_io *io = &v4l2_io_kernel;
	const char *recorded = getenv("UDA_V4L2_REPLAY");
	if (recorded && *recorded) {
		char why[256] = "";
		struct v4l2_replay *replay = v4l2_replay_create(recorded, why, sizeof(why));
		if (!replay)
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "v4l2: UDA_V4L2_REPLAY: %s", why);
		*out_backend_data = replay;
		io = v4l2_replay_io(replay);
		uda_context_log(ctx, UDA_LOG_INFO, "v4l2: replaying recorded drivers, not the kernel's");
	}
	if (!v4l2_devices_add_all(ctx, io))
		uda_context_log(ctx, UDA_LOG_INFO, "v4l2: no video node to share buffers with");
	return UDA_SUCCESS;
}

static void v4l2_unload(void *backend_data)
{
	v4l2_replay_destroy(backend_data);
}

static const uda_backend_interface v4l2_backend_interface = {
	.version = UDA_BACKEND_INTERFACE_VERSION_1,
	.name = V4L2_BACKEND_NAME,
	.load = v4l2_load,
	.unload = v4l2_unload,
};

UDA_BACKEND_DEFINE_ENTRY_POINT(v4l2_backend_interface)
