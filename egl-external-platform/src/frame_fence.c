/*
 * Frame fences: how a window surface hands its frames over without
 * glFinish. With EGL_ANDROID_native_fence_sync the driver makes a sync
 * file for the frame's GL commands, queued as the frame's acquire fence;
 * the consumer's release fence comes back into GL as a native fence sync
 * and is waited for on the GPU (EGL_KHR_wait_sync), so the producer's CPU
 * never stalls on either side. A release fence that is not a sync_file
 * (anything that polls readable will do for uda_surface) is waited for on
 * the CPU: drivers differ in what they do with other fds.
 *
 * Opt-in (UDA_EGL_NATIVE_FENCES=1) until a run on a driver that makes
 * sync files has shown it right: neither Mesa's llvmpipe (22.3, 25.0)
 * nor anything else on the test machines has the extension, so only the
 * fallback is exercised there (docs/egl-platform.md, Frame fences).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sync_file.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "frame_fence.h"
#include "sync_fence.h"

static bool has_extension(const char *list, const char *name)
{
	const size_t length = strlen(name);
	for (const char *at = list; at && (at = strstr(at, name)); at += length) {
		if ((at == list || at[-1] == ' ') && (at[length] == ' ' || at[length] == '\0'))
			return true;
	}
	return false;
}

static bool opted_in(void)
{
	const char *value = secure_getenv("UDA_EGL_NATIVE_FENCES");
	return value && value[0] && strcmp(value, "0") != 0;
}

bool frame_fence_supported(struct platform_display *display, bool *out_gpu_waits)
{
	struct uda_platform *platform = display->platform;
	const struct platform_egl *egl = &platform->egl;
	*out_gpu_waits = false;
	if (!opted_in()) {
		platform_debug("frame hand-off: glFinish (UDA_EGL_NATIVE_FENCES not set)");
		return false;
	}
	const char *extensions = egl->QueryString(display->internal, EGL_EXTENSIONS);
	const char *missing = NULL;
	if (!has_extension(extensions, "EGL_ANDROID_native_fence_sync"))
		missing = "EGL_ANDROID_native_fence_sync";
	else if (!egl->CreateSyncKHR || !egl->DestroySyncKHR || !egl->ClientWaitSyncKHR ||
	         !egl->DupNativeFenceFDANDROID)
		missing = "its entry points";
	if (missing) {
		platform_debug("frame hand-off: glFinish (the driver lacks %s)", missing);
		return false;
	}
	/* getProcAddress answers for names a driver lacks (glvnd stubs):
	 * the extension string decides. */
	*out_gpu_waits = egl->WaitSyncKHR && has_extension(extensions, "EGL_KHR_wait_sync");
	platform_debug("frame hand-off: native fences, release fences waited for %s",
	               *out_gpu_waits ? "on the GPU" : "on the CPU");
	return true;
}

int frame_fence_export(struct platform_display *display)
{
	struct uda_platform *platform = display->platform;
	const struct platform_egl *egl = &platform->egl;
	if (!platform->gl.Flush)
		return -1;
	const EGLint attribs[] = {EGL_SYNC_NATIVE_FENCE_FD_ANDROID, EGL_NO_NATIVE_FENCE_FD_ANDROID, EGL_NONE};
	EGLSyncKHR sync = egl->CreateSyncKHR(display->internal, EGL_SYNC_NATIVE_FENCE_ANDROID, attribs);
	if (sync == EGL_NO_SYNC_KHR) {
		/* Read, so the swap that falls back to glFinish leaves no error. */
		platform_debug("eglCreateSyncKHR(EGL_SYNC_NATIVE_FENCE_ANDROID) failed: 0x%x", egl->GetError());
		return -1;
	}
	/* The fence exists once the command stream holding it is flushed. */
	platform->gl.Flush();
	int fd = egl->DupNativeFenceFDANDROID(display->internal, sync);
	if (fd == EGL_NO_NATIVE_FENCE_FD_ANDROID)
		platform_debug("eglDupNativeFenceFDANDROID failed: 0x%x", egl->GetError());
	egl->DestroySyncKHR(display->internal, sync);
	return fd < 0 ? -1 : fd;
}

static bool is_sync_file(int fd)
{
	struct sync_file_info info;
	memset(&info, 0, sizeof(info));
	return ioctl(fd, SYNC_IOC_FILE_INFO, &info) == 0;
}

/* The current context waits for fd on the GPU; false if the driver
 * would not (the fd stays the caller's either way). */
static bool wait_on_gpu(struct platform_display *display, int fd, bool gpu_waits)
{
	struct uda_platform *platform = display->platform;
	const struct platform_egl *egl = &platform->egl;
	/* EGL takes the fd it is given, and drivers differ on whether a
	 * failed create still closed it: it gets a copy, and the caller's
	 * stays open for the CPU fallback. A copy a driver kept on failure
	 * is leaked rather than closed twice. */
	int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (copy < 0)
		return false;
	const EGLint attribs[] = {EGL_SYNC_NATIVE_FENCE_FD_ANDROID, copy, EGL_NONE};
	EGLSyncKHR sync = egl->CreateSyncKHR(display->internal, EGL_SYNC_NATIVE_FENCE_ANDROID, attribs);
	if (sync == EGL_NO_SYNC_KHR) {
		platform_debug("a release fence did not import: 0x%x", egl->GetError());
		return false;
	}
	bool waited = gpu_waits && egl->WaitSyncKHR(display->internal, sync, 0) == EGL_TRUE;
	if (gpu_waits && !waited)
		platform_debug("eglWaitSyncKHR failed: 0x%x; waiting on the CPU", egl->GetError());
	if (!waited)
		waited = egl->ClientWaitSyncKHR(display->internal, sync, 0, EGL_FOREVER_KHR) == EGL_CONDITION_SATISFIED_KHR;
	if (!waited)
		platform_debug("waiting for a release fence failed: 0x%x", egl->GetError());
	egl->DestroySyncKHR(display->internal, sync);
	return waited;
}

void frame_fence_wait(struct platform_display *display, int *fence, bool gpu_waits)
{
	if (*fence < 0)
		return;
	if (!sync_fence_wait(*fence, 0, NULL)) {
		/* Kept after a GPU wait: another context that renders into the
		 * buffer before it is queued must wait too. */
		if (is_sync_file(*fence) && wait_on_gpu(display, *fence, gpu_waits))
			return;
		sync_fence_wait(*fence, UINT64_MAX, NULL);
	}
	close(*fence);
	*fence = -1;
}
