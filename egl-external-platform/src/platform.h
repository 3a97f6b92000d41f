/* Private to the uda EGL external platform module. */
#ifndef UDA_EGL_PLATFORM_H
#define UDA_EGL_PLATFORM_H

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <GLES3/gl3.h>
#include <eglexternalplatform.h>
#include <pthread.h>
#include <stdbool.h>

#include <EGL/eglext_uda.h>
#include <uda/uda.h>
#include <uda/uda_surface.h>

#define PUBLIC_EXPORT __attribute__((visibility("default")))

/* The driver's EGL entry points, reached through EGLExtDriver's
 * getProcAddress: internal objects only ever go to these. */
struct platform_egl {
	PFNEGLINITIALIZEPROC Initialize;
	PFNEGLQUERYSTRINGPROC QueryString;
	PFNEGLCHOOSECONFIGPROC ChooseConfig;
	PFNEGLGETCONFIGATTRIBPROC GetConfigAttrib;
	PFNEGLCREATEPBUFFERSURFACEPROC CreatePbufferSurface;
	PFNEGLDESTROYSURFACEPROC DestroySurface;
	PFNEGLMAKECURRENTPROC MakeCurrent;
	PFNEGLGETCURRENTCONTEXTPROC GetCurrentContext;
	PFNEGLGETCURRENTSURFACEPROC GetCurrentSurface;
	PFNEGLQUERYSURFACEPROC QuerySurface;
	PFNEGLSWAPBUFFERSPROC SwapBuffers;
	PFNEGLSWAPBUFFERSWITHDAMAGEKHRPROC SwapBuffersWithDamageKHR; /* may be NULL */
	PFNEGLCREATEIMAGEKHRPROC CreateImageKHR;
	PFNEGLDESTROYIMAGEKHRPROC DestroyImageKHR;
	PFNEGLCREATEIMAGEPROC CreateImage;
	PFNEGLDESTROYIMAGEPROC DestroyImage;
	PFNEGLGETERRORPROC GetError;
	/* Frame fences (frame_fence.c); NULL where the driver has none. */
	PFNEGLCREATESYNCKHRPROC CreateSyncKHR;
	PFNEGLDESTROYSYNCKHRPROC DestroySyncKHR;
	PFNEGLCLIENTWAITSYNCKHRPROC ClientWaitSyncKHR;
	PFNEGLWAITSYNCKHRPROC WaitSyncKHR;
	PFNEGLDUPNATIVEFENCEFDANDROIDPROC DupNativeFenceFDANDROID;
};

/* The GL calls the platform makes in the application's context. */
struct platform_gl {
	PFNGLGETERRORPROC GetError;
	PFNGLGETINTEGERVPROC GetIntegerv;
	PFNGLISENABLEDPROC IsEnabled;
	PFNGLENABLEPROC Enable;
	PFNGLDISABLEPROC Disable;
	PFNGLBINDFRAMEBUFFERPROC BindFramebuffer;
	PFNGLBLITFRAMEBUFFERPROC BlitFramebuffer;
	PFNGLREADBUFFERPROC ReadBuffer;
	PFNGLGENTEXTURESPROC GenTextures;
	PFNGLDELETETEXTURESPROC DeleteTextures;
	PFNGLBINDTEXTUREPROC BindTexture;
	PFNGLGENFRAMEBUFFERSPROC GenFramebuffers;
	PFNGLDELETEFRAMEBUFFERSPROC DeleteFramebuffers;
	PFNGLFRAMEBUFFERTEXTURE2DPROC FramebufferTexture2D;
	PFNGLCHECKFRAMEBUFFERSTATUSPROC CheckFramebufferStatus;
	PFNGLEGLIMAGETARGETTEXTURE2DOESPROC EGLImageTargetTexture2DOES;
	PFNGLFINISHPROC Finish;
	PFNGLFLUSHPROC Flush;
	PFNGLGETSTRINGIPROC GetStringi;
	PFNGLGENRENDERBUFFERSPROC GenRenderbuffers;
	PFNGLDELETERENDERBUFFERSPROC DeleteRenderbuffers;
	PFNGLBINDRENDERBUFFERPROC BindRenderbuffer;
	PFNGLRENDERBUFFERSTORAGEPROC RenderbufferStorage;
	PFNGLFRAMEBUFFERRENDERBUFFERPROC FramebufferRenderbuffer;
	/* GL_MESA_framebuffer_flip_y; NULL without it. */
	PFNGLFRAMEBUFFERPARAMETERIMESAPROC FramebufferParameteriMESA;
};

