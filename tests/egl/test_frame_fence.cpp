// frame_fence.c against a fake driver: what reaches EGL, in what order,
// and who closes which fd. No driver on the CPU machines makes sync
// files, so the GPU wait itself is left to tests/hardware/nvidia.sh; what
// is checked here is everything around it: opting in, export (flush
// before dup, the sync destroyed, failures falling back to glFinish with
// no EGL error left) and release fences that are not sync_files, which
// never reach EGL and are waited for on the CPU.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <thread>
#include <unistd.h>

extern "C" {
#include "frame_fence.h"
}

#include "fd_count.hpp"

using uda_test::describe_open_fds;
using uda_test::open_fd_count;

namespace
{

struct FakeSync {
	int owned_fd = -1; // what EGL holds: an exported fence, or an import
	int signal_fd = -1; // export only: the test's end, to signal it
};

// The fake driver's state: EGL entry points take no user data.
struct FakeDriver {
	const char *extensions = "EGL_KHR_fence_sync EGL_ANDROID_native_fence_sync EGL_KHR_wait_sync";
	bool fail_export = false;
	bool flushed = false;
	int live_syncs = 0;
	int imports = 0;
	int errors_read = 0;
	EGLint pending_error = EGL_SUCCESS;
} fake;

const char *EGLAPIENTRY fake_query_string(EGLDisplay, EGLint name)
{
	return name == EGL_EXTENSIONS ? fake.extensions : "";
}

EGLSyncKHR EGLAPIENTRY fake_create_sync(EGLDisplay, EGLenum type, const EGLint *attribs)
{
	int fd = EGL_NO_NATIVE_FENCE_FD_ANDROID;
	for (const EGLint *a = attribs; a && a[0] != EGL_NONE; a += 2) {
		if (a[0] == EGL_SYNC_NATIVE_FENCE_FD_ANDROID)
			fd = a[1];
	}
	if (type != EGL_SYNC_NATIVE_FENCE_ANDROID || (fd == EGL_NO_NATIVE_FENCE_FD_ANDROID && fake.fail_export)) {
		fake.pending_error = EGL_BAD_ATTRIBUTE;
		return EGL_NO_SYNC_KHR;
	}
	auto *sync = new FakeSync;
	if (fd == EGL_NO_NATIVE_FENCE_FD_ANDROID) {
		int ends[2];
		EXPECT_EQ(pipe2(ends, O_CLOEXEC), 0);
		sync->owned_fd = ends[0];
		sync->signal_fd = ends[1];
		fake.flushed = false;
	} else {
		fake.imports++;
		sync->owned_fd = fd;
	}
	fake.live_syncs++;
	return sync;
}

EGLBoolean EGLAPIENTRY fake_destroy_sync(EGLDisplay, EGLSyncKHR handle)
{
	auto *sync = static_cast<FakeSync *>(handle);
	if (sync->owned_fd >= 0)
		close(sync->owned_fd);
	if (sync->signal_fd >= 0)
		close(sync->signal_fd);
	delete sync;
	fake.live_syncs--;
	return EGL_TRUE;
}

EGLint EGLAPIENTRY fake_client_wait_sync(EGLDisplay, EGLSyncKHR, EGLint, EGLTimeKHR)
{
	return EGL_CONDITION_SATISFIED_KHR;
}

EGLint EGLAPIENTRY fake_wait_sync(EGLDisplay, EGLSyncKHR, EGLint)
{
	return EGL_TRUE;
}

// As the extension says: the fence fd exists once the sync was flushed.
EGLint EGLAPIENTRY fake_dup_native_fence(EGLDisplay, EGLSyncKHR handle)
{
	auto *sync = static_cast<FakeSync *>(handle);
	if (!fake.flushed) {
		fake.pending_error = EGL_BAD_PARAMETER;
		return EGL_NO_NATIVE_FENCE_FD_ANDROID;
	}
	// The test signals the fence through the sync's write end: a copy of
	// it travels with the fd handed out, as a sync_file would.
	const char tag = 'F';
	EXPECT_EQ(write(sync->signal_fd, &tag, 1), 1);
	return fcntl(sync->owned_fd, F_DUPFD_CLOEXEC, 0);
}

EGLint EGLAPIENTRY fake_get_error()
{
	fake.errors_read++;
	EGLint error = fake.pending_error;
	fake.pending_error = EGL_SUCCESS;
	return error;
}

void GL_APIENTRY fake_flush()
{
	fake.flushed = true;
}

bool is_signalled(int fd)
{
	pollfd entry = {fd, POLLIN, 0};
	return poll(&entry, 1, 0) == 1;
}

class FrameFence : public ::testing::Test
{
protected:
	void SetUp() override
	{
		fake = FakeDriver{};
		// A fence closed unwaited must fail the checks, not kill the
		// process on the signalling write.
		std::signal(SIGPIPE, SIG_IGN);
		fds_before = open_fd_count();
		platform.egl.QueryString = fake_query_string;
		platform.egl.CreateSyncKHR = fake_create_sync;
		platform.egl.DestroySyncKHR = fake_destroy_sync;
		platform.egl.ClientWaitSyncKHR = fake_client_wait_sync;
		platform.egl.WaitSyncKHR = fake_wait_sync;
		platform.egl.DupNativeFenceFDANDROID = fake_dup_native_fence;
		platform.egl.GetError = fake_get_error;
		platform.gl.Flush = fake_flush;
		display.platform = &platform;
		display.internal = reinterpret_cast<EGLDisplay>(0x1);
		setenv("UDA_EGL_NATIVE_FENCES", "1", 1);
	}
	void TearDown() override
	{
		unsetenv("UDA_EGL_NATIVE_FENCES");
		EXPECT_EQ(fake.live_syncs, 0) << "an EGLSync was not destroyed";
		EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
	}

