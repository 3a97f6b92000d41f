/* bench_window.h */
#include <stdlib.h>
#include <string.h>

#include "bench_window.h"
#include <EGL/eglext.h>
#include "xdg-shell-client-protocol.h"

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version)
{
	struct bench_window *w = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0 && !w->compositor)
		w->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, version < 4 ? version : 4);
	else if (strcmp(interface, xdg_wm_base_interface.name) == 0 && !w->wm_base)
		w->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
}

static void global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
	(void)data;
	(void)registry;
	(void)name;
}

static const struct wl_registry_listener registry_listener = {global, global_remove};

static void configure(void *data, struct xdg_surface *surface, uint32_t serial)
{
	xdg_surface_ack_configure(surface, serial);
	((struct bench_window *)data)->configured = true;
}

static const struct xdg_surface_listener surface_listener = {configure};

bool bench_window_open(struct bench_window *w, const char *socket, int width, int height, bool alpha)
{
	*w = (struct bench_window){.egl = EGL_NO_DISPLAY, .context = EGL_NO_CONTEXT, .egl_surface = EGL_NO_SURFACE};
	w->display = wl_display_connect(socket);
	if (!w->display)
		return false;
	w->registry = wl_display_get_registry(w->display);
	wl_registry_add_listener(w->registry, &registry_listener, w);
	wl_display_roundtrip(w->display);
	if (!w->compositor || !w->wm_base)
		return false;
	w->surface = wl_compositor_create_surface(w->compositor);
	w->xdg_surface = xdg_wm_base_get_xdg_surface(w->wm_base, w->surface);
	xdg_surface_add_listener(w->xdg_surface, &surface_listener, w);
	w->toplevel = xdg_surface_get_toplevel(w->xdg_surface);
	wl_surface_commit(w->surface);
	while (!w->configured && wl_display_dispatch(w->display) >= 0) {
	}
	w->native = wl_egl_window_create(w->surface, width, height);
	w->egl = eglGetPlatformDisplay(EGL_PLATFORM_WAYLAND_KHR, w->display, NULL);
	EGLConfig config;
	EGLint count = 0;
	const EGLint attribs[] = {EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8,
	                          EGL_ALPHA_SIZE, alpha ? 8 : 0, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_NONE};
	const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
	if (!w->configured || w->egl == EGL_NO_DISPLAY || !eglInitialize(w->egl, NULL, NULL) ||
	    !eglChooseConfig(w->egl, attribs, &config, 1, &count) || count < 1)
		return false;
	w->context = eglCreateContext(w->egl, config, EGL_NO_CONTEXT, context_attribs);
	w->egl_surface = eglCreateWindowSurface(w->egl, config, (EGLNativeWindowType)w->native, NULL);
	return w->context != EGL_NO_CONTEXT && w->egl_surface != EGL_NO_SURFACE &&
	       eglMakeCurrent(w->egl, w->egl_surface, w->egl_surface, w->context);
}

void bench_window_close(struct bench_window *w)
{
	if (w->egl != EGL_NO_DISPLAY) {
		eglMakeCurrent(w->egl, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
		if (w->egl_surface != EGL_NO_SURFACE)
			eglDestroySurface(w->egl, w->egl_surface);
		if (w->context != EGL_NO_CONTEXT)
			eglDestroyContext(w->egl, w->context);
		eglTerminate(w->egl);
	}
	if (w->native)
		wl_egl_window_destroy(w->native);
	if (w->toplevel)
		xdg_toplevel_destroy(w->toplevel);
	if (w->xdg_surface)
		xdg_surface_destroy(w->xdg_surface);
	if (w->surface)
		wl_surface_destroy(w->surface);
	if (w->wm_base)
		xdg_wm_base_destroy(w->wm_base);
	if (w->compositor)
		wl_compositor_destroy(w->compositor);
	if (w->registry)
		wl_registry_destroy(w->registry);
	if (w->display)
		wl_display_disconnect(w->display);
	*w = (struct bench_window){.egl = EGL_NO_DISPLAY};
}

void bench_use_uda_platform(void)
{
	const char *host = getenv("UDA_BENCH_EGL_HOST");
	setenv("LD_PRELOAD", host ? host : UDA_BENCH_EGL_HOST, 1);
	setenv("UDA_EGL_WAYLAND", "1", 1);
	setenv("EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES", UDA_BENCH_EGL_WAYLAND_MANIFEST, 0);
	setenv("UDA_BACKEND_PATH", UDA_BENCH_BACKEND_MANIFEST_DIR, 0);
	setenv("UDA_BACKEND_NO_DEFAULT_PATHS", "1", 1);
}
