/* The EGL entry points the host writes by hand: display creation, the
 * calls without a display (errors, current state, waits) and the strings
 * and lookups that must include the platforms. Everything else is in the
 * generated host_entrypoints.c. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"

/* What the application made current through the host on a platform
 * display: the driver knows only the internal handles, so the queries
 * for current state answer from here. */
static _Thread_local struct {
	bool active;
	EGLDisplay display;
	EGLSurface draw, read;
	struct host_platform *platform;
} current;

unsigned host_current_default_framebuffer(void)
{
	return current.active && current.platform->default_framebuffer ? current.platform->default_framebuffer() : 0;
}

/* Before the thread leaves a platform's display behind. */
static void leave_platform_display(void)
{
	if (current.active && current.platform->release_current)
		current.platform->release_current();
	current.active = false;
}

#define REAL(name) ((pfn_##name)host_real(HOST_EP_##name))

typedef EGLDisplay (*pfn_eglGetDisplay)(EGLNativeDisplayType);
typedef EGLDisplay (*pfn_eglGetPlatformDisplay)(EGLenum, void *, const EGLAttrib *);
typedef EGLDisplay (*pfn_eglGetPlatformDisplayEXT)(EGLenum, void *, const EGLint *);
typedef const char *(*pfn_eglQueryString)(EGLDisplay, EGLint);
typedef __eglMustCastToProperFunctionPointerType (*pfn_eglGetProcAddress)(const char *);
typedef EGLint (*pfn_eglGetError)(void);
typedef EGLBoolean (*pfn_eglMakeCurrent)(EGLDisplay, EGLSurface, EGLSurface, EGLContext);
typedef EGLDisplay (*pfn_eglGetCurrentDisplay)(void);
typedef EGLSurface (*pfn_eglGetCurrentSurface)(EGLint);
typedef EGLBoolean (*pfn_eglReleaseThread)(void);
typedef EGLBoolean (*pfn_eglWaitClient)(void);
typedef EGLBoolean (*pfn_eglWaitGL)(void);
typedef EGLBoolean (*pfn_eglWaitNative)(EGLint);

static struct host_platform *platform_for(EGLenum type)
{
	unsigned count = 0;
	struct host_platform *platforms = host_platforms(&count);
	for (unsigned i = 0; i < count; i++) {
		if (platforms[i].ext.platform == type)
			return &platforms[i];
	}
	return NULL;
}

static EGLDisplay platform_display(struct host_platform *platform, EGLenum type, void *native,
                                   const EGLAttrib *attribs)
{
	host_error_own();
	EGLDisplay dpy = platform->ext.exports.getPlatformDisplay(platform->ext.data, type, native, attribs);
	if (dpy != EGL_NO_DISPLAY) {
		host_register_display(platform, dpy);
		host_hook_end(false);
	}
	return dpy;
}

/* A platform may serve some native displays of a platform type it does
 * not own: uda's gbm_devices (GBM_BACKEND=uda) on EGL_PLATFORM_GBM_KHR,
 * which Mesa refuses. The platforms are asked in turn, as a driver that
 * loads external platforms asks them; the displays none serves stay
 * Mesa's. Only GBM: no other type of Mesa's has natives uda makes. */
static EGLDisplay claimed_display(EGLenum type, void *native, const EGLAttrib *attribs)
{
	if (type != EGL_PLATFORM_GBM_KHR)
		return EGL_NO_DISPLAY;
	unsigned count = 0;
	struct host_platform *platforms = host_platforms(&count);
	for (unsigned i = 0; i < count; i++) {
		EGLDisplay dpy = platform_display(&platforms[i], type, native, attribs);
		if (dpy != EGL_NO_DISPLAY)
			return dpy;
	}
	return EGL_NO_DISPLAY;
}

HOST_EXPORT EGLDisplay eglGetPlatformDisplay(EGLenum type, void *native, const EGLAttrib *attribs)
{
	struct host_platform *platform = platform_for(type);
	if (platform)
		return platform_display(platform, type, native, attribs);
	EGLDisplay claimed = claimed_display(type, native, attribs);
	if (claimed != EGL_NO_DISPLAY)
		return claimed;
	host_error_release();
	return REAL(eglGetPlatformDisplay) ? REAL(eglGetPlatformDisplay)(type, native, attribs) : EGL_NO_DISPLAY;
}

