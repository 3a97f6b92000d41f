// A GBM program's EGL part, written as kmscube writes it — an EGL display
// of the gbm_device, a window surface of a gbm_surface, eglSwapBuffers,
// then gbm_surface_lock_front_buffer — running on uda: GBM_BACKEND=uda,
// and libuda-egl-host in front of Mesa's libEGL (linked before libEGL),
// which hands uda's gbm_devices to the uda platform, since Mesa's own GBM
// platform refuses them. Built with UDA_TEST_EGL_WITHOUT_HOST it links
// libEGL alone, for a driver that loads the platform itself (NVIDIA's),
// and skips where the libEGL did not load it.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <drm_fourcc.h>
#include <fcntl.h>
#include <gbm.h>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

#include "backend_env.hpp"
#include "egl_platform_probe.hpp"
#include "fd_count.hpp"

using namespace uda_test;

namespace
{

constexpr uint32_t kWidth = 96, kHeight = 64;

class GbmEgl : public ::testing::Test
{
protected:
	int fds_before = -1;
	int node = -1;
	const char *manifest = nullptr;
	gbm_device *gbm = nullptr;
	gbm_surface *surface = nullptr;
	EGLDisplay display = EGL_NO_DISPLAY;
	EGLConfig config = nullptr;
	EGLContext context = EGL_NO_CONTEXT;
	EGLSurface window = EGL_NO_SURFACE;

	void SetUp() override
	{
		use_build_tree_backends();
		std::string module = UDA_TEST_GBM_MODULE;
		setenv("GBM_BACKEND", "uda", 1);
		setenv("GBM_BACKENDS_PATH", module.substr(0, module.rfind('/')).c_str(), 1);
#ifdef UDA_TEST_EGL_WITHOUT_HOST
		// The driver routes EGL_PLATFORM_GBM_KHR to the module that
		// declares it: the GBM one.
		const char *override = std::getenv("UDA_TEST_EGL_GBM_PLATFORM_MANIFEST");
		manifest = override && override[0] ? override : UDA_TEST_EGL_GBM_PLATFORM_MANIFEST;
#else
		const char *override = std::getenv("UDA_TEST_EGL_PLATFORM_MANIFEST");
		manifest = override && override[0] ? override : UDA_TEST_EGL_PLATFORM_MANIFEST;
#endif
		setenv("__EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES", manifest, 1);
		setenv("EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES", manifest, 1);
		setenv("UDA_VULKAN_VALIDATION", "1", 1);
		fds_before = open_fd_count();
		node = open("/dev/null", O_RDWR | O_CLOEXEC);
		gbm = gbm_create_device(node);
		ASSERT_NE(gbm, nullptr) << strerror(errno);

		display = eglGetPlatformDisplay(EGL_PLATFORM_GBM_KHR, gbm, nullptr);
#ifdef UDA_TEST_EGL_WITHOUT_HOST
		// Mesa's libEGL makes a display of any gbm_device and fails at
		// eglInitialize: only a libEGL that loaded the platform is tested.
		if (!platform_module_is_resident(manifest))
			GTEST_SKIP() << "this libEGL did not load the uda platform (it loads no external platforms)";
#endif
		ASSERT_NE(display, EGL_NO_DISPLAY) << std::hex << eglGetError();
		EGLint major = 0, minor = 0;
		ASSERT_TRUE(eglInitialize(display, &major, &minor)) << std::hex << eglGetError();
		ASSERT_TRUE(eglBindAPI(EGL_OPENGL_ES_API));
		// kmscube's way: the config whose native visual is the GBM format
		// (XBGR8888: the uda platform renders GL's byte orders, not yet
		// XRGB8888's, docs/gbm.md).
		const EGLint attribs[] = {EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8,
		                          EGL_BLUE_SIZE, 8, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_NONE};
		EGLConfig configs[64];
		EGLint count = 0;
		ASSERT_TRUE(eglChooseConfig(display, attribs, configs, 64, &count));
		for (EGLint i = 0; i < count && !config; i++) {
			EGLint visual = 0;
			if (eglGetConfigAttrib(display, configs[i], EGL_NATIVE_VISUAL_ID, &visual) &&
			    static_cast<uint32_t>(visual) == GBM_FORMAT_XBGR8888)
				config = configs[i];
		}
		ASSERT_NE(config, nullptr) << "no config with native visual XBGR8888";
		const EGLint context_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
		context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
		ASSERT_NE(context, EGL_NO_CONTEXT) << std::hex << eglGetError();
	}
	void TearDown() override
	{
		if (display != EGL_NO_DISPLAY) {
			eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
			if (window != EGL_NO_SURFACE)
				eglDestroySurface(display, window);
			if (context != EGL_NO_CONTEXT)
				eglDestroyContext(display, context);
			eglTerminate(display);
		}
		eglReleaseThread();
		if (surface)
			gbm_surface_destroy(surface);
		if (gbm)
			gbm_device_destroy(gbm);
		if (node >= 0)
			close(node);
		EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
	}

