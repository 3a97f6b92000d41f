/* The only place the drm backend touches the kernel: listing DRM devices
 * (drmGetDevices2), reading a display's planes, dumb buffers, PRIME and
 * DMA_BUF_IOCTL_SYNC. Everything above it takes a struct drm_io, so the
 * device logic runs in tests on recorded displays with no node at all. */
#ifndef UDA_DRM_IO_H
#define UDA_DRM_IO_H

#include <stdbool.h>
#include <stdint.h>

#include <uda/uda.h>

#include "drm_scanout.h"

#define DRM_IO_PATH_MAX 64
#define DRM_IO_MAX_DEVICES 16

#ifdef __cplusplus
extern "C" {
#endif

struct drm_node_record {
	/* Empty where the device has no such node. */
	char primary_path[DRM_IO_PATH_MAX];
	char render_path[DRM_IO_PATH_MAX];
	uda_drm_node primary, render;
	/* "pci:0000:01:00.0", "platform:gpu@ff9a0000": the same in every
	 * process, so it names the device when no other API does. */
	char bus[DRM_IO_PATH_MAX];
};

struct drm_dumb_buffer {
	uint32_t handle;
	uint32_t pitch;
	uint64_t size;
};

struct drm_io {
	/* The DRM devices there are (at most `capacity`); their count. */
	uint32_t (*list)(void *data, struct drm_node_record *out, uint32_t capacity);
	/* O_RDWR | O_CLOEXEC; -errno on failure. */
	int (*open)(void *data, const char *path);
	void (*close)(void *data, int fd);
	/* The kernel driver's name (drmGetVersion); 0 or -errno. */
	int (*driver_name)(void *data, int fd, char *out, uint32_t capacity);
	/* Planes (universal planes on), their IN_FORMATS and type, the mode
	 * config limits and cursor size; 0 or -errno. The record's planes
	 * are malloc'ed: drm_display_record_finish frees them. */
	int (*read_display)(void *data, int fd, struct drm_display_record *out);
	/* DRM_IOCTL_MODE_CREATE_DUMB; 0 or -errno. */
	int (*create_dumb)(void *data, int fd, uint32_t width, uint32_t height, uint32_t bpp,
	                   struct drm_dumb_buffer *out);
	/* DRM_IOCTL_GEM_CLOSE (a dumb buffer or a PRIME import). */
	void (*close_handle)(void *data, int fd, uint32_t handle);
	/* drmPrimeHandleToFD, read-write and close-on-exec: a DMA-BUF fd or
	 * -errno. */
	int (*export_handle)(void *data, int fd, uint32_t handle);
	/* drmPrimeFDToHandle; 0 or -errno. */
	int (*import_dma_buf)(void *data, int fd, int dma_buf, uint32_t *out_handle);
	/* DMA_BUF_IOCTL_SYNC, START or END with READ and/or WRITE. */
	int (*sync)(void *data, int dma_buf, bool start, bool read, bool write);
	void *data;
};

/* libdrm and the kernel's ioctls. */
extern const struct drm_io drm_io_kernel;

void drm_display_record_finish(struct drm_display_record *display);

#ifdef __cplusplus
}
#endif

#endif
