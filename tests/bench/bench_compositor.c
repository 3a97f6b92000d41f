/* uda-bench-compositor: the same GL client's frames to the screen through
 * uda-compositor (uda's protocol, zero-copy into its Vulkan device) and
 * through Weston 10's GL renderer (headless, on llvmpipe), side by side in
 * one run: the compositor's CPU time per frame and the client-to-screen
 * latency (eglSwapBuffers to the frame callback of that commit, which a
 * compositor answers after the repaint that showed it). The client is a
 * 1920x1080 window on uda's EGL platform in both, one frame per repaint;
 * rounds alternate the compositors; medians are reported.
 *
 *   uda-bench-compositor [--quick]
 *
 * Both compositors repaint at 60 Hz on a 1952x1112 output (the window and
 * uda-compositor's border). uda-compositor reads no frame back
 * (--save none), as Weston's headless output reads none. */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wayland-client.h>
#include <wayland-egl.h>

#include "bench_timing.h"
#include "bench_window.h"
#include "bench_workload.h"
#include "process_cpu.h"
#include "weston_launcher.h"

#define WIDTH BENCH_WIDTH
#define HEIGHT BENCH_HEIGHT
#define OUTPUT_WIDTH (WIDTH + 32)
#define OUTPUT_HEIGHT (HEIGHT + 32)
#define MAX_FRAMES 512

/* ---- The client (a child process) ------------------------------------ */

static void frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
	(void)time;
	*(uint64_t *)data = bench_now_ns();
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener frame_listener = {frame_done};

/* Prints "frames wall_ns median_latency_ns" for `frames` frames after a
 * warm-up; the process exits without cleaning up (the bench measures the
 * compositor, and the compositor frees what a client leaves). */
static int run_client(const char *socket, unsigned frames)
{
	struct bench_window w;
	if (frames == 0 || frames > MAX_FRAMES || !bench_window_open(&w, socket, WIDTH, HEIGHT, true))
		return 1;
	struct wl_display *display = w.display;
	struct wl_surface *surface = w.surface;
	EGLDisplay dpy = w.egl;
	EGLSurface window = w.egl_surface;
	/* The pacing is this loop's: one frame, then its frame callback. */
	eglSwapInterval(dpy, 0);
	struct bench_workload workload;
	if (!bench_workload_init(&workload))
		return 1;
	uint64_t latency[MAX_FRAMES];
	uint64_t wall0 = 0;
	for (unsigned f = 0; f < frames + 10; f++) {
		if (f == 10)
			wall0 = bench_now_ns();
		bench_workload_draw(&workload, f, 0);
		uint64_t done = 0;
		struct wl_callback *callback = wl_surface_frame(surface);
		wl_callback_add_listener(callback, &frame_listener, &done);
		const uint64_t start = bench_now_ns();
		if (!eglSwapBuffers(dpy, window))
			return 1;
		while (!done && wl_display_dispatch(display) >= 0) {
		}
		if (!done)
			return 1;
		if (f >= 10)
			latency[f - 10] = done - start;
	}
	printf("%u %llu %llu\n", frames, (unsigned long long)(bench_now_ns() - wall0),
	       (unsigned long long)bench_median(latency, frames));
	fflush(stdout);
	_exit(0);
}

/* ---- uda-compositor (a child process) -------------------------------- */

struct uda_compositor {
	pid_t pid;
	char runtime_dir[64], socket[128];
};

static bool uda_compositor_start(struct uda_compositor *c)
{
	snprintf(c->runtime_dir, sizeof(c->runtime_dir), "/tmp/uda-bench-compositor-XXXXXX");
	if (!mkdtemp(c->runtime_dir))
		return false;
	snprintf(c->socket, sizeof(c->socket), "%s/wayland-bench", c->runtime_dir);
	c->pid = fork();
	if (c->pid == 0) {
		setenv("XDG_RUNTIME_DIR", c->runtime_dir, 1);
		setenv("UDA_BACKEND_PATH", UDA_BENCH_BACKEND_MANIFEST_DIR, 0);
		setenv("UDA_BACKEND_NO_DEFAULT_PATHS", "1", 1);
		setenv("XDG_DATA_DIRS", UDA_BENCH_DATA_DIR ":/usr/local/share:/usr/share", 1);
		unsetenv("LD_PRELOAD");
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		char size[32];
		snprintf(size, sizeof(size), "%ux%u", OUTPUT_WIDTH, OUTPUT_HEIGHT);
		execl(UDA_BENCH_COMPOSITOR, UDA_BENCH_COMPOSITOR, "--socket", "wayland-bench", "--save", "none", "--quiet",
		      "--size", size, (char *)NULL);
		_exit(127);
	}
	for (int tenths = 0; c->pid > 0 && tenths < 200; tenths++) {
		struct stat st;
		if (stat(c->socket, &st) == 0)
			return true;
		if (waitpid(c->pid, NULL, WNOHANG) == c->pid) {
			c->pid = -1;
			return false;
		}
		usleep(100000);
	}
	return false;
}

static void uda_compositor_stop(struct uda_compositor *c)
{
	if (c->pid > 0) {
		kill(c->pid, SIGTERM);
		waitpid(c->pid, NULL, 0);
	}
	c->pid = -1;
	char path[192];
	snprintf(path, sizeof(path), "%s.lock", c->socket);
	unlink(path);
	unlink(c->socket);
	rmdir(c->runtime_dir);
}

