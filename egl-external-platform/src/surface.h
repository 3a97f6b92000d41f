/* EGL surfaces of the platform: window kinds and pixmaps, what the rest
 * of the module calls (surface.c, current.c, window.c, swap.c, pixmap.c). */
#ifndef UDA_EGL_SURFACE_H
#define UDA_EGL_SURFACE_H

#include "gl_target.h"

/* What differs between kinds of window (wlroots' `impl`): where the next
 * frame's buffer comes from, where a queued frame goes, and who owns the
 * uda_surface. Kinds: window_uda.c (uda_surfaces and uda's gbm_surfaces:
 * the application owns the queue and its consumer), wayland/ (a
 * wl_egl_window: the kind owns the queue and is its consumer). Only
 * dequeue is required. */
struct platform_window_impl {
	/* The next frame's buffer from `window` (uda_surface_dequeue's
	 * contract; *out_release_fence as uda_surface_dequeue_fenced's, or
	 * left -1); false with an EGL error set where the kind sets one. */
	bool (*dequeue)(struct platform_surface *surface, uda_surface *window, uda_surface_buffer *out_buffer,
	                int *out_release_fence);
	/* The frame just queued to the uda_surface goes to its consumer;
	 * false with an EGL error set (the frame is lost, not the surface). */
	bool (*present)(struct platform_surface *surface);
	/* eglSwapInterval, clamped to [0, 1]. */
	void (*set_swap_interval)(struct platform_surface *surface, EGLint interval);
	/* Under the platform's lock, as the EGLSurface goes: lets go of the
	 * uda_surface; true if the surface is orphaned (the kind frees it
	 * later). */
	bool (*detach)(struct platform_surface *surface);
	/* Outside the lock, after detach: what the kind made, its own
	 * uda_surface included. */
	void (*destroy)(struct platform_surface *surface);
	/* A resize reaches the frame being drawn (wl_egl_window_resize, as
	 * Mesa's Wayland platform does), not the one after the next swap (a
	 * uda_surface's resize). */
	bool resize_reaches_current_frame;
};

enum platform_surface_kind {
	PLATFORM_SURFACE_WINDOW,
	PLATFORM_SURFACE_PIXMAP,
};

struct platform_surface {
	struct platform_display *display;
	struct platform_surface *next;
	/* Under the platform's lock. The display's list holds one until
	 * eglDestroySurface, each thread it is current on one (EGL defers a
	 * current surface's deletion until no thread has it current), each
	 * hook working with it one for the call. Freed at zero. */
	unsigned references;
	/* eglDestroySurface was called: the handle is no longer valid, the
	 * surface stays in the list (its uda_surface still taken) until the
	 * last reference goes. */
	bool destroyed;
	/* Freed while its uda_surface's destroy was calling window_destroyed
	 * for it: that callback frees what is left. */
	bool orphaned;
	enum platform_surface_kind kind;
	EGLConfig config;
	/* What GL renders into; handed to the buffers at swap (window) or
	 * eglWaitClient (pixmap). */
	EGLSurface internal;
	uint32_t width, height;
	uda_surface *window;       /* WINDOW; NULL once the application destroyed it */
	/* WINDOW of a native window kind (a wl_egl_window): the kind's. */
	const struct platform_window_impl *window_impl;
	void *window_data;
	uda_allocation *pixmap;    /* PIXMAP; the application's */
	bool pixmap_loaded;        /* its content copied into `internal` */
	bool lost;                 /* the native window was destroyed */
	/* WINDOW: the buffer the frame being drawn goes to, dequeued after
	 * the previous swap (so a resize reaches the frame after the next
	 * swap, as on Wayland, and the swap blocks while the consumer holds
	 * every buffer, which is what throttles a FIFO producer). */
	bool held;
	uda_surface_buffer buffer;
	/* WINDOW: GL renders straight into the held buffer (framebuffer 0
	 * redirected by the host) instead of the pbuffer and a copy. */
	bool direct;
	/* WINDOW: frames go out with the driver's sync file instead of after
	 * glFinish, and release fences are waited for in GL (frame_fence.c). */
	bool native_fences;
	bool gpu_waits;
	/* The held buffer's release fence, until the buffer is queued: each
	 * context that renders into the buffer waits for it first. */
	int release_fence;
	/* The config's, for the depth/stencil a direct target needs. */
	EGLint depth_size, stencil_size;
	/* Frames swapped out of the internal pbuffer since it was made: on
	 * the copy path, what its content is worth (EGL_BUFFER_AGE_EXT). */
	uint64_t pbuffer_frames;
	struct gl_target targets[PLATFORM_MAX_TARGETS];
	uint32_t target_count;
};