struct platform_display;
struct platform_surface;
struct platform_image;
struct uda_platform;

/* What one module serves. A driver routes each platform enum to the
 * modules that declare it, one enum a module, so the same platform code
 * is built into a module per native kind (entry_*.c), each naming its
 * own. */
struct platform_module {
	EGLenum platform;
	const char *client_extensions;
	/* eglGetDisplay's question: whether `native` is a display of this
	 * module's kind, told without trusting the pointer. */
	bool (*is_native_display)(void *native);
	EGLDisplay (*get_display)(struct uda_platform *platform, EGLenum type, void *native, const EGLAttrib *attribs);
	/* The driver unloads the platform, after its displays went: what the
	 * module keeps for all of them (platform->module_data). May be NULL. */
	void (*unload)(struct uda_platform *platform);
};

/* A display whose native display is not a uda device (a wl_display):
 * it finds its device and connection at eglInitialize, and makes its
 * window surfaces from its own native windows. NULL on the displays of
 * uda devices, whose device is known from the start. */
struct platform_display_impl {
	/* Sets display->device and display->internal; false with an EGL
	 * error set. */
	bool (*initialize)(struct platform_display *display);
	/* eglTerminate, after the display's surfaces went. */
	void (*terminate)(struct platform_display *display);
	/* The platform is unloaded: everything of the display's goes. */
	void (*destroy)(struct platform_display *display);
	/* eglCreateWindowSurface of a native window: sets surface->window
	 * (a uda_surface the kind owns), window_impl and window_data, and the
	 * size; false with an EGL error set. `format` is the config's. */
	bool (*create_window)(struct platform_display *display, struct platform_surface *surface, void *native,
	                      uint32_t format);
};

/* What differs between kinds of window (wlroots' `impl`): where the next
 * frame's buffer comes from and where a queued frame goes. A window of a
 * uda_surface has none: its buffers are dequeued, waiting as long as the
 * consumer holds them, and the consumer is the application's. */
struct platform_window_impl {
	/* The next frame's buffer (uda_surface_dequeue's contract), bounded
	 * in time; false with an EGL error set. */
	bool (*dequeue)(struct platform_surface *surface, uda_surface_buffer *out_buffer);
	/* The frame just queued to surface->window goes to its consumer;
	 * false with an EGL error set (the frame is lost, not the surface). */
	bool (*present)(struct platform_surface *surface);
	/* eglSwapInterval, clamped to [0, 1]. */
	void (*set_swap_interval)(struct platform_surface *surface, EGLint interval);
	/* The EGLSurface goes: what the kind made, its uda_surface included. */
	void (*destroy)(struct platform_surface *surface);
};

/* EGLExtPlatform::data: one per loadEGLExternalPlatform. */
struct uda_platform {
	EGLExtDriver driver;
	struct platform_egl egl;
	struct platform_gl gl;
	bool gl_loaded;
	/* The driver is uda's host, which routes framebuffer 0 of GL calls
	 * to the platform: window surfaces can be rendered straight into
	 * their buffers (docs/egl-platform.md). */
	bool host_interposes_gl;
	int flip_y_support; /* 0 not asked yet, 1 yes, -1 no */
	/* Guards the display list and every list hanging from a display. */
	pthread_mutex_t lock;
	struct platform_display *displays;
	const struct platform_module *module;
	/* The module's, shared by its displays (the Wayland module's uda
	 * context); made under `lock`. */
	void *module_data;
};

/* The application's EGLDisplay: one per uda device, as EGL wants one
 * display per native display. Lives until the platform is unloaded. */
