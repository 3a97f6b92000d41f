/*
 * gbm_surface over a uda_surface.
 *
 * The GBM user is the consumer: gbm_surface_lock_front_buffer acquires the
 * oldest frame queued (FIFO, the order a producer with swap interval 1
 * queues in) and gbm_surface_release_buffer gives it back. The producer is
 * whoever holds the uda_surface (uda_gbm_surface_get_surface): uda's EGL
 * platform rendering into it as a window, a Vulkan renderer, a decoder.
 * Each buffer keeps one gbm_bo for the surface's life, so user data set
 * on it (a KMS framebuffer id) is there again the next time it is locked.
 *
 * A GBM window never changes size; a producer of its own may resize the
 * uda_surface (uda_surface_resize). The old buffers are then retired once
 * released, as Mesa's never are: their BOs must be unmapped by then, and
 * are freed, user data and all, as the GBM user releases them (or, for
 * those it had released before the resize, at its next release or lock),
 * so that a KMS framebuffer kept in user data does not hold retired
 * memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbm_private.h"
#include "sync_fence.h"

/* Mesa's GBM surfaces have four color buffers; GBM users are written for
 * about that many. */
#define SURFACE_BUFFERS 4u
#define MAX_WRAPPERS (2u * UDA_SURFACE_MAX_BUFFERS)

struct uda_gbm_surface {
	struct gbm_surface base;
	struct uda_gbm_device *device;
	uda_surface *surface;
	uint64_t *modifiers;
	struct uda_gbm_bo *wrappers[MAX_WRAPPERS];
	uint32_t locked_count;
};

static struct uda_gbm_surface *surface_from(struct gbm_surface *surface)
{
	return (struct uda_gbm_surface *)surface;
}

bool uda_gbm_surface_is_ours(const struct gbm_surface *surface)
{
	return surface && uda_gbm_device_is_ours(surface->gbm);
}

static uda_result create_queue(struct uda_gbm_request *request, void *out_surface)
{
	const uda_surface_create_info info = {
		.type = UDA_STRUCTURE_TYPE_SURFACE_CREATE_INFO,
		.next = &request->filter,
		.width = request->assertion.width,
		.height = request->assertion.height,
		.format = request->assertion.format,
		.device_count = request->info.device_count,
		.devices = request->devices,
		.buffer_count = SURFACE_BUFFERS,
		.present_mode = UDA_PRESENT_MODE_FIFO,
	};
	return uda_surface_create(uda_device_get_context(request->devices[0].device), &info, out_surface);
}

struct gbm_surface *uda_gbm_surface_create(struct gbm_device *gbm, uint32_t width, uint32_t height, uint32_t format,
                                           uint32_t flags, const uint64_t *modifiers, const unsigned count)
{
	struct uda_gbm_device *device = uda_gbm_device_from(gbm);
	if (width == 0 || height == 0 || (count && !modifiers)) {
		errno = EINVAL;
		return NULL;
	}
	format = device->core ? device->core->v0.format_canonicalize(format) : format;
	flags = uda_gbm_usage_of(device->base.v0.backend_version, flags, count);
	struct uda_gbm_request request;
	int error = uda_gbm_request_init(device, width, height, format, flags, modifiers, count, &request);
	if (error) {
		errno = error;
		return NULL;
	}
	struct uda_gbm_surface *surface = calloc(1, sizeof(*surface));
	if (!surface || (count && !(surface->modifiers = malloc(sizeof(uint64_t) * count)))) {
		free(surface);
		errno = ENOMEM;
		return NULL;
	}
	/* Negotiates and allocates the first buffer: an impossible surface
	 * fails here, as with Mesa's backend. */
	uda_result result = uda_gbm_request_run(device, &request, create_queue, &surface->surface);
	if (result != UDA_SUCCESS) {
		uda_gbm_log(device, UDA_LOG_INFO, "gbm_surface_create: %s", uda_context_get_error(device->ctx));
		free(surface->modifiers);
		free(surface);
		errno = uda_gbm_errno(result);
		return NULL;
	}
	if (count)
		memcpy(surface->modifiers, modifiers, sizeof(uint64_t) * count);
	surface->device = device;
	surface->base.gbm = gbm;
	surface->base.v0.width = width;
	surface->base.v0.height = height;
	surface->base.v0.format = format;
	surface->base.v0.flags = flags;
	surface->base.v0.modifiers = surface->modifiers;
	surface->base.v0.count = count;
	return &surface->base;
}

/* BOs of buffers of a size the surface no longer has, which a resize
 * retired: the uda_surface frees their memory once they are released.
 * `keep`: the buffer being locked, whose BO stays while it is (ids start
 * at 1). */
