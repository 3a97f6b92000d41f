/* eglSwapBuffers(WithDamage) and eglSwapInterval on window surfaces:
 * the frame is finished (or fenced), queued with its damage, handed to
 * the kind's consumer, and the next frame's buffer is held. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "surface_internal.h"

/* Whether every rect has a size of zero or more (EGL_KHR_swap_buffers_
 * with_damage: EGL_BAD_PARAMETER otherwise). */
static bool damage_is_valid(const EGLint *rects, EGLint count)
{
	for (EGLint i = 0; i < count; i++) {
		if (rects[i * 4 + 2] < 0 || rects[i * 4 + 3] < 0)
			return false;
	}
	return true;
}

/* EGL's damage rects count rows from the bottom; uda's from the top.
 * Rects are clipped to the surface (EGL allows any); more than the queue
 * carries, or none left, mean the whole surface. */
static uint32_t convert_damage(const struct platform_surface *surface, const EGLint *rects, EGLint count,
                               uda_rect *out)
{
	if (!rects || count <= 0 || (uint32_t)count > UDA_SURFACE_MAX_DAMAGE_RECTS)
		return 0;
	const int64_t width = surface->width, height = surface->height;
	uint32_t kept = 0;
	for (EGLint i = 0; i < count; i++) {
		const EGLint *r = &rects[i * 4];
		int64_t x0 = r[0], x1 = (int64_t)r[0] + r[2];
		int64_t y0 = height - ((int64_t)r[1] + r[3]), y1 = height - (int64_t)r[1];
		x0 = x0 < 0 ? 0 : x0;
		y0 = y0 < 0 ? 0 : y0;
		x1 = x1 > width ? width : x1;
		y1 = y1 > height ? height : y1;
		if (x1 > x0 && y1 > y0)
			out[kept++] = (uda_rect){(int32_t)x0, (int32_t)y0, (int32_t)(x1 - x0), (int32_t)(y1 - y0)};
	}
	return kept;
}

/* The surface's uda_surface now: holding a buffer may negotiate anew (a
 * Wayland window whose compositor's feedback changed, or which refused a
 * buffer), which replaces it; NULL once the native window is gone. */
static uda_surface *window_now(struct platform_surface *surface)
{
	struct uda_platform *platform = surface->display->platform;
	pthread_mutex_lock(&platform->lock);
	uda_surface *window = surface->window;
	pthread_mutex_unlock(&platform->lock);
	return window;
}

static EGLBoolean swap_window(struct platform_surface *surface, const EGLint *rects, EGLint count)
{
	struct platform_display *display = surface->display;
	struct uda_platform *platform = display->platform;
	pthread_mutex_lock(&platform->lock);
	uda_surface *window = surface->window;
	const bool lost = surface->lost;
	pthread_mutex_unlock(&platform->lock);
	if (!window || lost) {
		platform_set_error(platform, EGL_BAD_NATIVE_WINDOW, "eglSwapBuffers: the native window was destroyed");
		return EGL_FALSE;
	}
	if (platform->egl.GetCurrentSurface(EGL_DRAW) != surface->internal) {
		platform_set_error(platform, EGL_BAD_SURFACE, "eglSwapBuffers: the surface is not current on this thread");
		return EGL_FALSE;
	}
	platform_busy++;
	bool held = hold_buffer(surface, window);
	platform_busy--;
	/* The one read above may be gone. */
	window = window_now(surface);
	if (!window) {
		platform_set_error(platform, EGL_BAD_NATIVE_WINDOW, "eglSwapBuffers: the native window was destroyed");
		return EGL_FALSE;
	}
	if (!held) {
		platform_set_error(platform, EGL_BAD_ALLOC, "eglSwapBuffers: no buffer: %s",
		                   uda_context_get_error(uda_surface_get_context(window)));
		return EGL_FALSE;
	}
	const uda_surface_buffer buffer = surface->buffer;
	const bool direct = surface->direct && direct_current.surface == surface;
	GLuint drawn_framebuffer = direct ? direct_current.framebuffer : 0;
	if (!direct) {
		struct gl_target *target = window_target(surface);
		if (!target)
			return EGL_FALSE; /* the buffer stays held for the next try */
		uint32_t width = buffer.width < surface->width ? buffer.width : surface->width;
		uint32_t height = buffer.height < surface->height ? buffer.height : surface->height;
		wait_for_release(surface);
		gl_target_copy_from_surface(display, target, width, height);
	}
	/* The frame goes out finished, or with the driver's fence for it. */
	int acquire_fence = surface->native_fences ? frame_fence_export(display) : -1;
	if (acquire_fence < 0)
		platform->gl.Finish();
	uda_rect damage[UDA_SURFACE_MAX_DAMAGE_RECTS];
	uint32_t damage_count = convert_damage(surface, rects, count, damage);
	if (uda_surface_queue_fenced(window, buffer.buffer_id, damage, damage_count, acquire_fence) != UDA_SUCCESS) {
		/* Not queued (the fence was taken all the same): the buffer
		 * stays held, and the next swap hands it over again. */
		platform_set_error(platform, EGL_BAD_ALLOC, "eglSwapBuffers: the frame was not queued: %s",
		                   uda_context_get_error(uda_surface_get_context(window)));
		return EGL_FALSE;
	}
	pthread_mutex_lock(&platform->lock);
	surface->held = false;
	forget_release(surface);
	surface->pbuffer_frames++;
	pthread_mutex_unlock(&platform->lock);
	/* A native window's frame goes on to its compositor. */
	if (surface->window_impl->present && !surface->window_impl->present(surface))
		return EGL_FALSE;

	/* The next frame's buffer: waits here while the consumer holds all
	 * of them (FIFO), which paces the producer to the consumer. */
	window = window_now(surface);
	if (!window)
		return EGL_TRUE; /* the frame went out; the window is gone */
	platform_busy++;
	held = hold_buffer(surface, window);
	platform_busy--;
	if (!held) {
		if (direct)
			direct_fall_back(surface);
		return EGL_TRUE; /* the frame went out; the next swap retries */
	}
	follow_buffer_size(surface, surface->buffer.width, surface->buffer.height);
	if (direct) {
		struct gl_target *next = window_target(surface);
		if (!next) {
			direct_fall_back(surface);
			return EGL_TRUE;
		}
		rebind(&platform->gl, drawn_framebuffer, next->framebuffer);
		wait_for_release(surface);
		direct_current.framebuffer = next->framebuffer;
	}
	/* After a resize, what rendered into buffers of the old size is no
	 * longer bound anywhere: its imports go, and the memory with them. */
	gl_target_release_other_sizes(display, surface->targets, &surface->target_count, surface->buffer.width,
	                              surface->buffer.height);
	return EGL_TRUE;
}