	void create_window(uint32_t flags)
	{
		surface = gbm_surface_create(gbm, kWidth, kHeight, GBM_FORMAT_XBGR8888, flags);
		ASSERT_NE(surface, nullptr) << strerror(errno);
		window = eglCreatePlatformWindowSurface(display, config, surface, nullptr);
		ASSERT_NE(window, EGL_NO_SURFACE) << std::hex << eglGetError();
		ASSERT_TRUE(eglMakeCurrent(display, window, window, context)) << std::hex << eglGetError();
	}
};

// Frame n: red n*40, green 255 on the top half, blue 7 — rows counted from
// the top of the buffer, as scanout reads them.
void draw(uint32_t frame)
{
	glDisable(GL_SCISSOR_TEST);
	glClearColor((frame * 40 % 256) / 255.0f, 0.0f, 7 / 255.0f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glEnable(GL_SCISSOR_TEST);
	glScissor(0, kHeight / 2, kWidth, kHeight / 2); // GL's origin is the bottom
	glClearColor((frame * 40 % 256) / 255.0f, 1.0f, 7 / 255.0f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glDisable(GL_SCISSOR_TEST);
}

TEST_F(GbmEgl, SwappedFramesAreWhatTheFrontBufferHolds)
{
	// test-gbm-backend checks this answer against GL's linear imports.
	if (!gbm_device_is_format_supported(gbm, GBM_FORMAT_XBGR8888, GBM_BO_USE_RENDERING | GBM_BO_USE_LINEAR))
		GTEST_SKIP() << "this GPU's GL imports no linear memory: no linear GBM surfaces";
	create_window(GBM_BO_USE_RENDERING | GBM_BO_USE_LINEAR);
	gbm_bo *previous = nullptr;
	for (uint32_t frame = 1; frame <= 6; frame++) {
		draw(frame);
		ASSERT_TRUE(eglSwapBuffers(display, window)) << std::hex << eglGetError();
		gbm_bo *bo = gbm_surface_lock_front_buffer(surface);
		ASSERT_NE(bo, nullptr) << "frame " << frame << ": " << strerror(errno);
		EXPECT_EQ(gbm_bo_get_width(bo), kWidth);
		EXPECT_EQ(gbm_bo_get_format(bo), GBM_FORMAT_XBGR8888);
		uint32_t stride = 0;
		void *data = nullptr;
		auto *pixels = static_cast<const uint8_t *>(
		    gbm_bo_map(bo, 0, 0, kWidth, kHeight, GBM_BO_TRANSFER_READ, &stride, &data));
		ASSERT_NE(pixels, nullptr) << strerror(errno);
		// XBGR8888 is R, G, B, X in memory.
		auto at = [&](uint32_t x, uint32_t y) { return pixels + y * stride + x * 4; };
		const uint8_t red = static_cast<uint8_t>(frame * 40 % 256);
		EXPECT_EQ(at(5, 3)[0], red) << "frame " << frame;
		EXPECT_EQ(at(5, 3)[1], 255) << "the top half is the top of the buffer";
		EXPECT_EQ(at(5, kHeight - 3)[1], 0);
		EXPECT_EQ(at(kWidth - 1, kHeight - 1)[2], 7);
		gbm_bo_unmap(bo, data);
		// kmscube releases the previous front once the new one is shown.
		if (previous)
			gbm_surface_release_buffer(surface, previous);
		previous = bo;
		EXPECT_EQ(gbm_surface_has_free_buffers(surface), 1);
	}
	gbm_surface_release_buffer(surface, previous);
}

// The GPU's own layout, as a scanout-and-render surface would get on a
// driver with one: the frames still reach the front buffer.
TEST_F(GbmEgl, DriverLayoutSurfacesCycleToo)
{
	create_window(GBM_BO_USE_RENDERING);
	for (uint32_t frame = 1; frame <= 4; frame++) {
		draw(frame);
		ASSERT_TRUE(eglSwapBuffers(display, window)) << std::hex << eglGetError();
		gbm_bo *bo = gbm_surface_lock_front_buffer(surface);
		ASSERT_NE(bo, nullptr) << strerror(errno);
		int fd = gbm_bo_get_fd(bo);
		EXPECT_GE(fd, 0);
		if (fd >= 0)
			close(fd);
		gbm_surface_release_buffer(surface, bo);
	}
}

// GBM programs written for EGL 1.4 (kmscube without EGL_KHR_platform_gbm,
// older compositors) call eglGetDisplay with the gbm_device and
// eglCreateWindowSurface with the gbm_surface: the same display, and
// frames reach the front buffer as on the platform path.
TEST_F(GbmEgl, Egl14CallsOfGbmProgramsWorkToo)
{
	EGLDisplay legacy = eglGetDisplay(reinterpret_cast<EGLNativeDisplayType>(gbm));
	ASSERT_EQ(legacy, display) << std::hex << eglGetError();
	surface = gbm_surface_create(gbm, kWidth, kHeight, GBM_FORMAT_XBGR8888, GBM_BO_USE_RENDERING);
	ASSERT_NE(surface, nullptr) << strerror(errno);
	window = eglCreateWindowSurface(legacy, config, reinterpret_cast<EGLNativeWindowType>(surface), nullptr);
	ASSERT_NE(window, EGL_NO_SURFACE) << std::hex << eglGetError();
	ASSERT_TRUE(eglMakeCurrent(legacy, window, window, context)) << std::hex << eglGetError();
	for (uint32_t frame = 1; frame <= 3; frame++) {
		draw(frame);
		ASSERT_TRUE(eglSwapBuffers(legacy, window)) << std::hex << eglGetError();
		gbm_bo *bo = gbm_surface_lock_front_buffer(surface);
		ASSERT_NE(bo, nullptr) << strerror(errno);
		gbm_surface_release_buffer(surface, bo);
	}
}

// A native window that is no gbm_surface of uda's is refused, not read.
TEST_F(GbmEgl, OtherWindowsAreRefused)
{
	gbm_surface *none = nullptr;
	EXPECT_EQ(eglCreatePlatformWindowSurface(display, config, none, nullptr), EGL_NO_SURFACE);
	EXPECT_EQ(eglGetError(), EGL_BAD_NATIVE_WINDOW);
}

} // namespace
