/* Window surfaces of wl_egl_windows (libwayland-egl's backend ABI): GL
 * renders into the buffers of a uda_surface the window owns, and each
 * queued frame goes to the compositor as a wl_buffer, attached, damaged
 * and committed on the application's wl_surface through a wrapper on the
 * platform's own event queue. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "wayland_platform.h"

/* Swap interval 1 waits this long for the previous frame's callback; a
 * compositor that stopped sending them (a hidden window, a stalled
 * compositor) slows the application to this pace instead of blocking it
 * for good. */
#define WAYLAND_FRAME_TIMEOUT_MS 1000
/* How long a dequeue waits for the compositor to release a buffer. */
#define WAYLAND_RELEASE_TIMEOUT_MS 5000

/* Versions 3 and later carry the version first; older libwayland-egl put
 * the wl_surface pointer there (Mesa tells the two apart the same way). */
static bool is_wl_egl_window(const struct wl_egl_window *native)
{
	if (!wayland_readable(native, sizeof(*native)) || native->version < 3 || native->version > 0xffff)
		return false;
	return wayland_readable(native->surface, sizeof(void *)) &&
	       *(const struct wl_interface *const *)native->surface == &wl_surface_interface;
}

/* wl_egl_window_resize, on any of the application's threads: the render
 * thread may be replacing the window's uda_surface meanwhile
 * (wayland_buffers_follow_feedback), so the current one is resized under
 * the lock that guards the exchange. */
static void native_resized(struct wl_egl_window *native, void *data)
{
	struct wayland_window *window = data;
	struct uda_platform *platform = window->surface->display->platform;
	if (native->width <= 0 || native->height <= 0)
		return;
	pthread_mutex_lock(&platform->lock);
	uda_surface *buffers = window->surface->window;
	const uda_result resized =
	        buffers ? uda_surface_resize(buffers, (uint32_t)native->width, (uint32_t)native->height)
	                : UDA_ERROR_INVALID_ARGUMENT;
	pthread_mutex_unlock(&platform->lock);
	if (resized == UDA_SUCCESS)
		platform_window_resized(window->surface);
}

/* wl_egl_window_destroy: the native window goes before the EGLSurface.
 * Later swaps and eglMakeCurrent fail with EGL_BAD_NATIVE_WINDOW. */
static void native_destroyed(void *data)
{
	struct wayland_window *window = data;
	struct uda_platform *platform = window->surface->display->platform;
	pthread_mutex_lock(&platform->lock);
	window->native = NULL;
	window->surface->lost = true;
	pthread_mutex_unlock(&platform->lock);
}

static bool connection_lost(struct wayland_window *window)
{
	if (!window->disconnected && wl_display_get_error(window->wayland->native) != 0) {
		window->disconnected = true;
		platform_debug("Wayland: the connection to the compositor failed (%s)",
		               strerror(wl_display_get_error(window->wayland->native)));
	}
	return window->disconnected;
}

static bool wayland_dequeue(struct platform_surface *surface, uda_surface *buffers, uda_surface_buffer *out_buffer,
                            int *out_release_fence)
{
	(void)buffers;           /* the kind's own: surface->window never goes under it */
	(void)out_release_fence; /* the compositor's releases come as events */
	struct wayland_window *window = surface->window_data;
	struct uda_platform *platform = surface->display->platform;
	/* Releases and feedback that came meanwhile. */
	if (wayland_display_dispatch(window->wayland, window->queue, 0) >= 0)
		wayland_buffers_follow_feedback(window);
	const int64_t deadline = wayland_now_ms() + WAYLAND_RELEASE_TIMEOUT_MS;
	for (;;) {
		uda_result result = uda_surface_dequeue(surface->window, 0, out_buffer);
		if (result == UDA_SUCCESS)
			return true;
		if (result != UDA_ERROR_TIMEOUT) {
			platform_set_error(platform, EGL_BAD_ALLOC, "no buffer: %s",
			                   uda_context_get_error(window->wayland->context));
			return false;
		}
		/* Every buffer is with the compositor: its releases come as
		 * events on the platform's queue. */
		int64_t left = deadline - wayland_now_ms();
		if (connection_lost(window) || left <= 0 || wayland_display_dispatch(window->wayland, window->queue, (int)left) < 0) {
			platform_set_error(platform, connection_lost(window) ? EGL_BAD_NATIVE_WINDOW : EGL_BAD_ALLOC,
			                   "no buffer: the compositor %s",
			                   connection_lost(window) ? "is gone" : "released none in time");
			return false;
		}
	}
}

static void frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
	(void)time;
	struct wayland_window *window = data;
	wl_callback_destroy(callback);
	window->frame_callback = NULL;
}