struct platform_surface *platform_surface_get(struct platform_display *display, EGLSurface handle);
void platform_surface_put(struct platform_surface *surface);
EGLSurface hook_create_platform_window_surface(EGLDisplay dpy, EGLConfig config, void *native,
                                               const EGLAttrib *attribs);
EGLSurface hook_create_platform_window_surface_ext(EGLDisplay dpy, EGLConfig config, void *native,
                                                   const EGLint *attribs);
EGLSurface hook_create_window_surface(EGLDisplay dpy, EGLConfig config, EGLNativeWindowType native,
                                      const EGLint *attribs);
EGLSurface hook_create_platform_pixmap_surface(EGLDisplay dpy, EGLConfig config, void *native,
                                               const EGLAttrib *attribs);
EGLSurface hook_create_platform_pixmap_surface_ext(EGLDisplay dpy, EGLConfig config, void *native,
                                                   const EGLint *attribs);
EGLSurface hook_create_pixmap_surface(EGLDisplay dpy, EGLConfig config, EGLNativePixmapType native,
                                      const EGLint *attribs);
EGLBoolean hook_destroy_surface(EGLDisplay dpy, EGLSurface surface);
EGLBoolean hook_swap_buffers(EGLDisplay dpy, EGLSurface surface);
EGLBoolean hook_swap_buffers_with_damage(EGLDisplay dpy, EGLSurface surface, const EGLint *rects, EGLint count);
EGLBoolean hook_swap_interval(EGLDisplay dpy, EGLint interval);
EGLBoolean hook_query_surface(EGLDisplay dpy, EGLSurface surface, EGLint attribute, EGLint *value);
EGLBoolean hook_make_current(EGLDisplay dpy, EGLSurface draw, EGLSurface read, EGLContext context);
EGLBoolean hook_wait_client(void);
EGLBoolean hook_wait_gl(void);
/* uda host extensions (hook names udaPlatformDefaultFramebuffer,
 * udaPlatformReleaseCurrent and udaPlatformReleaseThread): the framebuffer
 * object standing for framebuffer 0 on this thread (0: none), giving
 * framebuffer 0 back before the host switches the thread to another
 * display, and letting go of the thread's surfaces after
 * eglReleaseThread. */
GLuint hook_default_framebuffer(void);
void hook_leave_display(void);
void hook_release_thread(void);
void hook_release_current(void);
/* A native window kind's new buffers (negotiated again, as for new
 * linux-dmabuf feedback), exchanged while the surface holds none of the
 * old ones: returns the old uda_surface, the kind's to destroy. */
uda_surface *platform_window_replace(struct platform_surface *surface, uda_surface *replacement);
/* A native window's size changed: the frame being drawn takes it when
 * the surface is current on this thread (else at its next
 * eglMakeCurrent). */
void platform_window_resized(struct platform_surface *surface);
/* eglTerminate: every surface destroyed (those current somewhere go when
 * their threads let go). `unloading`: the driver unloads the platform,
 * everything goes now. */
void platform_surface_destroy_all(struct platform_display *display, bool unloading);
void *platform_surface_internal_handle(struct platform_display *display, void *handle);

#endif
