/* A Wayland compositor that lies to its clients, one way per run, for
 * run_hostile_compositor.sh: uda's EGL platform (in uda-client) must not
 * crash or hang on it; it either shows every frame or fails a swap with
 * an EGL error.
 *
 *   hostile-compositor MODE SOCKET
 *
 * Modes:
 *   release-twice     every wl_buffer.release sent twice
 *   release-early     every buffer the client attached released at each
 *                     commit, the one on screen included
 *   release-never     no buffer ever released (the swap must fail in
 *                     bounded time)
 *   shrunk-table      linux-dmabuf v4 feedback whose format table file is
 *                     shrunk to nothing right after it is sent
 *   lying-feedback    feedback whose table size, indices, dev_t sizes and
 *                     event order break the protocol
 *   lying-sets        uda_surface_sets_v1 with a pipe, a short file and
 *                     garbage for capability sets
 *   error-mid-stream  a protocol error on the surface at the 4th commit
 *   gone-mid-stream   the client disconnected at the 4th commit
 *
 * It serves wl_compositor (surfaces, regions, frame callbacks),
 * xdg_wm_base (one configure per toplevel) and wl_shm; linux-dmabuf and
 * uda's protocol only in the modes above that lie through them. */
#include <drm_fourcc.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>

#include "linux-dmabuf-unstable-v1-server-protocol.h"
#include "uda-allocation-v1-server-protocol.h"
#include "xdg-shell-server-protocol.h"

enum mode {
	RELEASE_TWICE,
	RELEASE_EARLY,
	RELEASE_NEVER,
	SHRUNK_TABLE,
	LYING_FEEDBACK,
	LYING_SETS,
	ERROR_MID_STREAM,
	GONE_MID_STREAM,
};

static const char *const mode_names[] = {"release-twice",  "release-early", "release-never",   "shrunk-table",
                                         "lying-feedback", "lying-sets",    "error-mid-stream", "gone-mid-stream"};

/* shrunk-table's feedback objects: their table sent, waiting for the
 * client's next commit to shrink it and send the tranche that reads it. */
#define MAX_FEEDBACKS 8

struct server {
	enum mode mode;
	struct wl_display *display;
	unsigned commits;
	struct {
		struct wl_resource *feedback; /* NULL: a free slot */
		int table_fd;
	} waiting[MAX_FEEDBACKS];
};

struct surface {
	struct server *server;
	struct wl_resource *pending_buffer; /* attached, not yet committed */
	bool attached;
	struct wl_resource *current; /* committed, not yet released */
	struct wl_list callbacks;    /* frame callbacks of the next commit */
	struct wl_list seen;         /* struct seen_buffer::link: every buffer attached that lives */
	struct wl_resource *xdg_surface, *toplevel;
	bool configured;
};

/* A buffer the client attached, until the client destroys it. */
struct seen_buffer {
	struct surface *surface;
	struct wl_resource *buffer;
	struct wl_listener gone;
	struct wl_list link;
};

static void finish_shrunk_feedbacks(struct server *server);

static void destroy_request(struct wl_client *client, struct wl_resource *resource)
{
	(void)client;
	wl_resource_destroy(resource);
}

static void forget_seen(struct seen_buffer *seen)
{
	wl_list_remove(&seen->gone.link);
	wl_list_remove(&seen->link);
	free(seen);
}

static void seen_buffer_gone(struct wl_listener *listener, void *data)
{
	(void)data;
	struct seen_buffer *seen = wl_container_of(listener, seen, gone);
	struct surface *s = seen->surface;
	if (s->current == seen->buffer)
		s->current = NULL;
	if (s->pending_buffer == seen->buffer)
		s->pending_buffer = NULL;
	forget_seen(seen);
}

static void remember_buffer(struct surface *s, struct wl_resource *buffer)
{
	struct seen_buffer *seen;
	wl_list_for_each(seen, &s->seen, link)
	{
		if (seen->buffer == buffer)
			return;
	}
	seen = calloc(1, sizeof(*seen));
	if (!seen)
		return;
	seen->surface = s;
	seen->buffer = buffer;
	seen->gone.notify = seen_buffer_gone;
	wl_resource_add_destroy_listener(buffer, &seen->gone);
	wl_list_insert(&s->seen, &seen->link);
}

static void release(struct surface *s, struct wl_resource *buffer)
{
	if (!buffer)
		return;
	wl_buffer_send_release(buffer);
	if (s->server->mode == RELEASE_TWICE)
		wl_buffer_send_release(buffer);
}