static const struct wl_callback_listener frame_listener = {.done = frame_done};

/* Swap interval 1: the previous frame was shown before the next goes. */
static void wait_for_frame_callback(struct wayland_window *window)
{
	const int64_t deadline = wayland_now_ms() + WAYLAND_FRAME_TIMEOUT_MS;
	while (window->frame_callback && !connection_lost(window)) {
		int64_t left = deadline - wayland_now_ms();
		if (left <= 0 || wayland_display_dispatch(window->wayland, window->queue, (int)left) < 0)
			break;
	}
	if (window->frame_callback) {
		platform_debug("Wayland: no frame callback in %d ms; presenting anyway", WAYLAND_FRAME_TIMEOUT_MS);
		wl_callback_destroy(window->frame_callback);
		window->frame_callback = NULL;
	}
}

/* The frame's rows into a wl_shm buffer: GL's memory cannot be the
 * compositor's here (docs/wayland.md), so this is the one copy, as in
 * Mesa's software path. */
static bool copy_to_shm(struct wayland_window *window, const uda_surface_frame *frame,
                        struct wayland_shm_buffer **out_buffer)
{
	struct uda_platform *platform = window->surface->display->platform;
	struct wayland_shm_buffer *buffer = wayland_shm_acquire(window, frame->width, frame->height);
	if (!buffer)
		return false;
	uda_allocation_metadata metadata = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	void *pixels = NULL;
	if (uda_allocation_get_metadata(frame->allocation, &metadata) != UDA_SUCCESS ||
	    uda_allocation_map(frame->allocation, UDA_ACCESS_READ, &pixels) != UDA_SUCCESS) {
		platform_set_error(platform, EGL_BAD_ALLOC, "eglSwapBuffers: the frame cannot be read: %s",
		                   uda_context_get_error(window->wayland->context));
		return false;
	}
	uda_allocation_begin_cpu_access(frame->allocation, UDA_ACCESS_READ);
	wayland_shm_copy(window, buffer, (const uint8_t *)pixels + metadata.planes[0].offset, metadata.planes[0].pitch);
	uda_allocation_end_cpu_access(frame->allocation, UDA_ACCESS_READ);
	uda_allocation_unmap(frame->allocation);
	*out_buffer = buffer;
	return true;
}

static void send_damage(struct wayland_window *window, const uda_surface_frame *frame)
{
	/* wl_surface.damage_buffer came with version 4; before it, damage is
	 * in surface coordinates, which a scale or transform would change:
	 * the whole surface then. */
	if (window->wl_surface_version < 4 || frame->damage_count == 0) {
		if (window->wl_surface_version >= 4)
			wl_surface_damage_buffer(window->wl_surface, 0, 0, INT32_MAX, INT32_MAX);
		else
			wl_surface_damage(window->wl_surface, 0, 0, INT32_MAX, INT32_MAX);
		return;
	}
	for (uint32_t i = 0; i < frame->damage_count; i++) {
		const uda_rect *r = &frame->damage[i];
		wl_surface_damage_buffer(window->wl_surface, r->x, r->y, r->width, r->height);
	}
}

