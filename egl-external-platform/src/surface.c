/* Window surfaces over uda_surface queues and pixmap surfaces over uda
 * allocations.
 *
 * GL renders into an internal pbuffer of the surface's size. At
 * eglSwapBuffers the frame is copied (one blit in the application's
 * context) into a dequeued buffer of the uda_surface, which is then
 * queued; a pixmap receives its pbuffer at eglWaitClient. The copy is the
 * price of a driver that cannot make an EGLSurface of foreign memory (see
 * docs/egl-platform.md for what it costs and where a driver avoids it). */
#include <drm_fourcc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"

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
static struct platform_surface *current_draw(void)
{
	struct platform_surface *surface = bound.draw;
	if (!surface || surface->display->platform->egl.GetCurrentSurface(EGL_DRAW) != surface->internal)
		return NULL;
	return surface;
}

/* Direct rendering: which window surface's buffer stands for framebuffer 0
 * on this thread, and through which framebuffer object. */
static _Thread_local struct {
	struct platform_surface *surface;
	GLuint framebuffer;
} direct_current;

/* Set while the platform itself calls into uda: an import switches
 * contexts through the host (eglMakeCurrent and back), and those switches
 * must not start or stop direct rendering underneath the platform. */
static _Thread_local unsigned platform_busy;

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
static void drop_stale_binding(void)
{
	if ((bound.draw || bound.read) && !binding_is_current())
		unbind_thread();
}

/* Points whichever of the draw and read bindings is `from` at `to`. */
static void rebind(const struct platform_gl *gl, GLuint from, GLuint to)
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

static bool hold_buffer(struct platform_surface *surface, uda_surface *window)
{
	if (surface->held)
		return true;
	if (surface->window_impl) {
		if (!surface->window_impl->dequeue(surface, &surface->buffer))
			return false;
	} else if (!surface->native_fences) {
		if (uda_surface_dequeue(window, UINT64_MAX, &surface->buffer) != UDA_SUCCESS)
			return false;
	} else {
		/* Waited for where the buffer is first written, in the context
		 * that writes it (wait_for_release). */
		if (uda_surface_dequeue_fenced(window, UINT64_MAX, &surface->buffer, &surface->release_fence) !=
		    UDA_SUCCESS)
			return false;
	}
	surface->held = true;
	return true;
}

/* The current context is about to write the held buffer. */
static void wait_for_release(struct platform_surface *surface)
{
	frame_fence_wait(surface->display, &surface->release_fence, surface->gpu_waits);
}

/* The held buffer leaves the surface: its writes were ordered after the
 * release fence already. */
static void forget_release(struct platform_surface *surface)
{
	if (surface->release_fence >= 0)
		close(surface->release_fence);
	surface->release_fence = -1;
}

static struct gl_target *window_target(struct platform_surface *surface)
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
static void release_targets(struct platform_surface *surface)
{
	platform_busy++;
	for (uint32_t i = 0; i < surface->target_count; i++)
		gl_target_release(surface->display, &surface->targets[i]);
	surface->target_count = 0;
	platform_busy--;
}

/* Gives up direct rendering for the surface: the copy path from now on. */
static void direct_fall_back(struct platform_surface *surface)
{
	if (direct_current.surface == surface)
		hook_release_current();
	release_targets(surface);
	surface->direct = false;
}

/* The surface was just made current: bind its held buffer where the
 * context has framebuffer 0 bound. */
static void direct_begin(struct platform_surface *surface)
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

static void window_destroyed(uda_surface *window, void *user_data)
{
	struct platform_surface *surface = user_data;
	(void)window;
	pthread_mutex_lock(&surface->display->platform->lock);
	surface->window = NULL;
	surface->lost = true;
	surface->held = false; /* the surface frees it */
	forget_release(surface);
	/* Freed meanwhile on another thread, all but this (surface_free). */
	const bool orphaned = surface->orphaned;
	pthread_mutex_unlock(&surface->display->platform->lock);
	if (orphaned)
		free(surface);
}

/* The format channels must match: the copy converts between channel
 * orders, never between depths. */
static bool config_renders_format(struct platform_display *display, EGLConfig config, uint32_t format)
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
static bool check_attribs(struct uda_platform *platform, const EGLAttrib *attribs, const char *function)
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

static EGLSurface create_internal(struct platform_display *display, EGLConfig config, uint32_t width, uint32_t height)
{
	const EGLint attribs[] = {EGL_WIDTH, (EGLint)width, EGL_HEIGHT, (EGLint)height, EGL_NONE};
	return display->platform->egl.CreatePbufferSurface(display->internal, config, attribs);
}