/* Requests that change nothing here. */

static void ignore_request(struct wl_client *client, struct wl_resource *resource)
{
	(void)client, (void)resource;
}

static void ignore_object(struct wl_client *client, struct wl_resource *resource, struct wl_resource *object)
{
	(void)client, (void)resource, (void)object;
}

static void ignore_text(struct wl_client *client, struct wl_resource *resource, const char *text)
{
	(void)client, (void)resource, (void)text;
}

/* Two numbers: a size, an offset. */
static void ignore_pair(struct wl_client *client, struct wl_resource *resource, int32_t first, int32_t second)
{
	(void)client, (void)resource, (void)first, (void)second;
}

static void ignore_number(struct wl_client *client, struct wl_resource *resource, int32_t value)
{
	(void)client, (void)resource, (void)value;
}

static void ignore_rectangle(struct wl_client *client, struct wl_resource *resource, int32_t x, int32_t y,
                             int32_t width, int32_t height)
{
	(void)client, (void)resource, (void)x, (void)y, (void)width, (void)height;
}

static void ignore_serial(struct wl_client *client, struct wl_resource *resource, uint32_t serial)
{
	(void)client, (void)resource, (void)serial;
}

/* ---- wl_surface ---- */

static void surface_attach(struct wl_client *client, struct wl_resource *resource, struct wl_resource *buffer,
                           int32_t x, int32_t y)
{
	(void)client;
	(void)x;
	(void)y;
	struct surface *s = wl_resource_get_user_data(resource);
	s->pending_buffer = buffer;
	s->attached = true;
	if (buffer)
		remember_buffer(s, buffer);
}

/* A frame callback leaves the surface's list when it goes. */
static void unlink_callback(struct wl_resource *callback)
{
	wl_list_remove(wl_resource_get_link(callback));
}

static void surface_frame(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct surface *s = wl_resource_get_user_data(resource);
	struct wl_resource *callback = wl_resource_create(client, &wl_callback_interface, 1, id);
	if (!callback) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(callback, NULL, NULL, unlink_callback);
	wl_list_insert(s->callbacks.prev, wl_resource_get_link(callback));
}

static void send_configure(struct surface *s)
{
	struct wl_array states;
	wl_array_init(&states);
	if (s->toplevel)
		xdg_toplevel_send_configure(s->toplevel, 0, 0, &states);
	wl_array_release(&states);
	xdg_surface_send_configure(s->xdg_surface, wl_display_next_serial(s->server->display));
	s->configured = true;
}

static void surface_commit(struct wl_client *client, struct wl_resource *resource)
{
	struct surface *s = wl_resource_get_user_data(resource);
	struct server *server = s->server;
	if (s->xdg_surface && !s->configured) {
		send_configure(s);
		return;
	}
	if (server->mode == SHRUNK_TABLE)
		finish_shrunk_feedbacks(server);
	if (s->attached) {
		s->attached = false;
		if (s->current != s->pending_buffer && server->mode != RELEASE_NEVER)
			release(s, s->current);
		s->current = s->pending_buffer;
		if (++server->commits == 4 && server->mode == ERROR_MID_STREAM) {
			wl_resource_post_error(resource, WL_SURFACE_ERROR_INVALID_SIZE, "a lie: this buffer is fine");
			return;
		}
		if (server->commits == 4 && server->mode == GONE_MID_STREAM) {
			wl_client_destroy(client);
			return;
		}
		if (server->mode == RELEASE_EARLY) {
			struct seen_buffer *seen;
			wl_list_for_each(seen, &s->seen, link)
				release(s, seen->buffer);
		}
	}
	/* Shown at once: every frame callback is done. */
	struct wl_resource *callback, *next;
	wl_resource_for_each_safe(callback, next, &s->callbacks)
	{
		wl_callback_send_done(callback, server->commits);
		wl_resource_destroy(callback);
	}
}

static const struct wl_surface_interface surface_impl = {
	.destroy = destroy_request,
	.attach = surface_attach,
	.damage = ignore_rectangle,
	.frame = surface_frame,
	.set_opaque_region = ignore_object,
	.set_input_region = ignore_object,
	.commit = surface_commit,
	.set_buffer_transform = ignore_number,
	.set_buffer_scale = ignore_number,
	.damage_buffer = ignore_rectangle,
	.offset = ignore_pair,
};

