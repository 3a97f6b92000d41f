/* What each thread has current on the platform's displays: the surfaces
 * it bound (each holds a reference, as EGL keeps a current surface alive),
 * which window buffer stands for framebuffer 0 when GL renders straight
 * into it (the host routes framebuffer 0 here), and eglMakeCurrent,
 * eglReleaseThread and the waits around them. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "surface_internal.h"

/* The platform surfaces current on this thread, as the application last
 * made them current on a platform display; each holds a reference. */
static _Thread_local struct {
	struct platform_surface *draw, *read;
} bound;

static void bind_current(struct platform_surface *draw, struct platform_surface *read)
{
	struct platform_surface *old_draw = bound.draw, *old_read = bound.read;
	struct uda_platform *platform = draw ? draw->display->platform : read ? read->display->platform : NULL;
	if (platform) {
		pthread_mutex_lock(&platform->lock);
		if (draw)
			draw->references++;
		if (read)
			read->references++;
		pthread_mutex_unlock(&platform->lock);
	}
	bound.draw = draw;
	bound.read = read;
	platform_surface_put(old_draw);
	platform_surface_put(old_read);
}

/* The platform surface the driver has current for drawing on this thread,
 * if any; no reference of its own (the binding holds one). */
struct platform_surface *current_draw(void)
{
	struct platform_surface *surface = bound.draw;
	if (!surface || surface->display->platform->egl.GetCurrentSurface(EGL_DRAW) != surface->internal)
		return NULL;
	return surface;
}

/* Direct rendering: which window surface's buffer stands for framebuffer 0
 * on this thread, and through which framebuffer object. */
_Thread_local struct direct_binding direct_current;

/* Set while the platform itself calls into uda: an import switches
 * contexts through the host (eglMakeCurrent and back), and those switches
 * must not start or stop direct rendering underneath the platform. */
_Thread_local unsigned platform_busy;

/* A handle this thread has bound, destroyed or not: a surface destroyed
 * while current stays current (EGL), and the GL backend puts the
 * application's binding back after its own context switches. */
static struct platform_surface *bound_surface_get(struct platform_display *display, EGLSurface handle)
{
	struct platform_surface *surface = NULL;
	if (handle != EGL_NO_SURFACE && handle == (EGLSurface)bound.draw)
		surface = bound.draw;
	else if (handle != EGL_NO_SURFACE && handle == (EGLSurface)bound.read)
		surface = bound.read;
	if (!surface || surface->display != display)
		return NULL;
	pthread_mutex_lock(&display->platform->lock);
	surface->references++;
	pthread_mutex_unlock(&display->platform->lock);
	return surface;
}

/* Whether the driver still has this thread's bound surfaces current; not
 * once the thread went to another display without the host (a driver
 * that loads the platform itself does not tell it). */
static bool binding_is_current(void)
{
	if (!bound.draw && !bound.read)
		return false;
	struct uda_platform *platform = (bound.draw ? bound.draw : bound.read)->display->platform;
	return (bound.draw && platform->egl.GetCurrentSurface(EGL_DRAW) == bound.draw->internal) ||
	       (bound.read && platform->egl.GetCurrentSurface(EGL_READ) == bound.read->internal);
}

/* Lets go of this thread's binding, freeing what was destroyed meanwhile
 * (context switches inside are the platform's own). */
static void unbind_thread(void)
{
	platform_busy++;
	bind_current(NULL, NULL);
	platform_busy--;
}

/* Drops a binding the driver no longer has current. */
void drop_stale_binding(void)
{
	if ((bound.draw || bound.read) && !binding_is_current())
		unbind_thread();
}

/* Points whichever of the draw and read bindings is `from` at `to`. */
void rebind(const struct platform_gl *gl, GLuint from, GLuint to)
{
	GLint draw = 0, read = 0;
	gl->GetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw);
	gl->GetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read);
	if ((GLuint)draw == from)
		gl->BindFramebuffer(GL_DRAW_FRAMEBUFFER, to);
	if ((GLuint)read == from)
		gl->BindFramebuffer(GL_READ_FRAMEBUFFER, to);
}

GLuint hook_default_framebuffer(void)
{
	return direct_current.framebuffer;
}

void hook_release_current(void)
{
	if (!direct_current.surface || platform_busy)
		return;
	struct uda_platform *platform = platform_current();
	if (platform && platform->gl_loaded) {
		/* Drivers run rendering after the calls return (llvmpipe on its
		 * own threads): what went into the buffer must be done before
		 * the surface can be destroyed, and it may be once the thread
		 * has let go of it. */
		platform->gl.Finish();
		rebind(&platform->gl, direct_current.framebuffer, 0);
	}
	direct_current.surface = NULL;
	direct_current.framebuffer = 0;
}

/* The thread is about to stop drawing to its current surface: a pixmap
 * writes its content back, a window's buffer stops being framebuffer 0. */
static void let_go_of_current(const struct platform_surface *next_draw)
{
	struct platform_surface *previous = current_draw();
	if (previous && previous != next_draw && previous->kind == PLATFORM_SURFACE_PIXMAP)
		pixmap_store(previous);
	hook_release_current();
}

