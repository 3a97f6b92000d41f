/* EGL displays of uda devices: creation, initialization, strings and the
 * configs, which render window and pixmap surfaces through the device's
 * pbuffer configs. */
#include <drm_fourcc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uda/uda_gl.h>

#include "image.h"
#include "platform.h"
#include "surface.h"

static uda_device *gl_device_of(uda_device *device)
{
	uda_device_info info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
	if (uda_device_get_info(device, &info) != UDA_SUCCESS)
		return NULL;
	if (info.api == UDA_DEVICE_API_GL)
		return device;
	uda_device *gl = NULL;
	if (uda_context_find_device(uda_device_get_context(device), info.device_uuid, UDA_DEVICE_API_GL, &gl) !=
	    UDA_SUCCESS)
		return NULL;
	return gl;
}

EGLDisplay platform_get_display(struct uda_platform *platform, EGLenum type, void *native, const EGLAttrib *attribs)
{
	/* eglGetDisplay of a uda gbm_device comes with the module's own enum
	 * (export_is_valid_native_display); a uda_device never looks like a
	 * gbm_device. */
	uda_device *guessed_gbm = type == EGL_PLATFORM_UDA ? gbm_native_guess_device(native) : NULL;
	const bool gbm = type == EGL_PLATFORM_GBM_KHR || guessed_gbm;
	if (type != EGL_PLATFORM_UDA && !gbm) {
		platform_set_error(platform, EGL_BAD_PARAMETER, "uda platform: asked for platform 0x%x", type);
		return EGL_NO_DISPLAY;
	}
	if (!native) {
		platform_set_error(platform, EGL_BAD_PARAMETER, "eglGetPlatformDisplay: the native display is NULL");
		return EGL_NO_DISPLAY;
	}
	if (attribs && attribs[0] != EGL_NONE) {
		platform_set_error(platform, EGL_BAD_ATTRIBUTE,
		                   "eglGetPlatformDisplay: the uda platform takes no attributes (0x%lx)",
		                   (unsigned long)attribs[0]);
		return EGL_NO_DISPLAY;
	}
	/* A gbm_device of another backend is no error: not ours to serve. */
	uda_device *device = type == EGL_PLATFORM_GBM_KHR ? gbm_native_display_device(native) : guessed_gbm;
	if (gbm && !device)
		return EGL_NO_DISPLAY;
	if (!gbm) {
		/* The core tells a live uda_device by its first word. */
		if (!uda_device_get_context(native)) {
			platform_set_error(platform, EGL_BAD_PARAMETER,
			                   "eglGetPlatformDisplay: %p is not a uda_device", native);
			return EGL_NO_DISPLAY;
		}
		device = gl_device_of(native);
	}
	uda_gl_device_native gl_native = {.type = UDA_STRUCTURE_TYPE_GL_DEVICE_NATIVE};
	if (!device || uda_device_get_native(device, &gl_native) != UDA_SUCCESS) {
		/* EGL: no display for a valid native display is no error. */
		if (platform->driver.debugMessage)
			platform->driver.debugMessage(EGL_DEBUG_MSG_WARN_KHR,
			                              "eglGetPlatformDisplay: the uda device has no GL device");
		return EGL_NO_DISPLAY;
	}

	pthread_mutex_lock(&platform->lock);
	struct platform_display *display = platform->displays;
	while (display && display->device != device)
		display = display->next;
	if (display && !display->initialized) {
		/* The same pointer may be a new device since the display was
		 * terminated (the old one's context destroyed after it). */
		display->internal = gl_native.egl_display;
	}
	if (!display) {
		display = calloc(1, sizeof(*display));
		if (display) {
			display->platform = platform;
			display->device = device;
			display->internal = gl_native.egl_display;
			display->next = platform->displays;
			platform->displays = display;
		}
	}
	if (display && gbm)
		display->gbm = true;
	pthread_mutex_unlock(&platform->lock);
	if (!display)
		platform_set_error(platform, EGL_BAD_ALLOC, "eglGetPlatformDisplay: out of memory");
	return display ? (EGLDisplay)display : EGL_NO_DISPLAY;
}

static bool is_uda_gbm_device(void *native)
{
	return gbm_native_guess_device(native) != NULL;
}

/* eglGetDisplay(native) asks every platform whether the pointer is its
 * own. A uda_device * cannot be told from any other pointer without
 * reading memory behind it, so uda devices get displays only from
 * eglGetPlatformDisplay(EGL_PLATFORM_UDA, ...). uda's gbm_devices can
 * (gbm_native.c), and GBM programs written for EGL 1.4 pass them here. */