static void surface_gone(struct wl_resource *resource)
{
	struct surface *s = wl_resource_get_user_data(resource);
	struct wl_resource *callback, *next;
	wl_resource_for_each_safe(callback, next, &s->callbacks)
		wl_resource_destroy(callback);
	struct seen_buffer *seen, *next_seen;
	wl_list_for_each_safe(seen, next_seen, &s->seen, link)
		forget_seen(seen);
	if (s->xdg_surface)
		wl_resource_set_user_data(s->xdg_surface, NULL);
	if (s->toplevel)
		wl_resource_set_user_data(s->toplevel, NULL);
	free(s);
}

/* ---- wl_compositor, wl_region ---- */

static const struct wl_region_interface region_impl = {
	.destroy = destroy_request, .add = ignore_rectangle, .subtract = ignore_rectangle};

static void create_surface(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct surface *s = calloc(1, sizeof(*s));
	struct wl_resource *object =
	        s ? wl_resource_create(client, &wl_surface_interface, wl_resource_get_version(resource), id) : NULL;
	if (!object) {
		free(s);
		wl_client_post_no_memory(client);
		return;
	}
	s->server = wl_resource_get_user_data(resource);
	wl_list_init(&s->callbacks);
	wl_list_init(&s->seen);
	wl_resource_set_implementation(object, &surface_impl, s, surface_gone);
}

static void create_region(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct wl_resource *region = wl_resource_create(client, &wl_region_interface, 1, id);
	if (!region) {
		wl_client_post_no_memory(client);
		return;
	}
	(void)resource;
	wl_resource_set_implementation(region, &region_impl, NULL, NULL);
}

static const struct wl_compositor_interface compositor_impl = {.create_surface = create_surface,
                                                               .create_region = create_region};

static void bind_compositor(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &wl_compositor_interface, (int)version, id);
	if (resource)
		wl_resource_set_implementation(resource, &compositor_impl, data, NULL);
}

/* ---- xdg_shell: one configure per toplevel, nothing else ---- */

static void toplevel_menu(struct wl_client *client, struct wl_resource *resource, struct wl_resource *seat,
                          uint32_t serial, int32_t x, int32_t y)
{
	(void)client, (void)resource, (void)seat, (void)serial, (void)x, (void)y;
}

static void toplevel_move(struct wl_client *client, struct wl_resource *resource, struct wl_resource *seat,
                          uint32_t serial)
{
	(void)client, (void)resource, (void)seat, (void)serial;
}

static void toplevel_resize(struct wl_client *client, struct wl_resource *resource, struct wl_resource *seat,
                            uint32_t serial, uint32_t edges)
{
	(void)client, (void)resource, (void)seat, (void)serial, (void)edges;
}

static const struct xdg_toplevel_interface toplevel_impl = {
	.destroy = destroy_request,
	.set_parent = ignore_object,
	.set_title = ignore_text,
	.set_app_id = ignore_text,
	.show_window_menu = toplevel_menu,
	.move = toplevel_move,
	.resize = toplevel_resize,
	.set_max_size = ignore_pair,
	.set_min_size = ignore_pair,
	.set_maximized = ignore_request,
	.unset_maximized = ignore_request,
	.set_fullscreen = ignore_object,
	.unset_fullscreen = ignore_request,
	.set_minimized = ignore_request,
};

static void toplevel_gone(struct wl_resource *resource)
{
	struct surface *s = wl_resource_get_user_data(resource);
	if (s)
		s->toplevel = NULL;
}

static void get_toplevel(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct surface *s = wl_resource_get_user_data(resource);
	struct wl_resource *toplevel = wl_resource_create(client, &xdg_toplevel_interface, 1, id);
	if (!toplevel) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(toplevel, &toplevel_impl, s, toplevel_gone);
	if (s)
		s->toplevel = toplevel;
}

static void get_popup(struct wl_client *client, struct wl_resource *resource, uint32_t id, struct wl_resource *parent,
                      struct wl_resource *positioner)
{
	(void)client, (void)id, (void)parent, (void)positioner;
	wl_resource_post_error(resource, XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT, "no popups here");
}

static const struct xdg_surface_interface xdg_surface_impl = {
	.destroy = destroy_request,
	.get_toplevel = get_toplevel,
	.get_popup = get_popup,
	.set_window_geometry = ignore_rectangle,
	.ack_configure = ignore_serial,
};

static void xdg_surface_gone(struct wl_resource *resource)
{
	struct surface *s = wl_resource_get_user_data(resource);
	if (s)
		s->xdg_surface = NULL;
}

