// The EGL external platform through the host on Mesa: llvmpipe renders
// into EGL surfaces whose buffers are uda allocations (lavapipe's memory),
// and consumers read them through GL and Vulkan imports of the core.
//
// The test links libuda-egl-host before libEGL, as an application would,
// and finds the platform through the build tree's manifest. Built with
// UDA_TEST_EGL_WITHOUT_HOST it links libEGL alone, for drivers that load
// external platforms themselves (NVIDIA's: tests/hardware/nvidia.sh); on
// a libEGL that does not, it skips.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <GLES3/gl3.h>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <thread>
#include <unistd.h>
#include <vector>
#include <drm_fourcc.h>
#include <string>

#include <EGL/eglext_uda.h>
#include <uda/uda_surface.h>

#include "egl_platform_probe.hpp"
#include "fd_count.hpp"
#include "gpu_fixture.hpp"

using namespace uda_test;

namespace
{

constexpr uint32_t kWidth = 64, kHeight = 48;

bool has_extension(const char *list, const char *name)
{
	if (!list)
		return false;
	const size_t length = std::strlen(name);
	for (const char *at = std::strstr(list, name); at; at = std::strstr(at + 1, name)) {
		if ((at == list || at[-1] == ' ') && (at[length] == ' ' || at[length] == '\0'))
			return true;
	}
	return false;
}

// 8-bit channels that survive float conversion exactly.
struct Colour {
	uint8_t r, g, b;
	// As 32-bit words of ABGR8888 memory (R first in memory), and of
	// ARGB8888 memory (B first), on a little-endian machine.
	uint32_t packed() const { return r | g << 8 | b << 16 | 0xffu << 24; }
	uint32_t packed_bgra() const { return b | g << 8 | r << 16 | 0xffu << 24; }
};

Colour frame_colour(uint32_t frame, bool top)
{
	return {static_cast<uint8_t>((frame * 51) % 256), static_cast<uint8_t>(top ? 255 : 0),
	        static_cast<uint8_t>((frame * 17 + 5) % 256)};
}

// Clears the whole surface to the frame's colour and the top half to its
// "top" colour: orientation mistakes show as swapped halves.
void draw_frame(uint32_t frame, uint32_t width, uint32_t height)
{
	const Colour bottom = frame_colour(frame, false), top = frame_colour(frame, true);
	glViewport(0, 0, static_cast<GLsizei>(width), static_cast<GLsizei>(height));
	glClearColor(bottom.r / 255.0f, bottom.g / 255.0f, bottom.b / 255.0f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glEnable(GL_SCISSOR_TEST);
	// GL's y counts from the bottom: the top half starts at height / 2.
	glScissor(0, static_cast<GLint>(height / 2), static_cast<GLsizei>(width), static_cast<GLsizei>(height - height / 2));
	glClearColor(top.r / 255.0f, top.g / 255.0f, top.b / 255.0f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glDisable(GL_SCISSOR_TEST);
}

// Pixels of a buffer whose first row is the image's top; bgra: the words
// are ARGB8888 memory as it lies, not read back as RGBA.
size_t wrong_pixels(const std::vector<uint32_t> &pixels, uint32_t frame, uint32_t width, uint32_t height,
                    bool bgra = false)
{
	size_t wrong = 0;
	for (uint32_t y = 0; y < height; y++) {
		const Colour colour = frame_colour(frame, y < height - height / 2);
		const uint32_t expected = bgra ? colour.packed_bgra() : colour.packed();
		for (uint32_t x = 0; x < width; x++)
			wrong += pixels[y * width + x] != expected;
	}
	return wrong;
}

std::vector<uint32_t> gl_read(const uda_gl_native &native, uint32_t width, uint32_t height)
{
	SharedGlContext context(native);
	GLuint fbo = context.framebuffer_for(native.texture);
	std::vector<uint32_t> pixels(width * height);
	glReadPixels(0, 0, static_cast<GLsizei>(width), static_cast<GLsizei>(height), GL_RGBA, GL_UNSIGNED_BYTE,
	             pixels.data());
	glDeleteFramebuffers(1, &fbo);
	return pixels;
}

// UDA_EGL_PLATFORM_COPY=1 makes window surfaces render into a pbuffer and
// copy at eglSwapBuffers; ctest runs the suite both ways.
bool copy_path()
{
#ifdef UDA_TEST_EGL_WITHOUT_HOST
	return true; /* only the host routes framebuffer 0 */
#endif
	const char *copy = std::getenv("UDA_EGL_PLATFORM_COPY");
	return copy && copy[0] && std::strcmp(copy, "0") != 0;
}

class EglPlatform : public GpuTest
{
protected:
	void SetUp() override
	{
		const char *manifest = std::getenv("UDA_TEST_EGL_PLATFORM_MANIFEST");
		// NVIDIA's libEGL reads the __-prefixed name, uda's host both.
		setenv("__EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES", manifest ? manifest : UDA_TEST_EGL_PLATFORM_MANIFEST, 1);
		setenv("EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES", manifest ? manifest : UDA_TEST_EGL_PLATFORM_MANIFEST, 1);
		fds_before = open_fd_count();
		GpuTest::SetUp();
		if (HasFatalFailure())
			return;
		// glvnd passes on only the client extensions it knows, so the
		// platform's own never shows under glvnd (NVIDIA's libEGL, seen on
		// 580.159): whether the driver loaded the platform is whether the
		// module is resident once EGL has been asked for its display.
		const bool listed = has_extension(eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS), "EGL_UDA_platform_uda");
		display = eglGetPlatformDisplay(EGL_PLATFORM_UDA, gl, nullptr);
		const EGLint display_error = eglGetError();
		const bool resident = platform_module_is_resident(manifest ? manifest : UDA_TEST_EGL_PLATFORM_MANIFEST);
		if (display == EGL_NO_DISPLAY && !listed && !resident)
			GTEST_SKIP() << "this libEGL did not load the uda platform (it loads no external platforms, or "
			                "EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES does not name the manifest)";
		ASSERT_NE(display, EGL_NO_DISPLAY) << "the platform is loaded but gave no display: 0x" << std::hex
		                                   << display_error;
		EGLint major = 0, minor = 0;
		ASSERT_TRUE(eglInitialize(display, &major, &minor)) << std::hex << eglGetError();
		ASSERT_TRUE(eglBindAPI(EGL_OPENGL_ES_API));
		const EGLint attribs[] = {EGL_SURFACE_TYPE, EGL_WINDOW_BIT | EGL_PIXMAP_BIT, EGL_RED_SIZE, 8, EGL_GREEN_SIZE,
		                          8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT,
		                          EGL_NATIVE_VISUAL_ID, static_cast<EGLint>(DRM_FORMAT_ABGR8888), EGL_NONE};
		EGLint count = 0;
		ASSERT_TRUE(eglChooseConfig(display, attribs, &config, 1, &count));
		ASSERT_EQ(count, 1);
		const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
		context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
		ASSERT_NE(context, EGL_NO_CONTEXT) << std::hex << eglGetError();
	}
	void TearDown() override
	{
		if (display != EGL_NO_DISPLAY) {
			eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
			if (context != EGL_NO_CONTEXT)
				eglDestroyContext(display, context);
			eglTerminate(display);
		}
		uda_surface_destroy(window);
		GpuTest::TearDown();
		EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
	}

	// GL renders, Vulkan samples, reads back (TRANSFER_SRC) and uploads.
	std::vector<uda_device_usage> producer_and_consumer()
	{
		return {{gl, &gl_usage}, {vulkan, &vulkan_usage}};
	}
	uda_result try_create_window(uint32_t width, uint32_t height, uint32_t format, uint32_t buffer_count = 4)
	{
		devices = producer_and_consumer();
		uda_surface_create_info info = {};
		info.type = UDA_STRUCTURE_TYPE_SURFACE_CREATE_INFO;
		info.width = width;
		info.height = height;
		info.format = format;
		info.device_count = static_cast<uint32_t>(devices.size());
		info.devices = devices.data();
		// The EGL surface holds one for the frame being drawn; the tests
		// queue up to three before consuming.
		info.buffer_count = buffer_count;
		return uda_surface_create(ctx.get(), &info, &window);
	}
	void create_window(uint32_t width = kWidth, uint32_t height = kHeight, uint32_t format = DRM_FORMAT_ABGR8888)
	{
		ASSERT_EQ(try_create_window(width, height, format), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	}
	// A window surface of `window`, current with `context`.
	EGLSurface current_window_surface()
	{
		EGLSurface surface = eglCreatePlatformWindowSurface(display, config, window, nullptr);
		EXPECT_NE(surface, EGL_NO_SURFACE) << std::hex << eglGetError();
		if (surface != EGL_NO_SURFACE) {
			EXPECT_TRUE(eglMakeCurrent(display, surface, surface, context)) << std::hex << eglGetError();
		}
		return surface;
	}
	void release_and_destroy(EGLSurface surface)
	{
		eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
		EXPECT_TRUE(eglDestroySurface(display, surface));
	}
	AllocationPtr allocate_image()
	{
		uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, kWidth, kHeight, DRM_FORMAT_ABGR8888, 0};
		devices = producer_and_consumer();
		uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion,
		                             static_cast<uint32_t>(devices.size()), devices.data()};
		uda_allocation *allocation = nullptr;
		EXPECT_EQ(uda_negotiate_allocate(ctx.get(), &info, &allocation, nullptr, nullptr), UDA_SUCCESS)
			<< uda_context_get_error(ctx.get());
		return AllocationPtr(allocation);
	}
	// What a consumer sees of the oldest queued frame, through both APIs:
	// GL reads it back as RGBA whatever the memory's order, Vulkan copies
	// the memory as it lies (B first for ARGB8888).
	void expect_frame(uint32_t frame, uint32_t width, uint32_t height, bool bgra_memory = false)
	{
		uda_surface_frame acquired = {};
		ASSERT_EQ(uda_surface_acquire(window, 0, &acquired), UDA_SUCCESS) << "frame " << frame;
		expect_pixels(acquired, frame, width, height, bgra_memory);
		ASSERT_EQ(uda_surface_release(window, acquired.buffer_id), UDA_SUCCESS);
	}
	void expect_pixels(const uda_surface_frame &acquired, uint32_t frame, uint32_t width, uint32_t height,
	                   bool bgra_memory = false)
	{
		EXPECT_EQ(acquired.width, width);
		EXPECT_EQ(acquired.height, height);
		{
			AllocationPtr in_gl = import_through_fd(ctx.get(), gl, acquired.allocation, UDA_HANDLE_TYPE_OPAQUE_FD);
			ASSERT_TRUE(in_gl);
			EXPECT_EQ(wrong_pixels(gl_read(gl_native_of(in_gl.get()), width, height), frame, width, height), 0u)
				<< "GL consumer, frame " << frame;
		}
		{
			AllocationPtr in_vulkan =
				import_through_fd(ctx.get(), vulkan, acquired.allocation, UDA_HANDLE_TYPE_OPAQUE_FD);
			ASSERT_TRUE(in_vulkan);
			uda_vulkan_native native = {};
			native.type = UDA_STRUCTURE_TYPE_VULKAN_NATIVE;
			ASSERT_EQ(uda_allocation_get_native(in_vulkan.get(), &native), UDA_SUCCESS);
			EXPECT_EQ(wrong_pixels(vulkan_read_pixels(native, native.image, width, height), frame, width, height,
			                       bgra_memory),
			          0u)
				<< "Vulkan consumer, frame " << frame;
		}
	}

	const uda_usage_atom gl_atoms[1] = {atom(UDA_USAGE_RENDER_TARGET)};
	const uda_usage gl_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, gl_atoms};
	const uda_usage_atom vulkan_atoms[3] = {atom(UDA_USAGE_SAMPLED), atom(UDA_USAGE_TRANSFER_SRC),
	                                        atom(UDA_USAGE_TRANSFER_DST)};
	const uda_usage vulkan_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 3, vulkan_atoms};
	std::vector<uda_device_usage> devices;

	int fds_before = 0;
	EGLDisplay display = EGL_NO_DISPLAY;
	EGLConfig config = nullptr;
	EGLContext context = EGL_NO_CONTEXT;
	uda_surface *window = nullptr;
};

