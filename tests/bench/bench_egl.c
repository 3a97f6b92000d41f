/*
 * uda-bench-egl: 1080p frames through an EGL window surface on the uda
 * platform against the same frames rendered into a native pbuffer of the
 * same driver, side by side in one run.
 *
 *   native  draw, eglSwapBuffers(pbuffer), glFinish
 *   uda     draw, eglSwapBuffers(uda window surface) (GL rendered
 *           straight into the buffer, or, on the copy path, the swap
 *           copies it there; either way it finishes), then the consumer
 *           acquires and releases it
 *   texture draw into a texture of the application's own, glFinish: for
 *           scale, what rendering into a texture rather than a pbuffer
 *           costs the driver
 *   BGRA    the same into a GL_BGRA_EXT texture: llvmpipe's pbuffers are
 *           BGRA, and llvmpipe 22.3 (Debian 12's) renders the light frames
 *           into RGBA 1.3-1.8x slower than into BGRA, which is their gap
 *           there; uda's window is RGBA because that Mesa's GLES makes no
 *           texture of BGRA memory (GL_BGRA8_EXT storage refused), so the
 *           swap cannot render into one. Newer llvmpipe renders both at
 *           one speed (scripts/newer-mesa.sh bench; docs/drivers.md)
 *
 * Two workloads: a light frame (a clear and a few bars) and a heavier one
 * (full-screen blended quads), since the hand-off is a fixed cost per frame
 * and weighs less the more a frame renders. The hand-off cost is reported
 * on its own: uda's swap minus the native swap-and-finish.
 *
 * Runs on the build tree's backends through libuda-egl-host (linked first);
 * tests run --quick to check that every path works, never the timings.
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#include <GLES2/gl2ext.h>
#include <drm_fourcc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <EGL/eglext_uda.h>
#include <uda/uda.h>
#include <uda/uda_surface.h>

#include "bench_timing.h"
#include "bench_workload.h"

#define WIDTH BENCH_WIDTH
#define HEIGHT BENCH_HEIGHT
#define MAX_ROUNDS 9
#define MAX_FRAMES 40

struct bench {
	uda_context *ctx;
	uda_device *gl, *vulkan;
	uda_surface *window;
	EGLDisplay display;
	EGLConfig config;
	EGLContext context;
	EGLSurface window_surface, pbuffer;
	GLuint texture, framebuffer; /* a plain GL texture target, for scale */
	GLuint bgra_texture, bgra_framebuffer; /* 0 where BGRA is no render target */
	struct bench_workload workload;
	uint64_t frames_consumed;
};

static int fail(const char *what, struct bench *b)
{
	fprintf(stderr, "uda-bench-egl: %s failed (EGL 0x%x)%s%s\n", what, eglGetError(), b && b->ctx ? ": " : "",
	        b && b->ctx ? uda_context_get_error(b->ctx) : "");
	return 1;
}

static bool consume(struct bench *b)
{
	uda_surface_frame frame;
	if (uda_surface_acquire(b->window, 0, &frame) != UDA_SUCCESS)
		return false;
	b->frames_consumed++;
	return uda_surface_release(b->window, frame.buffer_id) == UDA_SUCCESS;
}

enum path {
	PATH_NATIVE,  /* the pbuffer */
	PATH_UDA,     /* the uda window surface */
	PATH_TEXTURE, /* a texture of the application's own: what rendering
	               * into a texture costs this driver, copy or not */
	PATH_BGRA,    /* the same texture in the pbuffer's channel order */
	PATH_COUNT,
};

/* One round of `frames` frames; the swap times go to *swap_ns. */
static bool round_of(struct bench *b, enum path path, unsigned frames, unsigned quads, uint64_t *total_ns,
                     uint64_t *swap_ns)
{
	EGLSurface surface = path == PATH_UDA ? b->window_surface : b->pbuffer;
	if (!eglMakeCurrent(b->display, surface, surface, b->context))
		return false;
	glBindFramebuffer(GL_FRAMEBUFFER, path == PATH_TEXTURE ? b->framebuffer
	                                  : path == PATH_BGRA  ? b->bgra_framebuffer
	                                                       : 0);
	uint64_t swaps = 0;
	uint64_t start = bench_now_ns();
	for (unsigned frame = 0; frame < frames; frame++) {
		bench_workload_draw(&b->workload, frame, quads);
		uint64_t before = bench_now_ns();
		if ((path == PATH_NATIVE || path == PATH_UDA) && !eglSwapBuffers(b->display, surface))
			return false;
		if (path != PATH_UDA)
			glFinish(); /* the native frame finished too, as uda's is */
		swaps += bench_now_ns() - before;
		if (path == PATH_UDA && !consume(b))
			return false;
	}
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	*total_ns = bench_now_ns() - start;
	*swap_ns = swaps / frames;
	return true;
}