static void get_xdg_surface(struct wl_client *client, struct wl_resource *resource, uint32_t id,
                            struct wl_resource *surface)
{
	struct surface *s = wl_resource_get_user_data(surface);
	struct wl_resource *object = wl_resource_create(client, &xdg_surface_interface, 1, id);
	if (!object) {
		wl_client_post_no_memory(client);
		return;
	}
	(void)resource;
	wl_resource_set_implementation(object, &xdg_surface_impl, s, xdg_surface_gone);
	s->xdg_surface = object;
}

static void create_positioner(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	(void)client, (void)id;
	wl_resource_post_error(resource, XDG_WM_BASE_ERROR_INVALID_POSITIONER, "no popups here");
}

static const struct xdg_wm_base_interface wm_base_impl = {
	.destroy = destroy_request,
	.create_positioner = create_positioner,
	.get_xdg_surface = get_xdg_surface,
	.pong = ignore_serial,
};

static void bind_wm_base(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &xdg_wm_base_interface, (int)version, id);
	if (resource)
		wl_resource_set_implementation(resource, &wm_base_impl, data, NULL);
}

/* ---- linux-dmabuf: feedback that lies ---- */

static int memfd_holding(const void *bytes, size_t size)
{
	int fd = memfd_create("hostile-compositor", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) != 0 || pwrite(fd, bytes, size, 0) != (ssize_t)size) {
		perror("hostile-compositor: memfd");
		exit(1);
	}
	return fd;
}

struct feedback_entry {
	uint32_t format, padding;
	uint64_t modifier;
};

static const struct feedback_entry table[] = {{DRM_FORMAT_XRGB8888, 0, DRM_FORMAT_MOD_LINEAR},
                                              {DRM_FORMAT_ARGB8888, 0, DRM_FORMAT_MOD_LINEAR}};

static void send_array(struct wl_resource *resource, void (*send)(struct wl_resource *, struct wl_array *),
                       const void *bytes, size_t size)
{
	struct wl_array array = {.size = size, .alloc = size, .data = (void *)bytes};
	send(resource, &array);
}

static void feedback_gone(struct wl_resource *resource)
{
	struct server *server = wl_resource_get_user_data(resource);
	for (unsigned i = 0; i < MAX_FEEDBACKS; i++) {
		if (server->waiting[i].feedback == resource) {
			server->waiting[i].feedback = NULL;
			close(server->waiting[i].table_fd);
		}
	}
}

static void lie_in_feedback(struct server *server, struct wl_resource *feedback)
{
	const dev_t device = makedev(226, 128);
	if (server->mode == SHRUNK_TABLE) {
		const int fd = memfd_holding(table, sizeof(table));
		zwp_linux_dmabuf_feedback_v1_send_format_table(feedback, fd, sizeof(table));
		send_array(feedback, zwp_linux_dmabuf_feedback_v1_send_main_device, &device, sizeof(device));
		for (unsigned i = 0; i < MAX_FEEDBACKS; i++) {
			if (!server->waiting[i].feedback) {
				server->waiting[i].feedback = feedback;
				server->waiting[i].table_fd = fd;
				return;
			}
		}
		close(fd);
		return;
	}
	/* A table whose file is shorter than its size. */
	int fd = memfd_holding(table, sizeof(table));
	zwp_linux_dmabuf_feedback_v1_send_format_table(feedback, fd, 4096);
	close(fd);
	const uint32_t short_device = 7;
	send_array(feedback, zwp_linux_dmabuf_feedback_v1_send_main_device, &short_device, sizeof(short_device));
	const uint16_t past_the_table[] = {0, 999, 65535};
	send_array(feedback, zwp_linux_dmabuf_feedback_v1_send_tranche_formats, past_the_table, 5);
	zwp_linux_dmabuf_feedback_v1_send_done(feedback);
	/* A pipe for a table, then a tranche that never ends. */
	int pipe_fds[2];
	if (pipe(pipe_fds) == 0) {
		zwp_linux_dmabuf_feedback_v1_send_format_table(feedback, pipe_fds[0], sizeof(table));
		close(pipe_fds[0]);
		close(pipe_fds[1]);
	}
	send_array(feedback, zwp_linux_dmabuf_feedback_v1_send_tranche_target_device, &device, sizeof(device));
	send_array(feedback, zwp_linux_dmabuf_feedback_v1_send_tranche_formats, past_the_table, sizeof(past_the_table));
	zwp_linux_dmabuf_feedback_v1_send_done(feedback);
}

/* At the client's next commit: shrink the tables it has, then send the
 * tranches that read them. */
