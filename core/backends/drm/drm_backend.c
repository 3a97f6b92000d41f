/* The drm backend module: every DRM device the kernel lists, with its
 * display engine where the primary node opens. No /dev/dri (a container,
 * a machine without GPU): a backend with no devices. */
#include "drm_device.h"

static uda_result drm_load(uda_context *ctx, void **out_backend_data)
{
	*out_backend_data = NULL;
	if (!drm_devices_add_all(ctx, &drm_io_kernel))
		uda_context_log(ctx, UDA_LOG_INFO, "drm: no DRM device opens");
	return UDA_SUCCESS;
}

static const uda_backend_interface drm_backend_interface = {
	.version = UDA_BACKEND_INTERFACE_VERSION_1,
	.name = DRM_BACKEND_NAME,
	.load = drm_load,
};

UDA_BACKEND_DEFINE_ENTRY_POINT(drm_backend_interface)