static int setup(struct bench *b)
{
	if (uda_context_create(NULL, &b->ctx) != UDA_SUCCESS)
		return fail("uda_context_create", NULL);
	uint32_t count = 16;
	uda_device *devices[16];
	if (uda_context_enumerate_devices(b->ctx, &count, devices) != UDA_SUCCESS)
		return fail("device enumeration", b);
	for (uint32_t i = 0; i < count; i++) {
		uda_device_info info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
		uda_device_get_info(devices[i], &info);
		if (info.api == UDA_DEVICE_API_GL && !b->gl)
			b->gl = devices[i];
		if (info.api == UDA_DEVICE_API_VULKAN && !b->vulkan)
			b->vulkan = devices[i];
	}
	if (!b->gl || !b->vulkan)
		return fail("finding a GL and a Vulkan device (UDA_BACKEND_PATH?)", b);

	static const uda_usage_atom gl_atoms[] = {{UDA_VENDOR_NONE, UDA_USAGE_RENDER_TARGET, 0, NULL}};
	static const uda_usage_atom vulkan_atoms[] = {{UDA_VENDOR_NONE, UDA_USAGE_SAMPLED, 0, NULL}};
	static const uda_usage gl_usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 1, gl_atoms};
	static const uda_usage vulkan_usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 1, vulkan_atoms};
	const uda_device_usage users[] = {{b->gl, &gl_usage}, {b->vulkan, &vulkan_usage}};
	uda_surface_create_info info = {
		.type = UDA_STRUCTURE_TYPE_SURFACE_CREATE_INFO,
		.width = WIDTH,
		.height = HEIGHT,
		.format = DRM_FORMAT_ABGR8888,
		.device_count = 2,
		.devices = users,
		.buffer_count = 3,
	};
	if (uda_surface_create(b->ctx, &info, &b->window) != UDA_SUCCESS)
		return fail("uda_surface_create", b);

	b->display = eglGetPlatformDisplay(EGL_PLATFORM_UDA, b->gl, NULL);
	if (b->display == EGL_NO_DISPLAY || !eglInitialize(b->display, NULL, NULL))
		return fail("the uda platform display (is libuda-egl-host first, the manifest found?)", b);
	const EGLint attribs[] = {EGL_SURFACE_TYPE, EGL_WINDOW_BIT | EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
	                          EGL_OPENGL_ES3_BIT, EGL_NATIVE_VISUAL_ID, DRM_FORMAT_ABGR8888, EGL_NONE};
	EGLint configs = 0;
	if (!eglChooseConfig(b->display, attribs, &b->config, 1, &configs) || configs != 1)
		return fail("eglChooseConfig", b);
	eglBindAPI(EGL_OPENGL_ES_API);
	const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
	b->context = eglCreateContext(b->display, b->config, EGL_NO_CONTEXT, context_attribs);
	b->window_surface = eglCreatePlatformWindowSurface(b->display, b->config, b->window, NULL);
	const EGLint size[] = {EGL_WIDTH, WIDTH, EGL_HEIGHT, HEIGHT, EGL_NONE};
	b->pbuffer = eglCreatePbufferSurface(b->display, b->config, size);
	if (b->context == EGL_NO_CONTEXT || b->window_surface == EGL_NO_SURFACE || b->pbuffer == EGL_NO_SURFACE)
		return fail("context and surfaces", b);
	if (!eglMakeCurrent(b->display, b->pbuffer, b->pbuffer, b->context) || !bench_workload_init(&b->workload))
		return fail("the heavy workload's shaders", b);
	glGenTextures(1, &b->texture);
	glBindTexture(GL_TEXTURE_2D, b->texture);
	glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, WIDTH, HEIGHT);
	glGenFramebuffers(1, &b->framebuffer);
	glBindFramebuffer(GL_FRAMEBUFFER, b->framebuffer);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, b->texture, 0);
	if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
		return fail("the texture framebuffer", b);
	glGenTextures(1, &b->bgra_texture);
	glBindTexture(GL_TEXTURE_2D, b->bgra_texture);
	glTexImage2D(GL_TEXTURE_2D, 0, GL_BGRA_EXT, WIDTH, HEIGHT, 0, GL_BGRA_EXT, GL_UNSIGNED_BYTE, NULL);
	glGenFramebuffers(1, &b->bgra_framebuffer);
	glBindFramebuffer(GL_FRAMEBUFFER, b->bgra_framebuffer);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, b->bgra_texture, 0);
	if (glGetError() != GL_NO_ERROR || glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
		glDeleteFramebuffers(1, &b->bgra_framebuffer);
		glDeleteTextures(1, &b->bgra_texture);
		b->bgra_framebuffer = b->bgra_texture = 0;
	}
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	/* Both surfaces take the window's interval, 0: nothing waits on a
	 * display here. */
	eglMakeCurrent(b->display, b->window_surface, b->window_surface, b->context);
	eglSwapInterval(b->display, 0);
	return 0;
}