struct platform_display {
	struct uda_platform *platform;
	struct platform_display *next;
	uda_device *device;  /* the GL device */
	EGLDisplay internal; /* the device's own, initialized by its backend */
	bool initialized;
	/* Asked for as EGL_PLATFORM_GBM_KHR: its native windows are uda's
	 * gbm_surfaces (gbm_native.c), not uda_surfaces. */
	bool gbm;
	struct platform_surface *surfaces;
	struct platform_image *images;
	char *extensions; /* the driver's and ours, made at eglInitialize */
	/* Displays of other natives (a wl_display): their kind's; device and
	 * internal are set at eglInitialize. */
	void *native;
	const struct platform_display_impl *impl;
	void *impl_data;
};

/* An allocation made usable in one GL context: imported into the GL
 * device if another device owns it, as an EGLImage, bound to a texture
 * and a framebuffer of that context. */
struct gl_target {
	uint64_t key; /* the uda_surface buffer id; 0 for a pixmap */
	uint32_t width, height;
	EGLContext context;
	uda_allocation *import; /* NULL when the GL device owns the allocation */
	EGLImage image;
	bool owns_image;
	GLuint texture;
	bool texture_of_import; /* the import's texture, freed with it */
	GLuint framebuffer;
	GLuint depth_stencil; /* direct rendering with a depth or stencil config */
};

/* How a target is made: for the copy path, the texture alone; for direct
 * rendering, also the config's depth/stencil and rows flipped like a
 * window's framebuffer. */
struct gl_target_options {
	bool direct;
	EGLint depth_size, stencil_size;
};

#define PLATFORM_MAX_TARGETS (2u * UDA_SURFACE_MAX_BUFFERS)

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

struct platform_image {
	struct platform_display *display;
	struct platform_image *next;
	EGLImage internal;
	uda_allocation *import;
	bool owns_image;
};

/* platform.c */
/* loadEGLExternalPlatform of a module: a platform serving `module`'s
 * enum (EGL_PLATFORM_UDA; EGL_PLATFORM_GBM_KHR for uda's gbm_devices;
 * EGL_PLATFORM_WAYLAND_KHR). */
EGLBoolean platform_load(int major, int minor, const EGLExtDriver *driver, EGLExtPlatform *platform_out,
                         const struct platform_module *module);

