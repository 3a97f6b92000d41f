#ifndef UDA_DEVICE_PRIVATE_H
#define UDA_DEVICE_PRIVATE_H

#include "context.h"

/* The first word of every live uda_device: untyped pointers reach the
 * core as EGL native displays (and by mistake, as a uda_surface or a
 * gbm_device passed for a device), and a word that does not match turns
 * them into UDA_ERROR_INVALID_ARGUMENT instead of a crash. Cleared at
 * destroy. Best effort: memory that cannot be read still faults. */
#define UDA_DEVICE_TAG 0x75646176u /* "udav" */

struct uda_device {
	uint32_t tag;
	uda_context *ctx;
	uint8_t device_uuid[UDA_UUID_SIZE];
	uint8_t driver_uuid[UDA_UUID_SIZE];
	char *name;
	char *backend_name;
	uda_device_api api;
	uda_drm_node drm_primary;
	uda_drm_node drm_render;
	/* API DRM only: device_uuid was taken from a device of another API
	 * on the same DRM node (device.c, share_identity). */
	bool identity_adopted;
	const uda_device_interface *impl;
	void *data;
};

static inline bool uda_device_is_live(const uda_device *device)
{
	return device && device->tag == UDA_DEVICE_TAG;
}

/* Fetches the device's list with validated arguments: LOCAL capabilities
 * tagged with the device, UDA_ERROR_UNSUPPORTED for an empty answer. */
uda_result uda_device_query_capability_sets(uda_device *device, const uda_assertion *assertion, const uda_usage *usage,
                                            uda_capability_set_list **out_list);

#endif
