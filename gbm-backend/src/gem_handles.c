/*
 * GEM handles on the GBM device's DRM fd, with a count per handle: the
 * kernel returns the same handle for every import of one DMA-BUF on one
 * fd, and closing it for one BO would pull it from under the others.
 */
#include <errno.h>
#include <stdlib.h>

#include <xf86drm.h>

#include "gbm_private.h"

struct uda_gbm_gem_handle {
	uint32_t handle;
	uint32_t references;
};

int uda_gbm_gem_handle_get(struct uda_gbm_device *device, int dma_buf_fd, uint32_t *out_handle)
{
	/* The kernel's answer and the count go together under the lock: a
	 * handle another thread's last put closes between them would be
	 * counted here as live, and the kernel may then give its number to
	 * another buffer. */
	pthread_mutex_lock(&device->lock);
	uint32_t handle;
	if (drmPrimeFDToHandle(device->base.v0.fd, dma_buf_fd, &handle) != 0) {
		const int error = errno ? errno : EINVAL;
		pthread_mutex_unlock(&device->lock);
		return error;
	}
	int error = 0;
	uint32_t i = 0;
	while (i < device->gem_handle_count && device->gem_handles[i].handle != handle)
		i++;
	if (i == device->gem_handle_count) {
		if (device->gem_handle_count == device->gem_handle_capacity) {
			uint32_t capacity = device->gem_handle_capacity ? device->gem_handle_capacity * 2 : 16;
			struct uda_gbm_gem_handle *grown =
			    realloc(device->gem_handles, sizeof(*grown) * capacity);
			if (grown) {
				device->gem_handles = grown;
				device->gem_handle_capacity = capacity;
			}
		}
		if (device->gem_handle_count < device->gem_handle_capacity) {
			device->gem_handles[device->gem_handle_count++] = (struct uda_gbm_gem_handle){handle, 0};
		} else {
			/* Counted by no one, so ours to close. */
			drmCloseBufferHandle(device->base.v0.fd, handle);
			error = ENOMEM;
		}
	}
	if (!error)
		device->gem_handles[i].references++;
	pthread_mutex_unlock(&device->lock);
	if (error)
		return error;
	*out_handle = handle;
	return 0;
}

void uda_gbm_gem_handle_put(struct uda_gbm_device *device, uint32_t handle)
{
	pthread_mutex_lock(&device->lock);
	for (uint32_t i = 0; i < device->gem_handle_count; i++) {
		if (device->gem_handles[i].handle != handle)
			continue;
		if (--device->gem_handles[i].references == 0) {
			drmCloseBufferHandle(device->base.v0.fd, handle);
			device->gem_handles[i] = device->gem_handles[--device->gem_handle_count];
		}
		break;
	}
	pthread_mutex_unlock(&device->lock);
}

void uda_gbm_gem_handles_finish(struct uda_gbm_device *device)
{
	for (uint32_t i = 0; i < device->gem_handle_count; i++)
		drmCloseBufferHandle(device->base.v0.fd, device->gem_handles[i].handle);
	free(device->gem_handles);
	device->gem_handles = NULL;
	device->gem_handle_count = device->gem_handle_capacity = 0;
}