static void finish_shrunk_feedbacks(struct server *server)
{
	const dev_t device = makedev(226, 128);
	const uint16_t both[] = {0, 1};
	for (unsigned i = 0; i < MAX_FEEDBACKS; i++) {
		struct wl_resource *feedback = server->waiting[i].feedback;
		if (!feedback)
			continue;
		if (ftruncate(server->waiting[i].table_fd, 0) != 0)
			perror("hostile-compositor: ftruncate");
		close(server->waiting[i].table_fd);
		server->waiting[i].feedback = NULL;
		send_array(feedback, zwp_linux_dmabuf_feedback_v1_send_tranche_target_device, &device, sizeof(device));
		send_array(feedback, zwp_linux_dmabuf_feedback_v1_send_tranche_formats, both, sizeof(both));
		zwp_linux_dmabuf_feedback_v1_send_tranche_flags(feedback, 0);
		zwp_linux_dmabuf_feedback_v1_send_tranche_done(feedback);
		zwp_linux_dmabuf_feedback_v1_send_done(feedback);
	}
}

static const struct zwp_linux_dmabuf_feedback_v1_interface feedback_impl = {.destroy = destroy_request};

static void get_feedback(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct server *server = wl_resource_get_user_data(resource);
	struct wl_resource *feedback = wl_resource_create(client, &zwp_linux_dmabuf_feedback_v1_interface,
	                                                  wl_resource_get_version(resource), id);
	if (!feedback) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(feedback, &feedback_impl, server, feedback_gone);
	lie_in_feedback(server, feedback);
}

static void get_surface_feedback(struct wl_client *client, struct wl_resource *resource, uint32_t id,
                                 struct wl_resource *surface)
{
	(void)surface;
	get_feedback(client, resource, id);
}

/* DMA-BUFs are taken without a look (nothing here reads pixels), so that
 * a client whose GPU makes them (on the hardware run) goes on through
 * linux-dmabuf after the feedback lied. */
static void params_add(struct wl_client *client, struct wl_resource *resource, int32_t fd, uint32_t plane_idx,
                       uint32_t offset, uint32_t stride, uint32_t modifier_hi, uint32_t modifier_lo)
{
	(void)client, (void)resource, (void)plane_idx, (void)offset, (void)stride, (void)modifier_hi, (void)modifier_lo;
	close(fd);
}

static const struct wl_buffer_interface buffer_impl = {.destroy = destroy_request};

static struct wl_resource *take_buffer(struct wl_client *client, uint32_t id)
{
	struct wl_resource *buffer = wl_resource_create(client, &wl_buffer_interface, 1, id);
	if (!buffer) {
		wl_client_post_no_memory(client);
		return NULL;
	}
	wl_resource_set_implementation(buffer, &buffer_impl, NULL, NULL);
	return buffer;
}

static void params_create(struct wl_client *client, struct wl_resource *resource, int32_t width, int32_t height,
                          uint32_t format, uint32_t flags)
{
	(void)width, (void)height, (void)format, (void)flags;
	struct wl_resource *buffer = take_buffer(client, 0);
	if (buffer)
		zwp_linux_buffer_params_v1_send_created(resource, buffer);
}

static void params_create_immed(struct wl_client *client, struct wl_resource *resource, uint32_t id, int32_t width,
                                int32_t height, uint32_t format, uint32_t flags)
{
	(void)resource, (void)width, (void)height, (void)format, (void)flags;
	take_buffer(client, id);
}

static const struct zwp_linux_buffer_params_v1_interface params_impl = {
	.destroy = destroy_request, .add = params_add, .create = params_create, .create_immed = params_create_immed};

static void create_params(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct wl_resource *params =
	        wl_resource_create(client, &zwp_linux_buffer_params_v1_interface, wl_resource_get_version(resource), id);
	if (!params) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(params, &params_impl, NULL, NULL);
}

static const struct zwp_linux_dmabuf_v1_interface dmabuf_impl = {
	.destroy = destroy_request,
	.create_params = create_params,
	.get_default_feedback = get_feedback,
	.get_surface_feedback = get_surface_feedback,
};

static void bind_dmabuf(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &zwp_linux_dmabuf_v1_interface, (int)version, id);
	if (resource)
		wl_resource_set_implementation(resource, &dmabuf_impl, data, NULL);
}

/* ---- uda's protocol: sets that lie ---- */

static const struct uda_surface_sets_v1_interface sets_impl = {.destroy = destroy_request};