static EGLSurface add_surface(struct platform_display *display, struct platform_surface *surface)
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

static bool window_in_use(struct platform_display *display, uda_surface *window)
{
	pthread_mutex_lock(&display->platform->lock);
	bool used = false;
	for (struct platform_surface *s = display->surfaces; s; s = s->next)
		used = used || (s->kind == PLATFORM_SURFACE_WINDOW && s->window == window);
	pthread_mutex_unlock(&display->platform->lock);
	return used;
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
	struct platform_surface *surface = calloc(1, sizeof(*surface));
	if (!surface) {
		platform_set_error(platform, EGL_BAD_ALLOC, "out of memory");
		return EGL_NO_SURFACE;
	}
	window_setup(surface, display, config);
	if (!display->impl->create_window(display, surface, native, format)) {
		free(surface);
		return EGL_NO_SURFACE;
	}
	uda_surface_get_size(surface->window, &surface->width, &surface->height);
	EGLSurface handle = add_surface(display, surface);
	if (handle == EGL_NO_SURFACE) {
		surface->window_impl->destroy(surface);
		free(surface);
	}
	return handle;
}

static EGLSurface create_window(EGLDisplay dpy, EGLConfig config, void *native, const EGLAttrib *attribs)
{
	struct platform_display *display = platform_display_get(dpy, true);
	if (!display)
		return EGL_NO_SURFACE;
	struct uda_platform *platform = display->platform;
	if (display->impl) {
		if (!check_attribs(platform, attribs, "eglCreateWindowSurface"))
			return EGL_NO_SURFACE;
		return create_native_window(display, config, native);
	}
	uda_context *ctx = uda_device_get_context(display->device);
	/* A GBM display's windows are gbm_surfaces (read only then: the
	 * platform type says what the pointer is). */
	uda_surface *window = display->gbm && native && uda_context_validate_surface(ctx, native) != UDA_SUCCESS
	                          ? gbm_native_window_surface(native)
	                          : native;
	if (!window || uda_context_validate_surface(ctx, window) != UDA_SUCCESS) {
		platform_set_error(platform, EGL_BAD_NATIVE_WINDOW,
		                   "eglCreateWindowSurface: %p is not a %s of the display's context", native,
		                   display->gbm ? "uda_surface or uda gbm_surface" : "uda_surface");
		return EGL_NO_SURFACE;
	}
	if (!check_attribs(platform, attribs, "eglCreateWindowSurface"))
		return EGL_NO_SURFACE;
	uint32_t count = 0;
	const uda_device_usage *devices = NULL;
	uda_surface_get_devices(window, &count, &devices);
	bool renders = false;
	for (uint32_t i = 0; i < count; i++)
		renders = renders || devices[i].device == display->device;
	if (!renders) {
		platform_set_error(platform, EGL_BAD_MATCH,
		                   "eglCreateWindowSurface: the uda_surface was not negotiated for this display's device");
		return EGL_NO_SURFACE;
	}
	uint32_t format = 0;
	uda_surface_get_format(window, &format);
	if (!config_renders_format(display, config, format)) {
		platform_set_error(platform, EGL_BAD_MATCH,
		                   "eglCreateWindowSurface: the config does not render format 0x%08x", format);
		return EGL_NO_SURFACE;
	}
	if (window_in_use(display, window)) {
		platform_set_error(platform, EGL_BAD_ALLOC, "eglCreateWindowSurface: the uda_surface has an EGLSurface");
		return EGL_NO_SURFACE;
	}
	struct platform_surface *surface = calloc(1, sizeof(*surface));
	if (!surface) {
		platform_set_error(platform, EGL_BAD_ALLOC, "out of memory");
		return EGL_NO_SURFACE;
	}
	window_setup(surface, display, config);
	surface->window = window;
	surface->native_fences = frame_fence_supported(display, &surface->gpu_waits);
	uda_surface_get_size(window, &surface->width, &surface->height);
	if (uda_surface_add_destroy_callback(window, window_destroyed, surface) != UDA_SUCCESS) {
		free(surface);
		platform_set_error(platform, EGL_BAD_ALLOC, "eglCreateWindowSurface: %s", uda_context_get_error(ctx));
		return EGL_NO_SURFACE;
	}
	uda_surface_set_present_mode(window, UDA_PRESENT_MODE_FIFO);
	EGLSurface handle = add_surface(display, surface);
	if (handle == EGL_NO_SURFACE) {
		uda_surface_remove_destroy_callback(window, window_destroyed, surface);
		free(surface);
	}
	return handle;
}

