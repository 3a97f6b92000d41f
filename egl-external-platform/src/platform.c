/* The module's entry point and export table: what an EGL driver (NVIDIA's
 * libEGL, or uda's host for Mesa) loads through the EGL External Platform
 * Interface. */
#include <execinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image.h"
#include "platform.h"
#include "surface.h"

/* The one process-wide anchor of the module. Hooks have the signatures of
 * the EGL functions they replace, with no platform data, so a hook can
 * only find its platform (and check that a handle is one of its displays)
 * through state the module keeps itself. A driver loads a platform once;
 * a second load is refused rather than tracked. */
static pthread_mutex_t loaded_lock = PTHREAD_MUTEX_INITIALIZER;
static struct uda_platform *loaded;
/* For the unload report below: whether the driver said goodbye first. */
static unsigned loads, unloads;

struct uda_platform *platform_current(void)
{
	pthread_mutex_lock(&loaded_lock);
	struct uda_platform *platform = loaded;
	pthread_mutex_unlock(&loaded_lock);
	return platform;
}

void platform_debug(const char *format, ...)
{
	const char *log = secure_getenv("UDA_LOG");
	if (!log || !log[0])
		return;
	char message[512];
	va_list args;
	va_start(args, format);
	vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	fprintf(stderr, "uda-egl-platform: %s\n", message);
}

void platform_set_error(struct uda_platform *platform, EGLint error, const char *format, ...)
{
	char message[512];
	va_list args;
	va_start(args, format);
	vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	/* As the core does with UDA_LOG: EGL_KHR_debug callbacks are rare in
	 * applications, and a refused swap should be explainable without one. */
	platform_debug("0x%04x: %s", (unsigned)error, message);
	if (platform && platform->driver.setError)
		platform->driver.setError(error, error == EGL_BAD_ALLOC ? EGL_DEBUG_MSG_CRITICAL_KHR : EGL_DEBUG_MSG_ERROR_KHR,
		                          message);
}

bool platform_widen_attribs(struct uda_platform *platform, const EGLint *in, EGLAttrib *out)
{
	size_t n = 0;
	for (; in && in[n] != EGL_NONE; n += 2) {
		if (n >= PLATFORM_MAX_ATTRIBS * 2) {
			platform_set_error(platform, EGL_BAD_ATTRIBUTE, "more than %d attributes", PLATFORM_MAX_ATTRIBS);
			return false;
		}
		out[n] = in[n];
		out[n + 1] = in[n + 1];
	}
	out[n] = EGL_NONE;
	return true;
}

static bool load_egl(struct uda_platform *platform)
{
	PEGLEXTFNGETPROCADDRESS get = platform->driver.getProcAddress;
	struct platform_egl *egl = &platform->egl;
#define LOAD(name) egl->name = (void *)get("egl" #name)
	LOAD(Initialize);
	LOAD(QueryString);
	LOAD(ChooseConfig);
	LOAD(GetConfigAttrib);
	LOAD(CreatePbufferSurface);
	LOAD(DestroySurface);
	LOAD(MakeCurrent);
	LOAD(GetCurrentContext);
	LOAD(GetCurrentSurface);
	LOAD(QuerySurface);
	LOAD(SwapBuffers);
	LOAD(SwapBuffersWithDamageKHR);
	LOAD(CreateImageKHR);
	LOAD(DestroyImageKHR);
	LOAD(CreateImage);
	LOAD(DestroyImage);
	LOAD(GetError);
	LOAD(CreateSyncKHR);
	LOAD(DestroySyncKHR);
	LOAD(ClientWaitSyncKHR);
	LOAD(WaitSyncKHR);
	LOAD(DupNativeFenceFDANDROID);
#undef LOAD
	platform_debug("driver entry points: Initialize %p QueryString %p ChooseConfig %p GetConfigAttrib %p "
	               "CreatePbufferSurface %p DestroySurface %p MakeCurrent %p GetCurrentContext %p "
	               "GetCurrentSurface %p QuerySurface %p SwapBuffers %p CreateImageKHR %p DestroyImageKHR %p "
	               "GetError %p",
	               (void *)egl->Initialize, (void *)egl->QueryString, (void *)egl->ChooseConfig,
	               (void *)egl->GetConfigAttrib, (void *)egl->CreatePbufferSurface, (void *)egl->DestroySurface,
	               (void *)egl->MakeCurrent, (void *)egl->GetCurrentContext, (void *)egl->GetCurrentSurface,
	               (void *)egl->QuerySurface, (void *)egl->SwapBuffers, (void *)egl->CreateImageKHR,
	               (void *)egl->DestroyImageKHR, (void *)egl->GetError);
	return egl->Initialize && egl->QueryString && egl->ChooseConfig && egl->GetConfigAttrib &&
	       egl->CreatePbufferSurface && egl->DestroySurface && egl->MakeCurrent && egl->GetCurrentContext &&
	       egl->GetCurrentSurface && egl->QuerySurface && egl->SwapBuffers && egl->CreateImageKHR &&
	       egl->DestroyImageKHR && egl->GetError;
}

