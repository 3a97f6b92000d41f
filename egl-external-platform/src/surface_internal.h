/* Shared by the files that make up the platform's surfaces (surface.c,
 * current.c, window.c, window_uda.c, swap.c, pixmap.c) and by nothing
 * else: the thread's bindings and the steps each file takes from the
 * others. */
#ifndef UDA_EGL_SURFACE_INTERNAL_H
#define UDA_EGL_SURFACE_INTERNAL_H

#include "frame_fence.h"
#include "gl_target.h"
#include "surface.h"

/* current.c: this thread's state. */
/* Direct rendering: which window surface's buffer stands for framebuffer
 * 0 on this thread, and through which framebuffer object. */
struct direct_binding {
	struct platform_surface *surface;
	GLuint framebuffer;
};
extern _Thread_local struct direct_binding direct_current;
/* Set while the platform itself calls into uda: an import switches
 * contexts through the host (eglMakeCurrent and back), and those switches
 * must not start or stop direct rendering underneath the platform. */
extern _Thread_local unsigned platform_busy;
/* The platform surface the driver has current for drawing on this
 * thread, if any; no reference of its own (the binding holds one). */
struct platform_surface *current_draw(void);
/* Drops a binding the driver no longer has current. */
void drop_stale_binding(void);
/* Points whichever of the draw and read bindings is `from` at `to`. */
void rebind(const struct platform_gl *gl, GLuint from, GLuint to);

/* surface.c */
/* Whether a config renders a format: its channels must match (the copy
 * converts between channel orders, never between depths). */
bool config_renders_format(struct platform_display *display, EGLConfig config, uint32_t format);
/* Window and pixmap surfaces take no attribute the pbuffer would need;
 * the ones EGL defines for them are checked and otherwise refused. */
bool check_attribs(struct uda_platform *platform, const EGLAttrib *attribs, const char *function);
EGLSurface create_internal(struct platform_display *display, EGLConfig config, uint32_t width, uint32_t height);
/* Lists the surface on its display with its internal pbuffer; on
 * failure (EGL error set) the surface stays the caller's to free. */
EGLSurface add_surface(struct platform_display *display, struct platform_surface *surface);

/* window.c */
EGLSurface create_window(EGLDisplay dpy, EGLConfig config, void *native, const EGLAttrib *attribs);
/* A new window surface with what every window takes from its config and
 * the environment; NULL (EGL_BAD_ALLOC set) without memory. */
struct platform_surface *window_alloc(struct platform_display *display, EGLConfig config);
bool hold_buffer(struct platform_surface *surface, uda_surface *window);
/* The current context is about to write the held buffer. */
void wait_for_release(struct platform_surface *surface);
/* The held buffer leaves the surface: its writes were ordered after the
 * release fence already. */
void forget_release(struct platform_surface *surface);
struct gl_target *window_target(struct platform_surface *surface);
/* Freeing an import of another context switches to it and back through
 * the host: the platform's own switches. */
void release_targets(struct platform_surface *surface);
/* Gives up direct rendering for the surface: the copy path from now on. */
void direct_fall_back(struct platform_surface *surface);
/* The surface was just made current: bind its held buffer where the
 * context has framebuffer 0 bound. */
void direct_begin(struct platform_surface *surface);
/* When the next buffer has another size, GL renders the next frame at
 * that size: a new pbuffer, bound in place of the old one. */
void follow_buffer_size(struct platform_surface *surface, uint32_t width, uint32_t height);

/* window_uda.c */
EGLSurface window_uda_create(struct platform_display *display, EGLConfig config, void *native,
                             const EGLAttrib *attribs);

/* pixmap.c */
EGLSurface create_pixmap(EGLDisplay dpy, EGLConfig config, void *native, const EGLAttrib *attribs);
void pixmap_load(struct platform_surface *surface);
void pixmap_store(struct platform_surface *surface);

#endif
