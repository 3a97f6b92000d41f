/* uda-bench-wayland: the same GL client on the same Weston (headless, GL
 * renderer on llvmpipe, a 1920x1080 output), through uda's Wayland
 * platform and through Mesa's own, side by side in one run: frames per
 * second, the client's CPU time per frame and Weston's, for a light frame
 * (clears) and a heavy one (blended full-screen triangles). Rounds
 * alternate the two platforms; medians are reported.
 *
 *   uda-bench-wayland [--quick]
 *
 * Each round is a child process (the platform is chosen per process:
 * libuda-egl-host preloaded with UDA_EGL_WAYLAND=1, or nothing). */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include <wayland-egl.h>

#include "bench_timing.h"
#include "bench_window.h"
#include "bench_workload.h"
#include "weston_launcher.h"

#define WIDTH BENCH_WIDTH
#define HEIGHT BENCH_HEIGHT

/* ---- The client (a child process) ------------------------------------ */

static uint64_t cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Prints "frames wall_ns cpu_ns" for `frames` frames after a warm-up. */
static int run_client(const char *socket, unsigned quads, unsigned frames)
{
	struct bench_window w;
	if (!bench_window_open(&w, socket, WIDTH, HEIGHT, false))
		return 1;
	EGLDisplay dpy = w.egl;
	EGLSurface window = w.egl_surface;
	eglSwapInterval(dpy, 0);
	struct bench_workload workload;
	if (!bench_workload_init(&workload))
		return 1;
	for (unsigned f = 0; f < 10; f++) {
		bench_workload_draw(&workload, f, quads);
		eglSwapBuffers(dpy, window);
	}
	const uint64_t wall0 = bench_now_ns(), cpu0 = cpu_ns();
	for (unsigned f = 0; f < frames; f++) {
		bench_workload_draw(&workload, f, quads);
		if (!eglSwapBuffers(dpy, window))
			return 1;
	}
	glFinish();
	printf("%u %llu %llu\n", frames, (unsigned long long)(bench_now_ns() - wall0),
	       (unsigned long long)(cpu_ns() - cpu0));
	bench_window_close(&w);
	return 0;
}

/* ---- The runs (the parent) ------------------------------------------- */

struct sample {
	uint64_t wall_ns, cpu_ns, weston_ns;
	unsigned frames;
};

static bool run_round(const char *self, const struct weston_launcher *weston, bool uda, unsigned quads,
                      unsigned frames, struct sample *out)
{
	int pipe_fds[2];
	if (pipe(pipe_fds) != 0)
		return false;
	const unsigned long long weston_before = weston_launcher_cpu_ns(weston);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pipe_fds[1], STDOUT_FILENO);
		close(pipe_fds[0]);
		if (uda) {
			bench_use_uda_platform();
		} else {
			unsetenv("LD_PRELOAD");
			unsetenv("UDA_EGL_WAYLAND");
		}
		char quads_arg[16], frames_arg[16];
		snprintf(quads_arg, sizeof(quads_arg), "%u", quads);
		snprintf(frames_arg, sizeof(frames_arg), "%u", frames);
		execl(self, self, "--client", weston->socket, quads_arg, frames_arg, (char *)NULL);
		_exit(127);
	}
	close(pipe_fds[1]);
	char line[128] = "";
	FILE *from = fdopen(pipe_fds[0], "r");
	bool read = from && fgets(line, sizeof(line), from);
	if (from)
		fclose(from);
	int status = 0;
	waitpid(pid, &status, 0);
	unsigned long long wall = 0, cpu = 0;
	if (!read || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    sscanf(line, "%u %llu %llu", &out->frames, &wall, &cpu) != 3 || out->frames == 0)
		return false;
	out->wall_ns = wall;
	out->cpu_ns = cpu;
	out->weston_ns = weston_launcher_cpu_ns(weston) - weston_before;
	return true;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "--client") == 0)
		return run_client(argv[2], (unsigned)atoi(argv[3]), (unsigned)atoi(argv[4]));
	const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
	if (argc > 1 && !quick) {
		printf("usage: uda-bench-wayland [--quick]\n");
		return 2;
	}
	struct weston_launcher weston;
	if (!weston_launcher_start(&weston, false, WIDTH, HEIGHT)) {
		fprintf(stderr, "uda-bench-wayland: Weston did not start\n");
		weston_launcher_stop(&weston);
		return 1;
	}
	const struct {
		const char *name;
		unsigned quads, frames;
	} workloads[] = {{"light (clears)", 0, 120}, {"heavy (8 blended quads)", 8, 30}};
	const unsigned rounds = quick ? 1 : 5;
	printf("%ux%u XRGB8888 window on Weston 10 (headless, GL renderer), swap interval 0, median of %u rounds\n\n",
	       WIDTH, HEIGHT, rounds);
	printf("%-24s %9s %9s %7s %14s %14s %16s %16s\n", "workload", "Mesa fps", "uda fps", "ratio", "Mesa CPU/frame",
	       "uda CPU/frame", "Weston CPU (Mesa)", "Weston CPU (uda)");
	int status = 0;
	for (size_t w = 0; w < sizeof(workloads) / sizeof(workloads[0]) && status == 0; w++) {
		uint64_t wall[2][8], cpu[2][8], weston_cpu[2][8];
		const unsigned frames = quick ? 5 : workloads[w].frames;
		for (unsigned r = 0; r < rounds && status == 0; r++) {
			for (int uda = 0; uda < 2; uda++) {
				/* Alternate which goes first, so drift favours neither. */
				int which = (r % 2) ? 1 - uda : uda;
				struct sample s;
				if (!run_round(argv[0], &weston, which, workloads[w].quads, frames, &s)) {
					fprintf(stderr, "uda-bench-wayland: the %s client failed\n", which ? "uda" : "Mesa");
					status = 1;
					break;
				}
				wall[which][r] = s.wall_ns / s.frames;
				cpu[which][r] = s.cpu_ns / s.frames;
				weston_cpu[which][r] = s.weston_ns / s.frames;
			}
		}
		if (status)
			break;
		double mesa_ms = bench_median(wall[0], rounds) / 1e6, uda_ms = bench_median(wall[1], rounds) / 1e6;
		printf("%-24s %9.1f %9.1f %6.2fx %11.2f ms %11.2f ms %13.2f ms %13.2f ms\n", workloads[w].name,
		       1000.0 / mesa_ms, 1000.0 / uda_ms, uda_ms / mesa_ms, bench_median(cpu[0], rounds) / 1e6,
		       bench_median(cpu[1], rounds) / 1e6, bench_median(weston_cpu[0], rounds) / 1e6,
		       bench_median(weston_cpu[1], rounds) / 1e6);
		bench_result("uda-bench-wayland", workloads[w].quads ? "heavy frames on Weston, uda / Mesa's platform"
		                                                     : "light frames on Weston, uda / Mesa's platform",
		             uda_ms / mesa_ms, "x", true, 1.0);
	}
	if (status == 0)
		printf("\nratio: uda's time per frame / Mesa's (target <= 1.0x); both frames reached Weston\n");
	weston_launcher_stop(&weston);
	return status;
}