static bool wayland_present(struct platform_surface *surface)
{
	struct wayland_window *window = surface->window_data;
	struct uda_platform *platform = surface->display->platform;
	uda_surface_frame frame;
	if (uda_surface_acquire(surface->window, 0, &frame) != UDA_SUCCESS) {
		platform_set_error(platform, EGL_BAD_ALLOC, "eglSwapBuffers: the frame was not queued: %s",
		                   uda_context_get_error(window->wayland->context));
		return false;
	}
	pthread_mutex_lock(&platform->lock);
	struct wl_egl_window *native = window->native;
	pthread_mutex_unlock(&platform->lock);
	if (!native || connection_lost(window)) {
		uda_surface_release(surface->window, frame.buffer_id);
		platform_set_error(platform, EGL_BAD_NATIVE_WINDOW, "eglSwapBuffers: the %s is gone",
		                   native ? "compositor" : "wl_egl_window");
		return false;
	}
	if (window->swap_interval > 0)
		wait_for_frame_callback(window);
	struct wl_buffer *attached = NULL;
	if (window->path != WAYLAND_PATH_SHM) {
		/* The frame stays acquired until the compositor releases it. */
		struct wayland_dmabuf_buffer *buffer = wayland_buffers_dmabuf_of(window, window->path, frame.buffer_id,
		                                                                  frame.allocation);
		if (!buffer) {
			uda_surface_release(surface->window, frame.buffer_id);
			/* The next frame negotiates without this path: DMA-BUFs,
			 * else wl_shm. */
			if (window->path == WAYLAND_PATH_UDA)
				window->uda_refused = true;
			else
				window->dmabuf_refused = true;
			window->negotiated_generation = UINT64_MAX;
			window->negotiated_default = false; /* no shortcut past it */
			platform_set_error(platform, EGL_BAD_ALLOC, "eglSwapBuffers: the frame could not be sent");
			return false;
		}
		buffer->busy = true;
		attached = buffer->buffer;
	} else {
		struct wayland_shm_buffer *buffer = NULL;
		bool copied = copy_to_shm(window, &frame, &buffer);
		uda_surface_release(surface->window, frame.buffer_id);
		if (!copied)
			return false;
		buffer->busy = true;
		buffer->age_frame = window->frames_presented + 1;
		attached = buffer->buffer;
	}

	/* From wl_surface version 5 on, attach takes no offset (a non-zero
	 * one is invalid_offset, which ends the connection): the resize's
	 * offset goes through wl_surface.offset, as Mesa's platform sends it. */
	if (wl_proxy_get_version((struct wl_proxy *)window->wl_surface) >= WL_SURFACE_OFFSET_SINCE_VERSION) {
		if (native->dx || native->dy)
			wl_surface_offset(window->wl_surface, native->dx, native->dy);
		wl_surface_attach(window->wl_surface, attached, 0, 0);
	} else {
		wl_surface_attach(window->wl_surface, attached, native->dx, native->dy);
	}
	native->dx = native->dy = 0;
	native->attached_width = (int)frame.width;
	native->attached_height = (int)frame.height;
	send_damage(window, &frame);
	if (window->swap_interval > 0) {
		window->frame_callback = wl_surface_frame(window->wl_surface);
		if (window->frame_callback)
			wl_callback_add_listener(window->frame_callback, &frame_listener, window);
	}
	wl_surface_commit(window->wl_surface);
	window->frames_presented++;
	if (wl_display_flush(window->wayland->native) < 0 && errno != EAGAIN && connection_lost(window)) {
		platform_set_error(platform, EGL_BAD_NATIVE_WINDOW, "eglSwapBuffers: the compositor is gone");
		return false;
	}
	return true;
}

static void wayland_set_swap_interval(struct platform_surface *surface, EGLint interval)
{
	struct wayland_window *window = surface->window_data;
	window->swap_interval = interval;
}

/* The window's queue, once every object on it is gone. */
static void destroy_queue(struct wayland_window *window)
{
	wayland_dmabuf_forget_late_params(window);
	if (window->wl_surface)
		wl_proxy_wrapper_destroy(window->wl_surface);
	if (window->dmabuf_global)
		wl_proxy_wrapper_destroy(window->dmabuf_global);
	if (window->shm_global)
		wl_proxy_wrapper_destroy(window->shm_global);
	if (window->uda_manager)
		wl_proxy_wrapper_destroy(window->uda_manager);
	if (window->queue)
		wl_event_queue_destroy(window->queue);
	window->wl_surface = NULL;
	window->dmabuf_global = NULL;
	window->shm_global = NULL;
	window->uda_manager = NULL;
	window->queue = NULL;
}

/* A wrapper of one of the display's globals whose requests make objects
 * on the window's queue; NULL where the global is absent. */
static void *wrap(void *global, struct wl_event_queue *queue, bool *failed)
{
	if (!global)
		return NULL;
	struct wl_proxy *wrapper = wl_proxy_create_wrapper(global);
	if (wrapper)
		wl_proxy_set_queue(wrapper, queue);
	*failed = *failed || !wrapper;
	return wrapper;
}

static void wayland_destroy(struct platform_surface *surface)
{
	struct wayland_window *window = surface->window_data;
	if (!window)
		return;
	struct uda_platform *platform = surface->display->platform;
	if (window->frame_callback)
		wl_callback_destroy(window->frame_callback);
	wayland_buffers_forget(window);
	dmabuf_feedback_stop(&window->feedback);
	wayland_uda_stop(window);
	wayland_shm_destroy_all(window);
	destroy_queue(window);
	pthread_mutex_lock(&platform->lock);
	struct wl_egl_window *native = window->native;
	if (native) {
		native->driver_private = NULL;
		native->resize_callback = NULL;
		native->destroy_window_callback = NULL;
	}
	pthread_mutex_unlock(&platform->lock);
	uda_surface_destroy(surface->window);
	surface->window = NULL;
	surface->window_data = NULL;
	free(window);
}

static const struct platform_window_impl wayland_window_impl = {
	.dequeue = wayland_dequeue,
	.present = wayland_present,
	.set_swap_interval = wayland_set_swap_interval,
	.destroy = wayland_destroy,
	.resize_reaches_current_frame = true,
};