TEST_F(EglPlatform, DisplayInitializesAndListsConfigs)
{
	EXPECT_TRUE(has_extension(eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS), "EGL_UDA_platform_uda"));
	EXPECT_TRUE(has_extension(eglQueryString(display, EGL_EXTENSIONS), "EGL_UDA_image_allocation"));
	EXPECT_NE(eglQueryString(display, EGL_VERSION), nullptr);
	// One display per device, whichever API's device names the hardware.
	EXPECT_EQ(eglGetPlatformDisplay(EGL_PLATFORM_UDA, gl, nullptr), display);
	EXPECT_EQ(eglGetPlatformDisplay(EGL_PLATFORM_UDA, vulkan, nullptr), display);

	const EGLint attribs[] = {EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_NONE};
	EGLint count = 0;
	ASSERT_TRUE(eglChooseConfig(display, attribs, nullptr, 0, &count));
	ASSERT_GT(count, 0);
	std::vector<EGLConfig> configs(static_cast<size_t>(count));
	ASSERT_TRUE(eglChooseConfig(display, attribs, configs.data(), count, &count));
	for (EGLConfig c : configs) {
		EGLint type = 0, visual = 0;
		ASSERT_TRUE(eglGetConfigAttrib(display, c, EGL_SURFACE_TYPE, &type));
		EXPECT_EQ(type & (EGL_WINDOW_BIT | EGL_PIXMAP_BIT), EGL_WINDOW_BIT | EGL_PIXMAP_BIT);
		ASSERT_TRUE(eglGetConfigAttrib(display, c, EGL_NATIVE_VISUAL_ID, &visual));
		uda_format_info format = {};
		EXPECT_EQ(uda_format_get_info(static_cast<uint32_t>(visual), &format), UDA_SUCCESS) << std::hex << visual;
	}
	// A visual the configs do not have matches nothing.
	const EGLint none[] = {EGL_NATIVE_VISUAL_ID, static_cast<EGLint>(DRM_FORMAT_NV12), EGL_NONE};
	ASSERT_TRUE(eglChooseConfig(display, none, nullptr, 0, &count));
	EXPECT_EQ(count, 0);
}

TEST_F(EglPlatform, WindowFramesReachGlAndVulkanConsumersPixelForPixel)
{
	create_window();
	EGLSurface surface = eglCreatePlatformWindowSurface(display, config, window, nullptr);
	ASSERT_NE(surface, EGL_NO_SURFACE) << std::hex << eglGetError();
	EGLint width = 0, height = 0;
	EXPECT_TRUE(eglQuerySurface(display, surface, EGL_WIDTH, &width));
	EXPECT_TRUE(eglQuerySurface(display, surface, EGL_HEIGHT, &height));
	EXPECT_EQ(width, static_cast<EGLint>(kWidth));
	EXPECT_EQ(height, static_cast<EGLint>(kHeight));

	for (uint32_t frame = 1; frame <= 6; frame++) {
		ASSERT_TRUE(eglMakeCurrent(display, surface, surface, context)) << std::hex << eglGetError();
		EXPECT_EQ(eglGetCurrentSurface(EGL_DRAW), surface);
		EXPECT_EQ(eglGetCurrentDisplay(), display);
		draw_frame(frame, kWidth, kHeight);
		ASSERT_TRUE(eglSwapBuffers(display, surface)) << std::hex << eglGetError();
		EXPECT_EQ(eglGetError(), EGL_SUCCESS);
		// Copy path: the pbuffer always holds the last frame (1). Direct:
		// the next buffer's own age: 0 while it is new, then at most
		// the number of buffers.
		EGLint age = -1;
		EXPECT_TRUE(eglQuerySurface(display, surface, EGL_BUFFER_AGE_EXT, &age));
		if (copy_path())
			EXPECT_EQ(age, 1);
		else
			EXPECT_TRUE(age >= 0 && age <= 4) << age;
		// The consumer reads it (it makes its own context current).
		expect_frame(frame, kWidth, kHeight);
	}
	release_and_destroy(surface);
}

