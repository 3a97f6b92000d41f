/* Private to libuda-egl-host: the driver side of the EGL External Platform
 * Interface, in front of a libEGL that has none (Mesa's). */
#ifndef UDA_EGL_HOST_H
#define UDA_EGL_HOST_H

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <eglexternalplatform.h>
#include <stdbool.h>

#include "host_entrypoints.h"

#define HOST_EXPORT __attribute__((visibility("default")))

/* One loaded external platform module. */
struct host_platform {
	void *module;
	char *path;
	EGLExtPlatform ext;
	/* getHookAddress's answer for every entry point, asked once. */
	void *hooks[HOST_EP_COUNT];
	/* uda platform extensions to the interface, for direct rendering
	 * (host_gl.c): NULL for other platforms. */
	unsigned (*default_framebuffer)(void);
	void (*release_current)(void);
	void (*release_thread)(void);
};

/* A call on an application display: whose it is and what to call. */
struct host_call {
	struct host_platform *platform;
	EGLDisplay display;
	EGLDisplay internal;
	void *hook;
};

/* The real libEGL's function for an entry point (NULL if it lacks it). */
void *host_real(enum host_entrypoint entrypoint);
/* False if `dpy` is not an external platform's: forward unchanged. True
 * with call->hook set (call it, then host_hook_end) or not (forward with
 * host_call_translated's handles). */
bool host_call_begin(struct host_call *call, EGLDisplay dpy, enum host_entrypoint entrypoint);
/* Fills call->internal; false (EGL_BAD_DISPLAY set) if the platform has
 * no internal display for it. */
bool host_call_translated(struct host_call *call);
EGLSurface host_call_surface(const struct host_call *call, EGLSurface surface);
/* After a hook: a failure the hook reported through setError stands;
 * one it did not report is the driver's, whose own error then stands. */
void host_hook_end(bool failed);
/* eglGetError's answer when a platform owns the thread's error; false
 * when the real libEGL's stands. */
bool host_error_take(EGLint *out_error);

/* The platform whose display `dpy` is, or NULL. */
struct host_platform *host_platform_of_display(EGLDisplay dpy);
/* Remembers a display a platform returned. */
void host_register_display(struct host_platform *platform, EGLDisplay dpy);
/* The loaded platforms (loaded on first use). */
struct host_platform *host_platforms(unsigned *count);
/* The thread's error, as EGLExtDriver::setError leaves it. */
void host_error_set(EGLint error);
void host_error_own(void);
void host_error_release(void);

/* The real GL function of that name (through the real eglGetProcAddress). */
void *host_real_gl(const char *name);
/* host_gl.c: the host's GL function of that name, or NULL. */
void *host_gl_function(const char *name);
/* The framebuffer object a platform has standing for framebuffer 0 on
 * this thread, or 0. */
unsigned host_current_default_framebuffer(void);

/* Hand-written entry points that eglext.h declares only with prototypes
 * switched on (which would clash with the generated static wrappers). */
EGLDisplay eglGetPlatformDisplayEXT(EGLenum platform, void *native_display, const EGLint *attrib_list);

#endif
