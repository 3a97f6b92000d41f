/* feedback_server.h: zwp_linux_dmabuf_v1 version 4 with uda's feedback. */
#include <stdlib.h>
#include <wayland-server-core.h>

#include "feedback_server.h"
#include "linux-dmabuf-unstable-v1-server-protocol.h"

struct feedback_server {
	struct wl_display *display;
	struct wl_client *client;
	struct wl_global *global;
	const uda_wayland_feedback *feedback;
	struct wl_list feedbacks; /* wl_resource links */
};

static void destroy_request(struct wl_client *client, struct wl_resource *resource)
{
	(void)client;
	wl_resource_destroy(resource);
}

static const struct zwp_linux_dmabuf_feedback_v1_interface feedback_impl = {.destroy = destroy_request};

static void feedback_gone(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

static void get_feedback(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct feedback_server *server = wl_resource_get_user_data(resource);
	struct wl_resource *feedback = wl_resource_create(client, &zwp_linux_dmabuf_feedback_v1_interface,
	                                                  wl_resource_get_version(resource), id);
	if (!feedback) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(feedback, &feedback_impl, server, feedback_gone);
	wl_list_insert(&server->feedbacks, wl_resource_get_link(feedback));
	uda_wayland_feedback_send(server->feedback, feedback, UDA_WAYLAND_NO_SCANOUT);
}

static void create_params(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	(void)id;
	wl_resource_post_error(resource, WL_DISPLAY_ERROR_IMPLEMENTATION, "no buffers in this test");
	(void)client;
}

static void get_surface_feedback(struct wl_client *client, struct wl_resource *resource, uint32_t id,
                                 struct wl_resource *surface)
{
	(void)surface;
	get_feedback(client, resource, id);
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
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &dmabuf_impl, data, NULL);
}

struct feedback_server *feedback_server_create(int fd, const uda_wayland_feedback *feedback)
{
	struct feedback_server *server = calloc(1, sizeof(*server));
	if (!server)
		return NULL;
	wl_list_init(&server->feedbacks);
	server->feedback = feedback;
	server->display = wl_display_create();
	server->global = server->display ? wl_global_create(server->display, &zwp_linux_dmabuf_v1_interface, 4, server,
	                                                    bind_dmabuf)
	                                 : NULL;
	server->client = server->global ? wl_client_create(server->display, fd) : NULL;
	if (!server->client) {
		feedback_server_destroy(server);
		return NULL;
	}
	return server;
}

void feedback_server_dispatch(struct feedback_server *server)
{
	wl_event_loop_dispatch(wl_display_get_event_loop(server->display), 0);
	wl_display_flush_clients(server->display);
}

void feedback_server_resend(struct feedback_server *server, uint32_t display_index)
{
	struct wl_resource *resource;
	wl_resource_for_each(resource, &server->feedbacks)
		uda_wayland_feedback_send(server->feedback, resource, display_index);
	wl_display_flush_clients(server->display);
}

void feedback_server_destroy(struct feedback_server *server)
{
	if (!server)
		return;
	if (server->display) {
		wl_display_destroy_clients(server->display); /* and their resources */
		wl_display_destroy(server->display);
	}
	free(server);
}
