/* uda_wayland_feedback_send: the feedback's events on a
 * zwp_linux_dmabuf_feedback_v1 resource. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-server-core.h>

#include <uda/uda_wayland_server.h>

#include "linux-dmabuf-unstable-v1-server-protocol.h"

static void send_dev_t(struct wl_resource *resource, dev_t device,
                       void (*send)(struct wl_resource *, struct wl_array *))
{
	struct wl_array array = {.size = sizeof(device), .alloc = sizeof(device), .data = &device};
	send(resource, &array);
}

uda_result uda_wayland_feedback_send(const uda_wayland_feedback *feedback, struct wl_resource *resource,
                                     uint32_t display_index)
{
	if (!feedback || !resource)
		return UDA_ERROR_INVALID_ARGUMENT;
	dev_t main_device = 0;
	uda_result result = uda_wayland_feedback_get_main_device(feedback, &main_device);
	if (result != UDA_SUCCESS)
		return result; /* version 4 feedback names a device */
	uda_wayland_tranche tranches[2];
	uint32_t count = 2;
	result = uda_wayland_feedback_get_tranches(feedback, display_index, &count, tranches);
	if (result != UDA_SUCCESS)
		return result;
	int fd = -1;
	uint32_t size = 0;
	result = uda_wayland_feedback_get_format_table(feedback, &fd, &size);
	if (result != UDA_SUCCESS)
		return result;
	/* libwayland sends a copy of the descriptor. */
	zwp_linux_dmabuf_feedback_v1_send_format_table(resource, fd, size);
	close(fd);
	send_dev_t(resource, main_device, zwp_linux_dmabuf_feedback_v1_send_main_device);
	for (uint32_t i = 0; i < count; i++) {
		send_dev_t(resource, tranches[i].target_device, zwp_linux_dmabuf_feedback_v1_send_tranche_target_device);
		struct wl_array indices = {
			.size = tranches[i].index_count * sizeof(uint16_t),
			.alloc = tranches[i].index_count * sizeof(uint16_t),
			.data = (void *)tranches[i].indices,
		};
		zwp_linux_dmabuf_feedback_v1_send_tranche_formats(resource, &indices);
		zwp_linux_dmabuf_feedback_v1_send_tranche_flags(resource, tranches[i].flags);
		zwp_linux_dmabuf_feedback_v1_send_tranche_done(resource);
	}
	zwp_linux_dmabuf_feedback_v1_send_done(resource);
	return UDA_SUCCESS;
}
