/*
 * The fds a GBM device handed out, by the file they refer to.
 *
 * A DMA-BUF or a memfd can be imported from the fd alone (its size, its
 * seals); an OPAQUE_FD cannot: only the driver knows what is behind it.
 * Where no DMA-BUF exists (lavapipe exports OPAQUE_FD), gbm_bo_import of
 * an fd from gbm_bo_get_fd finds here the metadata it was exported with,
 * as long as the exporting BO lives.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gbm_private.h"

struct uda_gbm_export {
	struct uda_gbm_export *next;
	struct uda_gbm_bo *bo;
	dev_t dev;
	ino_t ino;
	void *metadata;
	size_t metadata_size;
};

int uda_gbm_exports_add(struct uda_gbm_bo *bo, int fd)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return errno;
	struct uda_gbm_device *device = bo->device;
	pthread_mutex_lock(&device->lock);
	for (struct uda_gbm_export *e = device->exports; e; e = e->next) {
		if (e->bo == bo && e->dev == st.st_dev && e->ino == st.st_ino) {
			pthread_mutex_unlock(&device->lock);
			return 0;
		}
	}
	pthread_mutex_unlock(&device->lock);

	size_t size = 0;
	uda_result result = uda_allocation_serialize_metadata(bo->allocation, bo->handle_type, NULL, 0, &size);
	struct uda_gbm_export *entry = result == UDA_SUCCESS ? calloc(1, sizeof(*entry)) : NULL;
	void *metadata = entry ? malloc(size) : NULL;
	if (metadata)
		result = uda_allocation_serialize_metadata(bo->allocation, bo->handle_type, metadata, size, &size);
	if (!metadata || result != UDA_SUCCESS) {
		free(metadata);
		free(entry);
		return result != UDA_SUCCESS ? uda_gbm_errno(result) : ENOMEM;
	}
	*entry = (struct uda_gbm_export){NULL, bo, st.st_dev, st.st_ino, metadata, size};
	pthread_mutex_lock(&device->lock);
	entry->next = device->exports;
	device->exports = entry;
	pthread_mutex_unlock(&device->lock);
	return 0;
}

void uda_gbm_exports_forget(struct uda_gbm_bo *bo)
{
	struct uda_gbm_device *device = bo->device;
	pthread_mutex_lock(&device->lock);
	for (struct uda_gbm_export **link = &device->exports; *link;) {
		struct uda_gbm_export *e = *link;
		if (e->bo == bo) {
			*link = e->next;
			free(e->metadata);
			free(e);
		} else {
			link = &e->next;
		}
	}
	pthread_mutex_unlock(&device->lock);
}

bool uda_gbm_exports_find(struct uda_gbm_device *device, int fd, void **out_metadata, size_t *out_size)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return false;
	bool found = false;
	pthread_mutex_lock(&device->lock);
	for (struct uda_gbm_export *e = device->exports; e && !found; e = e->next) {
		if (e->dev != st.st_dev || e->ino != st.st_ino)
			continue;
		*out_metadata = malloc(e->metadata_size);
		if (*out_metadata) {
			memcpy(*out_metadata, e->metadata, e->metadata_size);
			*out_size = e->metadata_size;
			found = true;
		}
	}
	pthread_mutex_unlock(&device->lock);
	return found;
}

void uda_gbm_exports_finish(struct uda_gbm_device *device)
{
	while (device->exports) {
		struct uda_gbm_export *e = device->exports;
		device->exports = e->next;
		free(e->metadata);
		free(e);
	}
}
