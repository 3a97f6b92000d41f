#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "capability_set_list.h"
#include "device.h"
#include "request.h"

#define MAX_NAME_LENGTH 256

static bool name_valid(const char *name)
{
	return name && name[0] && strnlen(name, MAX_NAME_LENGTH) < MAX_NAME_LENGTH;
}

static bool same_node(const uda_drm_node *a, const uda_drm_node *b)
{
	return a->present && b->present && a->major == b->major && a->minor == b->minor;
}

static bool share_a_node(const uda_device *a, const uda_device *b)
{
	return same_node(&a->drm_primary, &b->drm_primary) || same_node(&a->drm_render, &b->drm_render);
}

/* One piece of hardware, one identity: a display engine (API DRM) takes
 * the device UUID of the first device of another API that shares one of
 * its DRM nodes (VK_EXT_physical_device_drm and EGL_EXT_device_drm give
 * theirs), whichever of the two registers first; backends load in name
 * order, and "drm" comes before "gl" and "vulkan". Its driver UUID stays
 * its own: opaque handles do not pass between the APIs. Called under the
 * device lock while backends load, before any allocation exists. */
static void share_identity(uda_context *ctx, uda_device *added)
{
	for (uint32_t i = 0; i < ctx->device_count; i++) {
		uda_device *other = ctx->devices[i];
		if (other == added || (other->api == UDA_DEVICE_API_DRM) == (added->api == UDA_DEVICE_API_DRM) ||
		    !share_a_node(other, added))
			continue;
		uda_device *display = added->api == UDA_DEVICE_API_DRM ? added : other;
		const uda_device *gpu = display == added ? other : added;
		if (display->identity_adopted)
			continue;
		memcpy(display->device_uuid, gpu->device_uuid, UDA_UUID_SIZE);
		display->identity_adopted = true;
	}
}

uda_result uda_context_add_device(uda_context *ctx, const uda_device_create_info *info, uda_device **out_device)
{
	if (!ctx)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(ctx, info);
	UDA_CHECK_ARG(ctx, info->type == UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
	UDA_CHECK_ARG(ctx, info->next == NULL);
	UDA_CHECK_ARG(ctx, name_valid(info->name));
	UDA_CHECK_ARG(ctx, name_valid(info->backend_name));
	UDA_CHECK_ARG(ctx, info->interface);
	UDA_CHECK_ARG(ctx, uda_device_api_to_string(info->api) && info->api != UDA_DEVICE_API_ANY);
	const uda_device_interface *impl = info->interface;
	if (impl->version < UDA_DEVICE_INTERFACE_VERSION_1 || !impl->get_capability_sets)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "device %s: interface version %u without get_capability_sets", info->name,
		                             impl->version);
	if ((impl->allocate || impl->import) && !impl->free)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "device %s: allocates or imports without free",
		                             info->name);
	if (!impl->map != !impl->unmap)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "device %s: map and unmap come in a pair",
		                             info->name);

	uda_device *device = calloc(1, sizeof(*device));
	if (!device)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	device->tag = UDA_DEVICE_TAG;
	device->ctx = ctx;
	memcpy(device->device_uuid, info->device_uuid, UDA_UUID_SIZE);
	memcpy(device->driver_uuid, info->driver_uuid, UDA_UUID_SIZE);
	device->name = strdup(info->name);
	device->backend_name = strdup(info->backend_name);
	device->api = info->api;
	device->drm_primary = info->drm_primary;
	device->drm_render = info->drm_render;
	device->impl = info->interface;
	device->data = info->device_data;
	if (!device->name || !device->backend_name) {
		free(device->name);
		free(device->backend_name);
		free(device);
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	}

	/* Errors are only noted under the lock and set after it: setting one
	 * calls the log callback, which may call back into the context
	 * (enumerate its devices) and would deadlock on the lock. */
	uda_result result = UDA_SUCCESS;
	const uda_device *existing = NULL;
	pthread_mutex_lock(&ctx->device_lock);
	for (uint32_t i = 0; i < ctx->device_count && !existing; i++) {
		if (ctx->devices[i]->api == info->api &&
		    memcmp(ctx->devices[i]->device_uuid, info->device_uuid, UDA_UUID_SIZE) == 0)
			existing = ctx->devices[i];
	}
	if (existing) {
		result = UDA_ERROR_EXISTS;
	} else if (ctx->device_count == ctx->device_capacity) {
		uint32_t capacity = ctx->device_capacity ? ctx->device_capacity * 2 : 4;
		uda_device **devices = realloc(ctx->devices, capacity * sizeof(*devices));
		if (devices) {
			ctx->devices = devices;
			ctx->device_capacity = capacity;
		} else {
			result = UDA_ERROR_OUT_OF_MEMORY;
		}
	}
	if (result == UDA_SUCCESS) {
		ctx->devices[ctx->device_count++] = device;
		share_identity(ctx, device);
	}
	pthread_mutex_unlock(&ctx->device_lock);

	if (result != UDA_SUCCESS) {
		free(device->name);
		free(device->backend_name);
		free(device);
		/* `existing` stays valid unlocked: a registered device is only
		 * destroyed while its context is created or destroyed. */
		if (existing)
			return uda_context_set_error(ctx, result, "device %s: UUID already registered through %s by %s (%s)",
			                             info->name, uda_device_api_to_string(info->api), existing->name,
			                             existing->backend_name);
		return uda_context_set_error(ctx, result, "out of memory");
	}
	uda_context_log(ctx, UDA_LOG_INFO, "device %s (%s) registered", device->name, device->backend_name);
	if (out_device)
		*out_device = device;
	return UDA_SUCCESS;
}

