/* The GL frames the EGL and Wayland benchmarks draw: a light frame
 * (full-screen and scissored clears) and a heavy one (the same plus
 * blended full-screen triangles), at 1920x1080. */
#ifndef UDA_BENCH_WORKLOAD_H
#define UDA_BENCH_WORKLOAD_H

#include <GLES3/gl3.h>
#include <stdbool.h>

#define BENCH_WIDTH 1920
#define BENCH_HEIGHT 1080

struct bench_workload {
	GLuint program;
	GLint colour_location;
};

/* In the current context (GLES 3); false if the program does not link. */
bool bench_workload_init(struct bench_workload *workload);
/* Frame `frame` with `quads` blended triangles (0: the light frame). */
void bench_workload_draw(const struct bench_workload *workload, unsigned frame, unsigned quads);

#endif
