// Wayland EGL clients on uda's platform (the Wayland module through the
// host, UDA_EGL_WAYLAND=1), against a real Weston started per test:
// pixels on screen, damage, resizes, buffer age, swap intervals, several
// windows, and a compositor that stalls or dies.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <unistd.h>
#include <thread>

#include "backend_env.hpp"
#include "fd_count.hpp"
#include "wayland_client.hpp"
#include "weston_fixture.hpp"

using namespace uda_test;

namespace
{

struct Quadrants {
	Rgb top_left, top_right, bottom_left, bottom_right;
};

// Colours no part of Weston's desktop has, so a window is found by them.
const Quadrants first_picture = {{250, 20, 140}, {20, 240, 130}, {30, 60, 250}, {240, 230, 10}};
const Quadrants second_picture = {{10, 200, 250}, {200, 90, 20}, {120, 250, 60}, {250, 120, 230}};

void clear_rect(int x, int y, int width, int height, Rgb colour)
{
	glScissor(x, y, width, height);
	glClearColor(colour.r / 255.0f, colour.g / 255.0f, colour.b / 255.0f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
}

// GL counts rows from the bottom: the top half is y >= height / 2.
void draw(const Quadrants &q, int width, int height)
{
	glEnable(GL_SCISSOR_TEST);
	const int half_w = width / 2, half_h = height / 2;
	clear_rect(0, half_h, half_w, height - half_h, q.top_left);
	clear_rect(half_w, half_h, width - half_w, height - half_h, q.top_right);
	clear_rect(0, 0, half_w, half_h, q.bottom_left);
	clear_rect(half_w, 0, width - half_w, half_h, q.bottom_right);
	glDisable(GL_SCISSOR_TEST);
}

Rgb expected_at(const Quadrants &q, int x, int y, int width, int height)
{
	const bool left = x < width / 2, top = y < height - height / 2;
	return top ? (left ? q.top_left : q.top_right) : (left ? q.bottom_left : q.bottom_right);
}

Rgb pixel(const Screenshot &shot, unsigned x, unsigned y)
{
	const unsigned char *p = shot.at(x, y);
	return {p[0], p[1], p[2]};
}

// Where the window's top-left pixel is: the first pixel of its top-left
// colour, scanning rows from the top.
bool find_window(const Screenshot &shot, Rgb top_left, unsigned &x0, unsigned &y0)
{
	for (unsigned y = 0; y < shot.height; y++) {
		for (unsigned x = 0; x < shot.width; x++) {
			if (pixel(shot, x, y) == top_left) {
				x0 = x;
				y0 = y;
				return true;
			}
		}
	}
	return false;
}

// Every pixel of a width x height window showing `q` (the whole window
// must be on the output), with the first difference named.
::testing::AssertionResult shows(const Screenshot &shot, const Quadrants &q, int width, int height)
{
	unsigned x0 = 0, y0 = 0;
	if (!find_window(shot, q.top_left, x0, y0))
		return ::testing::AssertionFailure() << "no pixel of the window's top-left colour on screen";
	if (x0 + width > shot.width || y0 + height > shot.height)
		return ::testing::AssertionFailure() << "the window at " << x0 << "," << y0 << " is not all on screen";
	unsigned long wrong = 0;
	std::string first;
	for (int y = 0; y < height; y++) {
		for (int x = 0; x < width; x++) {
			Rgb want = expected_at(q, x, y, width, height), got = pixel(shot, x0 + x, y0 + y);
			if (!(want == got) && wrong++ == 0)
				first = "at " + std::to_string(x) + "," + std::to_string(y) + ": " + std::to_string(got.r) + " " +
				        std::to_string(got.g) + " " + std::to_string(got.b) + ", expected " +
				        std::to_string(want.r) + " " + std::to_string(want.g) + " " + std::to_string(want.b);
		}
	}
	if (wrong)
		return ::testing::AssertionFailure() << wrong << " of " << width * height << " pixels wrong, first " << first;
	// One pixel past each edge is not the window's any more.
	if ((x0 + width < shot.width && pixel(shot, x0 + width, y0) == q.top_right) ||
	    (y0 + height < shot.height && pixel(shot, x0, y0 + height) == q.bottom_left))
		return ::testing::AssertionFailure() << "the window is larger than " << width << "x" << height;
	return ::testing::AssertionSuccess();
}

// uda's Wayland platform for the EGL displays this process makes.
void use_udas_wayland_platform()
{
	use_build_tree_backends();
	// tests/hardware/nvidia.sh names the manifest of a tree built
	// elsewhere; NVIDIA's libEGL reads the __-prefixed name.
	const char *moved = std::getenv("UDA_TEST_EGL_WAYLAND_PLATFORM_MANIFEST");
	const char *manifest = moved ? moved : UDA_TEST_EGL_WAYLAND_PLATFORM_MANIFEST;
	setenv("EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES", manifest, 1);
	setenv("__EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES", manifest, 1);
	setenv("UDA_EGL_WAYLAND", "1", 1);
}

::testing::AssertionResult is_udas(const WaylandClient &client)
{
	if (!client.ok())
		return ::testing::AssertionFailure() << "no EGL on the Wayland display: 0x" << std::hex << eglGetError();
	// Only uda's platform has this extension; Mesa's does not.
	const char *extensions = eglQueryString(client.egl(), EGL_EXTENSIONS);
	if (!extensions || !std::strstr(extensions, "EGL_UDA_image_allocation"))
		return ::testing::AssertionFailure() << "the display is not uda's";
	return ::testing::AssertionSuccess();
}

class WaylandClientTest : public ::testing::TestWithParam<WestonRenderer>
{
      protected:
	void SetUp() override
	{
		use_udas_wayland_platform();
		ASSERT_TRUE(weston.start(GetParam())) << "Weston did not start:\n" << weston.log();
		client = std::make_unique<WaylandClient>(weston.socket());
		ASSERT_TRUE(is_udas(*client));
	}

	void TearDown() override
	{
		client.reset();
		weston.stop();
	}

	// A few frames of the picture, so the compositor has repainted with
	// the last one (swap interval 1 paces them).
	void show(WaylandWindow &window, const Quadrants &q, int width, int height, int frames = 3)
	{
		ASSERT_TRUE(client->make_current(window)) << std::hex << eglGetError();
		for (int i = 0; i < frames; i++) {
			glViewport(0, 0, width, height);
			draw(q, width, height);
			ASSERT_TRUE(eglSwapBuffers(client->egl(), window.egl_surface())) << std::hex << eglGetError();
		}
	}

	Screenshot screenshot()
	{
		Screenshot shot;
		EXPECT_TRUE(weston.screenshot(shot)) << "weston-screenshooter failed";
		return shot;
	}

	Weston weston;
	std::unique_ptr<WaylandClient> client;
};

TEST_P(WaylandClientTest, FramesReachTheScreenPixelForPixel)
{
	WaylandWindow window(*client, 160, 120);
	ASSERT_TRUE(window.ok()) << std::hex << eglGetError();
	show(window, first_picture, 160, 120);
	EXPECT_TRUE(shows(screenshot(), first_picture, 160, 120));
	show(window, second_picture, 160, 120);
	EXPECT_TRUE(shows(screenshot(), second_picture, 160, 120));
}

TEST_P(WaylandClientTest, TwoWindowsAtOnce)
{
	WaylandWindow a(*client, 100, 80), b(*client, 120, 60);
	ASSERT_TRUE(a.ok() && b.ok()) << std::hex << eglGetError();
	show(a, first_picture, 100, 80);
	show(b, second_picture, 120, 60);
	Screenshot shot = screenshot();
	EXPECT_TRUE(shows(shot, first_picture, 100, 80));
	EXPECT_TRUE(shows(shot, second_picture, 120, 60));
}

// Two windows rendered on two threads at once (a toolkit's render thread
// per window): each window's events are dispatched on its own queue, so
// neither thread runs the other window's release, frame or feedback
// handlers while that window is using them.
TEST_P(WaylandClientTest, TwoWindowsSwapOnTwoThreadsAtOnce)
{
	WaylandWindow a(*client, 100, 80), b(*client, 120, 60);
	ASSERT_TRUE(a.ok() && b.ok()) << std::hex << eglGetError();
	const EGLint context_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
	const EGLContext second = eglCreateContext(client->egl(), client->config(), EGL_NO_CONTEXT, context_attribs);
	ASSERT_NE(second, EGL_NO_CONTEXT);
	std::atomic<int> failed_swaps{0};
	const auto render = [&](const WaylandWindow &window, EGLContext context, const Quadrants &q, int width,
	                        int height) {
		if (!eglMakeCurrent(client->egl(), window.egl_surface(), window.egl_surface(), context)) {
			failed_swaps += 1000;
			return;
		}
		eglSwapInterval(client->egl(), 0);
		for (int frame = 0; frame < 120; frame++) {
			glViewport(0, 0, width, height);
			draw(q, width, height);
			if (!eglSwapBuffers(client->egl(), window.egl_surface()))
				failed_swaps++;
		}
		// Paced again, so the last frame is on screen before the shot.
		eglSwapInterval(client->egl(), 1);
		for (int frame = 0; frame < 3; frame++) {
			draw(q, width, height);
			eglSwapBuffers(client->egl(), window.egl_surface());
		}
		eglMakeCurrent(client->egl(), EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	};
	std::thread first(render, std::cref(a), client->context(), std::cref(first_picture), 100, 80);
	std::thread other(render, std::cref(b), second, std::cref(second_picture), 120, 60);
	first.join();
	other.join();
	eglDestroyContext(client->egl(), second);
	EXPECT_EQ(failed_swaps.load(), 0);
	Screenshot shot = screenshot();
	EXPECT_TRUE(shows(shot, first_picture, 100, 80));
	EXPECT_TRUE(shows(shot, second_picture, 120, 60));
}

// eglSwapBuffersWithDamageKHR reaches the compositor as damage_buffer:
// the second frame changes every quadrant but damages only the top-left
// one, and Weston (which takes only damaged wl_shm pixels into its
// texture) shows the new top-left beside the old rest.
TEST_P(WaylandClientTest, SwapWithDamageSendsOnlyTheDamage)
{
	if (GetParam() != WestonRenderer::Gl)
		GTEST_SKIP() << "pixman reads the whole buffer at each repaint";
	auto swap_with_damage = reinterpret_cast<PFNEGLSWAPBUFFERSWITHDAMAGEKHRPROC>(
	        eglGetProcAddress("eglSwapBuffersWithDamageKHR"));
	ASSERT_NE(swap_with_damage, nullptr);
	WaylandWindow window(*client, 160, 120);
	ASSERT_TRUE(window.ok());
	show(window, first_picture, 160, 120);
	draw(second_picture, 160, 120);
	EGLint top_left[] = {0, 60, 80, 60}; /* x, y from the bottom, width, height */
	ASSERT_TRUE(swap_with_damage(client->egl(), window.egl_surface(), top_left, 1)) << std::hex << eglGetError();
	draw(second_picture, 160, 120);
	ASSERT_TRUE(swap_with_damage(client->egl(), window.egl_surface(), top_left, 1)) << std::hex << eglGetError();
	const Quadrants mixed = {second_picture.top_left, first_picture.top_right, first_picture.bottom_left,
	                         first_picture.bottom_right};
	EXPECT_TRUE(shows(screenshot(), mixed, 160, 120));
}

// wl_egl_window_resize before drawing: the frame drawn next has the new
// size, and wl_egl_window_get_attached_size follows what was attached.
TEST_P(WaylandClientTest, AResizeTakesEffectAtTheNextFrame)
{
	WaylandWindow window(*client, 160, 120);
	ASSERT_TRUE(window.ok());
	show(window, first_picture, 160, 120, 2);
	int width = 0, height = 0;
	wl_egl_window_get_attached_size(window.native(), &width, &height);
	EXPECT_EQ(width, 160);
	EXPECT_EQ(height, 120);

	wl_egl_window_resize(window.native(), 200, 90, 0, 0);
	EGLint surface_width = 0, surface_height = 0;
	eglQuerySurface(client->egl(), window.egl_surface(), EGL_WIDTH, &surface_width);
	eglQuerySurface(client->egl(), window.egl_surface(), EGL_HEIGHT, &surface_height);
	EXPECT_EQ(surface_width, 200);
	EXPECT_EQ(surface_height, 90);
	glViewport(0, 0, 200, 90);
	draw(second_picture, 200, 90);
	ASSERT_TRUE(eglSwapBuffers(client->egl(), window.egl_surface())) << std::hex << eglGetError();
	wl_egl_window_get_attached_size(window.native(), &width, &height);
	EXPECT_EQ(width, 200);
	EXPECT_EQ(height, 90);
	show(window, second_picture, 200, 90, 2);
	EXPECT_TRUE(shows(screenshot(), second_picture, 200, 90));
}

// EGL_BUFFER_AGE_EXT names the frame the buffer holds: what GL reads
// from framebuffer 0 before drawing is that frame's picture.
TEST_P(WaylandClientTest, BufferAgeNamesTheFrameTheBufferHolds)
{
	WaylandWindow window(*client, 64, 48);
	ASSERT_TRUE(window.ok());
	ASSERT_TRUE(client->make_current(window));
	eglSwapInterval(client->egl(), 0);
	const Rgb colours[] = {{10, 20, 30}, {40, 50, 60}, {70, 80, 90}, {100, 110, 120}, {130, 140, 150},
	                       {160, 170, 180}, {190, 200, 210}, {220, 230, 240}};
	int aged = 0;
	for (int frame = 0; frame < 8; frame++) {
		EGLint age = -1;
		ASSERT_TRUE(eglQuerySurface(client->egl(), window.egl_surface(), EGL_BUFFER_AGE_EXT, &age));
		ASSERT_GE(age, 0);
		ASSERT_LE(age, frame);
		if (age > 0) {
			unsigned char p[4] = {};
			glReadPixels(10, 10, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, p);
			const Rgb &held = colours[frame - age];
			EXPECT_EQ(Rgb({p[0], p[1], p[2]}), held) << "frame " << frame << ", age " << age;
			aged++;
		}
		glViewport(0, 0, 64, 48);
		clear_rect(0, 0, 64, 48, colours[frame]);
		ASSERT_TRUE(eglSwapBuffers(client->egl(), window.egl_surface()));
	}
	EXPECT_GT(aged, 0) << "no buffer came back with its content";
	// A resize: the next buffer holds nothing of this size.
	wl_egl_window_resize(window.native(), 80, 40, 0, 0);
	EGLint age = -1;
	ASSERT_TRUE(eglQuerySurface(client->egl(), window.egl_surface(), EGL_BUFFER_AGE_EXT, &age));
	EXPECT_EQ(age, 0);
}

TEST_P(WaylandClientTest, EglTerminateWithWindowsAlive)
{
	auto window = std::make_unique<WaylandWindow>(*client, 64, 64);
	ASSERT_TRUE(window->ok());
	show(*window, first_picture, 64, 64, 2);
	client->terminate();
	// The handle is gone with the display; the native window still works
	// for the application, and goes without a crash.
	EXPECT_FALSE(eglSwapBuffers(client->egl(), window->egl_surface()));
	window->release_egl_surface();
	window.reset();
}

// EGL lets eglTerminate come while a window is still current: the window
// lives on until it is released, and the compositor's answers to its last
// frames (releases, the frame callback) still come. They land on the
// window's own queue, which outlives the display's, and run nothing of a
// terminated display.
TEST_P(WaylandClientTest, EglTerminateWhileAWindowIsCurrent)
{
	auto window = std::make_unique<WaylandWindow>(*client, 64, 64);
	ASSERT_TRUE(window->ok());
	show(*window, first_picture, 64, 64, 2);
	ASSERT_TRUE(eglTerminate(client->egl()));
	// The compositor answers the frames meanwhile.
	for (int i = 0; i < 3; i++)
		ASSERT_GE(wl_display_roundtrip(client->display()), 0);
	EXPECT_FALSE(eglSwapBuffers(client->egl(), window->egl_surface()));
	// Released: the window and its queue go now.
	EXPECT_TRUE(eglMakeCurrent(client->egl(), EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT));
	ASSERT_GE(wl_display_roundtrip(client->display()), 0);
	window->release_egl_surface();
	window.reset();
	client->forget_egl();
}

TEST_P(WaylandClientTest, ADestroyedNativeWindowFailsTheSwap)
{
	WaylandWindow window(*client, 64, 64);
	ASSERT_TRUE(window.ok());
	show(window, first_picture, 64, 64, 1);
	window.destroy_native();
	EXPECT_FALSE(eglSwapBuffers(client->egl(), window.egl_surface()));
	EXPECT_EQ(eglGetError(), EGL_BAD_NATIVE_WINDOW);
	eglMakeCurrent(client->egl(), EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	EXPECT_TRUE(eglDestroySurface(client->egl(), window.release_egl_surface()));
}

TEST_P(WaylandClientTest, NativesThatAreNotWaylandsAreRefused)
{
	void *not_a_display[4] = {};
	EXPECT_EQ(eglGetPlatformDisplay(EGL_PLATFORM_WAYLAND_KHR, not_a_display, nullptr), EGL_NO_DISPLAY);
	EXPECT_EQ(eglGetError(), EGL_BAD_PARAMETER);
	struct {
		intptr_t version = 3;
		int width = 64, height = 64;
		void *rest[8] = {};
	} not_a_window;
	EXPECT_EQ(eglCreateWindowSurface(client->egl(), client->config(), (EGLNativeWindowType)&not_a_window, nullptr),
	          EGL_NO_SURFACE);
	EXPECT_EQ(eglGetError(), EGL_BAD_NATIVE_WINDOW);
	// One EGLSurface per wl_egl_window.
	WaylandWindow window(*client, 32, 32);
	ASSERT_TRUE(window.ok());
	EXPECT_EQ(eglCreateWindowSurface(client->egl(), client->config(), (EGLNativeWindowType)window.native(), nullptr),
	          EGL_NO_SURFACE);
	EXPECT_EQ(eglGetError(), EGL_BAD_ALLOC);
}

// The requests written to stderr while `run` ran by libwayland's request
// log, which WAYLAND_DEBUG=client at a wl_display_connect turns on for the
// whole process from then on (ctest runs each test in a process of its
// own): each request as it is sent.
std::string requests_sent_while(const std::function<void()> &run)
{
	char path[] = "/tmp/uda-wayland-debug-XXXXXX";
	const int file = mkstemp(path);
	if (file < 0)
		return "";
	fflush(stderr);
	const int saved = dup(STDERR_FILENO);
	dup2(file, STDERR_FILENO);
	run();
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	std::string text;
	char chunk[4096];
	lseek(file, 0, SEEK_SET);
	for (ssize_t n; (n = read(file, chunk, sizeof(chunk))) > 0;)
		text.append(chunk, static_cast<size_t>(n));
	close(file);
	unlink(path);
	return text;
}

size_t frame_requests(const std::string &requests)
{
	size_t count = 0;
	for (size_t at = requests.find(" -> wl_surface@"); at != std::string::npos;
	     at = requests.find(" -> wl_surface@", at + 1)) {
		const size_t end = requests.find('\n', at), dot = requests.find('.', at);
		count += dot < end && requests.compare(dot, 7, ".frame(") == 0;
	}
	return count;
}

// Swap interval 0 never waits for the compositor: no wl_surface.frame is
// asked for (the connection's own WAYLAND_DEBUG log of its requests says
// so; interval 1 asks for one a frame, the control), and with Weston
// stopped the frames still go out.
TEST_P(WaylandClientTest, SwapInterval0DoesNotWaitForTheCompositor)
{
	setenv("WAYLAND_DEBUG", "client", 1);
	WaylandClient logged(weston.socket());
	unsetenv("WAYLAND_DEBUG");
	ASSERT_TRUE(is_udas(logged));
	WaylandWindow window(logged, 64, 64);
	ASSERT_TRUE(window.ok());
	ASSERT_TRUE(logged.make_current(window));
	const std::string with_interval_1 = requests_sent_while([&] {
		for (int frame = 0; frame < 3; frame++) {
			draw(first_picture, 64, 64);
			EXPECT_TRUE(eglSwapBuffers(logged.egl(), window.egl_surface())) << std::hex << eglGetError();
		}
	});
	EXPECT_GE(frame_requests(with_interval_1), 2u) << with_interval_1;

	ASSERT_TRUE(eglSwapInterval(logged.egl(), 0));
	weston.pause();
	// Two frames: Weston's pixman renderer holds the buffer on screen,
	// and the last frame committed may be unread when it stops; with
	// these two, the platform's four wl_shm buffers are all out.
	const std::string with_interval_0 = requests_sent_while([&] {
		for (int frame = 0; frame < 2; frame++) {
			draw(first_picture, 64, 64);
			EXPECT_TRUE(eglSwapBuffers(logged.egl(), window.egl_surface())) << std::hex << eglGetError();
		}
	});
	weston.resume();
	EXPECT_NE(with_interval_0.find(".commit()"), std::string::npos) << "no frame went out:\n" << with_interval_0;
	EXPECT_EQ(frame_requests(with_interval_0), 0u) << with_interval_0;
}

// Swap interval 1 waits for the previous frame's wl_surface.frame: with
// Weston stopped, the second swap does not return until it answers.
TEST_P(WaylandClientTest, SwapInterval1WaitsForTheFrameCallback)
{
	WaylandWindow window(*client, 64, 64);
	ASSERT_TRUE(window.ok());
	ASSERT_TRUE(client->make_current(window));
	show(window, first_picture, 64, 64, 2);
	weston.pause();
	draw(first_picture, 64, 64);
	ASSERT_TRUE(eglSwapBuffers(client->egl(), window.egl_surface()));
	std::atomic<bool> done{false};
	EGLDisplay egl = client->egl();
	EGLSurface surface = window.egl_surface();
	EGLContext context = client->context();
	eglMakeCurrent(egl, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	std::thread swapper([&] {
		eglMakeCurrent(egl, surface, surface, context);
		draw(second_picture, 64, 64);
		eglSwapBuffers(egl, surface);
		done = true;
		eglMakeCurrent(egl, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	});
	std::this_thread::sleep_for(std::chrono::milliseconds(300));
	EXPECT_FALSE(done) << "the swap did not wait for the frame callback";
	weston.resume();
	swapper.join();
	EXPECT_TRUE(done);
}

// A compositor that stops releasing buffers (stopped here): with swap
// interval 0 the swaps go on while wl_shm buffers are free, then one
// waits, bounded, and fails instead of hanging the application.
TEST_P(WaylandClientTest, ACompositorThatHoldsEveryBufferFailsTheSwapInBoundedTime)
{
	WaylandWindow window(*client, 64, 64);
	ASSERT_TRUE(window.ok());
	ASSERT_TRUE(client->make_current(window));
	ASSERT_TRUE(eglSwapInterval(client->egl(), 0));
	show(window, first_picture, 64, 64, 1);
	weston.pause();
	bool failed = false;
	EGLint error = EGL_SUCCESS;
	for (int frame = 0; frame < 8 && !failed; frame++) {
		draw(second_picture, 64, 64);
		failed = !eglSwapBuffers(client->egl(), window.egl_surface());
		error = eglGetError();
	}
	weston.resume();
	EXPECT_TRUE(failed) << "eight swaps went out with the compositor stopped";
	EXPECT_EQ(error, EGL_BAD_ALLOC);
	// And the surface works again once the compositor does.
	draw(first_picture, 64, 64);
	EXPECT_TRUE(eglSwapBuffers(client->egl(), window.egl_surface())) << std::hex << eglGetError();
}

// Weston dies between frames: swaps fail with EGL errors, nothing hangs,
// and the surface and display still go cleanly.
TEST_P(WaylandClientTest, TheCompositorDiesMidStream)
{
	WaylandWindow window(*client, 64, 64);
	ASSERT_TRUE(window.ok());
	show(window, first_picture, 64, 64, 2);
	weston.kill();
	bool failed = false;
	for (int frame = 0; frame < 5 && !failed; frame++) {
		draw(second_picture, 64, 64);
		failed = !eglSwapBuffers(client->egl(), window.egl_surface());
	}
	EXPECT_TRUE(failed) << "swaps went on after the compositor died";
	EXPECT_EQ(eglGetError(), EGL_BAD_NATIVE_WINDOW);
}

// A whole client's life (connection, EGL display, windows, frames,
// resizes, teardown) a second time leaves no descriptor open: the first
// one loads what stays for the process (the platform's uda context and
// its drivers).
TEST_P(WaylandClientTest, ClientsLeaveNoDescriptorsBehind)
{
	auto life = [&] {
		auto other = std::make_unique<WaylandClient>(weston.socket());
		ASSERT_TRUE(other->ok());
		WaylandWindow a(*other, 64, 64), b(*other, 32, 48);
		ASSERT_TRUE(a.ok() && b.ok());
		ASSERT_TRUE(other->make_current(a));
		for (int frame = 0; frame < 4; frame++) {
			draw(first_picture, 64, 64);
			ASSERT_TRUE(eglSwapBuffers(other->egl(), a.egl_surface()));
		}
		wl_egl_window_resize(a.native(), 48, 40, 0, 0);
		draw(first_picture, 48, 40);
		ASSERT_TRUE(eglSwapBuffers(other->egl(), a.egl_surface()));
		ASSERT_TRUE(other->make_current(b));
		draw(second_picture, 32, 48);
		ASSERT_TRUE(eglSwapBuffers(other->egl(), b.egl_surface()));
	};
	client.reset();
	life();
	const int before = open_fd_count();
	life();
	EXPECT_EQ(open_fd_count(), before) << describe_open_fds();
}

#ifdef UDA_TEST_UDA_COMPOSITOR
// uda-compositor, started per test as Weston is, and stopped whatever
// happens. It binds wl_compositor at version 5 (Weston 10 offers 4).
struct UdaCompositor {
	weston_launcher launcher = {};
	bool started = false;
	UdaCompositor()
	{
		char program[] = UDA_TEST_UDA_COMPOSITOR, socket_flag[] = "--socket", socket[] = "wayland-uda",
		     save_flag[] = "--save", none[] = "none";
		char *argv[] = {program, socket_flag, socket, save_flag, none, nullptr};
		// Its Vulkan device imports through uda's layer, which the
		// loader finds through XDG_DATA_DIRS: the compositor's alone.
		const char *old = std::getenv("XDG_DATA_DIRS");
		const std::string kept = old ? old : "";
		setenv("XDG_DATA_DIRS", UDA_TEST_DATA_DIR ":/usr/local/share:/usr/share", 1);
		started = weston_launcher_start_program(&launcher, argv);
		if (old)
			setenv("XDG_DATA_DIRS", kept.c_str(), 1);
		else
			unsetenv("XDG_DATA_DIRS");
	}
	~UdaCompositor() { weston_launcher_stop(&launcher); }
};

// From wl_surface version 5 on, attach must carry no offset (a non-zero
// one is invalid_offset, the connection's end): a resize that moves the
// window's top-left corner sends it through wl_surface.offset instead,
// and the swaps go on.
TEST(WaylandClientOnUdaCompositor, AResizeFromTheTopLeftSendsItsOffsetApartFromAttach)
{
	use_udas_wayland_platform();
	UdaCompositor compositor;
	ASSERT_TRUE(compositor.started) << "uda-compositor did not start";
	setenv("WAYLAND_DEBUG", "client", 1);
	WaylandClient client(compositor.launcher.socket, 5);
	unsetenv("WAYLAND_DEBUG");
	ASSERT_TRUE(is_udas(client));
	ASSERT_EQ(wl_proxy_get_version(reinterpret_cast<wl_proxy *>(client.compositor())), 5u);
	WaylandWindow window(client, 160, 120);
	ASSERT_TRUE(window.ok()) << std::hex << eglGetError();
	ASSERT_TRUE(client.make_current(window)) << std::hex << eglGetError();
	glViewport(0, 0, 160, 120);
	draw(first_picture, 160, 120);
	ASSERT_TRUE(eglSwapBuffers(client.egl(), window.egl_surface())) << std::hex << eglGetError();

	wl_egl_window_resize(window.native(), 140, 100, 20, 20);
	const std::string requests = requests_sent_while([&] {
		for (int frame = 0; frame < 3; frame++) {
			glViewport(0, 0, 140, 100);
			draw(second_picture, 140, 100);
			EXPECT_TRUE(eglSwapBuffers(client.egl(), window.egl_surface()))
			        << "frame " << frame << ": 0x" << std::hex << eglGetError();
		}
	});
	// The offset went out once, through offset; every attach at 0,0.
	size_t offsets = 0, attaches = 0, attaches_at_origin = 0;
	for (size_t at = requests.find(" -> wl_surface@"); at != std::string::npos;
	     at = requests.find(" -> wl_surface@", at + 1)) {
		const std::string line = requests.substr(at, requests.find('\n', at) - at);
		offsets += line.find(".offset(20, 20)") != std::string::npos;
		if (line.find(".attach(") != std::string::npos) {
			attaches++;
			attaches_at_origin += line.find(", 0, 0)") != std::string::npos;
		}
	}
	EXPECT_EQ(offsets, 1u) << requests;
	EXPECT_EQ(attaches, 3u) << requests;
	EXPECT_EQ(attaches_at_origin, attaches) << requests;
	EXPECT_GE(wl_display_roundtrip(client.display()), 0);
	EXPECT_EQ(wl_display_get_error(client.display()), 0) << "the compositor ended the connection";
	int width = 0, height = 0;
	wl_egl_window_get_attached_size(window.native(), &width, &height);
	EXPECT_EQ(width, 140);
	EXPECT_EQ(height, 100);
}
#endif

INSTANTIATE_TEST_SUITE_P(Weston, WaylandClientTest, ::testing::Values(WestonRenderer::Gl, WestonRenderer::Pixman),
                         [](const ::testing::TestParamInfo<WestonRenderer> &param) {
	                         return param.param == WestonRenderer::Gl ? "GlRenderer" : "Pixman";
                         });

} // namespace