void uda_device_destroy(uda_device *device)
{
	if (!device)
		return;
	if (device->impl->destroy)
		device->impl->destroy(device->data);
	free(device->name);
	free(device->backend_name);
	device->tag = 0;
	free(device);
}

uda_result uda_context_enumerate_devices(uda_context *ctx, uint32_t *count, uda_device **devices)
{
	if (!ctx)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(ctx, count);
	pthread_mutex_lock(&ctx->device_lock);
	uint32_t available = ctx->device_count;
	uint32_t capacity = *count;
	if (!devices) {
		*count = available;
	} else {
		uint32_t n = capacity < available ? capacity : available;
		memcpy(devices, ctx->devices, n * sizeof(*devices));
		*count = n;
	}
	pthread_mutex_unlock(&ctx->device_lock);
	/* After unlocking: setting an error calls the log callback. */
	if (devices && capacity < available)
		return uda_context_set_error(ctx, UDA_ERROR_BUFFER_TOO_SMALL,
		                             "an array of %u devices, the context has %u devices", capacity, available);
	return UDA_SUCCESS;
}

static bool api_matches(const uda_device *device, uda_device_api api)
{
	return api == UDA_DEVICE_API_ANY || device->api == api;
}

uda_result uda_context_find_device(uda_context *ctx, const uint8_t device_uuid[UDA_UUID_SIZE], uda_device_api api,
                                   uda_device **out_device)
{
	if (!ctx)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(ctx, device_uuid && out_device);
	UDA_CHECK_ARG(ctx, uda_device_api_to_string(api));
	uda_device *found = NULL;
	pthread_mutex_lock(&ctx->device_lock);
	for (uint32_t i = 0; i < ctx->device_count && !found; i++) {
		if (api_matches(ctx->devices[i], api) &&
		    memcmp(ctx->devices[i]->device_uuid, device_uuid, UDA_UUID_SIZE) == 0)
			found = ctx->devices[i];
	}
	pthread_mutex_unlock(&ctx->device_lock);
	if (!found)
		return uda_context_set_error(ctx, UDA_ERROR_NOT_FOUND, "no device with that UUID through %s",
		                             uda_device_api_to_string(api));
	*out_device = found;
	return UDA_SUCCESS;
}

static bool node_is(const uda_drm_node *node, dev_t rdev)
{
	return node->present && node->major == major(rdev) && node->minor == minor(rdev);
}

uda_result uda_context_find_device_by_drm_fd(uda_context *ctx, int drm_fd, uda_device_api api,
                                             uda_device **out_device)
{
	if (!ctx)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(ctx, out_device);
	UDA_CHECK_ARG(ctx, uda_device_api_to_string(api));
	struct stat st;
	if (drm_fd < 0 || fstat(drm_fd, &st) != 0)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "fd %d is not open", drm_fd);
	if (!S_ISCHR(st.st_mode))
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "fd %d is not a device node", drm_fd);
	uda_device *found = NULL;
	pthread_mutex_lock(&ctx->device_lock);
	for (uint32_t i = 0; i < ctx->device_count && !found; i++) {
		const uda_device *d = ctx->devices[i];
		if (api_matches(d, api) && (node_is(&d->drm_primary, st.st_rdev) || node_is(&d->drm_render, st.st_rdev)))
			found = ctx->devices[i];
	}
	pthread_mutex_unlock(&ctx->device_lock);
	if (!found)
		return uda_context_set_error(ctx, UDA_ERROR_NOT_FOUND, "no device behind DRM node %u:%u through %s",
		                             major(st.st_rdev), minor(st.st_rdev), uda_device_api_to_string(api));
	*out_device = found;
	return UDA_SUCCESS;
}

