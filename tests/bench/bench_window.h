/* A Wayland EGL window for the benchmarks' clients: an xdg_toplevel,
 * configured, a wl_egl_window over it and a GLES 3 context current on its
 * EGL surface, on whichever EGL platform serves EGL_PLATFORM_WAYLAND_KHR
 * in this process. */
#ifndef UDA_BENCH_WINDOW_H
#define UDA_BENCH_WINDOW_H

#include <EGL/egl.h>
#include <stdbool.h>
#include <wayland-client.h>
#include <wayland-egl.h>

struct bench_window {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct xdg_wm_base *wm_base;
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	bool configured;
	struct wl_egl_window *native;
	EGLDisplay egl;
	EGLContext context;
	EGLSurface egl_surface;
};

/* On the compositor at `socket`; `alpha`: an 8-bit alpha channel (ARGB
 * windows) or none (XRGB). False when anything is missing. */
bool bench_window_open(struct bench_window *window, const char *socket, int width, int height, bool alpha);
/* Accepts a window that failed to open. */
void bench_window_close(struct bench_window *window);

/* This process's environment for uda's Wayland platform, before it makes
 * any EGL call (a forked child, before exec): libuda-egl-host preloaded
 * (the build tree's, unless UDA_BENCH_EGL_HOST names another: a tree
 * built elsewhere, tests/hardware/nvidia.sh), UDA_EGL_WAYLAND=1, and the
 * build tree's platform manifest and backends unless set already. */
void bench_use_uda_platform(void);

#endif