// UDA_EGL_NATIVE_FENCES=1: a driver with EGL_ANDROID_native_fence_sync
// hands every frame over with its sync file instead of finishing it; one
// without (llvmpipe) falls back to glFinish, and the frames are whole
// either way. The consumer here takes the fences itself, as a compositor
// would, and releases with a fence the producer must wait for.
TEST_F(EglPlatform, OptedInNativeFencesGoOutWithEveryFrame)
{
	const char *before = std::getenv("UDA_EGL_NATIVE_FENCES");
	const std::string saved = before ? before : "";
	setenv("UDA_EGL_NATIVE_FENCES", "1", 1);
	// Two buffers: the one being drawn and the one the consumer had, so
	// every swap gets back the buffer released with a pending fence.
	ASSERT_EQ(try_create_window(kWidth, kHeight, DRM_FORMAT_ABGR8888, 2), UDA_SUCCESS)
		<< uda_context_get_error(ctx.get());
	EGLSurface surface = eglCreatePlatformWindowSurface(display, config, window, nullptr);
	if (before)
		setenv("UDA_EGL_NATIVE_FENCES", saved.c_str(), 1);
	else
		unsetenv("UDA_EGL_NATIVE_FENCES");
	ASSERT_NE(surface, EGL_NO_SURFACE) << std::hex << eglGetError();
	const char *extensions = eglQueryString(display, EGL_EXTENSIONS);
	const bool driver_fences = has_extension(extensions, "EGL_ANDROID_native_fence_sync");
	const bool gl_release_fences = driver_fences && has_extension(extensions, "EGL_KHR_surfaceless_context");
	auto create_sync = reinterpret_cast<PFNEGLCREATESYNCKHRPROC>(eglGetProcAddress("eglCreateSyncKHR"));
	auto destroy_sync = reinterpret_cast<PFNEGLDESTROYSYNCKHRPROC>(eglGetProcAddress("eglDestroySyncKHR"));
	auto dup_fence =
		reinterpret_cast<PFNEGLDUPNATIVEFENCEFDANDROIDPROC>(eglGetProcAddress("eglDupNativeFenceFDANDROID"));
	// What a GL compositor releases with: a fence after its reads.
	auto gl_fence = [&]() -> int {
		if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context) || !create_sync || !dup_fence)
			return -1;
		const EGLint attribs[] = {EGL_SYNC_NATIVE_FENCE_FD_ANDROID, EGL_NO_NATIVE_FENCE_FD_ANDROID, EGL_NONE};
		EGLSyncKHR sync = create_sync(display, EGL_SYNC_NATIVE_FENCE_ANDROID, attribs);
		if (sync == EGL_NO_SYNC_KHR)
			return -1;
		glFlush();
		const int fd = dup_fence(display, sync);
		destroy_sync(display, sync);
		return fd;
	};

	// A platform that closed the fence unwaited must fail the checks, not
	// kill the suite on the reader's write.
	std::signal(SIGPIPE, SIG_IGN);
	std::atomic<bool> reads_done{true};
	struct JoinedThread {
		std::thread thread;
		~JoinedThread()
		{
			if (thread.joinable())
				thread.join();
		}
	} reader;
	for (uint32_t frame = 1; frame <= 6; frame++) {
		ASSERT_TRUE(eglMakeCurrent(display, surface, surface, context)) << std::hex << eglGetError();
		draw_frame(frame, kWidth, kHeight);
		ASSERT_TRUE(eglSwapBuffers(display, surface)) << std::hex << eglGetError();
		// The swap took back the previous frame's buffer: not before the
		// consumer's release fence said its reads were done.
		EXPECT_TRUE(reads_done) << "frame " << frame << ": the producer did not wait for the release fence";
		if (reader.thread.joinable())
			reader.thread.join();

		uda_surface_frame acquired = {};
		int acquire_fence = -2;
		ASSERT_EQ(uda_surface_acquire_fenced(window, 0, &acquired, &acquire_fence), UDA_SUCCESS)
			<< "frame " << frame;
		if (driver_fences) {
			ASSERT_GE(acquire_fence, 0) << "frame " << frame << ": the driver makes sync files, yet none came";
			pollfd entry = {acquire_fence, POLLIN, 0};
			EXPECT_EQ(poll(&entry, 1, 10000), 1) << "frame " << frame << ": the fence never signalled";
			close(acquire_fence);
		} else {
			EXPECT_EQ(acquire_fence, -1) << "frame " << frame;
		}
		expect_pixels(acquired, frame, kWidth, kHeight);
		if (gl_release_fences && frame % 2 == 0) {
			// A real consumer's release fence: a sync file from GL, which
			// the producer imports and waits for on the GPU.
			const int release_fence = gl_fence();
			ASSERT_GE(release_fence, 0) << std::hex << eglGetError();
			ASSERT_EQ(uda_surface_release_fenced(window, acquired.buffer_id, release_fence), UDA_SUCCESS);
			continue;
		}
		// Released "still reading": a pipe stands in for the consumer's
		// sync file (the platform waits on the CPU for what GL cannot
		// import) and is signalled a while later.
		int ends[2];
		ASSERT_EQ(pipe2(ends, O_CLOEXEC), 0);
		reads_done = false;
		ASSERT_EQ(uda_surface_release_fenced(window, acquired.buffer_id, ends[0]), UDA_SUCCESS);
		reader.thread = std::thread([&reads_done, write_end = ends[1]] {
			std::this_thread::sleep_for(std::chrono::milliseconds(100));
			reads_done = true;
			const char tag = 'R';
			EXPECT_EQ(write(write_end, &tag, 1), 1);
			close(write_end);
		});
	}
	if (reader.thread.joinable())
		reader.thread.join();
	release_and_destroy(surface);
}

// ARGB8888, what most Wayland clients ask for, through a config whose
// visual is ABGR8888 (same depth; the order is the memory's business).
// A GL that takes no BGRA-ordered memory (Mesa 22.3's GLES stores no
// GL_BGRA8_EXT) cannot be in such a queue at all; newer Mesa and NVIDIA
// render straight into it, or copy into it on the copy path.
TEST_F(EglPlatform, ArgbWindowFramesLieInMemoryBlueFirst)
{
	const uda_result created = try_create_window(kWidth, kHeight, DRM_FORMAT_ARGB8888);
	const std::string creation_error = uda_context_get_error(ctx.get());
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, kWidth, kHeight, DRM_FORMAT_ARGB8888, 0};
	// The window's buffers come from Vulkan, which shares them with GL as
	// opaque fds: GL must take ARGB8888 in its driver-private layout.
	const bool gl_takes_opaque = offers_opaque_layout(gl, assertion, gl_usage);
	if (!gl_takes_opaque && created != UDA_SUCCESS)
		GTEST_SKIP() << "this GL takes no ARGB8888 memory from Vulkan as an opaque fd (no GL_BGRA8_EXT texture "
		                "storage in that order), and the queue's creation says why: "
		             << creation_error;
	ASSERT_EQ(created, UDA_SUCCESS) << creation_error;

	EGLSurface surface = eglCreatePlatformWindowSurface(display, config, window, nullptr);
	ASSERT_NE(surface, EGL_NO_SURFACE) << std::hex << eglGetError();
	for (uint32_t frame = 1; frame <= 3; frame++) {
		ASSERT_TRUE(eglMakeCurrent(display, surface, surface, context)) << std::hex << eglGetError();
		draw_frame(frame, kWidth, kHeight);
		ASSERT_TRUE(eglSwapBuffers(display, surface)) << std::hex << eglGetError();
		expect_frame(frame, kWidth, kHeight, true);
	}
	release_and_destroy(surface);
}

