/* The wl_buffers the compositor makes of uda allocations (uda's
 * create_buffer, linux-dmabuf's create and create_immed). A buffer lives
 * while the client has it or a surface shows it: a client may destroy a
 * buffer the compositor still shows, and the window keeps its picture. */
#include <stdlib.h>
#include <wayland-server-protocol.h>

#include "compositor.h"
#include "renderer.h"

static void free_buffer(struct client_buffer *buffer)
{
	renderer_image_destroy(buffer->compositor->renderer, buffer->image);
	uda_allocation_destroy(buffer->allocation);
	free(buffer);
}

static const struct wl_buffer_interface buffer_impl = {.destroy = compositor_destroy_request};

static void buffer_resource_gone(struct wl_resource *resource)
{
	struct client_buffer *buffer = wl_resource_get_user_data(resource);
	buffer->resource = NULL;
	if (buffer->owner)
		client_state_count(buffer->owner, &buffer->owner->buffers, -1);
	buffer->owner = NULL;
	if (!buffer->holds)
		free_buffer(buffer);
}

struct client_buffer *client_buffer_create(struct compositor *compositor, struct wl_client *client, uint32_t id,
                                           uda_allocation *allocation, const char *path, const char **out_problem)
{
	struct client_state *owner = client_state_get(client);
	struct client_buffer *buffer = NULL;
	*out_problem = NULL;
	if (owner && owner->buffers >= CLIENT_MAX_BUFFERS)
		*out_problem = "the client holds as many buffers as the compositor keeps";
	else if (!(buffer = calloc(1, sizeof(*buffer))))
		*out_problem = "out of memory";
	if (!buffer) {
		uda_allocation_destroy(allocation);
		return NULL;
	}
	buffer->compositor = compositor;
	buffer->allocation = allocation;
	buffer->path = path;
	buffer->image = renderer_image_create(compositor->renderer, allocation, out_problem);
	buffer->resource = buffer->image ? wl_resource_create(client, &wl_buffer_interface, 1, id) : NULL;
	if (!buffer->resource) {
		if (!*out_problem)
			*out_problem = "out of memory";
		free_buffer(buffer);
		return NULL;
	}
	uda_allocation_metadata metadata = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	uda_allocation_get_metadata(allocation, &metadata);
	buffer->width = metadata.width;
	buffer->height = metadata.height;
	buffer->owner = owner;
	if (owner)
		client_state_count(owner, &owner->buffers, +1);
	wl_resource_set_implementation(buffer->resource, &buffer_impl, buffer, buffer_resource_gone);
	return buffer;
}

struct client_buffer *client_buffer_from_resource(struct wl_resource *resource)
{
	if (!resource || !wl_resource_instance_of(resource, &wl_buffer_interface, &buffer_impl))
		return NULL;
	return wl_resource_get_user_data(resource);
}

void client_buffer_hold(struct client_buffer *buffer)
{
	buffer->holds++;
}

void client_buffer_drop(struct client_buffer *buffer)
{
	if (!buffer || --buffer->holds)
		return;
	if (buffer->resource)
		wl_buffer_send_release(buffer->resource);
	else
		free_buffer(buffer);
}