static EGLSurface create_pixmap(EGLDisplay dpy, EGLConfig config, void *native, const EGLAttrib *attribs)
{
	struct platform_display *display = platform_display_get(dpy, true);
	if (!display)
		return EGL_NO_SURFACE;
	struct uda_platform *platform = display->platform;
	uda_context *ctx = uda_device_get_context(display->device);
	if (!native || uda_context_validate_allocation(ctx, native) != UDA_SUCCESS) {
		platform_set_error(platform, EGL_BAD_NATIVE_PIXMAP,
		                   "eglCreatePixmapSurface: %p is not a uda_allocation of the display's context", native);
		return EGL_NO_SURFACE;
	}
	if (!check_attribs(platform, attribs, "eglCreatePixmapSurface"))
		return EGL_NO_SURFACE;
	uda_allocation *pixmap = native;
	uda_allocation_metadata metadata = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	uda_allocation_get_metadata(pixmap, &metadata);
	if (!config_renders_format(display, config, metadata.format)) {
		platform_set_error(platform, EGL_BAD_MATCH, "eglCreatePixmapSurface: the config does not render format 0x%08x",
		                   metadata.format);
		return EGL_NO_SURFACE;
	}
	struct platform_surface *surface = calloc(1, sizeof(*surface));
	if (!surface) {
		platform_set_error(platform, EGL_BAD_ALLOC, "out of memory");
		return EGL_NO_SURFACE;
	}
	surface->release_fence = -1;
	surface->display = display;
	surface->kind = PLATFORM_SURFACE_PIXMAP;
	surface->config = config;
	surface->pixmap = pixmap;
	surface->width = metadata.width;
	surface->height = metadata.height;
	EGLSurface handle = add_surface(display, surface);
	if (handle == EGL_NO_SURFACE)
		free(surface);
	return handle;
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
		if (!surface->window_impl) {
			orphaned = uda_surface_remove_destroy_callback(window, window_destroyed, surface) != UDA_SUCCESS;
			surface->orphaned = orphaned;
		}
	}
	pthread_mutex_unlock(&platform->lock);
	/* A native window's uda_surface is the kind's own: no one else can
	 * destroy it, and it goes with the kind's objects. */
	if (surface->window_impl)
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

/* When the next buffer has another size (the uda_surface was resized), GL
 * renders the next frame at that size: a new pbuffer, bound in place of
 * the old one. */
static void follow_buffer_size(struct platform_surface *surface, uint32_t width, uint32_t height)
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
	if (surface->window_impl && !surface->window_impl->present(surface))
		return EGL_FALSE;

	/* The next frame's buffer: waits here while the consumer holds all
	 * of them (FIFO), which paces the producer to the consumer. */
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
	if (surface->window_impl) {
		surface->window_impl->set_swap_interval(surface, clamped);
		return EGL_TRUE;
	}
	pthread_mutex_lock(&platform->lock);
	uda_surface *window = surface->window;
	pthread_mutex_unlock(&platform->lock);
	if (window)
		uda_surface_set_present_mode(window, clamped ? UDA_PRESENT_MODE_FIFO : UDA_PRESENT_MODE_MAILBOX);
	return EGL_TRUE;
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

/* A pixmap's content goes into its pbuffer when it is first bound, and
 * back when the application waits for GL or unbinds it. Both need the
 * context the surface is current with. */
static struct gl_target *pixmap_target(struct platform_surface *surface)
{
	platform_busy++;
	struct gl_target *target = gl_target_get(surface->display, surface->targets, &surface->target_count,
	                                         PLATFORM_MAX_TARGETS, 0, surface->pixmap, NULL);
	platform_busy--;
	return target;
}

static void pixmap_load(struct platform_surface *surface)
{
	if (surface->pixmap_loaded)
		return;
	struct gl_target *target = pixmap_target(surface);
	if (!target)
		return;
	gl_target_copy_to_surface(surface->display, target, surface->width, surface->height);
	surface->pixmap_loaded = true;
}

static void pixmap_store(struct platform_surface *surface)
{
	struct uda_platform *platform = surface->display->platform;
	if (platform->egl.GetCurrentSurface(EGL_DRAW) != surface->internal)
		return;
	struct gl_target *target = pixmap_target(surface);
	if (!target)
		return;
	gl_target_copy_from_surface(surface->display, target, surface->width, surface->height);
	platform->gl.Finish();
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
	if (next_draw && next_draw->window_impl && context != EGL_NO_CONTEXT)
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
