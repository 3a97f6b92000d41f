/* EGL surfaces of the platform: handles and their references, creation
 * (window kinds in window.c, window_uda.c and the native kinds; pixmaps in
 * pixmap.c), deletion, which EGL defers while a surface is current, and
 * the surface queries. */
#include <drm_fourcc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "surface_internal.h"

static void surface_free(struct platform_surface *surface);

/* Application handles are the platform_surface pointers; they are valid
 * while listed on their display and not destroyed. */
struct platform_surface *platform_surface_get(struct platform_display *display, EGLSurface handle)
{
	pthread_mutex_lock(&display->platform->lock);
	struct platform_surface *surface = display->surfaces;
	while (surface && (EGLSurface)surface != handle)
		surface = surface->next;
	if (surface && surface->destroyed)
		surface = NULL; /* no longer a valid handle */
	if (surface)
		surface->references++;
	pthread_mutex_unlock(&display->platform->lock);
	return surface;
}

void platform_surface_put(struct platform_surface *surface)
{
	if (!surface)
		return;
	struct platform_display *display = surface->display;
	pthread_mutex_lock(&display->platform->lock);
	bool last = --surface->references == 0;
	if (last) {
		for (struct platform_surface **link = &display->surfaces; *link; link = &(*link)->next) {
			if (*link == surface) {
				*link = surface->next;
				break;
			}
		}
	}
	pthread_mutex_unlock(&display->platform->lock);
	if (last)
		surface_free(surface);
}

void *platform_surface_internal_handle(struct platform_display *display, void *handle)
{
	struct platform_surface *surface = platform_surface_get(display, handle);
	/* Pbuffers the application made itself are the driver's own. */
	void *internal = surface ? surface->internal : handle;
	platform_surface_put(surface);
	return internal;
}

/* The format channels must match: the copy converts between channel
 * orders, never between depths. */
bool config_renders_format(struct platform_display *display, EGLConfig config, uint32_t format)
{
	uint32_t config_format = platform_config_fourcc(display, config);
	if (!config_format)
		return false;
	if (config_format == format)
		return true;
	static const uint32_t same_depth[][4] = {
		{DRM_FORMAT_ABGR8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_RGBA8888, DRM_FORMAT_BGRA8888},
		{DRM_FORMAT_XBGR8888, DRM_FORMAT_XRGB8888, DRM_FORMAT_RGBX8888, DRM_FORMAT_BGRX8888},
		{DRM_FORMAT_ABGR2101010, DRM_FORMAT_ARGB2101010, 0, 0},
		{DRM_FORMAT_XBGR2101010, DRM_FORMAT_XRGB2101010, 0, 0},
		{DRM_FORMAT_ABGR16161616F, DRM_FORMAT_ARGB16161616F, 0, 0},
	};
	for (size_t row = 0; row < sizeof(same_depth) / sizeof(same_depth[0]); row++) {
		bool has_config = false, has_format = false;
		for (size_t i = 0; i < 4; i++) {
			has_config = has_config || same_depth[row][i] == config_format;
			has_format = has_format || (same_depth[row][i] && same_depth[row][i] == format);
		}
		if (has_config && has_format)
			return true;
	}
	return false;
}

/* Window and pixmap surfaces take no attribute the pbuffer would need;
 * the ones EGL defines for them are checked and otherwise refused. */
bool check_attribs(struct uda_platform *platform, const EGLAttrib *attribs, const char *function)
{
	for (const EGLAttrib *a = attribs; a && a[0] != EGL_NONE; a += 2) {
		switch (a[0]) {
		case EGL_RENDER_BUFFER:
			if (a[1] != EGL_BACK_BUFFER) {
				platform_set_error(platform, EGL_BAD_MATCH, "%s: only EGL_BACK_BUFFER rendering", function);
				return false;
			}
			break;
		case EGL_GL_COLORSPACE:
			if (a[1] != EGL_GL_COLORSPACE_LINEAR) {
				platform_set_error(platform, EGL_BAD_MATCH, "%s: only EGL_GL_COLORSPACE_LINEAR", function);
				return false;
			}
			break;
		default:
			platform_set_error(platform, EGL_BAD_ATTRIBUTE, "%s: attribute 0x%lx", function,
			                   (unsigned long)a[0]);
			return false;
		}
	}
	return true;
}