/* A destroyed surface this thread is about to let go of goes with the
 * switch: its GL objects are released now, while its context is still
 * current and the host's idea of the current surfaces is still true. */
static void retire_leaving(const struct platform_surface *next_draw, const struct platform_surface *next_read)
{
	struct platform_surface *leaving[2] = {bound.draw, bound.read != bound.draw ? bound.read : NULL};
	for (int i = 0; i < 2; i++) {
		struct platform_surface *surface = leaving[i];
		if (!surface || surface == next_draw || surface == next_read)
			continue;
		pthread_mutex_lock(&surface->display->platform->lock);
		bool destroyed = surface->destroyed;
		pthread_mutex_unlock(&surface->display->platform->lock);
		if (destroyed)
			release_targets(surface);
	}
}

static EGLBoolean make_current(struct platform_display *display, struct platform_surface *next_draw,
                               struct platform_surface *next_read, EGLSurface draw, EGLSurface read,
                               EGLContext context)
{
	struct uda_platform *platform = display->platform;
	if ((next_draw && next_draw->lost) || (next_read && next_read->lost)) {
		platform_set_error(platform, EGL_BAD_NATIVE_WINDOW, "eglMakeCurrent: the uda_surface was destroyed");
		return EGL_FALSE;
	}
	EGLSurface internal_draw = next_draw ? next_draw->internal : draw;
	EGLSurface internal_read = next_read ? next_read->internal : read;
	if (platform_busy)
		return platform->egl.MakeCurrent(display->internal, internal_draw, internal_read, context);
	/* The same surfaces and context again, as toolkits do every frame:
	 * nothing changes, so direct rendering stays as it is (letting go
	 * would cost a glFinish). */
	if (next_draw && next_draw == bound.draw && next_read == bound.read && current_draw() == next_draw &&
	    context == platform->egl.GetCurrentContext())
		return platform->egl.MakeCurrent(display->internal, internal_draw, internal_read, context);

	struct platform_surface *was_direct = direct_current.surface;
	let_go_of_current(next_draw);
	retire_leaving(next_draw, next_read);
	if (!platform->egl.MakeCurrent(display->internal, internal_draw, internal_read, context)) {
		/* A failed call changes nothing (EGL 1.5, 3.7.3): the surface
		 * still current renders into its buffer again. The driver's
		 * error is kept for the application past the calls that takes. */
		EGLint error = platform->egl.GetError();
		if (was_direct && current_draw() == was_direct)
			direct_begin(was_direct);
		platform_set_error(platform, error, "eglMakeCurrent: the driver refused (0x%x)", (unsigned)error);
		return EGL_FALSE;
	}
	bind_current(next_draw, next_read);
	if (next_draw && next_draw->kind == PLATFORM_SURFACE_PIXMAP)
		pixmap_load(next_draw);
	if (next_draw && next_draw->direct && context != EGL_NO_CONTEXT && (!next_read || next_read == next_draw))
		direct_begin(next_draw);
	if (next_draw && next_draw->window_impl && next_draw->window_impl->resize_reaches_current_frame &&
	    context != EGL_NO_CONTEXT)
		platform_window_resized(next_draw);
	return EGL_TRUE;
}

EGLBoolean hook_make_current(EGLDisplay dpy, EGLSurface draw, EGLSurface read, EGLContext context)
{
	/* Letting go of everything works on a terminated display too (EGL
	 * 1.5, 3.7.3): how a context current at eglTerminate is released. */
	const bool releasing = draw == EGL_NO_SURFACE && read == EGL_NO_SURFACE && context == EGL_NO_CONTEXT;
	struct platform_display *display = platform_display_get(dpy, !releasing);
	if (!display)
		return EGL_FALSE;
	struct platform_surface *next_draw = platform_surface_get(display, draw);
	struct platform_surface *next_read = platform_surface_get(display, read);
	if (!next_draw)
		next_draw = bound_surface_get(display, draw);
	if (!next_read)
		next_read = bound_surface_get(display, read);
	EGLBoolean result = make_current(display, next_draw, next_read, draw, read, context);
	platform_surface_put(next_draw);
	platform_surface_put(next_read);
	return result;
}

/* The host switches the thread to another display (or releases it). */
void hook_leave_display(void)
{
	if (platform_busy)
		return;
	/* The binding stays: the switch may be the GL backend's own, which
	 * puts the application's binding back afterwards. A destroyed
	 * surface goes at the thread's next eglMakeCurrent on a platform
	 * display, eglReleaseThread, or eglDestroySurface/eglTerminate once
	 * the driver no longer has it current. */
	let_go_of_current(NULL);
}

/* After eglReleaseThread (the host's): nothing is current any more. */
void hook_release_thread(void)
{
	unbind_thread();
}

static EGLBoolean wait_rendering(void)
{
	struct uda_platform *platform = platform_current();
	if (!platform)
		return EGL_TRUE;
	struct platform_surface *surface = current_draw();
	if (surface && surface->kind == PLATFORM_SURFACE_PIXMAP)
		pixmap_store(surface);
	else if (platform_load_gl(platform))
		platform->gl.Finish();
	return EGL_TRUE;
}

EGLBoolean hook_wait_client(void)
{
	return wait_rendering();
}

EGLBoolean hook_wait_gl(void)
{
	return wait_rendering();
}