static void get_surface_sets(struct wl_client *client, struct wl_resource *resource, uint32_t id,
                             struct wl_resource *surface)
{
	(void)resource, (void)surface;
	struct wl_resource *sets = wl_resource_create(client, &uda_surface_sets_v1_interface, 1, id);
	if (!sets) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(sets, &sets_impl, NULL, NULL);
	int pipe_fds[2];
	if (pipe(pipe_fds) == 0) {
		uda_surface_sets_v1_send_format_sets(sets, DRM_FORMAT_XRGB8888, pipe_fds[0], 64);
		close(pipe_fds[0]);
		close(pipe_fds[1]);
	}
	uint8_t garbage[64];
	for (size_t i = 0; i < sizeof(garbage); i++)
		garbage[i] = (uint8_t)(i * 37 + 11);
	int fd = memfd_holding(garbage, 16);
	uda_surface_sets_v1_send_format_sets(sets, DRM_FORMAT_ARGB8888, fd, 4096); /* a size past the file */
	close(fd);
	fd = memfd_holding(garbage, sizeof(garbage));
	uda_surface_sets_v1_send_format_sets(sets, DRM_FORMAT_ABGR8888, fd, sizeof(garbage));
	uda_surface_sets_v1_send_format_sets(sets, DRM_FORMAT_ABGR8888, fd, sizeof(garbage)); /* twice */
	close(fd);
	uda_surface_sets_v1_send_done(sets);
	uda_surface_sets_v1_send_done(sets); /* a group of nothing */
}

static void create_buffer(struct wl_client *client, struct wl_resource *resource, uint32_t id, int32_t fd,
                          struct wl_array *metadata)
{
	(void)client, (void)id, (void)metadata;
	close(fd);
	wl_resource_post_error(resource, UDA_ALLOCATION_MANAGER_V1_ERROR_INVALID_METADATA,
	                       "no sets were offered to allocate from");
}

static const struct uda_allocation_manager_v1_interface manager_impl = {
	.destroy = destroy_request, .get_surface_sets = get_surface_sets, .create_buffer = create_buffer};

static void bind_manager(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &uda_allocation_manager_v1_interface, (int)version, id);
	if (resource)
		wl_resource_set_implementation(resource, &manager_impl, data, NULL);
}

/* ---- the compositor ---- */

static int stop(int signal_number, void *data)
{
	(void)signal_number;
	wl_display_terminate(data);
	return 0;
}

int main(int argc, char **argv)
{
	struct server server = {0};
	bool known = false;
	for (unsigned m = 0; argc == 3 && m < sizeof(mode_names) / sizeof(mode_names[0]); m++) {
		if (strcmp(argv[1], mode_names[m]) == 0)
			server.mode = (enum mode)m, known = true;
	}
	if (!known) {
		fprintf(stderr, "usage: hostile-compositor MODE SOCKET (the modes are listed in hostile_compositor.c)\n");
		return 2;
	}
	server.display = wl_display_create();
	if (!server.display || wl_display_add_socket(server.display, argv[2]) != 0 ||
	    !wl_global_create(server.display, &wl_compositor_interface, 4, &server, bind_compositor) ||
	    !wl_global_create(server.display, &xdg_wm_base_interface, 1, &server, bind_wm_base) ||
	    wl_display_init_shm(server.display) != 0) {
		fprintf(stderr, "hostile-compositor: cannot start on %s\n", argv[2]);
		return 1;
	}
	if ((server.mode == SHRUNK_TABLE || server.mode == LYING_FEEDBACK) &&
	    !wl_global_create(server.display, &zwp_linux_dmabuf_v1_interface, 4, &server, bind_dmabuf))
		return 1;
	if (server.mode == LYING_SETS &&
	    !wl_global_create(server.display, &uda_allocation_manager_v1_interface, 1, &server, bind_manager))
		return 1;
	struct wl_event_loop *loop = wl_display_get_event_loop(server.display);
	struct wl_event_source *sources[] = {wl_event_loop_add_signal(loop, SIGTERM, stop, server.display),
	                                     wl_event_loop_add_signal(loop, SIGINT, stop, server.display)};
	printf("hostile-compositor: %s, on %s\n", mode_names[server.mode], argv[2]);
	fflush(stdout);
	wl_display_run(server.display);
	wl_display_destroy_clients(server.display);
	for (unsigned i = 0; i < 2; i++)
		wl_event_source_remove(sources[i]);
	wl_display_destroy(server.display);
	return 0;
}
