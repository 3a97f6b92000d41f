/* The drm backend module: every DRM device the kernel lists, with its
 * display engine where the primary node opens, or, when UDA_DRM_REPLAY
 * names recorded displays (drm_replay.h), those instead. No /dev/dri (a
 * container, a machine without GPU): a backend with no devices. */
#include <stdlib.h>

#include "drm_device.h"
#include "drm_replay.h"

static uda_result drm_load(uda_context *ctx, void **out_backend_data)
{
	*out_backend_data = NULL;
	const struct drm_io *io = &drm_io_kernel;
	const char *recorded = getenv("UDA_DRM_REPLAY");
	if (recorded && *recorded) {
		char why[256] = "";
		struct drm_replay *replay = drm_replay_create(recorded, why, sizeof(why));
		if (!replay)
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "drm: UDA_DRM_REPLAY: %s", why);
		*out_backend_data = replay;
		io = drm_replay_io(replay);
		uda_context_log(ctx, UDA_LOG_INFO, "drm: replaying recorded displays, not the kernel's");
	}
	if (!drm_devices_add_all(ctx, io))
		uda_context_log(ctx, UDA_LOG_INFO, "drm: no DRM device opens");
	return UDA_SUCCESS;
}

static void drm_unload(void *backend_data)
{
	drm_replay_destroy(backend_data);
}

static const uda_backend_interface drm_backend_interface = {
	.version = UDA_BACKEND_INTERFACE_VERSION_1,
	.name = DRM_BACKEND_NAME,
	.load = drm_load,
	.unload = drm_unload,
};

UDA_BACKEND_DEFINE_ENTRY_POINT(drm_backend_interface)