#define MAX_DISPLAY_ATTRIBS 32

EGLDisplay eglGetPlatformDisplayEXT(EGLenum type, void *native, const EGLint *attribs)
{
	struct host_platform *platform = platform_for(type);
	if (!platform && (!attribs || attribs[0] == EGL_NONE)) {
		EGLDisplay claimed = claimed_display(type, native, NULL);
		if (claimed != EGL_NO_DISPLAY)
			return claimed;
	}
	if (!platform) {
		host_error_release();
		pfn_eglGetPlatformDisplayEXT real = REAL(eglGetPlatformDisplayEXT);
		return real ? real(type, native, attribs) : EGL_NO_DISPLAY;
	}
	EGLAttrib wide[MAX_DISPLAY_ATTRIBS * 2 + 1];
	size_t n = 0;
	for (; attribs && attribs[n] != EGL_NONE; n += 2) {
		if (n >= MAX_DISPLAY_ATTRIBS * 2) {
			host_error_set(EGL_BAD_ATTRIBUTE);
			return EGL_NO_DISPLAY;
		}
		wide[n] = attribs[n];
		wide[n + 1] = attribs[n + 1];
	}
	wide[n] = EGL_NONE;
	return platform_display(platform, type, native, wide);
}

HOST_EXPORT EGLDisplay eglGetDisplay(EGLNativeDisplayType native)
{
	unsigned count = 0;
	struct host_platform *platforms = host_platforms(&count);
	for (unsigned i = 0; i < count && native != EGL_DEFAULT_DISPLAY; i++) {
		if (platforms[i].ext.exports.isValidNativeDisplay &&
		    platforms[i].ext.exports.isValidNativeDisplay(platforms[i].ext.data, (void *)native))
			return platform_display(&platforms[i], platforms[i].ext.platform, (void *)native, NULL);
	}
	host_error_release();
	return REAL(eglGetDisplay)(native);
}

/* The real client extensions plus every platform's, made once. */
static char *combined_client_extensions;

static void build_client_extensions(void)
{
	const char *real = REAL(eglQueryString) ? REAL(eglQueryString)(EGL_NO_DISPLAY, EGL_EXTENSIONS) : NULL;
	size_t length = real ? strlen(real) : 0;
	unsigned count = 0;
	struct host_platform *platforms = host_platforms(&count);
	const char *extra[8] = {0};
	for (unsigned i = 0; i < count && i < 8; i++) {
		extra[i] = platforms[i].ext.exports.queryString
		                   ? platforms[i].ext.exports.queryString(platforms[i].ext.data, EGL_NO_DISPLAY,
		                                                          EGL_EXT_PLATFORM_PLATFORM_CLIENT_EXTENSIONS)
		                   : NULL;
		length += extra[i] ? strlen(extra[i]) + 1 : 0;
	}
	char *text = malloc(length + 1);
	if (!text)
		return;
	snprintf(text, length + 1, "%s", real ? real : "");
	for (unsigned i = 0; i < count && i < 8; i++) {
		if (extra[i] && extra[i][0]) {
			size_t used = strlen(text);
			snprintf(text + used, length + 1 - used, "%s%s", used ? " " : "", extra[i]);
		}
	}
	combined_client_extensions = text;
}

HOST_EXPORT const char *eglQueryString(EGLDisplay dpy, EGLint name)
{
	if (dpy == EGL_NO_DISPLAY && name == EGL_EXTENSIONS) {
		host_error_release();
		static pthread_once_t once = PTHREAD_ONCE_INIT;
		pthread_once(&once, build_client_extensions);
		return combined_client_extensions;
	}
	struct host_call call;
	if (!host_call_begin(&call, dpy, HOST_EP_eglQueryString))
		return REAL(eglQueryString)(dpy, name);
	if (call.hook) {
		const char *result = ((pfn_eglQueryString)call.hook)(dpy, name);
		host_hook_end(result == NULL);
		return result;
	}
	return host_call_translated(&call) ? REAL(eglQueryString)(call.internal, name) : NULL;
}

HOST_EXPORT EGLint eglGetError(void)
{
	EGLint error;
	if (host_error_take(&error)) {
		REAL(eglGetError)(); /* and clear the real one */
		return error;
	}
	return REAL(eglGetError)();
}

