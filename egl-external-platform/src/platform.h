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
	/* 0 not asked yet, 1 yes, -1 no: asked by whichever thread makes a
	 * window current first, maybe two at once (the same answer). */
	int flip_y_support; /* __atomic_load_n / __atomic_store_n only */
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





#endif
