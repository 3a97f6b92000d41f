/* zwp_linux_dmabuf_v1: the feedback uda computes for the renderer's
 * device (version 4 where the device has a DRM node to name, version 3's
 * format and modifier events where it has none) and buffers imported with
 * uda_wayland_feedback_import_dmabuf's checks. A device that imports no
 * DMA-BUF (lavapipe) has no feedback: the global is left out, as Weston
 * leaves it out on a renderer without DMA-BUF import. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-server-protocol.h>

#include "compositor.h"
#include "linux-dmabuf-unstable-v1-server-protocol.h"

struct params {
	struct compositor *compositor;
	struct client_state *owner;
	uda_wayland_dmabuf_attributes attributes; /* planes[i].fd -1 until added */
	bool used;
};

static void close_planes(struct params *params)
{
	for (unsigned i = 0; i < UDA_MAX_PLANES; i++) {
		if (params->attributes.planes[i].fd >= 0)
			close(params->attributes.planes[i].fd);
		params->attributes.planes[i].fd = -1;
	}
}

static void params_gone(struct wl_resource *resource)
{
	struct params *params = wl_resource_get_user_data(resource);
	close_planes(params);
	if (params->owner)
		client_state_count(params->owner, &params->owner->dmabuf_params, -1);
	free(params);
}

static void params_add(struct wl_client *client, struct wl_resource *resource, int32_t fd, uint32_t plane_idx,
                       uint32_t offset, uint32_t stride, uint32_t modifier_hi, uint32_t modifier_lo)
{
	(void)client;
	struct params *params = wl_resource_get_user_data(resource);
	const uint64_t modifier = ((uint64_t)modifier_hi << 32) | modifier_lo;
	const char *problem = NULL;
	uint32_t error = 0;
	if (params->used) {
		error = ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_ALREADY_USED, problem = "the params were used already";
	} else if (plane_idx >= UDA_MAX_PLANES) {
		error = ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_PLANE_IDX, problem = "plane index out of range";
	} else if (params->attributes.planes[plane_idx].fd >= 0) {
		error = ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_PLANE_SET, problem = "that plane was added already";
	} else if (params->attributes.plane_count && params->attributes.modifier != modifier) {
		error = ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_FORMAT, problem = "planes with different modifiers";
	}
	if (problem) {
		close(fd);
		wl_resource_post_error(resource, error, "%s", problem);
		return;
	}
	params->attributes.planes[plane_idx] = (uda_wayland_dmabuf_plane){fd, offset, stride};
	params->attributes.modifier = modifier;
	params->attributes.plane_count++;
}

/* The import of params just used, planes all there. */
static struct client_buffer *import_used(struct wl_client *client, struct wl_resource *resource,
                                         struct params *params, uint32_t id, int32_t width, int32_t height,
                                         uint32_t format, bool immediate)
{
	struct compositor *compositor = params->compositor;
	params->attributes.width = width;
	params->attributes.height = height;
	params->attributes.format = format;
	uda_allocation *allocation = NULL;
	uint32_t protocol_error = 0;
	const char *problem = NULL;
	uda_result result = uda_wayland_feedback_import_dmabuf(compositor->feedback, &params->attributes, &allocation,
	                                                       &protocol_error);
	if (result == UDA_ERROR_INVALID_DATA) {
		wl_resource_post_error(resource, protocol_error, "%s", uda_context_get_error(compositor->ctx));
		return NULL;
	}
	struct client_buffer *buffer = NULL;
	if (result == UDA_SUCCESS)
		buffer = client_buffer_create(compositor, client, id, allocation, "linux-dmabuf", &problem);
	else
		problem = uda_context_get_error(compositor->ctx);
	if (!buffer) {
		fprintf(stderr, "uda-compositor: a DMA-BUF refused: %s\n", problem);
		if (immediate)
			wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_WL_BUFFER, "%s", problem);
		else
			zwp_linux_buffer_params_v1_send_failed(resource);
	}
	return buffer;
}

/* The planes added must be 0 .. n-1: the count says how many there are,
 * the import which the format needs. */
static struct client_buffer *import(struct wl_client *client, struct wl_resource *resource, uint32_t id,
                                    int32_t width, int32_t height, uint32_t format, bool immediate)
{
	struct params *params = wl_resource_get_user_data(resource);
	if (params->used) {
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_ALREADY_USED, "the params were used already");
		return NULL;
	}
	params->used = true;
	for (unsigned i = 0; i < params->attributes.plane_count; i++) {
		if (params->attributes.planes[i].fd < 0) {
			wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INCOMPLETE, "plane %u is missing", i);
			return NULL;
		}
	}
	/* Used params are done with their fds whatever comes of the import
	 * (which keeps what it needs): a client that never destroys them
	 * holds none of its descriptors here. */
	struct client_buffer *buffer = import_used(client, resource, params, id, width, height, format, immediate);
	close_planes(params);
	return buffer;
}

static void params_create(struct wl_client *client, struct wl_resource *resource, int32_t width, int32_t height,
                          uint32_t format, uint32_t flags)
{
	(void)flags; /* y-inverted, interlaced: a picture this compositor shows as it is */
	struct client_buffer *buffer = import(client, resource, 0, width, height, format, false);
	if (buffer)
		zwp_linux_buffer_params_v1_send_created(resource, buffer->resource);
}