const struct platform_module platform_module_uda = {
	.platform = EGL_PLATFORM_UDA,
	.client_extensions = "EGL_UDA_platform_uda",
	.is_native_display = is_uda_gbm_device,
	.get_display = platform_get_display,
};

const struct platform_module platform_module_gbm = {
	.platform = EGL_PLATFORM_GBM_KHR,
	.client_extensions = "EGL_UDA_platform_uda",
	.is_native_display = is_uda_gbm_device,
	.get_display = platform_get_display,
};

EGLDisplay platform_display_of_native(struct uda_platform *platform, void *native,
                                      const struct platform_display_impl *impl)
{
	pthread_mutex_lock(&platform->lock);
	struct platform_display *display = platform->displays;
	while (display && !(display->impl == impl && display->native == native))
		display = display->next;
	if (!display) {
		display = calloc(1, sizeof(*display));
		if (display) {
			display->platform = platform;
			display->native = native;
			display->impl = impl;
			display->next = platform->displays;
			platform->displays = display;
		}
	}
	pthread_mutex_unlock(&platform->lock);
	if (!display)
		platform_set_error(platform, EGL_BAD_ALLOC, "eglGetPlatformDisplay: out of memory");
	return display ? (EGLDisplay)display : EGL_NO_DISPLAY;
}

/* Under the platform's lock. */
static struct platform_display *find_display(struct uda_platform *platform, EGLDisplay handle)
{
	struct platform_display *display = platform->displays;
	while (display && (EGLDisplay)display != handle)
		display = display->next;
	return display;
}

struct platform_display *platform_display_find(struct uda_platform *platform, EGLDisplay handle)
{
	if (!platform)
		return NULL;
	pthread_mutex_lock(&platform->lock);
	struct platform_display *display = find_display(platform, handle);
	pthread_mutex_unlock(&platform->lock);
	return display;
}

struct platform_display *platform_display_get(EGLDisplay handle, bool need_initialized)
{
	struct uda_platform *platform = platform_current();
	if (!platform)
		return NULL;
	pthread_mutex_lock(&platform->lock);
	struct platform_display *display = find_display(platform, handle);
	bool initialized = display && display->initialized;
	pthread_mutex_unlock(&platform->lock);
	if (!display)
		platform_set_error(platform, EGL_BAD_DISPLAY, "%p is not a uda platform display", handle);
	else if (need_initialized && !initialized)
		platform_set_error(platform, EGL_NOT_INITIALIZED, "the uda platform display is not initialized");
	return display && (!need_initialized || initialized) ? display : NULL;
}

void platform_display_destroy_all(struct uda_platform *platform)
{
	while (platform->displays) {
		struct platform_display *display = platform->displays;
		platform->displays = display->next;
		platform_surface_destroy_all(display, true);
		platform_image_destroy_all(display);
		if (display->impl)
			display->impl->destroy(display);
		free(display->extensions);
		free(display);
	}
}

EGLBoolean hook_initialize(EGLDisplay dpy, EGLint *major, EGLint *minor)
{
	struct platform_display *display = platform_display_get(dpy, false);
	if (!display)
		return EGL_FALSE;
	struct uda_platform *platform = display->platform;
	pthread_mutex_lock(&platform->lock);
	const bool connected = display->initialized;
	pthread_mutex_unlock(&platform->lock);
	/* A native display of another kind finds its device now. */
	if (display->impl && !connected && !display->impl->initialize(display))
		return EGL_FALSE;
	/* The device's backend initialized the display: this only reads the
	 * version. */
	EGLint internal_major = 0, internal_minor = 0;
	if (!platform->egl.Initialize(display->internal, &internal_major, &internal_minor)) {
		platform_set_error(platform, EGL_NOT_INITIALIZED, "eglInitialize: the device's display refused (0x%x)",
		                   platform->egl.GetError());
		return EGL_FALSE;
	}
	/* The driver is asked outside the platform's lock: a driver that
	 * calls the platform's exports under a lock of its own must not meet
	 * ours taken the other way round. */
	const char *internal = platform->egl.QueryString(display->internal, EGL_EXTENSIONS);
	size_t length = internal ? strlen(internal) : 0;
	static const char ours[] = "EGL_UDA_image_allocation";
	char *extensions = malloc(length + sizeof(ours) + 1);
	if (extensions)
		snprintf(extensions, length + sizeof(ours) + 1, "%s%s%s", internal ? internal : "", length ? " " : "", ours);
	pthread_mutex_lock(&platform->lock);
	if (!display->initialized) {
		free(display->extensions);
		display->extensions = extensions;
		extensions = NULL;
	}
	display->initialized = true;
	pthread_mutex_unlock(&platform->lock);
	free(extensions);
	if (major)
		*major = internal_major;
	if (minor)
		*minor = internal_minor;
	return EGL_TRUE;
}

