/*
 * CPU access: gbm_bo_map, gbm_bo_unmap, gbm_bo_write.
 *
 * Only pitch-linear memory is mapped: a driver-private layout read byte by
 * byte means nothing, and uda has no copy engine to detile through (Mesa's
 * backend blits on the GPU). BOs created with GBM_BO_USE_WRITE, _LINEAR or
 * _CURSOR are linear and mappable. Maps nest; the allocation is mapped
 * once, with CPU access bracketed per map for non-coherent memory.
 */
#include <drm_fourcc.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gbm_private.h"

struct mapping {
	struct uda_gbm_bo *bo;
	uint32_t access;
};

static uint32_t access_of(uint32_t flags)
{
	uint32_t access = 0;
	if (flags & GBM_BO_TRANSFER_READ)
		access |= UDA_ACCESS_READ;
	if (flags & GBM_BO_TRANSFER_WRITE)
		access |= UDA_ACCESS_WRITE;
	return access;
}

/* Maps the allocation if nothing has yet; every map takes a reference.
 * The count is the device lock's, as Mesa's backend maps under its
 * device mutex: two threads mapping one BO map it once. */
static int map_reference(struct uda_gbm_bo *bo)
{
	if (bo->modifier != DRM_FORMAT_MOD_LINEAR) {
		uda_gbm_log(bo->device, UDA_LOG_INFO,
		            "gbm_bo_map: the layout is not pitch linear (create with GBM_BO_USE_LINEAR or _WRITE)");
		return ENOTSUP;
	}
	int error = 0;
	pthread_mutex_lock(&bo->device->lock);
	if (bo->map_count == 0) {
		void *base = NULL;
		uda_result result = uda_allocation_map(bo->allocation, UDA_ACCESS_READ | UDA_ACCESS_WRITE, &base);
		if (result != UDA_SUCCESS) {
			uda_gbm_log(bo->device, UDA_LOG_INFO, "gbm_bo_map: %s", uda_context_get_error(bo->device->ctx));
			error = uda_gbm_errno(result);
		} else {
			bo->map_base = base;
		}
	}
	if (!error)
		bo->map_count++;
	pthread_mutex_unlock(&bo->device->lock);
	return error;
}

static void map_release(struct uda_gbm_bo *bo)
{
	pthread_mutex_lock(&bo->device->lock);
	if (bo->map_count && --bo->map_count == 0) {
		uda_allocation_unmap(bo->allocation);
		bo->map_base = NULL;
	}
	pthread_mutex_unlock(&bo->device->lock);
}

void *uda_gbm_bo_map(struct gbm_bo *gbm_bo, uint32_t x, uint32_t y, uint32_t width, uint32_t height,
                     uint32_t flags, uint32_t *stride, void **map_data)
{
	struct uda_gbm_bo *bo = uda_gbm_bo_from(gbm_bo);
	uda_format_info format;
	/* No transfer flags maps for both, as Mesa's backend does. */
	const uint32_t access = flags ? access_of(flags) : UDA_ACCESS_READ | UDA_ACCESS_WRITE;
	if (!access || flags & ~(uint32_t)GBM_BO_TRANSFER_READ_WRITE || (uint64_t)x + width > bo->metadata.width ||
	    (uint64_t)y + height > bo->metadata.height ||
	    uda_format_get_info(bo->metadata.format, &format) != UDA_SUCCESS) {
		errno = EINVAL;
		return NULL;
	}
	struct mapping *mapping = malloc(sizeof(*mapping));
	if (!mapping) {
		errno = ENOMEM;
		return NULL;
	}
	int error = map_reference(bo);
	if (error) {
		free(mapping);
		errno = error;
		return NULL;
	}
	uda_allocation_begin_cpu_access(bo->allocation, access);
	*mapping = (struct mapping){bo, access};
	*map_data = mapping;
	const uda_plane_layout *plane = &bo->metadata.planes[0];
	*stride = (uint32_t)plane->pitch;
	const uint64_t column = (uint64_t)x / format.planes[0].block_width * format.planes[0].bytes_per_block;
	return bo->map_base + plane->offset + (uint64_t)y * plane->pitch + column;
}

void uda_gbm_bo_unmap(struct gbm_bo *gbm_bo, void *map_data)
{
	struct uda_gbm_bo *bo = uda_gbm_bo_from(gbm_bo);
	struct mapping *mapping = map_data;
	if (!mapping || mapping->bo != bo)
		return;
	uda_allocation_end_cpu_access(bo->allocation, mapping->access);
	free(mapping);
	map_release(bo);
}

int uda_gbm_bo_write(struct gbm_bo *gbm_bo, const void *buf, size_t count)
{
	struct uda_gbm_bo *bo = uda_gbm_bo_from(gbm_bo);
	const uint64_t offset = bo->metadata.planes[0].offset;
	if (!buf || count > bo->metadata.size - offset) {
		errno = EINVAL;
		return -1;
	}
	int error = map_reference(bo);
	if (error) {
		errno = error;
		return -1;
	}
	uda_allocation_begin_cpu_access(bo->allocation, UDA_ACCESS_WRITE);
	memcpy(bo->map_base + offset, buf, count);
	uda_allocation_end_cpu_access(bo->allocation, UDA_ACCESS_WRITE);
	map_release(bo);
	return 0;
}
