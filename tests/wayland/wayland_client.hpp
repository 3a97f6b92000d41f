// A Wayland EGL client for the tests, written as any application would
// be: wl_compositor and xdg_wm_base from the registry, an xdg_toplevel
// with a wl_egl_window, and EGL on EGL_PLATFORM_WAYLAND_KHR. Which EGL
// platform serves it (uda's, through the host linked before libEGL, with
// UDA_EGL_WAYLAND=1) is the environment's business, as for any program.
#pragma once

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <wayland-client.h>
#include <wayland-egl.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "xdg-shell-client-protocol.h"

namespace uda_test
{

struct Rgb {
	unsigned char r, g, b;
	bool operator==(const Rgb &o) const { return r == o.r && g == o.g && b == o.b; }
};

class WaylandClient;

class WaylandWindow
{
      public:
	WaylandWindow(WaylandClient &client, int width, int height);
	~WaylandWindow();

	bool ok() const { return surface_ != EGL_NO_SURFACE; }
	EGLSurface egl_surface() const { return surface_; }
	wl_egl_window *native() const { return native_; }
	// Destroys the wl_egl_window before the EGLSurface, as a careless
	// application does.
	void destroy_native();
	EGLSurface release_egl_surface()
	{
		EGLSurface s = surface_;
		surface_ = EGL_NO_SURFACE;
		return s;
	}

      private:
	static void configure(void *data, xdg_surface *surface, uint32_t serial);
	static void toplevel_configure(void *, xdg_toplevel *, int32_t, int32_t, wl_array *) {}
	static void toplevel_close(void *, xdg_toplevel *) {}

	WaylandClient &client_;
	wl_surface *wl_surface_ = nullptr;
	xdg_surface *xdg_surface_ = nullptr;
	xdg_toplevel *toplevel_ = nullptr;
	wl_egl_window *native_ = nullptr;
	EGLSurface surface_ = EGL_NO_SURFACE;
	bool configured_ = false;
};

class WaylandClient
{
      public:
	// Connects to `socket` and initializes EGL on it; ok() says whether
	// that worked. wl_compositor is bound at `compositor_version` or the
	// compositor's, the lower.
	explicit WaylandClient(const std::string &socket, uint32_t compositor_version = 4)
	    : compositor_version_(compositor_version)
	{
		display_ = wl_display_connect(socket.c_str());
		if (!display_)
			return;
		registry_ = wl_display_get_registry(display_);
		wl_registry_add_listener(registry_, &registry_listener, this);
		wl_display_roundtrip(display_);
		if (!compositor_ || !wm_base_)
			return;
		egl_ = eglGetPlatformDisplay(EGL_PLATFORM_WAYLAND_KHR, display_, nullptr);
		if (egl_ == EGL_NO_DISPLAY || !eglInitialize(egl_, nullptr, nullptr))
			return;
		const EGLint attribs[] = {EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8,
		                          EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT,
		                          EGL_NONE};
		EGLint count = 0;
		if (!eglChooseConfig(egl_, attribs, &config_, 1, &count) || count < 1)
			return;
		const EGLint context_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
		context_ = eglCreateContext(egl_, config_, EGL_NO_CONTEXT, context_attribs);
	}