/* The internal display stays initialized: it is the GL device's, which
 * the uda context still uses. What the application made on this display
 * goes; contexts are the driver's and follow the driver's rules. */
EGLBoolean hook_terminate(EGLDisplay dpy)
{
	struct platform_display *display = platform_display_get(dpy, false);
	if (!display)
		return EGL_FALSE;
	platform_surface_destroy_all(display, false);
	platform_image_destroy_all(display);
	pthread_mutex_lock(&display->platform->lock);
	const bool was_initialized = display->initialized;
	display->initialized = false;
	pthread_mutex_unlock(&display->platform->lock);
	if (display->impl && was_initialized)
		display->impl->terminate(display);
	return EGL_TRUE;
}

const char *hook_query_string(EGLDisplay dpy, EGLint name)
{
	struct platform_display *display = platform_display_get(dpy, true);
	if (!display)
		return NULL;
	if (name == EGL_EXTENSIONS)
		return display->extensions;
	return display->platform->egl.QueryString(display->internal, name);
}

static EGLint config_attrib(struct platform_display *display, EGLConfig config, EGLint attribute)
{
	EGLint value = 0;
	if (!display->platform->egl.GetConfigAttrib(display->internal, config, attribute, &value))
		return 0;
	return value;
}

uint32_t platform_config_fourcc(struct platform_display *display, EGLConfig config)
{
	if (!(config_attrib(display, config, EGL_SURFACE_TYPE) & EGL_PBUFFER_BIT))
		return 0;
	EGLint red = config_attrib(display, config, EGL_RED_SIZE);
	EGLint green = config_attrib(display, config, EGL_GREEN_SIZE);
	EGLint blue = config_attrib(display, config, EGL_BLUE_SIZE);
	EGLint alpha = config_attrib(display, config, EGL_ALPHA_SIZE);
	/* 0 where EGL_EXT_pixel_format_float is absent: fixed point. */
	bool floating = config_attrib(display, config, EGL_COLOR_COMPONENT_TYPE_EXT) == EGL_COLOR_COMPONENT_TYPE_FLOAT_EXT;
	/* GL's byte order, R first: the DRM names are little-endian words. */
	static const struct {
		EGLint red, green, blue, alpha;
		bool floating;
		uint32_t fourcc;
	} formats[] = {
		{8, 8, 8, 8, false, DRM_FORMAT_ABGR8888},
		{8, 8, 8, 0, false, DRM_FORMAT_XBGR8888},
		{10, 10, 10, 2, false, DRM_FORMAT_ABGR2101010},
		{10, 10, 10, 0, false, DRM_FORMAT_XBGR2101010},
		{5, 6, 5, 0, false, DRM_FORMAT_RGB565},
		{16, 16, 16, 16, true, DRM_FORMAT_ABGR16161616F},
	};
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (formats[i].red == red && formats[i].green == green && formats[i].blue == blue &&
		    formats[i].alpha == alpha && formats[i].floating == floating)
			return formats[i].fourcc;
	}
	return 0;
}

#define NATIVE_SURFACE_BITS (EGL_WINDOW_BIT | EGL_PIXMAP_BIT)
#define MAX_CONFIG_ATTRIBS 128