/* ---- The runs (the parent) ------------------------------------------- */

struct sample {
	uint64_t wall_ns, latency_ns, compositor_ns;
	unsigned frames;
};

static bool run_round(const char *self, const char *socket, pid_t compositor, unsigned frames, struct sample *out)
{
	int pipe_fds[2];
	if (pipe(pipe_fds) != 0)
		return false;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pipe_fds[1], STDOUT_FILENO);
		close(pipe_fds[0]);
		bench_use_uda_platform();
		char frames_arg[16];
		snprintf(frames_arg, sizeof(frames_arg), "%u", frames);
		execl(self, self, "--client", socket, frames_arg, (char *)NULL);
		_exit(127);
	}
	close(pipe_fds[1]);
	/* The compositor's CPU time from the client's start to its end:
	 * the warm-up frames too, divided among the measured ones. */
	const unsigned long long before = process_cpu_ns(compositor);
	char line[128] = "";
	FILE *from = fdopen(pipe_fds[0], "r");
	bool read = from && fgets(line, sizeof(line), from);
	if (from)
		fclose(from);
	int status = 0;
	waitpid(pid, &status, 0);
	const unsigned long long after = process_cpu_ns(compositor);
	unsigned long long wall = 0, latency = 0;
	if (!read || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    sscanf(line, "%u %llu %llu", &out->frames, &wall, &latency) != 3 || out->frames == 0)
		return false;
	out->wall_ns = wall;
	out->latency_ns = latency;
	out->compositor_ns = (after - before) * frames / (frames + 10);
	return true;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--client") == 0)
		return run_client(argv[2], (unsigned)atoi(argv[3]));
	const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
	if (argc > 1 && !quick) {
		printf("usage: uda-bench-compositor [--quick]\n");
		return 2;
	}
	struct weston_launcher weston;
	struct uda_compositor uda = {.pid = -1};
	if (!weston_launcher_start(&weston, false, OUTPUT_WIDTH, OUTPUT_HEIGHT) || !uda_compositor_start(&uda)) {
		fprintf(stderr, "uda-bench-compositor: %s did not start\n", weston.pid > 0 ? "uda-compositor" : "Weston");
		weston_launcher_stop(&weston);
		uda_compositor_stop(&uda);
		return 1;
	}
	const unsigned rounds = quick ? 1 : 5, frames = quick ? 5 : 120;
	printf("%ux%u RGBA8 window on uda's EGL platform, one frame per repaint (60 Hz), %u frames, median of %u "
	       "rounds\n\n",
	       WIDTH, HEIGHT, frames, rounds);
	uint64_t cpu[2][8], latency[2][8], wall[2][8];
	int status = 0;
	for (unsigned r = 0; r < rounds && status == 0; r++) {
		for (int i = 0; i < 2; i++) {
			/* Alternate which goes first, so drift favours neither. */
			const int which = (r % 2) ? 1 - i : i; /* 0: Weston, 1: uda-compositor */
			struct sample s;
			if (!run_round(argv[0], which ? uda.socket : weston.socket, which ? uda.pid : weston.pid, frames, &s)) {
				fprintf(stderr, "uda-bench-compositor: the client on %s failed\n",
				        which ? "uda-compositor" : "Weston");
				status = 1;
				break;
			}
			cpu[which][r] = s.compositor_ns / s.frames;
			latency[which][r] = s.latency_ns;
			wall[which][r] = s.wall_ns / s.frames;
		}
	}
	if (status == 0) {
		const double weston_cpu = bench_median(cpu[0], rounds) / 1e6, uda_cpu = bench_median(cpu[1], rounds) / 1e6;
		const double weston_latency = bench_median(latency[0], rounds) / 1e6,
		             uda_latency = bench_median(latency[1], rounds) / 1e6;
		printf("%-36s %14s %14s %7s\n", "", "Weston (GL)", "uda-compositor", "ratio");
		printf("%-36s %11.2f ms %11.2f ms %6.2fx\n", "compositor CPU time per frame", weston_cpu, uda_cpu,
		       uda_cpu / weston_cpu);
		printf("%-36s %11.2f ms %11.2f ms %6.2fx\n", "client-to-screen latency (median)", weston_latency,
		       uda_latency, uda_latency / weston_latency);
		printf("%-36s %11.2f ms %11.2f ms %6.2fx\n", "client time per frame", bench_median(wall[0], rounds) / 1e6,
		       bench_median(wall[1], rounds) / 1e6,
		       (double)bench_median(wall[1], rounds) / (double)bench_median(wall[0], rounds));
		bench_result("uda-bench-compositor", "compositor CPU time per frame, uda-compositor / Weston",
		             uda_cpu / weston_cpu, "x", true, 1.0);
		bench_result("uda-bench-compositor", "client-to-screen latency, uda-compositor / Weston",
		             uda_latency / weston_latency, "x", false, 0);
		printf("\nratio: uda-compositor / Weston (target <= 1.0x for the compositor's time per frame)\n");
	}
	weston_launcher_stop(&weston);
	uda_compositor_stop(&uda);
	return status;
}
