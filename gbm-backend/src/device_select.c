/*
 * Which uda devices a GBM device stands for.
 *
 * GBM names a device by an fd. If the fd is a DRM node, the GPU that
 * renders is the one whose Vulkan or GL device reports that node
 * (VK_EXT_physical_device_drm, EGL_EXT_device_drm), and the display is
 * the DRM backend's device of that node. A display-only node (a KMS
 * controller with no GPU of its own) renders on the first GPU uda finds,
 * as does an fd that is no DRM node at all: Mesa's own backend answers
 * such an fd with a software device, and so does this one, with the GPUs
 * and no display.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <xf86drm.h>

#include "gbm_private.h"

#define MAX_DEVICES 64

static bool node_matches(const uda_drm_node *node, dev_t rdev)
{
	return node->present && node->major == major(rdev) && node->minor == minor(rdev);
}

static bool is_gpu_api(uda_device_api api)
{
	return api == UDA_DEVICE_API_VULKAN || api == UDA_DEVICE_API_GL;
}

/* The render devices: every Vulkan and GL device with the chosen device
 * UUID, Vulkan first (it allocates; GL imports). */
static void collect_render(struct uda_gbm_device *device, uda_device **devices, const uda_device_info *infos,
                           uint32_t count, const uint8_t uuid[UDA_UUID_SIZE])
{
	for (int pass = 0; pass < 2; pass++) {
		const uda_device_api api = pass == 0 ? UDA_DEVICE_API_VULKAN : UDA_DEVICE_API_GL;
		for (uint32_t i = 0; i < count && device->render_count < UDA_GBM_MAX_RENDER_DEVICES; i++) {
			if (infos[i].api == api && memcmp(infos[i].device_uuid, uuid, UDA_UUID_SIZE) == 0)
				device->render[device->render_count++] = devices[i];
		}
	}
}

int uda_gbm_device_select(struct uda_gbm_device *device, int fd)
{
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) {
		uda_gbm_log(device, UDA_LOG_WARNING, "fd %d is not a character device", fd);
		return EINVAL;
	}
	drmVersionPtr version = drmGetVersion(fd);
	device->fd_is_drm = version != NULL;
	drmFreeVersion(version);

	uda_device *devices[MAX_DEVICES];
	uda_device_info infos[MAX_DEVICES];
	uint32_t count = MAX_DEVICES;
	uda_result result = uda_context_enumerate_devices(device->ctx, &count, devices);
	if (result != UDA_SUCCESS && result != UDA_ERROR_BUFFER_TOO_SMALL)
		return uda_gbm_errno(result);

	const uint8_t *render_uuid = NULL;
	for (uint32_t i = 0; i < count; i++) {
		memset(&infos[i], 0, sizeof(infos[i]));
		infos[i].type = UDA_STRUCTURE_TYPE_DEVICE_INFO;
		if (uda_device_get_info(devices[i], &infos[i]) != UDA_SUCCESS)
			continue;
		const bool on_fd = device->fd_is_drm && (node_matches(&infos[i].drm_primary, st.st_rdev) ||
		                                         node_matches(&infos[i].drm_render, st.st_rdev));
		if (infos[i].api == UDA_DEVICE_API_CPU && !device->cpu)
			device->cpu = devices[i];
		if (on_fd && infos[i].api == UDA_DEVICE_API_DRM && !device->display)
			device->display = devices[i];
		if (on_fd && is_gpu_api(infos[i].api) && !render_uuid)
			render_uuid = infos[i].device_uuid;
	}
	if (!render_uuid) {
		for (uint32_t i = 0; i < count && !render_uuid; i++) {
			if (is_gpu_api(infos[i].api))
				render_uuid = infos[i].device_uuid;
		}
	}
	if (!render_uuid) {
		uda_gbm_log(device, UDA_LOG_WARNING, "no Vulkan or GL device to render with (is UDA_BACKEND_PATH right?)");
		return ENODEV;
	}
	collect_render(device, devices, infos, count, render_uuid);
	for (uint32_t i = 0; i < count; i++) {
		if (devices[i] == device->render[0])
			uda_gbm_log(device, UDA_LOG_INFO, "fd %d%s: renders on %s (%s)%s%s", fd,
			            device->fd_is_drm ? "" : " (no DRM node)", infos[i].name,
			            uda_device_api_to_string(infos[i].api), device->display ? ", displays on " : "",
			            device->display ? "its DRM device" : "");
	}
	return 0;
}
