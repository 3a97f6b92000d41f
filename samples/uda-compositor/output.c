/* The output: windows side by side, in the order they were mapped, with
 * the border colour between them; a repaint at most once a refresh
 * period when something was committed; frame callbacks answered after
 * the repaint that showed their commit; chosen frames written as PNG
 * files. A wl_output describes it to clients. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <wayland-server-protocol.h>

#include "common/demo_pattern.h"
#include "compositor.h"
#include "png_writer.h"
#include "renderer.h"

#define MAX_VIEWS 32

double compositor_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static bool should_save(const struct compositor_options *o, uint64_t frame)
{
	for (unsigned i = 0; i < o->save_count; i++) {
		if (o->save[i] == frame)
			return true;
	}
	return o->save_all;
}

static void send_frame_done(struct compositor *compositor, uint32_t time)
{
	struct surface *surface;
	wl_list_for_each(surface, &compositor->surfaces, link)
	{
		struct wl_resource *callback, *next;
		wl_resource_for_each_safe(callback, next, &surface->frame_callbacks)
		{
			wl_callback_send_done(callback, time);
			wl_resource_destroy(callback);
		}
	}
}

static void save_frame(struct compositor *compositor)
{
	char path[4096];
	uint32_t width, height;
	const uint8_t *pixels = renderer_get_pixels(compositor->renderer, &width, &height);
	snprintf(path, sizeof(path), "%s/frame-%03llu.png", compositor->options.output,
	         (unsigned long long)compositor->frames);
	if (png_write_rgb(path, pixels, width, height))
		printf("wrote %s\n", path);
	else
		fprintf(stderr, "uda-compositor: cannot write %s\n", path);
}

static void repaint(struct compositor *compositor)
{
	const double start = compositor_now_ms(), cpu_start = cpu_ms();
	struct renderer_view views[MAX_VIEWS];
	unsigned count = 0;
	int32_t x = DEMO_BORDER;
	struct surface *surface;
	wl_list_for_each(surface, &compositor->windows, window_link)
	{
		if (count == MAX_VIEWS)
			break;
		views[count++] = (struct renderer_view){surface_image(surface), x, DEMO_BORDER, surface->width,
		                                        surface->height};
		x += (int32_t)(surface->width + DEMO_BORDER);
	}
	const bool counted = count >= compositor->options.windows && count > 0;
	const bool saved = counted && should_save(&compositor->options, compositor->frames + 1);
	if (!renderer_composite(compositor->renderer, views, count, saved)) {
		fprintf(stderr, "uda-compositor: the repaint failed\n");
		compositor->exit_status = 1;
		wl_display_terminate(compositor->display);
		return;
	}
	compositor->repaints++;
	if (counted) {
		compositor->frames++;
		compositor->cpu_ms_total += cpu_ms() - cpu_start;
		if (!compositor->options.quiet)
			printf("frame %3llu: %u window%s, composited in %.2f ms\n", (unsigned long long)compositor->frames, count,
			       count == 1 ? "" : "s", compositor_now_ms() - start);
		if (saved)
			save_frame(compositor);
	}
	send_frame_done(compositor, (uint32_t)start);
	fflush(stdout);
	if (!counted)
		return;
	if (compositor->frames == compositor->options.exit_after) {
		printf("uda-compositor: exiting after %llu frames (--exit-after)\n", (unsigned long long)compositor->frames);
		wl_display_terminate(compositor->display);
	} else if (compositor->frames == compositor->options.frames) {
		printf("uda-compositor: %llu frames composited, %.3f ms of CPU time each; waiting for the clients to leave\n",
		       (unsigned long long)compositor->frames, compositor->cpu_ms_total / (double)compositor->frames);
		compositor->finished = true;
		if (compositor->clients == 0)
			wl_display_terminate(compositor->display);
	}
	fflush(stdout);
}

static int repaint_due(void *data)
{
	struct compositor *compositor = data;
	compositor->repaint_scheduled = false;
	compositor->last_repaint_ms = compositor_now_ms();
	repaint(compositor);
	return 0;
}

void output_schedule_repaint(struct compositor *compositor)
{
	if (compositor->repaint_scheduled || !compositor->repaint_timer)
		return;
	compositor->repaint_scheduled = true;
	const double period = 1000.0 / compositor->options.refresh_hz;
	double delay = compositor->last_repaint_ms + period - compositor_now_ms();
	/* A timer of 0 ms is a disarmed one. */
	wl_event_source_timer_update(compositor->repaint_timer, delay < 1.0 ? 1 : (int)delay);
}

/* ---- wl_output ---- */

static const struct wl_output_interface output_impl = {.release = compositor_destroy_request};

static void bind_output(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct compositor *compositor = data;
	struct wl_resource *resource = wl_resource_create(client, &wl_output_interface, (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &output_impl, compositor, NULL);
	const int32_t width = (int32_t)compositor->options.width, height = (int32_t)compositor->options.height;
	wl_output_send_geometry(resource, 0, 0, 0, 0, WL_OUTPUT_SUBPIXEL_NONE, "uda", "uda-compositor",
	                        WL_OUTPUT_TRANSFORM_NORMAL);
	wl_output_send_mode(resource, WL_OUTPUT_MODE_CURRENT | WL_OUTPUT_MODE_PREFERRED, width, height,
	                    (int32_t)compositor->options.refresh_hz * 1000);
	if (version >= WL_OUTPUT_SCALE_SINCE_VERSION)
		wl_output_send_scale(resource, 1);
	if (version >= WL_OUTPUT_DONE_SINCE_VERSION)
		wl_output_send_done(resource);
}

bool output_init(struct compositor *compositor)
{
	compositor->repaint_timer = wl_event_loop_add_timer(compositor->loop, repaint_due, compositor);
	return compositor->repaint_timer &&
	       wl_global_create(compositor->display, &wl_output_interface, 3, compositor, bind_output) != NULL;
}

void output_finish(struct compositor *compositor)
{
	if (compositor->repaint_timer)
		wl_event_source_remove(compositor->repaint_timer);
	compositor->repaint_timer = NULL;
}
