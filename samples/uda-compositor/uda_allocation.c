/* uda_allocation_manager_v1 (wayland/protocol/uda-allocation-v1.xml):
 * each surface is sent the capability sets the renderer reads buffers
 * with, one list per format; a client's buffer comes with its
 * allocation's metadata and is imported only if it meets them. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <wayland-server-protocol.h>

#include "compositor.h"
#include "uda-allocation-v1-server-protocol.h"

static const struct uda_surface_sets_v1_interface surface_sets_impl = {.destroy = compositor_destroy_request};

/* The readers are the same for every surface here (one renderer, no
 * planes): the whole group is sent once, at creation. */
static void get_surface_sets(struct wl_client *client, struct wl_resource *resource, uint32_t id,
                             struct wl_resource *surface)
{
	(void)surface;
	struct compositor *compositor = wl_resource_get_user_data(resource);
	struct wl_resource *sets = wl_resource_create(client, &uda_surface_sets_v1_interface, 1, id);
	if (!sets) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(sets, &surface_sets_impl, compositor, NULL);
	for (unsigned i = 0; i < COMPOSITOR_FORMAT_COUNT; i++) {
		if (compositor->reader_sets[i] &&
		    uda_wayland_surface_sets_send_format(sets, compositor_formats[i], compositor->reader_sets[i]) !=
		            UDA_SUCCESS)
			fprintf(stderr, "uda-compositor: cannot send the sets of format %u: %s\n", i,
			        uda_context_get_error(compositor->ctx));
	}
	uda_wayland_surface_sets_send_done(sets);
}

static void create_buffer(struct wl_client *client, struct wl_resource *resource, uint32_t id, int32_t fd,
                          struct wl_array *metadata)
{
	struct compositor *compositor = wl_resource_get_user_data(resource);
	/* Which format's sets to hold it to: the metadata says, and is read
	 * again, whole, by the import. */
	uda_allocation_metadata peek = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	uda_capability_set_list *claimed = NULL;
	const uda_capability_set_list *readers = NULL;
	uda_result result = uda_allocation_metadata_deserialize(compositor->ctx, metadata->data, metadata->size, &peek,
	                                                        &claimed);
	uda_capability_set_list_destroy(claimed);
	if (result == UDA_SUCCESS && !(readers = compositor_reader_sets(compositor, peek.format))) {
		close(fd);
		wl_resource_post_error(resource, UDA_ALLOCATION_MANAGER_V1_ERROR_INVALID_METADATA,
		                       "format 0x%08x was not offered", peek.format);
		return;
	}
	uda_allocation *allocation = NULL;
	if (result == UDA_SUCCESS)
		result = uda_wayland_import_buffer(readers, compositor->device, fd, metadata->data, metadata->size,
		                                   &allocation);
	close(fd);
	if (result != UDA_SUCCESS) {
		/* Metadata that cannot be read, or that names a layout the
		 * compositor never offered, is the metadata's fault; the rest
		 * (a short or foreign fd) the fd's. */
		const bool metadata_fault = result == UDA_ERROR_INVALID_DATA || result == UDA_ERROR_INCOMPATIBLE;
		wl_resource_post_error(resource,
		                       metadata_fault ? UDA_ALLOCATION_MANAGER_V1_ERROR_INVALID_METADATA
		                                      : UDA_ALLOCATION_MANAGER_V1_ERROR_INVALID_FD,
		                       "%s", uda_context_get_error(compositor->ctx));
		return;
	}
	/* Past the client's buffer limit, or out of memory: as every other
	 * limit here. */
	const char *problem = NULL;
	if (!client_buffer_create(compositor, client, id, allocation, "uda's protocol", &problem)) {
		fprintf(stderr, "uda-compositor: a buffer of uda's protocol refused: %s\n", problem ? problem : "?");
		wl_client_post_no_memory(client);
	}
}

static const struct uda_allocation_manager_v1_interface manager_impl = {
	.destroy = compositor_destroy_request,
	.get_surface_sets = get_surface_sets,
	.create_buffer = create_buffer,
};

static void bind_manager(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &uda_allocation_manager_v1_interface, (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &manager_impl, data, NULL);
}

bool uda_allocation_global_create(struct compositor *compositor)
{
	return wl_global_create(compositor->display, &uda_allocation_manager_v1_interface, 1, compositor,
	                        bind_manager) != NULL;
}