static void free_retired_wrappers(struct uda_gbm_surface *surface, uint64_t keep)
{
	uint32_t width = 0, height = 0;
	if (uda_surface_get_size(surface->surface, &width, &height) != UDA_SUCCESS)
		return;
	for (uint32_t i = 0; i < MAX_WRAPPERS; i++) {
		struct uda_gbm_bo *bo = surface->wrappers[i];
		if (bo && !bo->locked && bo->buffer_id != keep && (bo->base.v0.width != width || bo->base.v0.height != height)) {
			uda_gbm_bo_free(bo);
			surface->wrappers[i] = NULL;
		}
	}
}

/* The BO of a buffer, made the first time the buffer is locked. */
static struct uda_gbm_bo *wrapper_for(struct uda_gbm_surface *surface, const uda_surface_frame *frame)
{
	int free_slot = -1, stale_slot = -1;
	for (uint32_t i = 0; i < MAX_WRAPPERS; i++) {
		struct uda_gbm_bo *bo = surface->wrappers[i];
		if (bo && bo->buffer_id == frame->buffer_id && bo->allocation == frame->allocation)
			return bo;
		if (!bo && free_slot < 0)
			free_slot = (int)i;
		/* Buffer ids only grow: the smallest unlocked one is the
		 * likeliest to be gone. */
		if (bo && !bo->locked &&
		    (stale_slot < 0 || bo->buffer_id < surface->wrappers[stale_slot]->buffer_id))
			stale_slot = (int)i;
	}
	int slot = free_slot >= 0 ? free_slot : stale_slot;
	if (slot < 0)
		return NULL;
	struct uda_gbm_bo *bo = uda_gbm_bo_wrap(surface->device, frame->allocation, surface->base.v0.format, surface);
	if (!bo)
		return NULL;
	bo->buffer_id = frame->buffer_id;
	uda_gbm_bo_free(surface->wrappers[slot]);
	surface->wrappers[slot] = bo;
	return bo;
}

struct gbm_bo *uda_gbm_surface_lock_front_buffer(struct gbm_surface *gbm_surface)
{
	struct uda_gbm_surface *surface = surface_from(gbm_surface);
	uda_surface_frame frame;
	int acquire_fence = -1;
	uda_result result = uda_surface_acquire_fenced(surface->surface, 0, &frame, &acquire_fence);
	if (result != UDA_SUCCESS) {
		/* Nothing was queued since the last lock. */
		errno = uda_gbm_errno(result);
		return NULL;
	}
	/* GBM hands out no fence and its callers lock right after the swap:
	 * a frame still being rendered (the EGL platform's native fences) is
	 * waited for here rather than refused. */
	sync_fence_wait_and_close(acquire_fence);
	free_retired_wrappers(surface, frame.buffer_id);
	errno = 0; /* a failure below reports its own, not the wait's EINTR */
	struct uda_gbm_bo *bo = wrapper_for(surface, &frame);
	if (!bo) {
		int error = errno ? errno : ENOMEM;
		uda_surface_release(surface->surface, frame.buffer_id);
		errno = error;
		return NULL;
	}
	bo->locked = true;
	surface->locked_count++;
	return &bo->base;
}

void uda_gbm_surface_release_buffer(struct gbm_surface *gbm_surface, struct gbm_bo *gbm_bo)
{
	struct uda_gbm_surface *surface = surface_from(gbm_surface);
	/* libgbm does not check that the BO is of this device: another
	 * backend's is no uda_gbm_bo, and is not read as one. */
	if (!gbm_bo || gbm_bo->gbm != gbm_surface->gbm)
		return;
	struct uda_gbm_bo *bo = uda_gbm_bo_from(gbm_bo);
	if (bo->surface != surface || !bo->locked)
		return;
	bo->locked = false;
	surface->locked_count--;
	/* Before the release, which frees a retired buffer's memory. */
	const uint64_t buffer_id = bo->buffer_id;
	free_retired_wrappers(surface, 0);
	uda_surface_release(surface->surface, buffer_id);
}

int uda_gbm_surface_has_free_buffers(struct gbm_surface *gbm_surface)
{
	return surface_from(gbm_surface)->locked_count < SURFACE_BUFFERS;
}

void uda_gbm_surface_destroy(struct gbm_surface *gbm_surface)
{
	struct uda_gbm_surface *surface = surface_from(gbm_surface);
	/* The BOs first: their user data's destructors may still look at
	 * them, and their allocations die with the uda_surface. */
	for (uint32_t i = 0; i < MAX_WRAPPERS; i++)
		uda_gbm_bo_free(surface->wrappers[i]);
	uda_surface_destroy(surface->surface);
	free(surface->modifiers);
	free(surface);
}

uda_result uda_gbm_surface_get_surface(struct gbm_surface *surface, uda_surface **out_surface)
{
	if (!uda_gbm_surface_is_ours(surface) || !out_surface)
		return UDA_ERROR_INVALID_ARGUMENT;
	*out_surface = surface_from(surface)->surface;
	return UDA_SUCCESS;
}
