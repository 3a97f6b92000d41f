/* The compositor's start and end: its uda context, renderer and globals,
 * without a socket, so that a test can connect its clients otherwise
 * (tests/fuzz/fuzz_compositor_requests.c does, over a socket pair). */
#include <drm_fourcc.h>
#include <stdio.h>
#include <wayland-server-protocol.h>

#include "compositor.h"
#include "renderer.h"

const uint32_t compositor_formats[COMPOSITOR_FORMAT_COUNT] = {DRM_FORMAT_ABGR8888, DRM_FORMAT_XBGR8888,
                                                              DRM_FORMAT_ARGB8888, DRM_FORMAT_XRGB8888};

const uda_capability_set_list *compositor_reader_sets(const struct compositor *compositor, uint32_t format)
{
	for (unsigned i = 0; i < COMPOSITOR_FORMAT_COUNT; i++) {
		if (compositor_formats[i] == format)
			return compositor->reader_sets[i];
	}
	return NULL;
}

void compositor_destroy_request(struct wl_client *client, struct wl_resource *resource)
{
	(void)client;
	wl_resource_destroy(resource);
}

/* The sets uda's protocol sends: per format, what the renderer reads at
 * up to the output's size. A format it cannot read is not offered. */
static bool make_reader_sets(struct compositor *compositor)
{
	unsigned offered = 0;
	for (unsigned i = 0; i < COMPOSITOR_FORMAT_COUNT; i++) {
		if (renderer_get_reader_sets(compositor->renderer, compositor_formats[i], compositor->options.width,
		                             compositor->options.height, &compositor->reader_sets[i]) == UDA_SUCCESS)
			offered++;
	}
	if (!offered)
		fprintf(stderr, "uda-compositor: the device reads none of the formats\n");
	return offered > 0;
}

bool compositor_start(struct compositor *compositor)
{
	if (uda_context_create(NULL, &compositor->ctx) != UDA_SUCCESS) {
		fprintf(stderr, "uda-compositor: cannot create a uda context\n");
		return false;
	}
	compositor->renderer = renderer_create(compositor->ctx, compositor->options.width, compositor->options.height);
	if (!compositor->renderer || !make_reader_sets(compositor))
		return false;
	compositor->device = renderer_get_device(compositor->renderer);
	wl_list_init(&compositor->surfaces);
	wl_list_init(&compositor->windows);
	compositor->display = wl_display_create();
	if (!compositor->display)
		return false;
	compositor->loop = wl_display_get_event_loop(compositor->display);
	if (!clients_init(compositor) || !surface_global_create(compositor) || !xdg_shell_global_create(compositor) ||
	    wl_display_init_shm(compositor->display) != 0 ||
	    /* Beside wl_shm's two: the renderer reads RGBA orders too. */
	    !wl_display_add_shm_format(compositor->display, WL_SHM_FORMAT_ABGR8888) ||
	    !wl_display_add_shm_format(compositor->display, WL_SHM_FORMAT_XBGR8888) || !output_init(compositor) ||
	    !linux_dmabuf_global_create(compositor) ||
	    (compositor->options.uda_protocol && !uda_allocation_global_create(compositor))) {
		fprintf(stderr, "uda-compositor: cannot create its globals\n");
		return false;
	}
	return true;
}

void compositor_finish(struct compositor *compositor)
{
	if (compositor->display) {
		wl_display_destroy_clients(compositor->display);
		output_finish(compositor);
		wl_display_destroy(compositor->display);
	}
	uda_wayland_feedback_destroy(compositor->feedback);
	for (unsigned i = 0; i < COMPOSITOR_FORMAT_COUNT; i++)
		uda_capability_set_list_destroy(compositor->reader_sets[i]);
	renderer_destroy(compositor->renderer);
	uda_context_destroy(compositor->ctx);
}