// What a program does with framebuffer 0 must mean the window, on the
// direct path (where the host stands a framebuffer object in for it) as on
// the copy path (where it is the pbuffer's).
TEST_F(EglPlatform, FramebufferZeroBehavesAsTheWindow)
{
	create_window();
	EGLSurface surface = current_window_surface();
	ASSERT_NE(surface, EGL_NO_SURFACE);
	GLint binding = -1;
	glGetIntegerv(GL_FRAMEBUFFER_BINDING, &binding);
	EXPECT_EQ(binding, 0);

	// An offscreen pass into the program's own framebuffer first.
	GLuint texture = 0, fbo = 0;
	glGenTextures(1, &texture);
	glBindTexture(GL_TEXTURE_2D, texture);
	glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, 16, 16);
	glGenFramebuffers(1, &fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
	glClearColor(0.0f, 0.0f, 1.0f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glGetIntegerv(GL_FRAMEBUFFER_BINDING, &binding);
	EXPECT_EQ(binding, static_cast<GLint>(fbo));

	// Back to the window, the way programs say it.
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &binding);
	EXPECT_EQ(binding, 0);
	glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &binding);
	EXPECT_EQ(binding, 0);
	const GLenum back = GL_BACK;
	glDrawBuffers(1, &back);
	glReadBuffer(GL_BACK);
	GLint red_size = 0;
	glGetFramebufferAttachmentParameteriv(GL_FRAMEBUFFER, GL_BACK, GL_FRAMEBUFFER_ATTACHMENT_RED_SIZE, &red_size);
	EXPECT_EQ(red_size, 8);
	EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
	draw_frame(5, kWidth, kHeight);
	// Reads of framebuffer 0 count rows from the bottom, as always.
	uint32_t bottom_left = 0, top_left = 0;
	glReadPixels(0, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, &bottom_left);
	glReadPixels(0, kHeight - 1, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, &top_left);
	EXPECT_EQ(bottom_left, frame_colour(5, false).packed());
	EXPECT_EQ(top_left, frame_colour(5, true).packed());
	const GLenum discard[] = {GL_COLOR};
	ASSERT_TRUE(eglSwapBuffers(display, surface));
	glInvalidateFramebuffer(GL_FRAMEBUFFER, 1, discard);
	EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
	// Still the window after the swap, though the buffer behind it changed.
	glGetIntegerv(GL_FRAMEBUFFER_BINDING, &binding);
	EXPECT_EQ(binding, 0);
	glDeleteFramebuffers(1, &fbo);
	glDeleteTextures(1, &texture);
	expect_frame(5, kWidth, kHeight);
	release_and_destroy(surface);
}