EGLBoolean hook_choose_config(EGLDisplay dpy, const EGLint *attribs, EGLConfig *configs, EGLint size, EGLint *count)
{
	struct platform_display *display = platform_display_get(dpy, true);
	if (!display)
		return EGL_FALSE;
	struct uda_platform *platform = display->platform;
	if (!count) {
		platform_set_error(platform, EGL_BAD_PARAMETER, "eglChooseConfig: num_config is NULL");
		return EGL_FALSE;
	}
	/* Window and pixmap surfaces are rendered through pbuffers: ask the
	 * driver for those, then keep the configs that map to a format.
	 * Native-visual attributes are ours to match. */
	/* Room for the caller's pairs, the EGL_SURFACE_TYPE pair added
	 * below, and EGL_NONE. */
	EGLint internal[MAX_CONFIG_ATTRIBS * 2 + 3];
	EGLint n = 0;
	bool wants_native = false, has_surface_type = false;
	EGLint visual = EGL_DONT_CARE;
	for (const EGLint *a = attribs; a && a[0] != EGL_NONE; a += 2) {
		has_surface_type = has_surface_type || a[0] == EGL_SURFACE_TYPE;
		if (n >= MAX_CONFIG_ATTRIBS * 2) {
			platform_set_error(platform, EGL_BAD_ATTRIBUTE, "eglChooseConfig: too many attributes");
			return EGL_FALSE;
		}
		EGLint value = a[1];
		if (a[0] == EGL_SURFACE_TYPE && value != EGL_DONT_CARE && (value & NATIVE_SURFACE_BITS)) {
			wants_native = true;
			value = (value & ~NATIVE_SURFACE_BITS) | EGL_PBUFFER_BIT;
		} else if (a[0] == EGL_NATIVE_VISUAL_ID) {
			visual = value;
			continue;
		} else if (a[0] == EGL_NATIVE_RENDERABLE || a[0] == EGL_NATIVE_VISUAL_TYPE) {
			continue; /* every config with a format renders natively */
		}
		internal[n++] = a[0];
		internal[n++] = value;
	}
	/* The default EGL_SURFACE_TYPE is EGL_WINDOW_BIT. */
	if (!has_surface_type) {
		wants_native = true;
		internal[n++] = EGL_SURFACE_TYPE;
		internal[n++] = EGL_PBUFFER_BIT;
	}
	internal[n] = EGL_NONE;

	EGLint total = 0;
	if (!platform->egl.ChooseConfig(display->internal, internal, NULL, 0, &total))
		return EGL_FALSE; /* the driver's error stands */
	EGLConfig *all = calloc(total ? (size_t)total : 1, sizeof(*all));
	if (!all) {
		platform_set_error(platform, EGL_BAD_ALLOC, "eglChooseConfig: out of memory");
		return EGL_FALSE;
	}
	if (!platform->egl.ChooseConfig(display->internal, internal, all, total, &total)) {
		free(all);
		return EGL_FALSE;
	}
	EGLint kept = 0;
	for (EGLint i = 0; i < total; i++) {
		uint32_t fourcc = platform_config_fourcc(display, all[i]);
		if ((wants_native || visual != EGL_DONT_CARE) && !fourcc)
			continue;
		if (visual != EGL_DONT_CARE && (uint32_t)visual != fourcc)
			continue;
		if (configs && kept < size)
			configs[kept] = all[i];
		kept++;
	}
	free(all);
	*count = configs ? (kept < size ? kept : (size > 0 ? size : 0)) : kept;
	return EGL_TRUE;
}

EGLBoolean hook_get_config_attrib(EGLDisplay dpy, EGLConfig config, EGLint attribute, EGLint *value)
{
	struct platform_display *display = platform_display_get(dpy, true);
	if (!display)
		return EGL_FALSE;
	struct uda_platform *platform = display->platform;
	if (!value) {
		platform_set_error(platform, EGL_BAD_PARAMETER, "eglGetConfigAttrib: value is NULL");
		return EGL_FALSE;
	}
	EGLint internal = 0;
	EGLint asked = attribute == EGL_NATIVE_VISUAL_ID || attribute == EGL_NATIVE_RENDERABLE ||
	                               attribute == EGL_NATIVE_VISUAL_TYPE
	                       ? EGL_SURFACE_TYPE
	                       : attribute;
	if (!platform->egl.GetConfigAttrib(display->internal, config, asked, &internal))
		return EGL_FALSE; /* EGL_BAD_CONFIG / EGL_BAD_ATTRIBUTE from the driver */
	uint32_t fourcc = platform_config_fourcc(display, config);
	switch (attribute) {
	case EGL_SURFACE_TYPE:
		*value = fourcc ? internal | NATIVE_SURFACE_BITS : internal;
		break;
	case EGL_NATIVE_VISUAL_ID:
		*value = (EGLint)fourcc;
		break;
	case EGL_NATIVE_RENDERABLE:
		*value = fourcc ? EGL_TRUE : EGL_FALSE;
		break;
	case EGL_NATIVE_VISUAL_TYPE:
		*value = EGL_NONE;
		break;
	default:
		*value = internal;
	}
	return EGL_TRUE;
}