HOST_EXPORT EGLBoolean eglMakeCurrent(EGLDisplay dpy, EGLSurface draw, EGLSurface read, EGLContext context)
{
	struct host_call call;
	if (!host_call_begin(&call, dpy, HOST_EP_eglMakeCurrent)) {
		leave_platform_display();
		return REAL(eglMakeCurrent)(dpy, draw, read, context);
	}
	EGLBoolean result;
	if (call.hook) {
		result = ((pfn_eglMakeCurrent)call.hook)(dpy, draw, read, context);
		host_hook_end(!result);
	} else {
		result = host_call_translated(&call) &&
		         REAL(eglMakeCurrent)(call.internal, host_call_surface(&call, draw), host_call_surface(&call, read),
		                              context);
	}
	if (result) {
		current.active = context != EGL_NO_CONTEXT;
		current.display = dpy;
		current.draw = draw;
		current.read = read;
		current.platform = call.platform;
	}
	return result;
}

HOST_EXPORT EGLDisplay eglGetCurrentDisplay(void)
{
	host_error_release();
	return current.active ? current.display : REAL(eglGetCurrentDisplay)();
}

HOST_EXPORT EGLSurface eglGetCurrentSurface(EGLint which)
{
	host_error_release();
	if (!current.active)
		return REAL(eglGetCurrentSurface)(which);
	if (which == EGL_DRAW)
		return current.draw;
	if (which == EGL_READ)
		return current.read;
	return REAL(eglGetCurrentSurface)(which); /* its EGL_BAD_PARAMETER */
}

HOST_EXPORT EGLBoolean eglReleaseThread(void)
{
	host_error_release();
	leave_platform_display();
	EGLBoolean result = REAL(eglReleaseThread)();
	/* Nothing is current now: platforms let go of the thread's surfaces. */
	unsigned count = 0;
	struct host_platform *platforms = host_platforms(&count);
	for (unsigned i = 0; i < count; i++) {
		if (platforms[i].release_thread)
			platforms[i].release_thread();
	}
	return result;
}

/* Waits without a display go to the platform of the current display. */
static void *current_hook(enum host_entrypoint entrypoint)
{
	struct host_platform *platform = current.active ? host_platform_of_display(current.display) : NULL;
	return platform ? platform->hooks[entrypoint] : NULL;
}

HOST_EXPORT EGLBoolean eglWaitClient(void)
{
	pfn_eglWaitClient hook = (pfn_eglWaitClient)current_hook(HOST_EP_eglWaitClient);
	if (!hook) {
		host_error_release();
		return REAL(eglWaitClient)();
	}
	host_error_own();
	EGLBoolean result = hook();
	host_hook_end(!result);
	return result;
}

HOST_EXPORT EGLBoolean eglWaitGL(void)
{
	pfn_eglWaitGL hook = (pfn_eglWaitGL)current_hook(HOST_EP_eglWaitGL);
	if (!hook) {
		host_error_release();
		return REAL(eglWaitGL)();
	}
	host_error_own();
	EGLBoolean result = hook();
	host_hook_end(!result);
	return result;
}

HOST_EXPORT EGLBoolean eglWaitNative(EGLint engine)
{
	/* A uda buffer has no native renderer to wait for. */
	if (current_hook(HOST_EP_eglWaitGL)) {
		host_hook_end(false);
		return EGL_TRUE;
	}
	host_error_release();
	return REAL(eglWaitNative)(engine);
}

HOST_EXPORT __eglMustCastToProperFunctionPointerType eglGetProcAddress(const char *name)
{
	host_error_release();
	if (!name)
		return NULL;
	void *gl = host_gl_function(name);
	if (gl)
		return (__eglMustCastToProperFunctionPointerType)gl;
	enum host_entrypoint entrypoint = host_entrypoint_find(name);
	if (entrypoint == HOST_EP_COUNT)
		return REAL(eglGetProcAddress)(name);
	/* Hand out the host's function when the driver has the entry point
	 * or some platform implements it. */
	bool hooked = false;
	unsigned count = 0;
	struct host_platform *platforms = host_platforms(&count);
	for (unsigned i = 0; i < count; i++)
		hooked = hooked || platforms[i].hooks[entrypoint];
	if (!hooked && !host_real(entrypoint))
		return NULL;
	return (__eglMustCastToProperFunctionPointerType)host_entrypoint_functions[entrypoint];
}