	uda_platform platform = {};
	platform_display display = {};
	int fds_before = 0;
};

TEST_F(FrameFence, OnlyWhenOptedInAndTheDriverHasTheExtension)
{
	bool gpu_waits = true;
	EXPECT_TRUE(frame_fence_supported(&display, &gpu_waits));
	EXPECT_TRUE(gpu_waits);

	fake.extensions = "EGL_KHR_fence_sync EGL_ANDROID_native_fence_sync";
	EXPECT_TRUE(frame_fence_supported(&display, &gpu_waits));
	EXPECT_FALSE(gpu_waits) << "EGL_KHR_wait_sync is not listed: the entry point is a stub";

	fake.extensions = "EGL_KHR_fence_sync EGL_ANDROID_native_fence_sync_x";
	EXPECT_FALSE(frame_fence_supported(&display, &gpu_waits));

	fake.extensions = "EGL_KHR_fence_sync EGL_ANDROID_native_fence_sync EGL_KHR_wait_sync";
	platform.egl.DupNativeFenceFDANDROID = nullptr;
	EXPECT_FALSE(frame_fence_supported(&display, &gpu_waits));
	platform.egl.DupNativeFenceFDANDROID = fake_dup_native_fence;

	setenv("UDA_EGL_NATIVE_FENCES", "0", 1);
	EXPECT_FALSE(frame_fence_supported(&display, &gpu_waits));
	unsetenv("UDA_EGL_NATIVE_FENCES");
	EXPECT_FALSE(frame_fence_supported(&display, &gpu_waits));
}

TEST_F(FrameFence, ExportFlushesBeforeTheFdAndDestroysTheSync)
{
	const int fence = frame_fence_export(&display);
	ASSERT_GE(fence, 0) << "no fd: the flush must come before eglDupNativeFenceFDANDROID";
	EXPECT_TRUE(is_signalled(fence)) << "not the sync's fence";
	EXPECT_EQ(fake.live_syncs, 0);
	close(fence);
}

TEST_F(FrameFence, AFailedExportFallsBackAndLeavesNoEglError)
{
	fake.fail_export = true;
	EXPECT_EQ(frame_fence_export(&display), -1);
	EXPECT_EQ(fake.pending_error, EGL_SUCCESS) << "the swap would return with an EGL error set";

	fake.fail_export = false;
	platform.gl.Flush = nullptr; // GL not loaded: no fence can be flushed
	EXPECT_EQ(frame_fence_export(&display), -1);
	EXPECT_EQ(fake.live_syncs, 0);
}

TEST_F(FrameFence, FencesThatAreNotSyncFilesAreWaitedForOnTheCpu)
{
	int ends[2];
	ASSERT_EQ(pipe2(ends, O_CLOEXEC), 0);
	std::atomic<bool> signalled{false};
	std::thread reader([&] {
		std::this_thread::sleep_for(std::chrono::milliseconds(30));
		signalled = true;
		const char tag = 'R';
		EXPECT_EQ(write(ends[1], &tag, 1), 1);
	});
	int fence = ends[0];
	frame_fence_wait(&display, &fence, true);
	EXPECT_TRUE(signalled) << "returned before the fence signalled";
	EXPECT_EQ(fence, -1) << "a signalled fence is closed and forgotten";
	EXPECT_EQ(fake.imports, 0) << "a pipe reached eglCreateSyncKHR";
	reader.join();
	close(ends[1]);
}

TEST_F(FrameFence, SignalledFencesAreClosedWithoutEgl)
{
	int ends[2];
	ASSERT_EQ(pipe2(ends, O_CLOEXEC), 0);
	const char tag = 'R';
	ASSERT_EQ(write(ends[1], &tag, 1), 1);
	int fence = ends[0];
	frame_fence_wait(&display, &fence, true);
	EXPECT_EQ(fence, -1);
	EXPECT_EQ(fake.imports, 0);
	close(ends[1]);

	int none = -1;
	frame_fence_wait(&display, &none, true);
	EXPECT_EQ(none, -1);
}

} // namespace

// frame_fence.c logs through the platform; nothing to log here.
extern "C" void platform_debug(const char *, ...) {}