// A config with depth and stencil gets them on the window, whichever path.
TEST_F(EglPlatform, DepthStencilConfigsRenderWithDepth)
{
	const EGLint attribs[] = {EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_RED_SIZE, 8, EGL_ALPHA_SIZE, 8, EGL_DEPTH_SIZE,
	                          24, EGL_STENCIL_SIZE, 8, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_NONE};
	EGLConfig depth_config = nullptr;
	EGLint count = 0;
	ASSERT_TRUE(eglChooseConfig(display, attribs, &depth_config, 1, &count));
	ASSERT_EQ(count, 1);
	const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
	EGLContext depth_context = eglCreateContext(display, depth_config, EGL_NO_CONTEXT, context_attribs);
	ASSERT_NE(depth_context, EGL_NO_CONTEXT);
	create_window();
	EGLSurface surface = eglCreatePlatformWindowSurface(display, depth_config, window, nullptr);
	ASSERT_NE(surface, EGL_NO_SURFACE) << std::hex << eglGetError();
	ASSERT_TRUE(eglMakeCurrent(display, surface, surface, depth_context));
	GLint depth_bits = 0, stencil_bits = 0;
	glGetFramebufferAttachmentParameteriv(GL_FRAMEBUFFER, GL_DEPTH, GL_FRAMEBUFFER_ATTACHMENT_DEPTH_SIZE, &depth_bits);
	glGetFramebufferAttachmentParameteriv(GL_FRAMEBUFFER, GL_STENCIL, GL_FRAMEBUFFER_ATTACHMENT_STENCIL_SIZE,
	                                      &stencil_bits);
	EXPECT_GE(depth_bits, 24);
	EXPECT_EQ(stencil_bits, 8);
	// Clearing them is valid and leaves the colour alone.
	draw_frame(9, kWidth, kHeight);
	glClearStencil(0);
	glClear(GL_STENCIL_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
	EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
	ASSERT_TRUE(eglSwapBuffers(display, surface));
	expect_frame(9, kWidth, kHeight);
	eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	EXPECT_TRUE(eglDestroySurface(display, surface));
	eglDestroyContext(display, depth_context);
}

TEST_F(EglPlatform, ResizeMidStreamFollowsTheSurface)
{
	create_window();
	EGLSurface surface = current_window_surface();
	ASSERT_NE(surface, EGL_NO_SURFACE);
	draw_frame(1, kWidth, kHeight);
	ASSERT_TRUE(eglSwapBuffers(display, surface));

	// As wl_egl_window_resize: the frame being drawn keeps the old size,
	// the one after the next swap has the new one.
	const uint32_t new_width = 80, new_height = 36;
	ASSERT_EQ(uda_surface_resize(window, new_width, new_height), UDA_SUCCESS);
	draw_frame(2, kWidth, kHeight);
	ASSERT_TRUE(eglSwapBuffers(display, surface));
	EGLint width = 0, height = 0;
	EXPECT_TRUE(eglQuerySurface(display, surface, EGL_WIDTH, &width));
	EXPECT_TRUE(eglQuerySurface(display, surface, EGL_HEIGHT, &height));
	EXPECT_EQ(width, static_cast<EGLint>(new_width));
	EXPECT_EQ(height, static_cast<EGLint>(new_height));
	draw_frame(3, new_width, new_height);
	ASSERT_TRUE(eglSwapBuffers(display, surface)) << std::hex << eglGetError();

	expect_frame(1, kWidth, kHeight);
	expect_frame(2, kWidth, kHeight);
	expect_frame(3, new_width, new_height);
	release_and_destroy(surface);
}

// Toolkits make their window current again before every frame.
TEST_F(EglPlatform, MakingTheWindowCurrentEveryFrameKeepsItsFrames)
{
	create_window();
	EGLSurface surface = eglCreatePlatformWindowSurface(display, config, window, nullptr);
	ASSERT_NE(surface, EGL_NO_SURFACE);
	for (uint32_t frame = 1; frame <= 3; frame++) {
		ASSERT_TRUE(eglMakeCurrent(display, surface, surface, context));
		draw_frame(frame, kWidth, kHeight);
		ASSERT_TRUE(eglMakeCurrent(display, surface, surface, context));
		ASSERT_TRUE(eglSwapBuffers(display, surface)) << std::hex << eglGetError();
	}
	for (uint32_t frame = 1; frame <= 3; frame++)
		expect_frame(frame, kWidth, kHeight);
	release_and_destroy(surface);
}

TEST_F(EglPlatform, SwapIntervalZeroNeverWaitsForTheConsumer)
{
	create_window();
	EGLSurface surface = eglCreateWindowSurface(display, config, reinterpret_cast<EGLNativeWindowType>(window), nullptr);
	ASSERT_NE(surface, EGL_NO_SURFACE);
	ASSERT_TRUE(eglMakeCurrent(display, surface, surface, context));
	ASSERT_TRUE(eglSwapInterval(display, 0));
	// Four buffers, ten frames, no consumer: FIFO would block at the 4th.
	for (uint32_t frame = 1; frame <= 10; frame++) {
		draw_frame(frame, kWidth, kHeight);
		ASSERT_TRUE(eglSwapBuffers(display, surface));
	}
	uda_surface_frame newest = {};
	ASSERT_EQ(uda_surface_acquire(window, 0, &newest), UDA_SUCCESS);
	EXPECT_EQ(newest.frame_number, 10u);
	EXPECT_EQ(newest.dropped_before, 9u);
	ASSERT_EQ(uda_surface_release(window, newest.buffer_id), UDA_SUCCESS);

	// Back to 1: every frame reaches the consumer.
	ASSERT_TRUE(eglMakeCurrent(display, surface, surface, context));
	ASSERT_TRUE(eglSwapInterval(display, 1));
	for (uint32_t frame = 11; frame <= 12; frame++) {
		draw_frame(frame, kWidth, kHeight);
		ASSERT_TRUE(eglSwapBuffers(display, surface));
	}
	expect_frame(11, kWidth, kHeight);
	expect_frame(12, kWidth, kHeight);
	release_and_destroy(surface);
}

TEST_F(EglPlatform, DamageReachesTheConsumerTopDown)
{
	create_window();
	EGLSurface surface = current_window_surface();
	ASSERT_NE(surface, EGL_NO_SURFACE);
	auto swap_with_damage =
		reinterpret_cast<PFNEGLSWAPBUFFERSWITHDAMAGEKHRPROC>(eglGetProcAddress("eglSwapBuffersWithDamageKHR"));
	ASSERT_NE(swap_with_damage, nullptr);
	draw_frame(1, kWidth, kHeight);
	// EGL counts rows from the bottom: 8 rows at the bottom.
	EGLint rect[4] = {0, 0, static_cast<EGLint>(kWidth), 8};
	ASSERT_TRUE(swap_with_damage(display, surface, rect, 1)) << std::hex << eglGetError();
	uda_surface_frame frame = {};
	ASSERT_EQ(uda_surface_acquire(window, 0, &frame), UDA_SUCCESS);
	ASSERT_EQ(frame.damage_count, 1u);
	EXPECT_EQ(frame.damage[0].y, static_cast<int32_t>(kHeight - 8));
	EXPECT_EQ(frame.damage[0].height, 8);
	ASSERT_EQ(uda_surface_release(window, frame.buffer_id), UDA_SUCCESS);

	// A rect of negative size is EGL_BAD_PARAMETER and queues nothing;
	// the next swaps go on as if it never came.
	draw_frame(2, kWidth, kHeight);
	EGLint negative[4] = {0, 0, -1, 8};
	EXPECT_FALSE(swap_with_damage(display, surface, negative, 1));
	EXPECT_EQ(eglGetError(), EGL_BAD_PARAMETER);
	EXPECT_EQ(uda_surface_acquire(window, 0, &frame), UDA_ERROR_TIMEOUT);
	// Rects far outside the surface (EGL allows them) are clipped, with
	// no arithmetic overflow on the way; nothing left means everything.
	EGLint outside[8] = {0, INT32_MAX - 4, 16, INT32_MAX, -16, 0, INT32_MAX, 4};
	ASSERT_TRUE(swap_with_damage(display, surface, outside, 2)) << std::hex << eglGetError();
	ASSERT_EQ(uda_surface_acquire(window, 0, &frame), UDA_SUCCESS);
	ASSERT_EQ(frame.damage_count, 1u) << "the first rect is wholly above the surface";
	EXPECT_EQ(frame.damage[0].x, 0);
	EXPECT_EQ(frame.damage[0].y, static_cast<int32_t>(kHeight - 4));
	EXPECT_EQ(frame.damage[0].width, static_cast<int32_t>(kWidth));
	EXPECT_EQ(frame.damage[0].height, 4);
	ASSERT_EQ(uda_surface_release(window, frame.buffer_id), UDA_SUCCESS);
	EXPECT_EQ(eglGetCurrentSurface(EGL_DRAW), surface);
	draw_frame(3, kWidth, kHeight);
	ASSERT_TRUE(eglSwapBuffers(display, surface)) << std::hex << eglGetError();
	expect_frame(3, kWidth, kHeight);
	release_and_destroy(surface);
}

// A damage-tracking client redraws what EGL_BUFFER_AGE_EXT says is stale:
// the first buffer of a new size holds nothing it drew, on either path.
TEST_F(EglPlatform, BufferAgeStartsOverAfterAResize)
{
	create_window();
	EGLSurface surface = current_window_surface();
	ASSERT_NE(surface, EGL_NO_SURFACE);
	EGLint age = -1;
	// A consumer that gives frames back at once: drawn buffers come back.
	for (uint32_t frame = 1; frame <= 2; frame++) {
		draw_frame(frame, kWidth, kHeight);
		ASSERT_TRUE(eglSwapBuffers(display, surface)) << std::hex << eglGetError();
		uda_surface_frame shown = {};
		ASSERT_EQ(uda_surface_acquire(window, 0, &shown), UDA_SUCCESS);
		ASSERT_EQ(uda_surface_release(window, shown.buffer_id), UDA_SUCCESS);
	}
	draw_frame(3, kWidth, kHeight);
	ASSERT_TRUE(eglSwapBuffers(display, surface)) << std::hex << eglGetError();
	ASSERT_TRUE(eglQuerySurface(display, surface, EGL_BUFFER_AGE_EXT, &age));
	EXPECT_GT(age, 0) << "frames were drawn at this size";

	ASSERT_EQ(uda_surface_resize(window, kWidth + 16, kHeight + 8), UDA_SUCCESS);
	draw_frame(4, kWidth, kHeight);
	ASSERT_TRUE(eglSwapBuffers(display, surface)); // the next buffer is the new size
	ASSERT_TRUE(eglQuerySurface(display, surface, EGL_BUFFER_AGE_EXT, &age));
	EXPECT_EQ(age, 0);
	expect_frame(3, kWidth, kHeight);
	expect_frame(4, kWidth, kHeight);
	release_and_destroy(surface);
}

// EGL: a failed eglMakeCurrent changes nothing. The window stays current
// and keeps rendering where it did, and the application's own uda GL calls
// on the thread (imports, which switch contexts and back) still work.
TEST_F(EglPlatform, AFailedMakeCurrentChangesNothing)
{
	create_window();
	EGLSurface surface = current_window_surface();
	ASSERT_NE(surface, EGL_NO_SURFACE);
	draw_frame(1, kWidth, kHeight);
	ASSERT_TRUE(eglSwapBuffers(display, surface));

	uint64_t not_a_context[4] = {};
	EXPECT_FALSE(eglMakeCurrent(display, surface, surface, reinterpret_cast<EGLContext>(not_a_context)));
	EXPECT_EQ(eglGetError(), EGL_BAD_CONTEXT);
	EXPECT_EQ(eglGetCurrentContext(), context);
	EXPECT_EQ(eglGetCurrentSurface(EGL_DRAW), surface);
	draw_frame(2, kWidth, kHeight);
	ASSERT_TRUE(eglSwapBuffers(display, surface)) << std::hex << eglGetError();
	// The consumer's imports run on this thread while the window is
	// current (its reads then leave no context current).
	expect_frame(1, kWidth, kHeight);
	expect_frame(2, kWidth, kHeight);
	ASSERT_TRUE(eglMakeCurrent(display, surface, surface, context));
	draw_frame(3, kWidth, kHeight);
	ASSERT_TRUE(eglSwapBuffers(display, surface)) << std::hex << eglGetError();
	expect_frame(3, kWidth, kHeight);
	release_and_destroy(surface);
}

// eglTerminate with a window still current: the context is released
// afterwards with the all-EGL_NO_* eglMakeCurrent that EGL allows on a
// terminated display, and the display initializes again.
TEST_F(EglPlatform, TerminateWithAWindowStillCurrent)
{
	create_window();
	EGLSurface surface = current_window_surface();
	ASSERT_NE(surface, EGL_NO_SURFACE);
	draw_frame(1, kWidth, kHeight);
	ASSERT_TRUE(eglSwapBuffers(display, surface));
	draw_frame(2, kWidth, kHeight);
	ASSERT_TRUE(eglTerminate(display));
	EXPECT_FALSE(eglMakeCurrent(display, surface, surface, context));
	EXPECT_EQ(eglGetError(), EGL_NOT_INITIALIZED);
	EXPECT_TRUE(eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT)) << std::hex << eglGetError();
	EXPECT_EQ(eglGetCurrentContext(), EGL_NO_CONTEXT);
	expect_frame(1, kWidth, kHeight);

	EGLint major = 0, minor = 0;
	ASSERT_TRUE(eglInitialize(display, &major, &minor));
	surface = eglCreatePlatformWindowSurface(display, config, window, nullptr);
	ASSERT_NE(surface, EGL_NO_SURFACE) << "the uda_surface is free again" << std::hex << eglGetError();
	ASSERT_TRUE(eglMakeCurrent(display, surface, surface, context));
	draw_frame(3, kWidth, kHeight);
	ASSERT_TRUE(eglSwapBuffers(display, surface)) << std::hex << eglGetError();
	expect_frame(3, kWidth, kHeight);
	release_and_destroy(surface);
}

