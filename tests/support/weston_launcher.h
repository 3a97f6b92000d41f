/* A Weston of its own for a test or a benchmark: Weston 10 headless, GL
 * renderer (on llvmpipe) or pixman, in a runtime folder it alone uses,
 * with a still screen (no fade, no animations, no panel), stopped and
 * cleaned up by weston_launcher_stop whatever happened. */
#ifndef UDA_TEST_WESTON_LAUNCHER_H
#define UDA_TEST_WESTON_LAUNCHER_H

#include <stdbool.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct weston_launcher {
	pid_t pid;                /* -1 once stopped or killed */
	char runtime_dir[64];     /* XDG_RUNTIME_DIR of Weston and its clients */
	char socket[128];         /* absolute: wl_display_connect takes it as is */
	char log[128];
};

/* Starts Weston with an output of width x height and waits, bounded,
 * until it takes clients. `pixman`: the pixman renderer, else GL. */
bool weston_launcher_start(struct weston_launcher *weston, bool pixman, unsigned width, unsigned height);
/* Another compositor in the same harness (uda-compositor): `argv` must
 * listen on "wayland-uda" in the runtime folder, its working directory;
 * started once the socket is there. weston_launcher_stop stops it. */
bool weston_launcher_start_program(struct weston_launcher *launcher, char *const argv[]);
void weston_launcher_stop(struct weston_launcher *weston);
/* The output as shown now, as a PNG at `path` (weston-screenshooter
 * through Weston's --debug protocol). */
bool weston_launcher_screenshot(struct weston_launcher *weston, const char *path);
/* Weston's CPU time so far (user + system), in nanoseconds; 0 if unknown. */
unsigned long long weston_launcher_cpu_ns(const struct weston_launcher *weston);

#ifdef __cplusplus
}
#endif

#endif