bool uda_device_same_hardware(const uda_device *a, const uda_device *b)
{
	return uda_device_is_live(a) && uda_device_is_live(b) && memcmp(a->device_uuid, b->device_uuid, UDA_UUID_SIZE) == 0 &&
	       memcmp(a->driver_uuid, b->driver_uuid, UDA_UUID_SIZE) == 0;
}

const char *uda_device_api_to_string(uda_device_api api)
{
	switch (api) {
	case UDA_DEVICE_API_ANY:
		return "ANY";
	case UDA_DEVICE_API_CPU:
		return "CPU";
	case UDA_DEVICE_API_VULKAN:
		return "VULKAN";
	case UDA_DEVICE_API_GL:
		return "GL";
	case UDA_DEVICE_API_DRM:
		return "DRM";
	case UDA_DEVICE_API_OTHER:
		return "OTHER";
	case UDA_DEVICE_API_DMA_HEAP:
		return "DMA_HEAP";
	case UDA_DEVICE_API_V4L2:
		return "V4L2";
	}
	return NULL;
}

uda_context *uda_device_get_context(const uda_device *device)
{
	return uda_device_is_live(device) ? device->ctx : NULL;
}

uda_result uda_device_get_native(const uda_device *device, void *out_native)
{
	if (!uda_device_is_live(device))
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(device->ctx, out_native);
	if (device->impl->version < UDA_DEVICE_INTERFACE_VERSION_2 || !device->impl->get_device_native)
		return uda_context_set_error(device->ctx, UDA_ERROR_UNSUPPORTED, "device %s has no native objects",
		                             device->name);
	return device->impl->get_device_native(device->data, device->ctx, out_native);
}

uda_result uda_device_get_info(const uda_device *device, uda_device_info *out_info)
{
	if (!uda_device_is_live(device))
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(device->ctx, out_info);
	UDA_CHECK_ARG(device->ctx, out_info->type == UDA_STRUCTURE_TYPE_DEVICE_INFO);
	UDA_CHECK_ARG(device->ctx, out_info->next == NULL);
	memcpy(out_info->device_uuid, device->device_uuid, UDA_UUID_SIZE);
	memcpy(out_info->driver_uuid, device->driver_uuid, UDA_UUID_SIZE);
	out_info->name = device->name;
	out_info->backend_name = device->backend_name;
	out_info->api = device->api;
	out_info->drm_primary = device->drm_primary;
	out_info->drm_render = device->drm_render;
	return UDA_SUCCESS;
}

uda_result uda_device_query_capability_sets(uda_device *device, const uda_assertion *assertion, const uda_usage *usage,
                                            uda_capability_set_list **out_list)
{
	uda_capability_set_list *list;
	uda_result result = capability_set_list_new(device->ctx, &list);
	if (result != UDA_SUCCESS)
		return result;
	result = device->impl->get_capability_sets(device->data, device->ctx, assertion, usage, list);
	if (result == UDA_SUCCESS && list->set_count == 0)
		result = uda_context_set_error(device->ctx, UDA_ERROR_UNSUPPORTED,
		                               "device %s has no capability set for %ux%u format 0x%08x", device->name,
		                               assertion->width, assertion->height, assertion->format);
	if (result != UDA_SUCCESS) {
		uda_capability_set_list_destroy(list);
		return result;
	}
	capability_set_list_tag_local(list, device->device_uuid);
	/* A backend may list a set twice, and re-owning LOCAL capabilities
	 * can make two sets equal. A repeat is never preferred over its first
	 * copy, only multiplies intersection work and cannot be serialized. */
	result = capability_set_list_remove_duplicates(list);
	if (result != UDA_SUCCESS) {
		uda_capability_set_list_destroy(list);
		return result;
	}
	*out_list = list;
	return UDA_SUCCESS;
}

uda_result uda_device_get_capability_sets(uda_device *device, const uda_assertion *assertion, const uda_usage *usage,
                                          uda_capability_set_list **out_list)
{
	if (!uda_device_is_live(device))
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(device->ctx, out_list);
	uda_result result = uda_assertion_validate(device->ctx, assertion);
	if (result == UDA_SUCCESS)
		result = uda_usage_validate(device->ctx, usage);
	if (result != UDA_SUCCESS)
		return result;
	return uda_device_query_capability_sets(device, assertion, usage, out_list);
}