// Memory mappings of memfds: on lavapipe/llvmpipe every allocation and
// every GL import of one maps it, which makes live imports countable.
int memfd_mapping_count()
{
	FILE *maps = std::fopen("/proc/self/maps", "r");
	if (!maps)
		return -1;
	char line[512];
	int count = 0;
	while (std::fgets(line, sizeof(line), maps))
		count += std::strstr(line, "/memfd:") != nullptr;
	std::fclose(maps);
	return count;
}

// Resizing back and forth leaves no imports of retired buffers behind
// (each would keep its buffer's memory alive).
TEST_F(EglPlatform, ResizesLeaveNoImportsOfRetiredBuffersBehind)
{
	create_window();
	EGLSurface surface = current_window_surface();
	ASSERT_NE(surface, EGL_NO_SURFACE);
	auto cycle = [&](uint32_t frames, uint32_t width, uint32_t height) {
		for (uint32_t frame = 0; frame < frames; frame++) {
			draw_frame(frame + 1, width, height);
			ASSERT_TRUE(eglSwapBuffers(display, surface)) << std::hex << eglGetError();
			uda_surface_frame shown = {};
			ASSERT_EQ(uda_surface_acquire(window, 0, &shown), UDA_SUCCESS);
			ASSERT_EQ(uda_surface_release(window, shown.buffer_id), UDA_SUCCESS);
		}
	};
	cycle(8, kWidth, kHeight);
	const int steady = memfd_mapping_count();
	for (uint32_t round = 0; round < 6; round++) {
		const uint32_t width = kWidth + 8 * (round % 2 + 1), height = kHeight + 4 * (round % 2 + 1);
		ASSERT_EQ(uda_surface_resize(window, width, height), UDA_SUCCESS);
		cycle(1, kWidth, kHeight);
		cycle(8, width, height);
	}
	ASSERT_EQ(uda_surface_resize(window, kWidth, kHeight), UDA_SUCCESS);
	cycle(1, kWidth, kHeight);
	cycle(8, kWidth, kHeight);
	EXPECT_LE(memfd_mapping_count(), steady) << "back at the first size, with as many buffers";
	release_and_destroy(surface);
}

// EGL defers the deletion of a surface current on some thread until no
// thread has it current: the renderer keeps drawing, the handle is no
// longer valid, and the uda_surface is taken until the renderer lets go.
TEST_F(EglPlatform, DestroyingASurfaceCurrentElsewhereWaitsForThatThread)
{
	create_window();
	EGLSurface surface = eglCreatePlatformWindowSurface(display, config, window, nullptr);
	ASSERT_NE(surface, EGL_NO_SURFACE);
	std::atomic<int> step{0};
	auto wait_for = [&](int value) {
		while (step.load() < value)
			std::this_thread::sleep_for(std::chrono::milliseconds(1));
	};
	std::thread renderer([&] {
		eglBindAPI(EGL_OPENGL_ES_API);
		EXPECT_TRUE(eglMakeCurrent(display, surface, surface, context)) << std::hex << eglGetError();
		draw_frame(1, kWidth, kHeight);
		EXPECT_TRUE(eglSwapBuffers(display, surface)) << std::hex << eglGetError();
		step = 1;
		wait_for(2);
		draw_frame(2, kWidth, kHeight);
		EXPECT_FALSE(eglSwapBuffers(display, surface));
		EXPECT_EQ(eglGetError(), EGL_BAD_SURFACE);
		EXPECT_EQ(eglGetCurrentContext(), context);
		wait_for(3);
		EXPECT_TRUE(eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT));
		eglReleaseThread();
	});
	wait_for(1);
	EXPECT_TRUE(eglDestroySurface(display, surface));
	EXPECT_FALSE(eglDestroySurface(display, surface)) << "the handle is gone";
	EXPECT_EQ(eglGetError(), EGL_BAD_SURFACE);
	step = 2;
	// Still current on the renderer: its uda_surface has an EGLSurface.
	EXPECT_EQ(eglCreatePlatformWindowSurface(display, config, window, nullptr), EGL_NO_SURFACE);
	EXPECT_EQ(eglGetError(), EGL_BAD_ALLOC);
	step = 3;
	renderer.join();

	EGLSurface again = eglCreatePlatformWindowSurface(display, config, window, nullptr);
	ASSERT_NE(again, EGL_NO_SURFACE) << "free once the renderer let go: 0x" << std::hex << eglGetError();
	ASSERT_TRUE(eglMakeCurrent(display, again, again, context));
	draw_frame(3, kWidth, kHeight);
	ASSERT_TRUE(eglSwapBuffers(display, again)) << std::hex << eglGetError();
	expect_frame(1, kWidth, kHeight);
	expect_frame(3, kWidth, kHeight);
	eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	EXPECT_TRUE(eglDestroySurface(display, again));
}

// A window destroyed while current stays current: a uda call that
// switches contexts on the thread (a GL import) puts it back, and
// switching to another context afterwards lands there.
TEST_F(EglPlatform, AWindowDestroyedWhileCurrentStaysCurrent)
{
	create_window();
	EGLSurface surface = current_window_surface();
	ASSERT_NE(surface, EGL_NO_SURFACE);
	draw_frame(1, kWidth, kHeight);
	ASSERT_TRUE(eglSwapBuffers(display, surface));
	ASSERT_TRUE(eglDestroySurface(display, surface));
	{
		AllocationPtr image = allocate_image();
		AllocationPtr in_gl = import_through_fd(ctx.get(), gl, image.get(), UDA_HANDLE_TYPE_OPAQUE_FD);
		EXPECT_TRUE(in_gl);
	}
	EXPECT_EQ(eglGetCurrentContext(), context) << "the application's context was lost";
	EXPECT_EQ(eglGetCurrentSurface(EGL_DRAW), surface);
	EXPECT_FALSE(eglSwapBuffers(display, surface));
	EXPECT_EQ(eglGetError(), EGL_BAD_SURFACE);

	const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
	EGLContext other = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
	ASSERT_NE(other, EGL_NO_CONTEXT);
	EXPECT_TRUE(eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, other)) << std::hex << eglGetError();
	EXPECT_EQ(eglGetCurrentContext(), other);
	// Gone now: the uda_surface takes another window.
	EGLSurface again = eglCreatePlatformWindowSurface(display, config, window, nullptr);
	EXPECT_NE(again, EGL_NO_SURFACE) << std::hex << eglGetError();
	eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	EXPECT_TRUE(eglDestroyContext(display, other));
	if (again != EGL_NO_SURFACE) {
		EXPECT_TRUE(eglDestroySurface(display, again));
	}
}

