/* Windows of uda_surfaces (and of uda's gbm_surfaces, which are
 * uda_surfaces): the application owns the queue and its consumer; the
 * window renders into the buffers it dequeues and queues them at swap. */
#include <drm_fourcc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "surface_internal.h"

/* The uda_surface's destroy callback: the application destroyed it. */
static void window_destroyed(uda_surface *window, void *user_data)
{
	struct platform_surface *surface = user_data;
	(void)window;
	pthread_mutex_lock(&surface->display->platform->lock);
	surface->window = NULL;
	surface->lost = true;
	surface->held = false; /* the surface frees it */
	forget_release(surface);
	/* Freed meanwhile on another thread, all but this (surface_free). */
	const bool orphaned = surface->orphaned;
	pthread_mutex_unlock(&surface->display->platform->lock);
	if (orphaned)
		free(surface);
}

/* The application's consumer releases buffers; a dequeue waits for one
 * as long as it takes, as a FIFO producer must. */
static bool uda_window_dequeue(struct platform_surface *surface, uda_surface *window, uda_surface_buffer *out_buffer,
                               int *out_release_fence)
{
	if (!surface->native_fences)
		return uda_surface_dequeue(window, UINT64_MAX, out_buffer) == UDA_SUCCESS;
	return uda_surface_dequeue_fenced(window, UINT64_MAX, out_buffer, out_release_fence) == UDA_SUCCESS;
}

/* Interval 0 replaces a frame the consumer has not taken yet (mailbox). */
static void uda_window_set_swap_interval(struct platform_surface *surface, EGLint interval)
{
	pthread_mutex_lock(&surface->display->platform->lock);
	uda_surface *window = surface->window;
	pthread_mutex_unlock(&surface->display->platform->lock);
	if (window)
		uda_surface_set_present_mode(window, interval ? UDA_PRESENT_MODE_FIFO : UDA_PRESENT_MODE_MAILBOX);
}

/* The uda_surface may be being destroyed on another thread right now.
 * Under the platform's lock its callback for this surface
 * (window_destroyed) cannot finish, so the uda_surface cannot be freed
 * yet. A removal that fails means that callback has begun: it frees this
 * surface once it gets the lock. */
static bool uda_window_detach(struct platform_surface *surface)
{
	return uda_surface_remove_destroy_callback(surface->window, window_destroyed, surface) != UDA_SUCCESS;
}

static const struct platform_window_impl uda_window_impl = {
	.dequeue = uda_window_dequeue,
	.set_swap_interval = uda_window_set_swap_interval,
	.detach = uda_window_detach,
};

static bool window_in_use(struct platform_display *display, uda_surface *window)
{
	pthread_mutex_lock(&display->platform->lock);
	bool used = false;
	for (struct platform_surface *s = display->surfaces; s; s = s->next)
		used = used || (s->kind == PLATFORM_SURFACE_WINDOW && s->window == window);
	pthread_mutex_unlock(&display->platform->lock);
	return used;
}

EGLSurface window_uda_create(struct platform_display *display, EGLConfig config, void *native,
                             const EGLAttrib *attribs)
{
	struct uda_platform *platform = display->platform;
	uda_context *ctx = uda_device_get_context(display->device);
	/* A GBM display's windows are gbm_surfaces (read only then: the
	 * platform type says what the pointer is). */
	uda_surface *window = display->gbm && native && uda_context_validate_surface(ctx, native) != UDA_SUCCESS
	                          ? gbm_native_window_surface(native)
	                          : native;
	if (!window || uda_context_validate_surface(ctx, window) != UDA_SUCCESS) {
		platform_set_error(platform, EGL_BAD_NATIVE_WINDOW,
		                   "eglCreateWindowSurface: %p is not a %s of the display's context", native,
		                   display->gbm ? "uda_surface or uda gbm_surface" : "uda_surface");
		return EGL_NO_SURFACE;
	}
	if (!check_attribs(platform, attribs, "eglCreateWindowSurface"))
		return EGL_NO_SURFACE;
	uint32_t count = 0;
	const uda_device_usage *devices = NULL;
	uda_surface_get_devices(window, &count, &devices);
	bool renders = false;
	for (uint32_t i = 0; i < count; i++)
		renders = renders || devices[i].device == display->device;
	if (!renders) {
		platform_set_error(platform, EGL_BAD_MATCH,
		                   "eglCreateWindowSurface: the uda_surface was not negotiated for this display's device");
		return EGL_NO_SURFACE;
	}
	uint32_t format = 0;
	uda_surface_get_format(window, &format);
	if (!config_renders_format(display, config, format)) {
		platform_set_error(platform, EGL_BAD_MATCH,
		                   "eglCreateWindowSurface: the config does not render format 0x%08x", format);
		return EGL_NO_SURFACE;
	}
	if (window_in_use(display, window)) {
		platform_set_error(platform, EGL_BAD_ALLOC, "eglCreateWindowSurface: the uda_surface has an EGLSurface");
		return EGL_NO_SURFACE;
	}
	struct platform_surface *surface = window_alloc(display, config);
	if (!surface)
		return EGL_NO_SURFACE;
	surface->window = window;
	surface->window_impl = &uda_window_impl;
	surface->native_fences = frame_fence_supported(display, &surface->gpu_waits);
	uda_surface_get_size(window, &surface->width, &surface->height);
	if (uda_surface_add_destroy_callback(window, window_destroyed, surface) != UDA_SUCCESS) {
		free(surface);
		platform_set_error(platform, EGL_BAD_ALLOC, "eglCreateWindowSurface: %s", uda_context_get_error(ctx));
		return EGL_NO_SURFACE;
	}
	uda_surface_set_present_mode(window, UDA_PRESENT_MODE_FIFO);
	EGLSurface handle = add_surface(display, surface);
	if (handle == EGL_NO_SURFACE) {
		uda_surface_remove_destroy_callback(window, window_destroyed, surface);
		free(surface);
	}
	return handle;
}