EGLSurface create_internal(struct platform_display *display, EGLConfig config, uint32_t width, uint32_t height)
{
	const EGLint attribs[] = {EGL_WIDTH, (EGLint)width, EGL_HEIGHT, (EGLint)height, EGL_NONE};
	return display->platform->egl.CreatePbufferSurface(display->internal, config, attribs);
}

EGLSurface add_surface(struct platform_display *display, struct platform_surface *surface)
{
	struct uda_platform *platform = display->platform;
	surface->internal = create_internal(display, surface->config, surface->width, surface->height);
	if (surface->internal == EGL_NO_SURFACE) {
		EGLint error = platform->egl.GetError();
		/* EGL_BAD_CONFIG, EGL_BAD_MATCH... from the driver, as it is. */
		platform_set_error(platform, error == EGL_SUCCESS ? EGL_BAD_ALLOC : error,
		                   "the device cannot make a %ux%u surface of this config", surface->width, surface->height);
		return EGL_NO_SURFACE; /* the surface stays the caller's */
	}
	surface->references = 1; /* the display's list */
	pthread_mutex_lock(&platform->lock);
	surface->next = display->surfaces;
	display->surfaces = surface;
	pthread_mutex_unlock(&platform->lock);
	return (EGLSurface)surface;
}

typedef EGLSurface (*create_function)(EGLDisplay dpy, EGLConfig config, void *native, const EGLAttrib *attribs);

/* The EXT and EGL 1.4 entry points take EGLint attributes. */
static EGLSurface create_with_int_attribs(create_function create, EGLDisplay dpy, EGLConfig config, void *native,
                                          const EGLint *attribs)
{
	EGLAttrib wide[PLATFORM_MAX_ATTRIBS * 2 + 1];
	if (!platform_widen_attribs(platform_current(), attribs, wide))
		return EGL_NO_SURFACE;
	return create(dpy, config, native, wide);
}

EGLSurface hook_create_platform_window_surface(EGLDisplay dpy, EGLConfig config, void *native,
                                               const EGLAttrib *attribs)
{
	return create_window(dpy, config, native, attribs);
}

EGLSurface hook_create_platform_window_surface_ext(EGLDisplay dpy, EGLConfig config, void *native,
                                                   const EGLint *attribs)
{
	return create_with_int_attribs(create_window, dpy, config, native, attribs);
}

EGLSurface hook_create_window_surface(EGLDisplay dpy, EGLConfig config, EGLNativeWindowType native,
                                      const EGLint *attribs)
{
	return create_with_int_attribs(create_window, dpy, config, (void *)native, attribs);
}

EGLSurface hook_create_platform_pixmap_surface(EGLDisplay dpy, EGLConfig config, void *native,
                                               const EGLAttrib *attribs)
{
	return create_pixmap(dpy, config, native, attribs);
}

EGLSurface hook_create_platform_pixmap_surface_ext(EGLDisplay dpy, EGLConfig config, void *native,
                                                   const EGLint *attribs)
{
	return create_with_int_attribs(create_pixmap, dpy, config, native, attribs);
}

EGLSurface hook_create_pixmap_surface(EGLDisplay dpy, EGLConfig config, EGLNativePixmapType native,
                                      const EGLint *attribs)
{
	return create_with_int_attribs(create_pixmap, dpy, config, (void *)native, attribs);
}


static void surface_free(struct platform_surface *surface)
{
	struct platform_display *display = surface->display;
	struct uda_platform *platform = display->platform;
	release_targets(surface);
	forget_release(surface);
	platform->egl.DestroySurface(display->internal, surface->internal);
	/* The uda_surface may be being destroyed on another thread right
	 * now. Under the platform's lock its callback for this surface
	 * (window_destroyed) cannot finish, so the uda_surface cannot be
	 * freed yet. A removal that fails means that callback has begun: it
	 * frees this surface once it gets the lock. */
	pthread_mutex_lock(&platform->lock);
	uda_surface *window = surface->window;
	bool orphaned = false;
	if (window) {
		if (surface->held)
			uda_surface_cancel(window, surface->buffer.buffer_id); /* keeps its own fence */
		if (surface->window_impl->detach)
			orphaned = surface->orphaned = surface->window_impl->detach(surface);
	}
	pthread_mutex_unlock(&platform->lock);
	if (surface->window_impl && surface->window_impl->destroy)
		surface->window_impl->destroy(surface);
	if (!orphaned)
		free(surface);
}

/* eglDestroySurface's part: the handle stops being valid; true if it was
 * one of the display's. The list's reference is the caller's to drop. */
