// A real GL client on uda's EGL platform and a compositor that speaks
// uda's own protocol (zero_copy_compositor.c, a thread of this process
// with a uda context and a Vulkan device of its own): the window's
// buffers are negotiated with the compositor's whole capability sets,
// sent with their metadata, imported on the compositor's device, and the
// compositor reads each frame through its import: no copy on the way, no
// wl_shm (it offers none) and no linux-dmabuf.
#include <gtest/gtest.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <wayland-client.h>
#include <wayland-egl.h>

#include "backend_env.hpp"
#include "zero_copy_compositor.h"

using namespace uda_test;

namespace
{

void global(void *data, wl_registry *registry, uint32_t name, const char *interface, uint32_t)
{
	if (std::string(interface) == wl_compositor_interface.name)
		*static_cast<wl_compositor **>(data) =
		        static_cast<wl_compositor *>(wl_registry_bind(registry, name, &wl_compositor_interface, 4));
}
void global_remove(void *, wl_registry *, uint32_t) {}
const wl_registry_listener registry_listener = {global, global_remove};

TEST(ZeroCopyWayland, FramesReachTheCompositorsDeviceThroughUdasProtocol)
{
	use_build_tree_backends();
	const char *moved = std::getenv("UDA_TEST_EGL_WAYLAND_PLATFORM_MANIFEST");
	setenv("EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES", moved ? moved : UDA_TEST_EGL_WAYLAND_PLATFORM_MANIFEST, 1);
	setenv("UDA_EGL_WAYLAND", "1", 1);
	constexpr uint32_t width = 64, height = 48;
	zero_copy_compositor *compositor = zero_copy_compositor_start(width, height);
	ASSERT_NE(compositor, nullptr) << "no Vulkan device for the compositor";

	wl_display *display = wl_display_connect(zero_copy_compositor_socket(compositor));
	ASSERT_NE(display, nullptr);
	wl_compositor *wl_comp = nullptr;
	wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, &wl_comp);
	wl_display_roundtrip(display);
	ASSERT_NE(wl_comp, nullptr);
	wl_surface *surface = wl_compositor_create_surface(wl_comp);
	wl_egl_window *native = wl_egl_window_create(surface, width, height);

	EGLDisplay egl = eglGetPlatformDisplay(EGL_PLATFORM_WAYLAND_KHR, display, nullptr);
	ASSERT_NE(egl, EGL_NO_DISPLAY);
	ASSERT_TRUE(eglInitialize(egl, nullptr, nullptr)) << std::hex << eglGetError();
	const EGLint attribs[] = {EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8,
	                          EGL_ALPHA_SIZE, 8, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_NONE};
	EGLConfig config;
	EGLint count = 0;
	ASSERT_TRUE(eglChooseConfig(egl, attribs, &config, 1, &count));
	ASSERT_EQ(count, 1);
	const EGLint context_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
	EGLContext context = eglCreateContext(egl, config, EGL_NO_CONTEXT, context_attribs);
	EGLSurface window = eglCreateWindowSurface(egl, config, (EGLNativeWindowType)native, nullptr);
	ASSERT_NE(window, EGL_NO_SURFACE) << std::hex << eglGetError();
	ASSERT_TRUE(eglMakeCurrent(egl, window, window, context));

	const uint8_t colours[][3] = {{200, 40, 90}, {30, 220, 120}, {60, 80, 250}};
	for (const auto &c : colours) {
		const unsigned before = zero_copy_compositor_frames(compositor);
		glClearColor(c[0] / 255.0f, c[1] / 255.0f, c[2] / 255.0f, 1.0f);
		glClear(GL_COLOR_BUFFER_BIT);
		ASSERT_TRUE(eglSwapBuffers(egl, window)) << std::hex << eglGetError();
		for (int wait = 0; wait < 500 && zero_copy_compositor_frames(compositor) == before; wait++)
			std::this_thread::sleep_for(std::chrono::milliseconds(10));
		uint8_t pixel[4] = {};
		ASSERT_TRUE(zero_copy_compositor_last_pixel(compositor, pixel)) << "no frame reached the compositor";
		EXPECT_EQ(pixel[0], c[0]);
		EXPECT_EQ(pixel[1], c[1]);
		EXPECT_EQ(pixel[2], c[2]);
		EXPECT_EQ(pixel[3], 255);
	}
	EXPECT_EQ(zero_copy_compositor_refused(compositor), 0u);

	eglMakeCurrent(egl, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	eglDestroySurface(egl, window);
	eglDestroyContext(egl, context);
	eglTerminate(egl);
	wl_egl_window_destroy(native);
	wl_surface_destroy(surface);
	wl_compositor_destroy(wl_comp);
	wl_registry_destroy(registry);
	wl_display_disconnect(display);
	zero_copy_compositor_stop(compositor);
}

} // namespace
