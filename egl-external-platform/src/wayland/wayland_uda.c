/* uda's own protocol on the client's side (wayland/protocol/uda-allocation-
 * v1.xml): the compositor's whole capability sets for a surface (its
 * receiver: wayland_uda_sets.c), and wl_buffers of allocations sent with
 * their metadata. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uda/uda_backend.h> /* uda_backend_set_has_u32 */

#include "uda-allocation-v1-client-protocol.h"
#include "wayland_platform.h"

static void on_format_sets(void *data, struct uda_surface_sets_v1 *object, uint32_t format, int32_t fd, uint32_t size)
{
	(void)object;
	uda_sets_receiver_format_sets(data, format, fd, size);
}

static void on_done(void *data, struct uda_surface_sets_v1 *object)
{
	(void)object;
	struct uda_sets_receiver *receiver = data;
	const bool broken = receiver->broken;
	uda_sets_receiver_done(receiver);
	if (broken)
		platform_debug("Wayland: the compositor sent capability sets uda cannot read; they are not used");
}

static const struct uda_surface_sets_v1_listener sets_events = {
	.format_sets = on_format_sets,
	.done = on_done,
};

void wayland_uda_bind(struct wayland_display *wayland, struct wl_registry *registry, uint32_t name)
{
	if (!wayland->uda_manager)
		wayland->uda_manager = wl_registry_bind(registry, name, &uda_allocation_manager_v1_interface, 1);
}

void wayland_uda_unbind(struct wayland_display *wayland)
{
	if (wayland->uda_manager)
		uda_allocation_manager_v1_destroy(wayland->uda_manager);
	wayland->uda_manager = NULL;
}

bool wayland_uda_listen(struct wayland_window *window)
{
	struct wayland_display *wayland = window->wayland;
	uda_sets_receiver_init(&window->uda_sets, wayland->context);
	if (!window->uda_manager)
		return false;
	window->uda_sets_object = uda_allocation_manager_v1_get_surface_sets(window->uda_manager, window->wl_surface);
	if (!window->uda_sets_object)
		return false;
	uda_surface_sets_v1_add_listener(window->uda_sets_object, &sets_events, &window->uda_sets);
	return true;
}

void wayland_uda_stop(struct wayland_window *window)
{
	if (window->uda_sets_object)
		uda_surface_sets_v1_destroy(window->uda_sets_object);
	window->uda_sets_object = NULL;
	uda_sets_receiver_finish(&window->uda_sets);
}

/* The handle the memory travels as: the first the allocation's set
 * carries, in uda's order of preference (DMA-BUF, then the driver's
 * opaque fd, then host memory). */
static uda_handle_type handle_of(uda_allocation *allocation)
{
	static const uda_handle_type preferred[] = {UDA_HANDLE_TYPE_DMA_BUF, UDA_HANDLE_TYPE_OPAQUE_FD,
	                                            UDA_HANDLE_TYPE_MEMFD};
	const uda_capability_set_list *set = NULL;
	if (uda_allocation_get_capability_set(allocation, &set) != UDA_SUCCESS)
		return UDA_HANDLE_TYPE_NONE;
	for (size_t i = 0; i < sizeof(preferred) / sizeof(preferred[0]); i++) {
		if (uda_backend_set_has_u32(set, 0, UDA_CAPABILITY_HANDLE, preferred[i]))
			return preferred[i];
	}
	return UDA_HANDLE_TYPE_NONE;
}

struct wl_buffer *wayland_uda_create_buffer(struct wayland_window *window, uda_allocation *allocation)
{
	struct wayland_display *wayland = window->wayland;
	const uda_handle_type handle = handle_of(allocation);
	size_t size = 0;
	if (handle == UDA_HANDLE_TYPE_NONE)
		return NULL;
	uda_result result = uda_allocation_serialize_metadata(allocation, handle, NULL, 0, &size);
	if (result != UDA_SUCCESS && result != UDA_ERROR_BUFFER_TOO_SMALL)
		return NULL;
	void *bytes = malloc(size ? size : 1);
	int fd = -1;
	struct wl_buffer *buffer = NULL;
	if (bytes && uda_allocation_serialize_metadata(allocation, handle, bytes, size, &size) == UDA_SUCCESS &&
	    uda_allocation_export(allocation, handle, &fd) == UDA_SUCCESS) {
		struct wl_array metadata = {.size = size, .alloc = size, .data = bytes};
		buffer = window->uda_manager ? uda_allocation_manager_v1_create_buffer(window->uda_manager, fd, &metadata)
		                             : NULL;
	}
	if (fd >= 0)
		close(fd); /* the request carries its own copy */
	free(bytes);
	if (!buffer)
		platform_debug("Wayland: a buffer could not be sent through uda's protocol: %s",
		               uda_context_get_error(wayland->context));
	return buffer;
}