/* GL entry points are asked for only once a context exists: some drivers
 * answer eglGetProcAddress for GL names only after their GL library is
 * loaded, which happens with the first context. */
bool platform_load_gl(struct uda_platform *platform)
{
	pthread_mutex_lock(&platform->lock);
	bool loaded_ok = platform->gl_loaded;
	pthread_mutex_unlock(&platform->lock);
	if (loaded_ok)
		return true;
	/* Asked outside the platform's lock, like every call into the
	 * driver: a driver may call the platform's exports under its own. */
	PEGLEXTFNGETPROCADDRESS get = platform->driver.getProcAddress;
	struct platform_gl loading = {0}, *gl = &loading;
#define LOAD(name) gl->name = (void *)get("gl" #name)
	LOAD(GetError);
	LOAD(GetIntegerv);
	LOAD(IsEnabled);
	LOAD(Enable);
	LOAD(Disable);
	LOAD(BindFramebuffer);
	LOAD(BlitFramebuffer);
	LOAD(ReadBuffer);
	LOAD(GenTextures);
	LOAD(DeleteTextures);
	LOAD(BindTexture);
	LOAD(GenFramebuffers);
	LOAD(DeleteFramebuffers);
	LOAD(FramebufferTexture2D);
	LOAD(CheckFramebufferStatus);
	LOAD(EGLImageTargetTexture2DOES);
	LOAD(Finish);
	LOAD(Flush);
	LOAD(GetStringi);
	LOAD(GenRenderbuffers);
	LOAD(DeleteRenderbuffers);
	LOAD(BindRenderbuffer);
	LOAD(RenderbufferStorage);
	LOAD(FramebufferRenderbuffer);
	LOAD(FramebufferParameteriMESA);
#undef LOAD
	const bool complete = gl->GetError && gl->GetIntegerv && gl->IsEnabled && gl->Enable && gl->Disable &&
	                      gl->BindFramebuffer && gl->BlitFramebuffer && gl->ReadBuffer && gl->GenTextures &&
	                      gl->DeleteTextures && gl->BindTexture && gl->GenFramebuffers && gl->DeleteFramebuffers &&
	                      gl->FramebufferTexture2D && gl->CheckFramebufferStatus && gl->EGLImageTargetTexture2DOES &&
	                      gl->Finish && gl->GetStringi && gl->GenRenderbuffers && gl->DeleteRenderbuffers &&
	                      gl->BindRenderbuffer && gl->RenderbufferStorage && gl->FramebufferRenderbuffer;
	pthread_mutex_lock(&platform->lock);
	if (!platform->gl_loaded && complete) {
		platform->gl = loading;
		platform->gl_loaded = true;
	}
	loaded_ok = platform->gl_loaded;
	pthread_mutex_unlock(&platform->lock);
	return loaded_ok;
}