static void params_create_immed(struct wl_client *client, struct wl_resource *resource, uint32_t buffer_id,
                                int32_t width, int32_t height, uint32_t format, uint32_t flags)
{
	(void)flags;
	import(client, resource, buffer_id, width, height, format, true);
}

static const struct zwp_linux_buffer_params_v1_interface params_impl = {
	.destroy = compositor_destroy_request,
	.add = params_add,
	.create = params_create,
	.create_immed = params_create_immed,
};

static void create_params(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct client_state *owner = client_state_get(client);
	if (owner && owner->dmabuf_params >= CLIENT_MAX_DMABUF_PARAMS) {
		wl_client_post_no_memory(client);
		return;
	}
	struct params *params = calloc(1, sizeof(*params));
	struct wl_resource *object =
	        params ? wl_resource_create(client, &zwp_linux_buffer_params_v1_interface,
	                                    wl_resource_get_version(resource), id)
	               : NULL;
	if (!object) {
		free(params);
		wl_client_post_no_memory(client);
		return;
	}
	params->compositor = wl_resource_get_user_data(resource);
	params->owner = owner;
	if (owner)
		client_state_count(owner, &owner->dmabuf_params, +1);
	params->attributes.type = UDA_STRUCTURE_TYPE_WAYLAND_DMABUF_ATTRIBUTES;
	for (unsigned i = 0; i < UDA_MAX_PLANES; i++)
		params->attributes.planes[i].fd = -1;
	wl_resource_set_implementation(object, &params_impl, params, params_gone);
}

static const struct zwp_linux_dmabuf_feedback_v1_interface feedback_impl = {.destroy = compositor_destroy_request};

/* No planes here: every surface gets the render tranche alone. */
static void get_feedback(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct compositor *compositor = wl_resource_get_user_data(resource);
	struct wl_resource *feedback = wl_resource_create(client, &zwp_linux_dmabuf_feedback_v1_interface,
	                                                  wl_resource_get_version(resource), id);
	if (!feedback) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(feedback, &feedback_impl, compositor, NULL);
	/* A feedback that cannot go out whole (no descriptor left for its
	 * table) would leave the client waiting for `done`. */
	if (uda_wayland_feedback_send(compositor->feedback, feedback, UDA_WAYLAND_NO_SCANOUT) != UDA_SUCCESS)
		wl_client_post_no_memory(client);
}

static void get_surface_feedback(struct wl_client *client, struct wl_resource *resource, uint32_t id,
                                 struct wl_resource *surface)
{
	(void)surface;
	get_feedback(client, resource, id);
}

static const struct zwp_linux_dmabuf_v1_interface dmabuf_impl = {
	.destroy = compositor_destroy_request,
	.create_params = create_params,
	.get_default_feedback = get_feedback,
	.get_surface_feedback = get_surface_feedback,
};

/* Version 3: the table's entries as format and modifier events. */
static void send_modifiers(struct compositor *compositor, struct wl_resource *resource)
{
	uint32_t format;
	uint64_t modifier;
	for (uint32_t i = 0;
	     uda_wayland_feedback_get_table_entry(compositor->feedback, i, &format, &modifier) == UDA_SUCCESS; i++) {
		if (wl_resource_get_version(resource) >= ZWP_LINUX_DMABUF_V1_MODIFIER_SINCE_VERSION)
			zwp_linux_dmabuf_v1_send_modifier(resource, format, (uint32_t)(modifier >> 32), (uint32_t)modifier);
		else
			zwp_linux_dmabuf_v1_send_format(resource, format);
	}
}

static void bind_dmabuf(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &zwp_linux_dmabuf_v1_interface, (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &dmabuf_impl, data, NULL);
	if (version < ZWP_LINUX_DMABUF_V1_GET_DEFAULT_FEEDBACK_SINCE_VERSION)
		send_modifiers(data, resource);
}

bool linux_dmabuf_global_create(struct compositor *compositor)
{
	if (!compositor->options.linux_dmabuf)
		return true;
	const uda_wayland_feedback_create_info info = {
		.type = UDA_STRUCTURE_TYPE_WAYLAND_FEEDBACK_CREATE_INFO,
		.render_device = compositor->device,
		.format_count = COMPOSITOR_FORMAT_COUNT,
		.formats = compositor_formats,
		.width = compositor->options.width,
		.height = compositor->options.height,
	};
	if (uda_wayland_feedback_create(compositor->ctx, &info, &compositor->feedback) != UDA_SUCCESS) {
		printf("uda-compositor: no linux-dmabuf: %s\n", uda_context_get_error(compositor->ctx));
		return true;
	}
	dev_t main_device;
	const int version = uda_wayland_feedback_get_main_device(compositor->feedback, &main_device) == UDA_SUCCESS ? 4 : 3;
	printf("uda-compositor: linux-dmabuf version %d%s\n", version,
	       version == 3 ? ": the device has no DRM node for feedback to name" : "");
	return wl_global_create(compositor->display, &zwp_linux_dmabuf_v1_interface, version, compositor, bind_dmabuf) !=
	       NULL;
}