static bool mark_destroyed(struct platform_display *display, struct platform_surface *surface)
{
	pthread_mutex_lock(&display->platform->lock);
	bool first = !surface->destroyed;
	surface->destroyed = true;
	pthread_mutex_unlock(&display->platform->lock);
	return first;
}

/* EGL defers the deletion of a surface current on some thread until it
 * is current nowhere: the binding's reference keeps it until then, and
 * the thread letting go of it frees it (bind_current). */
EGLBoolean hook_destroy_surface(EGLDisplay dpy, EGLSurface handle)
{
	struct platform_display *display = platform_display_get(dpy, true);
	if (!display)
		return EGL_FALSE;
	struct platform_surface *surface = platform_surface_get(display, handle);
	if (!surface)
		return display->platform->egl.DestroySurface(display->internal, handle);
	if (mark_destroyed(display, surface))
		platform_surface_put(surface); /* the list's */
	platform_surface_put(surface);
	drop_stale_binding();
	return EGL_TRUE;
}

void platform_surface_destroy_all(struct platform_display *display, bool unloading)
{
	if (unloading) {
		pthread_mutex_lock(&display->platform->lock);
		struct platform_surface *surfaces = display->surfaces;
		display->surfaces = NULL;
		pthread_mutex_unlock(&display->platform->lock);
		while (surfaces) {
			struct platform_surface *next = surfaces->next;
			surface_free(surfaces);
			surfaces = next;
		}
		return;
	}
	for (;;) {
		/* One at a time: a put may free it and change the list. */
		struct platform_surface *surface = NULL;
		pthread_mutex_lock(&display->platform->lock);
		for (struct platform_surface *s = display->surfaces; s && !surface; s = s->next) {
			if (!s->destroyed) {
				s->destroyed = true;
				surface = s;
			}
		}
		pthread_mutex_unlock(&display->platform->lock);
		if (!surface) {
			drop_stale_binding();
			return;
		}
		platform_surface_put(surface); /* the list's */
	}
}

static EGLBoolean query_surface(struct platform_display *display, struct platform_surface *surface, EGLint attribute,
                                EGLint *value)
{
	struct uda_platform *platform = display->platform;
	if (!value) {
		platform_set_error(platform, EGL_BAD_PARAMETER, "eglQuerySurface: value is NULL");
		return EGL_FALSE;
	}
	pthread_mutex_lock(&platform->lock);
	EGLint width = (EGLint)surface->width, height = (EGLint)surface->height;
	uint64_t pbuffer_frames = surface->pbuffer_frames;
	pthread_mutex_unlock(&platform->lock);
	switch (attribute) {
	case EGL_WIDTH:
		*value = width;
		return EGL_TRUE;
	case EGL_HEIGHT:
		*value = height;
		return EGL_TRUE;
	case EGL_BUFFER_AGE_EXT:
		/* Direct: the held buffer's own age. Copy: GL draws into the
		 * same pbuffer every frame, which after a swap holds the
		 * previous frame, unless a resize replaced it. */
		if (surface->direct)
			*value = surface->held ? (EGLint)surface->buffer.age : 0;
		else
			*value = surface->kind == PLATFORM_SURFACE_WINDOW && pbuffer_frames ? 1 : 0;
		return EGL_TRUE;
	case EGL_SWAP_BEHAVIOR:
		*value = EGL_BUFFER_DESTROYED;
		return EGL_TRUE;
	case EGL_RENDER_BUFFER:
		*value = surface->kind == PLATFORM_SURFACE_PIXMAP ? EGL_SINGLE_BUFFER : EGL_BACK_BUFFER;
		return EGL_TRUE;
	case EGL_MIN_SWAP_INTERVAL:
		*value = 0;
		return EGL_TRUE;
	case EGL_MAX_SWAP_INTERVAL:
		*value = 1;
		return EGL_TRUE;
	default:
		return platform->egl.QuerySurface(display->internal, surface->internal, attribute, value);
	}
}

EGLBoolean hook_query_surface(EGLDisplay dpy, EGLSurface handle, EGLint attribute, EGLint *value)
{
	struct platform_display *display = platform_display_get(dpy, true);
	if (!display)
		return EGL_FALSE;
	struct platform_surface *surface = platform_surface_get(display, handle);
	if (!surface)
		return display->platform->egl.QuerySurface(display->internal, handle, attribute, value);
	EGLBoolean result = query_surface(display, surface, attribute, value);
	platform_surface_put(surface);
	return result;
}