static EGLBoolean swap(EGLDisplay dpy, EGLSurface handle, const EGLint *rects, EGLint count)
{
	struct platform_display *display = platform_display_get(dpy, true);
	if (!display)
		return EGL_FALSE;
	struct uda_platform *platform = display->platform;
	struct platform_surface *surface = platform_surface_get(display, handle);
	if (!surface) {
		if (rects && platform->egl.SwapBuffersWithDamageKHR)
			return platform->egl.SwapBuffersWithDamageKHR(display->internal, handle, (EGLint *)rects, count);
		return platform->egl.SwapBuffers(display->internal, handle);
	}
	EGLBoolean result = EGL_TRUE;
	if (count < 0 || (count > 0 && !rects) || (rects && !damage_is_valid(rects, count))) {
		platform_set_error(platform, EGL_BAD_PARAMETER, "eglSwapBuffersWithDamage: bad rects");
		result = EGL_FALSE;
	} else if (surface->kind == PLATFORM_SURFACE_WINDOW) {
		result = swap_window(surface, rects, count);
	} /* EGL: no effect on a pixmap */
	platform_surface_put(surface);
	return result;
}

EGLBoolean hook_swap_buffers(EGLDisplay dpy, EGLSurface surface)
{
	return swap(dpy, surface, NULL, 0);
}

EGLBoolean hook_swap_buffers_with_damage(EGLDisplay dpy, EGLSurface surface, const EGLint *rects, EGLint count)
{
	return swap(dpy, surface, rects, count);
}

EGLBoolean hook_swap_interval(EGLDisplay dpy, EGLint interval)
{
	struct platform_display *display = platform_display_get(dpy, true);
	if (!display)
		return EGL_FALSE;
	struct uda_platform *platform = display->platform;
	struct platform_surface *surface = current_draw();
	if (platform->egl.GetCurrentContext() == EGL_NO_CONTEXT) {
		platform_set_error(platform, EGL_BAD_CONTEXT, "eglSwapInterval: no current context");
		return EGL_FALSE;
	}
	if (!surface || surface->kind != PLATFORM_SURFACE_WINDOW)
		return EGL_TRUE; /* a pbuffer's interval means nothing */
	/* Clamped to [0, 1]: a queue has no notion of skipping vblanks. */
	EGLint clamped = interval <= 0 ? 0 : 1;
	if (surface->window_impl->set_swap_interval)
		surface->window_impl->set_swap_interval(surface, clamped);
	return EGL_TRUE;
}
