/* uda_protocol_server.h: uda's own protocol, the compositor's side. */
#include <stdlib.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>

#include <uda/uda_wayland_server.h>

#include "uda-allocation-v1-server-protocol.h"
#include "uda_protocol_server.h"

struct uda_protocol_server {
	struct wl_display *display;
	uint32_t format;
	const uda_capability_set_list *sets;
	uda_device *device;
	unsigned buffers;
	uda_result last_import;
	uda_allocation *last_allocation;
};

static void destroy_request(struct wl_client *client, struct wl_resource *resource)
{
	(void)client;
	wl_resource_destroy(resource);
}

static const struct wl_surface_interface surface_impl = {.destroy = destroy_request};

static void create_surface(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct wl_resource *surface =
	        wl_resource_create(client, &wl_surface_interface, wl_resource_get_version(resource), id);
	if (surface)
		wl_resource_set_implementation(surface, &surface_impl, NULL, NULL);
}

static const struct wl_compositor_interface compositor_impl = {.create_surface = create_surface};

static void bind_compositor(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &wl_compositor_interface, (int)version, id);
	if (resource)
		wl_resource_set_implementation(resource, &compositor_impl, data, NULL);
}

static const struct uda_surface_sets_v1_interface sets_impl = {.destroy = destroy_request};

static void get_surface_sets(struct wl_client *client, struct wl_resource *resource, uint32_t id,
                             struct wl_resource *surface)
{
	(void)surface;
	struct uda_protocol_server *server = wl_resource_get_user_data(resource);
	struct wl_resource *sets = wl_resource_create(client, &uda_surface_sets_v1_interface, 1, id);
	if (!sets)
		return;
	wl_resource_set_implementation(sets, &sets_impl, server, NULL);
	uda_wayland_surface_sets_send_format(sets, server->format, server->sets);
	uda_wayland_surface_sets_send_done(sets);
}

static void buffer_destroy(struct wl_client *client, struct wl_resource *resource)
{
	(void)client;
	wl_resource_destroy(resource);
}

static const struct wl_buffer_interface buffer_impl = {.destroy = buffer_destroy};

/* What a compositor does with a uda buffer: imported on its device under
 * the sets it sent; here the result is recorded for the test rather than
 * posted as an error. */
static void create_buffer(struct wl_client *client, struct wl_resource *resource, uint32_t id, int32_t fd,
                          struct wl_array *metadata)
{
	struct uda_protocol_server *server = wl_resource_get_user_data(resource);
	uda_allocation *allocation = NULL;
	server->last_import =
	        uda_wayland_import_buffer(server->sets, server->device, fd, metadata->data, metadata->size, &allocation);
	close(fd);
	if (server->last_import != UDA_SUCCESS)
		return;
	uda_allocation_destroy(server->last_allocation);
	server->last_allocation = allocation;
	struct wl_resource *buffer = wl_resource_create(client, &wl_buffer_interface, 1, id);
	if (buffer)
		wl_resource_set_implementation(buffer, &buffer_impl, NULL, NULL);
	server->buffers++;
}

static const struct uda_allocation_manager_v1_interface manager_impl = {
	.destroy = destroy_request,
	.get_surface_sets = get_surface_sets,
	.create_buffer = create_buffer,
};

static void bind_manager(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &uda_allocation_manager_v1_interface, (int)version, id);
	if (resource)
		wl_resource_set_implementation(resource, &manager_impl, data, NULL);
}

struct uda_protocol_server *uda_protocol_server_create(int fd, uint32_t format, const uda_capability_set_list *sets,
                                                       uda_device *device)
{
	struct uda_protocol_server *server = calloc(1, sizeof(*server));
	if (!server)
		return NULL;
	server->format = format;
	server->sets = sets;
	server->device = device;
	server->last_import = UDA_ERROR_NOT_FOUND;
	server->display = wl_display_create();
	if (!server->display || !wl_global_create(server->display, &wl_compositor_interface, 4, server, bind_compositor) ||
	    !wl_global_create(server->display, &uda_allocation_manager_v1_interface, 1, server, bind_manager) ||
	    !wl_client_create(server->display, fd)) {
		uda_protocol_server_destroy(server);
		return NULL;
	}
	return server;
}

void uda_protocol_server_dispatch(struct uda_protocol_server *server)
{
	wl_event_loop_dispatch(wl_display_get_event_loop(server->display), 0);
	wl_display_flush_clients(server->display);
}

unsigned uda_protocol_server_buffers(const struct uda_protocol_server *server)
{
	return server->buffers;
}

uda_result uda_protocol_server_last_import(const struct uda_protocol_server *server)
{
	return server->last_import;
}

uda_allocation *uda_protocol_server_last_allocation(const struct uda_protocol_server *server)
{
	return server->last_allocation;
}

void uda_protocol_server_destroy(struct uda_protocol_server *server)
{
	if (!server)
		return;
	if (server->display) {
		wl_display_destroy_clients(server->display);
		wl_display_destroy(server->display);
	}
	uda_allocation_destroy(server->last_allocation);
	free(server);
}