	~WaylandClient()
	{
		if (egl_ != EGL_NO_DISPLAY && !terminated_) {
			eglMakeCurrent(egl_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
			if (context_ != EGL_NO_CONTEXT)
				eglDestroyContext(egl_, context_);
			eglTerminate(egl_);
		}
		if (wm_base_)
			xdg_wm_base_destroy(wm_base_);
		if (compositor_)
			wl_compositor_destroy(compositor_);
		if (registry_)
			wl_registry_destroy(registry_);
		if (display_)
			wl_display_disconnect(display_);
	}

	bool ok() const { return context_ != EGL_NO_CONTEXT; }
	wl_display *display() const { return display_; }
	EGLDisplay egl() const { return egl_; }
	EGLConfig config() const { return config_; }
	EGLContext context() const { return context_; }
	wl_compositor *compositor() const { return compositor_; }
	xdg_wm_base *wm_base() const { return wm_base_; }
	void terminate()
	{
		eglMakeCurrent(egl_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
		eglDestroyContext(egl_, context_);
		eglTerminate(egl_);
		terminated_ = true;
	}

	// eglTerminate was called by the test itself.
	void forget_egl() { terminated_ = true; }

	bool make_current(const WaylandWindow &window)
	{
		return eglMakeCurrent(egl_, window.egl_surface(), window.egl_surface(), context_);
	}

      private:
	static void global(void *data, wl_registry *registry, uint32_t name, const char *interface, uint32_t version)
	{
		auto *self = static_cast<WaylandClient *>(data);
		if (strcmp(interface, wl_compositor_interface.name) == 0)
			self->compositor_ = static_cast<wl_compositor *>(
			        wl_registry_bind(registry, name, &wl_compositor_interface,
			                         version < self->compositor_version_ ? version : self->compositor_version_));
		else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
			self->wm_base_ = static_cast<xdg_wm_base *>(wl_registry_bind(registry, name, &xdg_wm_base_interface, 1));
			xdg_wm_base_add_listener(self->wm_base_, &wm_base_listener, self);
		}
	}
	static void global_remove(void *, wl_registry *, uint32_t) {}
	static void ping(void *, xdg_wm_base *base, uint32_t serial) { xdg_wm_base_pong(base, serial); }

	static constexpr wl_registry_listener registry_listener = {global, global_remove};
	static constexpr xdg_wm_base_listener wm_base_listener = {ping};

	uint32_t compositor_version_;
	wl_display *display_ = nullptr;
	wl_registry *registry_ = nullptr;
	wl_compositor *compositor_ = nullptr;
	xdg_wm_base *wm_base_ = nullptr;
	EGLDisplay egl_ = EGL_NO_DISPLAY;
	EGLConfig config_ = nullptr;
	EGLContext context_ = EGL_NO_CONTEXT;
	bool terminated_ = false;
};

inline WaylandWindow::WaylandWindow(WaylandClient &client, int width, int height) : client_(client)
{
	static constexpr xdg_surface_listener surface_listener = {configure};
	static constexpr xdg_toplevel_listener toplevel_listener = {toplevel_configure, toplevel_close};
	wl_surface_ = wl_compositor_create_surface(client.compositor());
	xdg_surface_ = xdg_wm_base_get_xdg_surface(client.wm_base(), wl_surface_);
	xdg_surface_add_listener(xdg_surface_, &surface_listener, this);
	toplevel_ = xdg_surface_get_toplevel(xdg_surface_);
	xdg_toplevel_add_listener(toplevel_, &toplevel_listener, this);
	xdg_toplevel_set_title(toplevel_, "uda test");
	wl_surface_commit(wl_surface_);
	while (!configured_ && wl_display_dispatch(client.display()) >= 0) {
	}
	native_ = wl_egl_window_create(wl_surface_, width, height);
	surface_ = eglCreateWindowSurface(client.egl(), client.config(), (EGLNativeWindowType)native_, nullptr);
}

inline WaylandWindow::~WaylandWindow()
{
	if (surface_ != EGL_NO_SURFACE)
		eglDestroySurface(client_.egl(), surface_);
	if (native_)
		wl_egl_window_destroy(native_);
	if (toplevel_)
		xdg_toplevel_destroy(toplevel_);
	if (xdg_surface_)
		xdg_surface_destroy(xdg_surface_);
	if (wl_surface_)
		wl_surface_destroy(wl_surface_);
}

inline void WaylandWindow::destroy_native()
{
	wl_egl_window_destroy(native_);
	native_ = nullptr;
}

inline void WaylandWindow::configure(void *data, xdg_surface *surface, uint32_t serial)
{
	xdg_surface_ack_configure(surface, serial);
	static_cast<WaylandWindow *>(data)->configured_ = true;
}

} // namespace uda_test