static void teardown(struct bench *b)
{
	if (b->display != EGL_NO_DISPLAY) {
		if (b->framebuffer && eglMakeCurrent(b->display, b->pbuffer, b->pbuffer, b->context)) {
			glDeleteFramebuffers(1, &b->framebuffer);
			glDeleteTextures(1, &b->texture);
			if (b->bgra_framebuffer) {
				glDeleteFramebuffers(1, &b->bgra_framebuffer);
				glDeleteTextures(1, &b->bgra_texture);
			}
		}
		eglMakeCurrent(b->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
		if (b->window_surface)
			eglDestroySurface(b->display, b->window_surface);
		if (b->pbuffer)
			eglDestroySurface(b->display, b->pbuffer);
		if (b->context)
			eglDestroyContext(b->display, b->context);
		eglTerminate(b->display);
	}
	uda_surface_destroy(b->window);
	uda_context_destroy(b->ctx);
}

int main(int argc, char **argv)
{
	bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
	if (argc > 1 && !quick) {
		printf("usage: uda-bench-egl [--quick]\n");
		return strcmp(argv[1], "--help") == 0 ? 0 : 2;
	}
	const unsigned rounds = quick ? 1 : MAX_ROUNDS, frames = quick ? 4 : MAX_FRAMES;
	struct bench b = {.display = EGL_NO_DISPLAY};
	int status = setup(&b);

	static const struct {
		const char *name;
		unsigned quads;
	} workloads[] = {{"light (clear + bars)", 0}, {"heavy (12 blended quads)", 12}};
	printf("%ux%u ABGR8888, %u frames per round, median of %u rounds, GL: %s, %s\n\n", WIDTH, HEIGHT, frames,
	       rounds, status == 0 ? (const char *)glGetString(GL_RENDERER) : "-",
	       status == 0 ? (const char *)glGetString(GL_VERSION) : "-");
	printf("%-26s %10s %10s %8s %14s %14s %10s %12s %9s\n", "workload", "native fps", "uda fps", "ratio",
	       "native swap ms", "uda swap ms", "hand-off", "texture fps", "BGRA fps");
	uint64_t expected_frames = 0;
	for (size_t w = 0; w < sizeof(workloads) / sizeof(workloads[0]) && status == 0; w++) {
		uint64_t ns[PATH_COUNT][MAX_ROUNDS], swap_ns[PATH_COUNT][MAX_ROUNDS];
		for (unsigned r = 0; r < rounds && status == 0; r++) {
			/* Rotate who goes first. */
			for (unsigned pass = 0; pass < PATH_COUNT && status == 0; pass++) {
				enum path path = (enum path)((pass + r) % PATH_COUNT);
				if (path == PATH_BGRA && !b.bgra_framebuffer) {
					ns[path][r] = swap_ns[path][r] = 0;
					continue;
				}
				if (!round_of(&b, path, frames, workloads[w].quads, &ns[path][r], &swap_ns[path][r]))
					status = fail(path == PATH_UDA ? "a frame through the uda window surface" : "a native frame",
					              &b);
				expected_frames += path == PATH_UDA ? frames : 0;
			}
		}
		uint64_t *native_ns = ns[PATH_NATIVE], *uda_ns = ns[PATH_UDA];
		uint64_t *native_swap = swap_ns[PATH_NATIVE], *uda_swap = swap_ns[PATH_UDA];
		if (status != 0)
			break;
		double native = (double)bench_median(native_ns, rounds), uda = (double)bench_median(uda_ns, rounds);
		double native_ms = (double)bench_median(native_swap, rounds) / 1e6;
		double uda_ms = (double)bench_median(uda_swap, rounds) / 1e6;
		double texture = (double)bench_median(ns[PATH_TEXTURE], rounds);
		double bgra = (double)bench_median(ns[PATH_BGRA], rounds);
		printf("%-26s %10.1f %10.1f %7.2fx %14.2f %14.2f %7.2f ms %12.1f %9.1f\n", workloads[w].name,
		       frames * 1e9 / native, frames * 1e9 / uda, uda / native, native_ms, uda_ms, uda_ms - native_ms,
		       frames * 1e9 / texture, bgra > 0 ? frames * 1e9 / bgra : 0.0);
		bench_result("uda-bench-egl", workloads[w].quads ? "heavy frames, uda / native pbuffer"
		                                                 : "light frames, uda / native pbuffer",
		             uda / native, "x", true, workloads[w].quads ? 1.05 : 1.2);
	}
	if (status == 0 && b.frames_consumed != expected_frames)
		status = fail("the consumer seeing every frame", &b);
	if (status == 0)
		printf("\nratio: time per frame through uda / native (target <= 1.2x); hand-off: uda swap - native "
		       "swap+finish (the copy, if any, and the queue round trip); texture: the same frames into a "
		       "plain GL RGBA8 texture, what rendering into any texture costs here; BGRA: into a GL_BGRA_EXT "
		       "texture, the pbuffer's channel order (0: not a render target here).\n%llu frames reached the "
		       "consumer.\n",
		       (unsigned long long)b.frames_consumed);
	teardown(&b);
	return status;
}
