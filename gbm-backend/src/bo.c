/*
 * Buffer objects: a uda allocation and what GBM callers ask of it
 * (planes, strides, the modifier, fds and GEM handles).
 */
#include <drm_fourcc.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbm_private.h"

static uint32_t read_u32(const void *payload)
{
	const uint8_t *p = payload;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The layout's modifier (INVALID for a driver-private one) and the handle
 * type fds are exported as. */
static uda_result read_set(const uda_capability_set_list *set, uint64_t *out_modifier,
                           uda_handle_type *out_handle)
{
	uda_result result = uda_capability_set_list_get_modifier(set, 0, out_modifier);
	if (result != UDA_SUCCESS)
		return result;
	uint32_t count = 0;
	result = uda_capability_set_list_get_capability_count(set, 0, &count);
	*out_handle = UDA_HANDLE_TYPE_NONE;
	for (uint32_t i = 0; result == UDA_SUCCESS && i < count; i++) {
		uda_capability cap;
		result = uda_capability_set_list_get_capability(set, 0, i, &cap);
		if (result != UDA_SUCCESS || cap.vendor != UDA_VENDOR_NONE || cap.name != UDA_CAPABILITY_HANDLE ||
		    cap.length != 4)
			continue;
		uda_handle_type handle = (uda_handle_type)read_u32(cap.payload);
		if (*out_handle == UDA_HANDLE_TYPE_NONE || handle == UDA_HANDLE_TYPE_DMA_BUF)
			*out_handle = handle;
	}
	return result;
}

static void set_no_handle(struct uda_gbm_bo *bo)
{
	/* Every member of the union reads -1: no handle. */
	bo->base.v0.handle.s64 = -1;
}

/* A GEM handle on the device's DRM fd, which scanout (drmModeAddFB2)
 * needs; only a DMA-BUF can become one. */
static void attach_gem_handle(struct uda_gbm_bo *bo)
{
	set_no_handle(bo);
	if (!bo->device->fd_is_drm || bo->handle_type != UDA_HANDLE_TYPE_DMA_BUF)
		return;
	int fd = -1;
	if (uda_allocation_export(bo->allocation, UDA_HANDLE_TYPE_DMA_BUF, &fd) != UDA_SUCCESS)
		return;
	uint32_t handle;
	if (uda_gbm_gem_handle_get(bo->device, fd, &handle) == 0) {
		bo->has_gem_handle = true;
		bo->gem_handle = handle;
		bo->base.v0.handle.u64 = 0;
		bo->base.v0.handle.u32 = handle;
	}
	close(fd);
}

struct uda_gbm_bo *uda_gbm_bo_wrap(struct uda_gbm_device *device, uda_allocation *allocation, uint32_t format,
                                   struct uda_gbm_surface *surface)
{
	struct uda_gbm_bo *bo = calloc(1, sizeof(*bo));
	const uda_capability_set_list *set = NULL;
	uda_result result = bo ? UDA_SUCCESS : UDA_ERROR_OUT_OF_MEMORY;
	if (result == UDA_SUCCESS) {
		bo->metadata.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA;
		result = uda_allocation_get_metadata(allocation, &bo->metadata);
	}
	if (result == UDA_SUCCESS)
		result = uda_allocation_get_capability_set(allocation, &set);
	if (result == UDA_SUCCESS)
		result = read_set(set, &bo->modifier, &bo->handle_type);
	if (result != UDA_SUCCESS) {
		free(bo);
		if (!surface)
			uda_allocation_destroy(allocation);
		errno = uda_gbm_errno(result);
		return NULL;
	}
	bo->device = device;
	bo->allocation = allocation;
	bo->surface = surface;
	bo->base.gbm = &device->base;
	bo->base.v0.width = bo->metadata.width;
	bo->base.v0.height = bo->metadata.height;
	bo->base.v0.format = format;
	bo->base.v0.stride = (uint32_t)bo->metadata.planes[0].pitch;
	attach_gem_handle(bo);
	return bo;
}

void uda_gbm_bo_free(struct uda_gbm_bo *bo)
{
	if (!bo)
		return;
	if (bo->base.v0.destroy_user_data)
		bo->base.v0.destroy_user_data(&bo->base, bo->base.v0.user_data);
	bo->base.v0.destroy_user_data = NULL;
	uda_gbm_exports_forget(bo);
	if (bo->has_gem_handle)
		uda_gbm_gem_handle_put(bo->device, bo->gem_handle);
	/* uda_allocation_destroy unmaps a mapping left in place; a surface's
	 * buffer is unmapped here and destroyed by its uda_surface. */
	if (bo->surface) {
		if (bo->map_count)
			uda_allocation_unmap(bo->allocation);
	} else {
		uda_allocation_destroy(bo->allocation);
	}
	free(bo);
}

static uint32_t canonical_format(struct uda_gbm_device *device, uint32_t format)
{
	return device->core ? device->core->v0.format_canonicalize(format) : format;
}

static uda_result negotiate_allocate(struct uda_gbm_request *request, void *out_allocation)
{
	uda_context *ctx = uda_device_get_context(request->devices[0].device);
	return uda_negotiate_allocate(ctx, &request->info, out_allocation, NULL, NULL);
}

struct gbm_bo *uda_gbm_bo_create(struct gbm_device *gbm, uint32_t width, uint32_t height, uint32_t format,
                                 uint32_t flags, const uint64_t *modifiers, const unsigned int count)
{
	struct uda_gbm_device *device = uda_gbm_device_from(gbm);
	if (width == 0 || height == 0 || (count && !modifiers)) {
		errno = EINVAL;
		return NULL;
	}
	format = canonical_format(device, format);
	flags = uda_gbm_usage_of(device->base.v0.backend_version, flags, count);
	struct uda_gbm_request request;
	int error = uda_gbm_request_init(device, width, height, format, flags, modifiers, count, &request);
	if (error) {
		errno = error;
		return NULL;
	}
	uda_allocation *allocation = NULL;
	uda_result result = uda_gbm_request_run(device, &request, negotiate_allocate, &allocation);
	if (result != UDA_SUCCESS) {
		uda_gbm_log(device, UDA_LOG_INFO, "gbm_bo_create %ux%u %.4s flags 0x%x: %s", width, height,
		            (const char *)&format, flags, uda_context_get_error(device->ctx));
		errno = uda_gbm_errno(result);
		return NULL;
	}
	struct uda_gbm_bo *bo = uda_gbm_bo_wrap(device, allocation, format, NULL);
	return bo ? &bo->base : NULL;
}

void uda_gbm_bo_destroy(struct gbm_bo *gbm_bo)
{
	struct uda_gbm_bo *bo = uda_gbm_bo_from(gbm_bo);
	/* The loader ran the user data's destructor already. */
	bo->base.v0.destroy_user_data = NULL;
	bo->base.v0.user_data = NULL;
	/* A surface's buffer stays the surface's (Mesa's backend too frees
	 * them only with the surface). */
	if (bo->surface)
		return;
	uda_gbm_bo_free(bo);
}

static bool plane_valid(struct uda_gbm_bo *bo, int plane)
{
	if (plane < 0 || (uint32_t)plane >= bo->metadata.plane_count) {
		errno = EINVAL;
		return false;
	}
	return true;
}

int uda_gbm_bo_get_plane_fd(struct gbm_bo *gbm_bo, int plane)
{
	struct uda_gbm_bo *bo = uda_gbm_bo_from(gbm_bo);
	if (!plane_valid(bo, plane))
		return -1;
	if (bo->handle_type == UDA_HANDLE_TYPE_NONE) {
		errno = EINVAL;
		return -1;
	}
	/* Every plane lives in the one memory; the offsets tell them apart. */
	int fd = -1;
	uda_result result = uda_allocation_export(bo->allocation, bo->handle_type, &fd);
	if (result != UDA_SUCCESS) {
		uda_gbm_log(bo->device, UDA_LOG_INFO, "gbm_bo_get_fd: %s", uda_context_get_error(bo->device->ctx));
		errno = uda_gbm_errno(result);
		return -1;
	}
	int error = uda_gbm_exports_add(bo, fd);
	if (error) {
		close(fd);
		errno = error;
		return -1;
	}
	return fd;
}

int uda_gbm_bo_get_fd(struct gbm_bo *bo)
{
	return uda_gbm_bo_get_plane_fd(bo, 0);
}

int uda_gbm_bo_get_planes(struct gbm_bo *bo)
{
	return (int)uda_gbm_bo_from(bo)->metadata.plane_count;
}

union gbm_bo_handle uda_gbm_bo_get_handle(struct gbm_bo *gbm_bo, int plane)
{
	struct uda_gbm_bo *bo = uda_gbm_bo_from(gbm_bo);
	union gbm_bo_handle none = {.s64 = -1};
	if (!plane_valid(bo, plane))
		return none;
	return bo->base.v0.handle;
}

uint32_t uda_gbm_bo_get_stride(struct gbm_bo *gbm_bo, int plane)
{
	struct uda_gbm_bo *bo = uda_gbm_bo_from(gbm_bo);
	return plane_valid(bo, plane) ? (uint32_t)bo->metadata.planes[plane].pitch : 0;
}

uint32_t uda_gbm_bo_get_offset(struct gbm_bo *gbm_bo, int plane)
{
	struct uda_gbm_bo *bo = uda_gbm_bo_from(gbm_bo);
	return plane_valid(bo, plane) ? (uint32_t)bo->metadata.planes[plane].offset : 0;
}

uint64_t uda_gbm_bo_get_modifier(struct gbm_bo *bo)
{
	return uda_gbm_bo_from(bo)->modifier;
}

uda_result uda_gbm_bo_get_allocation(struct gbm_bo *bo, uda_allocation **out_allocation)
{
	if (!bo || !uda_gbm_device_is_ours(bo->gbm) || !out_allocation)
		return UDA_ERROR_INVALID_ARGUMENT;
	*out_allocation = uda_gbm_bo_from(bo)->allocation;
	return UDA_SUCCESS;
}
