/*
 * Frame fences: how a window surface hands its frames over without
 * glFinish. With EGL_ANDROID_native_fence_sync the driver makes a sync
 * file for the frame's GL commands, queued as the frame's acquire fence;
 * the consumer's release fence comes back into GL as a native fence sync
 * and is waited for on the GPU (EGL_KHR_wait_sync), so the producer's CPU
 * never stalls on either side.
 *
 * Opt-in (UDA_EGL_NATIVE_FENCES=1) until a run on a driver that makes
 * sync files has shown it right: neither Mesa's llvmpipe (22.3, 25.0)
 * nor anything else on the test machines has the extension, so only the
 * fallback is exercised there (docs/egl-platform.md, Frame fences).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"

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

bool frame_fence_supported(struct platform_display *display)
{
	struct uda_platform *platform = display->platform;
	const struct platform_egl *egl = &platform->egl;
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
	platform_debug("frame hand-off: native fences, release fences waited for %s",
	               egl->WaitSyncKHR && has_extension(extensions, "EGL_KHR_wait_sync") ? "on the GPU" : "on the CPU");
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

static void wait_on_cpu(int fd)
{
	struct pollfd entry = {fd, POLLIN, 0};
	while (poll(&entry, 1, -1) < 0 && (errno == EINTR || errno == EAGAIN))
		;
}

void frame_fence_wait(struct platform_display *display, int fd)
{
	if (fd < 0)
		return;
	struct uda_platform *platform = display->platform;
	const struct platform_egl *egl = &platform->egl;
	const EGLint attribs[] = {EGL_SYNC_NATIVE_FENCE_FD_ANDROID, fd, EGL_NONE};
	EGLSyncKHR sync = egl->CreateSyncKHR(display->internal, EGL_SYNC_NATIVE_FENCE_ANDROID, attribs);
	if (sync == EGL_NO_SYNC_KHR) {
		/* Not a sync file this driver takes (a consumer may release with
		 * any pollable fd): the fd is still ours. */
		wait_on_cpu(fd);
		close(fd);
		return;
	}
	/* The sync owns fd from here. Without a current context (a swap
	 * always has one) the GPU wait fails and the CPU waits instead. */
	if (!egl->WaitSyncKHR || egl->WaitSyncKHR(display->internal, sync, 0) != EGL_TRUE)
		egl->ClientWaitSyncKHR(display->internal, sync, 0, EGL_FOREVER_KHR);
	egl->DestroySyncKHR(display->internal, sync);
}
