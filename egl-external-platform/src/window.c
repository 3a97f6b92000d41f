/* What every kind of window does with its buffers: the one held for the
 * frame being drawn, its GL targets, direct rendering into it, the
 * pbuffer that follows its size, and the exchanges a resize or a new
 * negotiation make. Where the buffers come from and where a frame goes is
 * the kind's (platform_window_impl; window_uda.c, the native kinds). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "surface_internal.h"

bool hold_buffer(struct platform_surface *surface, uda_surface *window)
{
	if (surface->held)
		return true;
	/* A release fence is waited for where the buffer is first written,
	 * in the context that writes it (wait_for_release). */
	if (!surface->window_impl->dequeue(surface, window, &surface->buffer, &surface->release_fence))
		return false;
	surface->held = true;
	return true;
}

/* The current context is about to write the held buffer. */
void wait_for_release(struct platform_surface *surface)
{
	frame_fence_wait(surface->display, &surface->release_fence, surface->gpu_waits);
}

/* The held buffer leaves the surface: its writes were ordered after the
 * release fence already. */
void forget_release(struct platform_surface *surface)
{
	if (surface->release_fence >= 0)
		close(surface->release_fence);
	surface->release_fence = -1;
}

struct gl_target *window_target(struct platform_surface *surface)
{
	struct platform_display *display = surface->display;
	const struct gl_target_options options = {surface->direct, surface->depth_size, surface->stencil_size};
	platform_busy++;
	struct gl_target *target = gl_target_get(display, surface->targets, &surface->target_count,
	                                         PLATFORM_MAX_TARGETS, surface->buffer.buffer_id,
	                                         surface->buffer.allocation, &options);
	platform_busy--;
	return target;
}

/* Freeing an import of another context switches to it and back through
 * the host: the platform's own switches. */
void release_targets(struct platform_surface *surface)
{
	platform_busy++;
	for (uint32_t i = 0; i < surface->target_count; i++)
		gl_target_release(surface->display, &surface->targets[i]);
	surface->target_count = 0;
	platform_busy--;
}

/* Gives up direct rendering for the surface: the copy path from now on. */
void direct_fall_back(struct platform_surface *surface)
{
	if (direct_current.surface == surface)
		hook_release_current();
	release_targets(surface);
	surface->direct = false;
}

/* The surface was just made current: bind its held buffer where the
 * context has framebuffer 0 bound. */
void direct_begin(struct platform_surface *surface)
{
	struct uda_platform *platform = surface->display->platform;
	if (!surface->window || !platform_load_gl(platform))
		return;
	if (!gl_has_flip_y(platform)) {
		direct_fall_back(surface);
		return;
	}
	platform_busy++;
	bool held = hold_buffer(surface, surface->window);
	platform_busy--;
	struct gl_target *target = held ? window_target(surface) : NULL;
	if (!target) {
		direct_fall_back(surface);
		return;
	}
	rebind(&platform->gl, 0, target->framebuffer);
	wait_for_release(surface);
	direct_current.surface = surface;
	direct_current.framebuffer = target->framebuffer;
}

/* Settings every window takes from its config and the environment. */
static void window_setup(struct platform_surface *surface, struct platform_display *display, EGLConfig config)
{
	struct uda_platform *platform = display->platform;
	surface->release_fence = -1;
	surface->display = display;
	surface->kind = PLATFORM_SURFACE_WINDOW;
	surface->config = config;
	EGLint samples = 0;
	platform->egl.GetConfigAttrib(display->internal, config, EGL_SAMPLES, &samples);
	platform->egl.GetConfigAttrib(display->internal, config, EGL_DEPTH_SIZE, &surface->depth_size);
	platform->egl.GetConfigAttrib(display->internal, config, EGL_STENCIL_SIZE, &surface->stencil_size);
	const char *copy = secure_getenv("UDA_EGL_PLATFORM_COPY");
	surface->direct = platform->host_interposes_gl && samples == 0 && !(copy && copy[0] && strcmp(copy, "0") != 0);
}

struct platform_surface *window_alloc(struct platform_display *display, EGLConfig config)
{
	struct platform_surface *surface = calloc(1, sizeof(*surface));
	if (!surface) {
		platform_set_error(display->platform, EGL_BAD_ALLOC, "out of memory");
		return NULL;
	}
	window_setup(surface, display, config);
	return surface;
}

/* A window of a native kind (a wl_egl_window): the kind makes the
 * uda_surface and owns it. */