// A thread that goes away from a destroyed current window by
// eglReleaseThread, or by releasing on another display, does not keep it.
TEST_F(EglPlatform, AWindowDestroyedWhileCurrentGoesWithTheThreadsRelease)
{
	create_window();
	EGLSurface surface = current_window_surface();
	ASSERT_NE(surface, EGL_NO_SURFACE);
	ASSERT_TRUE(eglDestroySurface(display, surface));
	EXPECT_EQ(eglCreatePlatformWindowSurface(display, config, window, nullptr), EGL_NO_SURFACE) << "still current";
	EXPECT_EQ(eglGetError(), EGL_BAD_ALLOC);
	ASSERT_TRUE(eglReleaseThread());
	surface = current_window_surface();
	ASSERT_NE(surface, EGL_NO_SURFACE) << "freed by eglReleaseThread";

	// Released through another display, then destroyed.
	uda_gl_device_native device_native = {};
	device_native.type = UDA_STRUCTURE_TYPE_GL_DEVICE_NATIVE;
	ASSERT_EQ(uda_device_get_native(gl, &device_native), UDA_SUCCESS);
	ASSERT_TRUE(eglMakeCurrent(static_cast<EGLDisplay>(device_native.egl_display), EGL_NO_SURFACE, EGL_NO_SURFACE,
	                           EGL_NO_CONTEXT));
	ASSERT_TRUE(eglDestroySurface(display, surface));
	surface = eglCreatePlatformWindowSurface(display, config, window, nullptr);
	ASSERT_NE(surface, EGL_NO_SURFACE) << "freed at eglDestroySurface: 0x" << std::hex << eglGetError();
	EXPECT_TRUE(eglDestroySurface(display, surface));
}

// The same while the renderer streams frames: wherever the destroy lands
// (usually inside a swap), the renderer's swaps end with EGL_BAD_SURFACE
// and nothing is used after it is freed (this is a stress for the
// sanitizer builds; the test above pins the behaviour down).
TEST_F(EglPlatform, DestroyingASurfaceMidSwapOnAnotherThreadIsSafe)
{
	create_window();
	EGLSurface surface = eglCreatePlatformWindowSurface(display, config, window, nullptr);
	ASSERT_NE(surface, EGL_NO_SURFACE);
	std::atomic<int> frames{0};
	std::thread renderer([&] {
		eglBindAPI(EGL_OPENGL_ES_API);
		EXPECT_TRUE(eglMakeCurrent(display, surface, surface, context));
		EXPECT_TRUE(eglSwapInterval(display, 0)); // never waits for a consumer
		for (uint32_t frame = 1; frame <= 400; frame++) {
			draw_frame(frame, kWidth, kHeight);
			if (!eglSwapBuffers(display, surface)) {
				EXPECT_EQ(eglGetError(), EGL_BAD_SURFACE);
				break;
			}
			frames = static_cast<int>(frame);
		}
		EXPECT_TRUE(eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT));
		eglReleaseThread();
	});
	while (frames.load() < 3)
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	EXPECT_TRUE(eglDestroySurface(display, surface));
	renderer.join();
	EXPECT_LT(frames.load(), 400) << "the swaps stopped once the handle was gone";
}

TEST_F(EglPlatform, PixmapSurfaceRendersIntoAVulkanAllocation)
{
	AllocationPtr allocation = allocate_image();
	ASSERT_TRUE(allocation);
	uda_device *owner = nullptr;
	ASSERT_EQ(uda_allocation_get_device(allocation.get(), &owner), UDA_SUCCESS);
	EXPECT_EQ(owner, vulkan);
	EGLSurface pixmap = eglCreatePlatformPixmapSurface(display, config, allocation.get(), nullptr);
	ASSERT_NE(pixmap, EGL_NO_SURFACE) << std::hex << eglGetError();
	ASSERT_TRUE(eglMakeCurrent(display, pixmap, pixmap, context)) << std::hex << eglGetError();
	draw_frame(7, kWidth, kHeight);
	ASSERT_TRUE(eglWaitClient()); // EGL: pixmap rendering is complete now
	uda_vulkan_native native = {};
	native.type = UDA_STRUCTURE_TYPE_VULKAN_NATIVE;
	ASSERT_EQ(uda_allocation_get_native(allocation.get(), &native), UDA_SUCCESS);
	EXPECT_EQ(wrong_pixels(vulkan_read_pixels(native, native.image, kWidth, kHeight), 7, kWidth, kHeight), 0u);
	ASSERT_TRUE(eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT));
	EXPECT_TRUE(eglDestroySurface(display, pixmap));
}