bool wayland_window_create(struct platform_display *display, struct platform_surface *surface, void *native_window,
                           uint32_t format)
{
	struct uda_platform *platform = display->platform;
	struct wayland_display *wayland = display->impl_data;
	struct wl_egl_window *native = native_window;
	if (!is_wl_egl_window(native)) {
		platform_set_error(platform, EGL_BAD_NATIVE_WINDOW, "eglCreateWindowSurface: %p is not a wl_egl_window",
		                   native_window);
		return false;
	}
	if (native->driver_private) {
		platform_set_error(platform, EGL_BAD_ALLOC, "eglCreateWindowSurface: the wl_egl_window has an EGLSurface");
		return false;
	}
	if (native->width <= 0 || native->height <= 0 || (uint32_t)native->width > UDA_MAX_DIMENSION ||
	    (uint32_t)native->height > UDA_MAX_DIMENSION) {
		platform_set_error(platform, EGL_BAD_NATIVE_WINDOW, "eglCreateWindowSurface: a %dx%d wl_egl_window",
		                   native->width, native->height);
		return false;
	}
	struct wayland_window *window = calloc(1, sizeof(*window));
	if (!window) {
		platform_set_error(platform, EGL_BAD_ALLOC, "out of memory");
		return false;
	}
	window->surface = surface;
	window->wayland = wayland;
	window->format = format;
	window->swap_interval = 1;
	window->shm_format = wayland_shm_format_for(wayland, format, &window->shm_swizzle);
	/* The display's globals, read under its lock: eglTerminate on
	 * another thread takes them away. */
	bool failed = false;
	pthread_mutex_lock(&wayland->lock);
	window->queue = wayland->queue ? wl_display_create_queue(wayland->native) : NULL;
	failed = !window->queue;
	if (!failed) {
		window->wl_surface = wrap(native->surface, window->queue, &failed);
		window->dmabuf_global = wrap(wayland->dmabuf, window->queue, &failed);
		window->shm_global = wrap(wayland->shm, window->queue, &failed);
		window->uda_manager = wrap(wayland->uda_manager, window->queue, &failed);
	}
	pthread_mutex_unlock(&wayland->lock);
	if (failed) {
		destroy_queue(window);
		free(window);
		platform_set_error(platform, EGL_BAD_ALLOC, "eglCreateWindowSurface: %s",
		                   wayland->queue ? "out of memory" : "the display was terminated");
		return false;
	}
	window->wl_surface_version = wl_proxy_get_version((struct wl_proxy *)native->surface);
	/* Version 4: the surface's own feedback (a scanout tranche when it
	 * could go to a plane), waited for once, bounded. */
	if (window->dmabuf_global && wayland->dmabuf_version >= 4) {
		struct zwp_linux_dmabuf_feedback_v1 *object =
		        zwp_linux_dmabuf_v1_get_surface_feedback(window->dmabuf_global, window->wl_surface);
		if (object) {
			dmabuf_feedback_listen(&window->feedback, object);
			wayland_display_wait_for(wayland, window->queue, &window->feedback.receiver.received,
			                         WAYLAND_ANSWER_TIMEOUT_MS);
		}
	}
	/* uda's protocol: the compositor's sets for the surface, waited for
	 * once, bounded. */
	if (wayland_uda_listen(window))
		wayland_display_wait_for(wayland, window->queue, &window->uda_sets.received, WAYLAND_ANSWER_TIMEOUT_MS);
	uda_surface *buffers = wayland_buffers_negotiate(window, (uint32_t)native->width, (uint32_t)native->height);
	if (!buffers) {
		platform_set_error(platform, EGL_BAD_ALLOC, "eglCreateWindowSurface: no buffers: %s",
		                   uda_context_get_error(wayland->context));
		wayland_buffers_forget(window);
		dmabuf_feedback_stop(&window->feedback);
		wayland_uda_stop(window);
		destroy_queue(window);
		free(window);
		return false;
	}
	platform_debug("Wayland: a %dx%d window of 0x%08x, sent %s 0x%08x%s", native->width, native->height, format,
	               window->path == WAYLAND_PATH_UDA      ? "through uda's protocol as"
	               : window->path == WAYLAND_PATH_DMABUF ? "as DMA-BUFs of"
	                                                     : "through wl_shm as",
	               window->path == WAYLAND_PATH_SHM ? window->shm_format : format,
	               window->path == WAYLAND_PATH_SHM && window->shm_swizzle ? " (red and blue swapped)" : "");

	window->native = native;
	native->driver_private = window;
	native->resize_callback = native_resized;
	native->destroy_window_callback = native_destroyed;
	surface->window = buffers;
	surface->window_impl = &wayland_window_impl;
	surface->window_data = window;
	return true;
}