/* Sorted by name for bsearch. */
static const struct hook {
	const char *name;
	void *function;
} hooks[] = {
	{"eglChooseConfig", (void *)hook_choose_config},
	{"eglCreateImage", (void *)hook_create_image},
	{"eglCreateImageKHR", (void *)hook_create_image_khr},
	{"eglCreatePixmapSurface", (void *)hook_create_pixmap_surface},
	{"eglCreatePlatformPixmapSurface", (void *)hook_create_platform_pixmap_surface},
	{"eglCreatePlatformPixmapSurfaceEXT", (void *)hook_create_platform_pixmap_surface_ext},
	{"eglCreatePlatformWindowSurface", (void *)hook_create_platform_window_surface},
	{"eglCreatePlatformWindowSurfaceEXT", (void *)hook_create_platform_window_surface_ext},
	{"eglCreateWindowSurface", (void *)hook_create_window_surface},
	{"eglDestroyImage", (void *)hook_destroy_image},
	{"eglDestroyImageKHR", (void *)hook_destroy_image},
	{"eglDestroySurface", (void *)hook_destroy_surface},
	{"eglGetConfigAttrib", (void *)hook_get_config_attrib},
	{"eglInitialize", (void *)hook_initialize},
	{"eglMakeCurrent", (void *)hook_make_current},
	{"eglQueryString", (void *)hook_query_string},
	{"eglQuerySurface", (void *)hook_query_surface},
	{"eglSwapBuffers", (void *)hook_swap_buffers},
	{"eglSwapBuffersWithDamageEXT", (void *)hook_swap_buffers_with_damage},
	{"eglSwapBuffersWithDamageKHR", (void *)hook_swap_buffers_with_damage},
	{"eglSwapInterval", (void *)hook_swap_interval},
	{"eglTerminate", (void *)hook_terminate},
	{"eglWaitClient", (void *)hook_wait_client},
	{"eglWaitGL", (void *)hook_wait_gl},
	{"udaPlatformDefaultFramebuffer", (void *)hook_default_framebuffer},
	{"udaPlatformReleaseCurrent", (void *)hook_leave_display},
	{"udaPlatformReleaseThread", (void *)hook_release_thread},
};

static int compare_hook(const void *key, const void *element)
{
	return strcmp(key, ((const struct hook *)element)->name);
}

void *platform_get_hook(const char *name)
{
	if (!name)
		return NULL;
	const struct hook *hook = bsearch(name, hooks, sizeof(hooks) / sizeof(hooks[0]), sizeof(hooks[0]),
	                                  compare_hook);
	return hook ? hook->function : NULL;
}

static void *export_get_hook_address(void *data, const char *name)
{
	(void)data;
	void *hook = platform_get_hook(name);
	platform_debug("getHookAddress(%s): %s", name ? name : "(null)", hook ? "hooked" : "not hooked");
	return hook;
}

static EGLBoolean export_is_valid_native_display(void *data, void *native)
{
	const struct platform_module *module = ((struct uda_platform *)data)->module;
	bool ours = module->is_native_display && module->is_native_display(native);
	platform_debug("isValidNativeDisplay(%p): %s", native, ours ? "ours" : "not ours");
	return ours ? EGL_TRUE : EGL_FALSE;
}

static EGLDisplay export_get_platform_display(void *data, EGLenum type, void *native, const EGLAttrib *attribs)
{
	struct uda_platform *platform = data;
	platform_debug("getPlatformDisplay(0x%x, %p)", (unsigned)type, native);
	return platform->module->get_display(platform, type, native, attribs);
}

static const char *export_query_string(void *data, EGLDisplay dpy, EGLExtPlatformString name)
{
	platform_debug("queryString(%p, %d)", (void *)dpy, (int)name);
	switch (name) {
	case EGL_EXT_PLATFORM_PLATFORM_CLIENT_EXTENSIONS:
		return ((struct uda_platform *)data)->module->client_extensions;
	case EGL_EXT_PLATFORM_DISPLAY_EXTENSIONS:
		/* The driver asks every platform about every display. */
		return platform_display_find(data, dpy) ? "EGL_UDA_image_allocation" : "";
	default:
		return NULL;
	}
}

static void *export_get_internal_handle(EGLDisplay dpy, EGLenum type, void *handle)
{
	/* Handles of other platforms' displays are no error: they pass. */
	if (type == EGL_OBJECT_DISPLAY_KHR) {
		struct platform_display *display = platform_display_find(platform_current(), handle);
		return display ? display->internal : NULL;
	}
	if (type == EGL_OBJECT_SURFACE_KHR) {
		struct platform_display *display = platform_display_find(platform_current(), dpy);
		return display ? platform_surface_internal_handle(display, handle) : handle;
	}
	/* Contexts, configs, images and syncs are the driver's own. */
	return handle;
}