static EGLSurface create_native_window(struct platform_display *display, EGLConfig config, void *native)
{
	struct uda_platform *platform = display->platform;
	uint32_t format = platform_config_fourcc(display, config);
	if (!format) {
		platform_set_error(platform, EGL_BAD_MATCH, "eglCreateWindowSurface: the config renders no window format");
		return EGL_NO_SURFACE;
	}
	struct platform_surface *surface = window_alloc(display, config);
	if (!surface)
		return EGL_NO_SURFACE;
	if (!display->impl->create_window(display, surface, native, format)) {
		free(surface);
		return EGL_NO_SURFACE;
	}
	uda_surface_get_size(surface->window, &surface->width, &surface->height);
	EGLSurface handle = add_surface(display, surface);
	if (handle == EGL_NO_SURFACE) {
		if (surface->window_impl->destroy)
			surface->window_impl->destroy(surface);
		free(surface);
	}
	return handle;
}

/* When the next buffer has another size (the uda_surface was resized), GL
 * renders the next frame at that size: a new pbuffer, bound in place of
 * the old one. */
void follow_buffer_size(struct platform_surface *surface, uint32_t width, uint32_t height)
{
	struct platform_display *display = surface->display;
	struct uda_platform *platform = display->platform;
	if (width == surface->width && height == surface->height)
		return;
	EGLSurface replacement = create_internal(display, surface->config, width, height);
	if (replacement == EGL_NO_SURFACE)
		return; /* keep rendering at the old size; the copy clips */
	EGLSurface read = platform->egl.GetCurrentSurface(EGL_READ);
	EGLContext context = platform->egl.GetCurrentContext();
	if (!platform->egl.MakeCurrent(display->internal, replacement, read == surface->internal ? replacement : read,
	                               context)) {
		platform->egl.DestroySurface(display->internal, replacement);
		return;
	}
	platform->egl.DestroySurface(display->internal, surface->internal);
	pthread_mutex_lock(&platform->lock);
	surface->internal = replacement;
	surface->width = width;
	surface->height = height;
	surface->pbuffer_frames = 0; /* undefined content: age 0 */
	pthread_mutex_unlock(&platform->lock);
}

uda_surface *platform_window_replace(struct platform_surface *surface, uda_surface *replacement)
{
	/* Buffer ids are unique within one uda_surface only: what was made
	 * for the old one's buffers goes before the new one's are used. */
	release_targets(surface);
	pthread_mutex_lock(&surface->display->platform->lock);
	uda_surface *old = surface->window;
	surface->window = replacement;
	pthread_mutex_unlock(&surface->display->platform->lock);
	return old;
}

/* A native window was resized (wl_egl_window_resize) while its surface
 * holds a buffer of the old size for the frame being drawn. As with
 * Mesa's Wayland platform, the frame being drawn takes the new size: when
 * the surface is current on this thread the buffer is exchanged now
 * (what was drawn into it is lost, as there), else the exchange waits
 * for the next eglMakeCurrent. */
void platform_window_resized(struct platform_surface *surface)
{
	uint32_t width = 0, height = 0;
	uda_surface_get_size(surface->window, &width, &height);
	if (!surface->held || (surface->buffer.width == width && surface->buffer.height == height) ||
	    current_draw() != surface)
		return;
	struct platform_display *display = surface->display;
	const bool direct = direct_current.surface == surface;
	const GLuint drawn_framebuffer = direct ? direct_current.framebuffer : 0;
	uda_surface_cancel(surface->window, surface->buffer.buffer_id);
	forget_release(surface);
	surface->held = false;
	platform_busy++;
	bool held = hold_buffer(surface, surface->window);
	platform_busy--;
	if (!held) {
		if (direct)
			direct_fall_back(surface);
		return; /* the next swap dequeues again */
	}
	follow_buffer_size(surface, surface->buffer.width, surface->buffer.height);
	if (direct) {
		struct gl_target *next = window_target(surface);
		if (!next) {
			direct_fall_back(surface);
			return;
		}
		rebind(&display->platform->gl, drawn_framebuffer, next->framebuffer);
		wait_for_release(surface);
		direct_current.framebuffer = next->framebuffer;
	}
	gl_target_release_other_sizes(display, surface->targets, &surface->target_count, surface->buffer.width,
	                              surface->buffer.height);
}

EGLSurface create_window(EGLDisplay dpy, EGLConfig config, void *native, const EGLAttrib *attribs)
{
	struct platform_display *display = platform_display_get(dpy, true);
	if (!display)
		return EGL_NO_SURFACE;
	if (!display->impl)
		return window_uda_create(display, config, native, attribs);
	if (!check_attribs(display->platform, attribs, "eglCreateWindowSurface"))
		return EGL_NO_SURFACE;
	return create_native_window(display, config, native);
}