TEST_F(EglPlatform, ImageOfAVulkanAllocationSamplesItsPixels)
{
	AllocationPtr allocation = allocate_image();
	ASSERT_TRUE(allocation);
	uda_vulkan_native native = {};
	native.type = UDA_STRUCTURE_TYPE_VULKAN_NATIVE;
	ASSERT_EQ(uda_allocation_get_native(allocation.get(), &native), UDA_SUCCESS);
	vulkan_upload_pattern(native, native.image, kWidth, kHeight);

	EGLImage image = eglCreateImage(display, EGL_NO_CONTEXT, EGL_UDA_ALLOCATION, allocation.get(), nullptr);
	if (image == EGL_NO_IMAGE) {
		// A driver that makes no EGLImage of imported memory (NVIDIA's)
		// needs a DMA-BUF of the allocation; without one, EGL_BAD_MATCH.
		const EGLint error = eglGetError();
		int fd = -1;
		const bool dma_buf = uda_allocation_export(allocation.get(), UDA_HANDLE_TYPE_DMA_BUF, &fd) == UDA_SUCCESS;
		if (fd >= 0)
			close(fd);
		ASSERT_FALSE(dma_buf) << "no image of an allocation with a DMA-BUF: 0x" << std::hex << error;
		ASSERT_EQ(error, EGL_BAD_MATCH);
		GTEST_SKIP() << "this driver makes no EGLImage of imported memory, and the allocation has no DMA-BUF";
	}
	ASSERT_TRUE(eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context));
	auto target_texture =
		reinterpret_cast<PFNGLEGLIMAGETARGETTEXTURE2DOESPROC>(eglGetProcAddress("glEGLImageTargetTexture2DOES"));
	ASSERT_NE(target_texture, nullptr);
	GLuint texture = 0, fbo = 0;
	glGenTextures(1, &texture);
	glBindTexture(GL_TEXTURE_2D, texture);
	target_texture(GL_TEXTURE_2D, image);
	glGenFramebuffers(1, &fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
	ASSERT_EQ(glCheckFramebufferStatus(GL_FRAMEBUFFER), static_cast<GLenum>(GL_FRAMEBUFFER_COMPLETE));
	std::vector<uint32_t> pixels(kWidth * kHeight);
	glReadPixels(0, 0, kWidth, kHeight, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
	EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
	size_t wrong = 0;
	for (uint32_t y = 0; y < kHeight; y++)
		for (uint32_t x = 0; x < kWidth; x++)
			wrong += pixels[y * kWidth + x] != pattern(x, y);
	EXPECT_EQ(wrong, 0u);
	glDeleteFramebuffers(1, &fbo);
	glDeleteTextures(1, &texture);
	EXPECT_TRUE(eglDestroyImage(display, image));
	// The KHR entry points reach the same hooks.
	auto create_khr = reinterpret_cast<PFNEGLCREATEIMAGEKHRPROC>(eglGetProcAddress("eglCreateImageKHR"));
	auto destroy_khr = reinterpret_cast<PFNEGLDESTROYIMAGEKHRPROC>(eglGetProcAddress("eglDestroyImageKHR"));
	ASSERT_TRUE(create_khr && destroy_khr);
	EGLImageKHR again = create_khr(display, EGL_NO_CONTEXT, EGL_UDA_ALLOCATION, allocation.get(), nullptr);
	ASSERT_NE(again, EGL_NO_IMAGE_KHR);
	EXPECT_TRUE(destroy_khr(display, again));
}

// An error from a call that goes straight to the driver (no display
// argument, nothing for a platform to do) reaches eglGetError even right
// after a call the platform answered.
TEST_F(EglPlatform, DriverErrorsAfterPlatformCallsAreNotHidden)
{
	create_window();
	EGLSurface surface = eglCreatePlatformWindowSurface(display, config, window, nullptr);
	ASSERT_NE(surface, EGL_NO_SURFACE);
	EGLint width = 0;
	ASSERT_TRUE(eglQuerySurface(display, surface, EGL_WIDTH, &width));
	EXPECT_FALSE(eglBindAPI(0x1234));
	EXPECT_EQ(eglGetError(), EGL_BAD_PARAMETER);
	EXPECT_EQ(eglGetError(), EGL_SUCCESS);
	EXPECT_TRUE(eglBindAPI(EGL_OPENGL_ES_API));
	EXPECT_TRUE(eglDestroySurface(display, surface));
}

TEST_F(EglPlatform, BadInputGivesEglErrorsNotCrashes)
{
	// As many attribute pairs as eglChooseConfig takes, none of them the
	// surface type the platform adds: no overrun of its own list.
	std::vector<EGLint> many;
	for (int i = 0; i < 128; i++) {
		many.push_back(EGL_RED_SIZE);
		many.push_back(8);
	}
	many.push_back(EGL_NONE);
	EGLConfig some = nullptr;
	EGLint found = 0;
	EXPECT_TRUE(eglChooseConfig(display, many.data(), &some, 1, &found)) << std::hex << eglGetError();
	EXPECT_EQ(found, 1);
	many.insert(many.end() - 1, {EGL_GREEN_SIZE, 8});
	EXPECT_FALSE(eglChooseConfig(display, many.data(), &some, 1, &found));
	EXPECT_EQ(eglGetError(), EGL_BAD_ATTRIBUTE);

	EXPECT_EQ(eglGetPlatformDisplay(EGL_PLATFORM_UDA, nullptr, nullptr), EGL_NO_DISPLAY);
	EXPECT_EQ(eglGetError(), EGL_BAD_PARAMETER);
	const EGLAttrib display_attribs[] = {EGL_DEVICE_EXT, 0, EGL_NONE};
	EXPECT_EQ(eglGetPlatformDisplay(EGL_PLATFORM_UDA, gl, display_attribs), EGL_NO_DISPLAY);
	EXPECT_EQ(eglGetError(), EGL_BAD_ATTRIBUTE);

	int not_a_window = 0;
	EXPECT_EQ(eglCreatePlatformWindowSurface(display, config, nullptr, nullptr), EGL_NO_SURFACE);
	EXPECT_EQ(eglGetError(), EGL_BAD_NATIVE_WINDOW);
	EXPECT_EQ(eglCreatePlatformWindowSurface(display, config, &not_a_window, nullptr), EGL_NO_SURFACE);
	EXPECT_EQ(eglGetError(), EGL_BAD_NATIVE_WINDOW);
	EXPECT_EQ(eglCreatePlatformPixmapSurface(display, config, &not_a_window, nullptr), EGL_NO_SURFACE);
	EXPECT_EQ(eglGetError(), EGL_BAD_NATIVE_PIXMAP);
	EXPECT_EQ(eglCreateImage(display, EGL_NO_CONTEXT, EGL_UDA_ALLOCATION, &not_a_window, nullptr), EGL_NO_IMAGE);
	EXPECT_EQ(eglGetError(), EGL_BAD_PARAMETER);

	// A format the config does not render.
	create_window(kWidth, kHeight, DRM_FORMAT_RGB565);
	EXPECT_EQ(eglCreatePlatformWindowSurface(display, config, window, nullptr), EGL_NO_SURFACE);
	EXPECT_EQ(eglGetError(), EGL_BAD_MATCH);
	uda_surface_destroy(window);
	window = nullptr;

	// A queue negotiated without the display's device.
	const uda_usage_atom cpu[1] = {cpu_atom(UDA_USAGE_CPU_READ)};
	const uda_usage cpu_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, cpu};
	uda_device_usage system_only = {system, &cpu_usage};
	uda_surface_create_info info = {};
	info.type = UDA_STRUCTURE_TYPE_SURFACE_CREATE_INFO;
	info.width = kWidth;
	info.height = kHeight;
	info.format = DRM_FORMAT_ABGR8888;
	info.device_count = 1;
	info.devices = &system_only;
	uda_surface *foreign = nullptr;
	ASSERT_EQ(uda_surface_create(ctx.get(), &info, &foreign), UDA_SUCCESS);
	EXPECT_EQ(eglCreatePlatformWindowSurface(display, config, foreign, nullptr), EGL_NO_SURFACE);
	EXPECT_EQ(eglGetError(), EGL_BAD_MATCH);
	uda_surface_destroy(foreign);

	create_window();
	const EGLAttrib bad_attribs[] = {EGL_WIDTH, 10, EGL_NONE};
	EXPECT_EQ(eglCreatePlatformWindowSurface(display, config, window, bad_attribs), EGL_NO_SURFACE);
	EXPECT_EQ(eglGetError(), EGL_BAD_ATTRIBUTE);
	EGLSurface surface = eglCreatePlatformWindowSurface(display, config, window, nullptr);
	ASSERT_NE(surface, EGL_NO_SURFACE);
	// One EGLSurface per native window.
	EXPECT_EQ(eglCreatePlatformWindowSurface(display, config, window, nullptr), EGL_NO_SURFACE);
	EXPECT_EQ(eglGetError(), EGL_BAD_ALLOC);

	// Swapping a surface that is not current.
	EXPECT_FALSE(eglSwapBuffers(display, surface));
	EXPECT_EQ(eglGetError(), EGL_BAD_SURFACE);

	// The native window destroyed under a live EGLSurface.
	ASSERT_TRUE(eglMakeCurrent(display, surface, surface, context));
	draw_frame(1, kWidth, kHeight);
	ASSERT_TRUE(eglSwapBuffers(display, surface));
	uda_surface_destroy(window);
	window = nullptr;
	draw_frame(2, kWidth, kHeight);
	EXPECT_FALSE(eglSwapBuffers(display, surface));
	EXPECT_EQ(eglGetError(), EGL_BAD_NATIVE_WINDOW);
	ASSERT_TRUE(eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT));
	EXPECT_FALSE(eglMakeCurrent(display, surface, surface, context));
	EXPECT_EQ(eglGetError(), EGL_BAD_NATIVE_WINDOW);
	EXPECT_TRUE(eglDestroySurface(display, surface));

	// Images take no context and only their own attributes.
	AllocationPtr allocation = allocate_image();
	ASSERT_TRUE(allocation);
	EXPECT_EQ(eglCreateImage(display, context, EGL_UDA_ALLOCATION, allocation.get(), nullptr), EGL_NO_IMAGE);
	EXPECT_EQ(eglGetError(), EGL_BAD_CONTEXT);
	const EGLAttrib image_attribs[] = {EGL_WIDTH, 1, EGL_NONE};
	EXPECT_EQ(eglCreateImage(display, EGL_NO_CONTEXT, EGL_UDA_ALLOCATION, allocation.get(), image_attribs),
	          EGL_NO_IMAGE);
	EXPECT_EQ(eglGetError(), EGL_BAD_PARAMETER);
	// Not a display at all.
	EXPECT_FALSE(eglInitialize(reinterpret_cast<EGLDisplay>(&not_a_window), nullptr, nullptr));
	EXPECT_EQ(eglGetError(), EGL_BAD_DISPLAY);
}

} // namespace