static EGLBoolean export_unload(void *data)
{
	struct uda_platform *platform = data;
	platform_debug("unloaded by the driver");
	pthread_mutex_lock(&loaded_lock);
	if (loaded == platform)
		loaded = NULL;
	unloads++;
	pthread_mutex_unlock(&loaded_lock);
	platform_display_destroy_all(platform);
	if (platform->module->unload)
		platform->module->unload(platform);
	pthread_mutex_destroy(&platform->lock);
	free(platform);
	return EGL_TRUE;
}

EGLBoolean platform_load(int major, int minor, const EGLExtDriver *driver, EGLExtPlatform *platform_out,
                         const struct platform_module *module)
{
	platform_debug("loaded by a driver of interface %d.%d, to serve platform 0x%x", major, minor,
	               (unsigned)module->platform);
	if (!driver || !platform_out || !driver->getProcAddress || !driver->setError)
		return EGL_FALSE;
	/* Major versions are incompatible; any 1.x driver takes a 1.0 table. */
	if (!EGL_EXTERNAL_PLATFORM_VERSION_CMP(major, minor, 1, 0))
		return EGL_FALSE;

	struct uda_platform *platform = calloc(1, sizeof(*platform));
	if (!platform)
		return EGL_FALSE;
	platform->driver = *driver;
	platform->module = module;
	platform->host_interposes_gl = driver->getProcAddress("udaEglHostInterposesGL") != NULL;
	if (!load_egl(platform) || pthread_mutex_init(&platform->lock, NULL) != 0) {
		free(platform);
		return EGL_FALSE;
	}
	pthread_mutex_lock(&loaded_lock);
	bool first = loaded == NULL;
	if (first) {
		loaded = platform;
		loads++;
	}
	pthread_mutex_unlock(&loaded_lock);
	if (!first)
		platform_debug("refused: a platform of this module is loaded already");
	if (!first) {
		pthread_mutex_destroy(&platform->lock);
		free(platform);
		return EGL_FALSE;
	}

	platform_out->version.major = EGL_EXTERNAL_PLATFORM_VERSION_MAJOR;
	platform_out->version.minor = EGL_EXTERNAL_PLATFORM_VERSION_MINOR;
	platform_out->version.micro = 0;
	platform_out->platform = module->platform;
	platform_out->data = platform;
	platform_out->exports = (EGLExtPlatformExports){
		.unloadEGLExternalPlatform = export_unload,
		.getHookAddress = export_get_hook_address,
		.isValidNativeDisplay = export_is_valid_native_display,
		.getPlatformDisplay = export_get_platform_display,
		.queryString = export_query_string,
		.getInternalHandle = export_get_internal_handle,
		/* Left NULL, as NVIDIA's own platforms (egl-wayland, egl-gbm,
		 * egl-x11) leave it: objects keep the driver's labels. */
		.getObjectLabel = NULL,
	};
	platform_debug("loaded");
	return EGL_TRUE;
}

/* Runs when the module leaves the process, at exit or at a dlclose. A
 * driver that loads the platform and then drops it unasked (NVIDIA's
 * libEGL did, docs/hardware.md) is seen here: who closed it, and whether
 * unloadEGLExternalPlatform came first. */
__attribute__((destructor)) static void report_module_unload(void)
{
	const char *log = secure_getenv("UDA_LOG");
	if (!log || !log[0])
		return;
	pthread_mutex_lock(&loaded_lock);
	unsigned loaded_count = loads, unloaded_count = unloads;
	pthread_mutex_unlock(&loaded_lock);
	platform_debug("module leaving the process: %u load(s), %u unloadEGLExternalPlatform call(s); caller:",
	               loaded_count, unloaded_count);
	void *frames[16];
	int depth = backtrace(frames, 16);
	backtrace_symbols_fd(frames, depth, STDERR_FILENO);
}