/* A line on stderr under UDA_LOG: what the driver asked of the platform. */
void platform_debug(const char *format, ...) __attribute__((format(printf, 1, 2)));
void platform_set_error(struct uda_platform *platform, EGLint error, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
bool platform_load_gl(struct uda_platform *platform);
/* EGLint attributes of the EXT and 1.4 entry points as EGLAttrib; false
 * (EGL_BAD_ATTRIBUTE set) past PLATFORM_MAX_ATTRIBS pairs. */
#define PLATFORM_MAX_ATTRIBS 32
bool platform_widen_attribs(struct uda_platform *platform, const EGLint *in, EGLAttrib *out);
void *platform_get_hook(const char *name);

/* gbm_native.c: uda's GBM objects as EGL natives; NULL when the object
 * is not uda's (or uda_gbm.so is not loaded). */
uda_device *gbm_native_display_device(void *native);
/* gbm_native_display_device for a native display of unknown kind
 * (eglGetDisplay's): NULL unless it is one of uda's gbm_devices, told by
 * reading one word of it before anything else. */
uda_device *gbm_native_guess_device(void *native);
uda_surface *gbm_native_window_surface(void *native);

/* display.c */
extern const struct platform_module platform_module_uda, platform_module_gbm;
/* The display of a native of a kind with a platform_display_impl: one
 * per native, made on first use. */
EGLDisplay platform_display_of_native(struct uda_platform *platform, void *native,
                                      const struct platform_display_impl *impl);
EGLDisplay platform_get_display(struct uda_platform *platform, EGLenum type, void *native, const EGLAttrib *attribs);
/* The display behind an application handle, NULL (with EGL_BAD_DISPLAY
 * or EGL_NOT_INITIALIZED set) if it is not one of ours or not usable. */
struct platform_display *platform_display_get(EGLDisplay handle, bool need_initialized);
/* The same lookup without an error: for exports the driver calls with
 * any platform's displays, where "not ours" is a normal answer. */
struct platform_display *platform_display_find(struct uda_platform *platform, EGLDisplay handle);
struct uda_platform *platform_current(void);
void platform_display_destroy_all(struct uda_platform *platform);
uint32_t platform_config_fourcc(struct platform_display *display, EGLConfig config);
EGLBoolean hook_initialize(EGLDisplay dpy, EGLint *major, EGLint *minor);
EGLBoolean hook_terminate(EGLDisplay dpy);
const char *hook_query_string(EGLDisplay dpy, EGLint name);
EGLBoolean hook_choose_config(EGLDisplay dpy, const EGLint *attribs, EGLConfig *configs, EGLint size,
                              EGLint *count);
EGLBoolean hook_get_config_attrib(EGLDisplay dpy, EGLConfig config, EGLint attribute, EGLint *value);

/* surface.c */
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

/* frame_fence.c */
/* Whether window surfaces of the display hand frames over with native
 * fences: opted in (UDA_EGL_NATIVE_FENCES=1) and the driver able to;
 * *out_gpu_waits: whether release fences can be waited for on the GPU.
 * Says which hand-off it chose under UDA_LOG. */
bool frame_fence_supported(struct platform_display *display, bool *out_gpu_waits);
/* A sync file for the GL commands issued so far in the current context
 * (flushed here), or -1 if the driver made none: then glFinish. */
int frame_fence_export(struct platform_display *display);
/* Makes the current context wait for *fence before its next commands:
 * on the GPU for a sync_file the driver takes, else on the CPU. *fence
 * stays the caller's while only the GPU waits (call again for another
 * context); once it has signalled it is closed and set to -1. */
void frame_fence_wait(struct platform_display *display, int *fence, bool gpu_waits);

/* gl_target.c */
/* A target for `allocation` in the current context, cached in `targets`
 * under `key`; NULL with an EGL error set on failure. */
struct gl_target *gl_target_get(struct platform_display *display, struct gl_target *targets, uint32_t *count,
                                uint32_t capacity, uint64_t key, uda_allocation *allocation,
                                const struct gl_target_options *options);
/* Whether the current context can render rows flipped into a framebuffer
 * object (GL_MESA_framebuffer_flip_y). */
bool gl_has_flip_y(struct uda_platform *platform);
/* Frees what needs no context, and the GL names when their context is
 * current on this thread. */
void gl_target_release(struct platform_display *display, struct gl_target *target);
/* Releases the current context's targets of another size than width x
 * height (their buffers are retired, and their imports keep the memory),
 * compacting the array. None of them may be bound. */
void gl_target_release_other_sizes(struct platform_display *display, struct gl_target *targets, uint32_t *count,
                                   uint32_t width, uint32_t height);
/* Copies the current draw surface (framebuffer 0) into the target,
 * flipping rows so the buffer's first row is the image's top, as
 * consumers of window buffers expect; GL state left as found. */
void gl_target_copy_from_surface(struct platform_display *display, const struct gl_target *target, uint32_t width,
                                 uint32_t height);
/* The other way, for a pixmap's existing content. */
void gl_target_copy_to_surface(struct platform_display *display, const struct gl_target *target, uint32_t width,
                               uint32_t height);
/* Imports `allocation` into the display's GL device and makes an EGLImage
 * of it. */
EGLint gl_image_from_allocation(struct platform_display *display, uda_allocation *allocation,
                                uda_allocation **out_import, EGLImage *out_image, bool *out_owns_image);

/* image.c */
EGLImage hook_create_image(EGLDisplay dpy, EGLContext context, EGLenum target, EGLClientBuffer buffer,
                           const EGLAttrib *attribs);
EGLImageKHR hook_create_image_khr(EGLDisplay dpy, EGLContext context, EGLenum target, EGLClientBuffer buffer,
                                  const EGLint *attribs);
EGLBoolean hook_destroy_image(EGLDisplay dpy, EGLImage image);
void platform_image_destroy_all(struct platform_display *display);

#endif
