/* wl_compositor: surfaces, their double-buffered state, frame callbacks,
 * and regions (kept as objects; this compositor has no input, and its
 * windows are opaque blits). */
#include <stdio.h>
#include <stdlib.h>
#include <wayland-server-protocol.h>

#include "compositor.h"
#include "renderer.h"

#define SURFACE_MAX_CALLBACKS 64 /* frame callbacks not yet done: more is a flood */
/* A wl_shm buffer's side at most: what GL compositors' textures take
 * (GL_MAX_TEXTURE_SIZE is 8192 or more), and this output's largest. */
#define SURFACE_MAX_SHM_SIDE 8192u

/* ---- wl_region ---- */

static void region_rectangle(struct wl_client *client, struct wl_resource *resource, int32_t x, int32_t y,
                             int32_t width, int32_t height)
{
	(void)client;
	(void)resource;
	(void)x;
	(void)y;
	(void)width;
	(void)height;
}

static const struct wl_region_interface region_impl = {
	.destroy = compositor_destroy_request,
	.add = region_rectangle,
	.subtract = region_rectangle,
};

static void create_region(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct wl_resource *region = wl_resource_create(client, &wl_region_interface, 1, id);
	if (!region) {
		wl_resource_post_no_memory(resource);
		return;
	}
	wl_resource_set_implementation(region, &region_impl, NULL, NULL);
}

/* ---- wl_surface ---- */

static void forget_pending_buffer(struct surface *surface)
{
	if (surface->pending.buffer)
		wl_list_remove(&surface->pending.buffer_destroy.link);
	surface->pending.buffer = NULL;
}

/* A buffer destroyed between attach and commit: the commit detaches. */
static void pending_buffer_gone(struct wl_listener *listener, void *data)
{
	(void)data;
	struct surface *surface = wl_container_of(listener, surface, pending.buffer_destroy);
	wl_list_remove(&surface->pending.buffer_destroy.link);
	surface->pending.buffer = NULL;
}

static void surface_attach(struct wl_client *client, struct wl_resource *resource, struct wl_resource *buffer,
                           int32_t x, int32_t y)
{
	(void)client;
	struct surface *surface = wl_resource_get_user_data(resource);
	if ((x || y) && wl_resource_get_version(resource) >= 5) {
		wl_resource_post_error(resource, WL_SURFACE_ERROR_INVALID_OFFSET, "attach with an offset");
		return;
	}
	forget_pending_buffer(surface);
	surface->pending.attached = true;
	surface->pending.buffer = buffer;
	if (buffer) {
		surface->pending.buffer_destroy.notify = pending_buffer_gone;
		wl_resource_add_destroy_listener(buffer, &surface->pending.buffer_destroy);
	}
}

static void surface_damage(struct wl_client *client, struct wl_resource *resource, int32_t x, int32_t y,
                           int32_t width, int32_t height)
{
	/* Every repaint redraws the whole output. */
	(void)client;
	(void)resource;
	(void)x;
	(void)y;
	(void)width;
	(void)height;
}

static void callback_gone(struct wl_resource *callback)
{
	wl_list_remove(wl_resource_get_link(callback));
}

static void surface_frame(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct surface *surface = wl_resource_get_user_data(resource);
	/* Those committed count too: committing moves them out of `pending`
	 * until the next repaint, which a client must not outrun. */
	if (surface->pending.callback_count + (unsigned)wl_list_length(&surface->frame_callbacks) >=
	    SURFACE_MAX_CALLBACKS) {
		wl_client_post_no_memory(client);
		return;
	}
	struct wl_resource *callback = wl_resource_create(client, &wl_callback_interface, 1, id);
	if (!callback) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(callback, NULL, NULL, callback_gone);
	wl_list_insert(surface->pending.callbacks.prev, wl_resource_get_link(callback));
	surface->pending.callback_count++;
}

static void surface_set_region(struct wl_client *client, struct wl_resource *resource, struct wl_resource *region)
{
	(void)client;
	(void)resource;
	(void)region;
}

static void release_content(struct surface *surface)
{
	client_buffer_drop(surface->current);
	surface->current = NULL;
}

static void drop_shm_copy(struct surface *surface)
{
	renderer_image_destroy(surface->compositor->renderer, surface->shm_image);
	uda_allocation_destroy(surface->shm_copy);
	if (surface->owner)
		surface->owner->shm_bytes -= surface->shm_copy_bytes;
	surface->shm_image = NULL;
	surface->shm_copy = NULL;
	surface->shm_copy_bytes = 0;
}

/* The surface's copy of a wl_shm buffer of this size and format, made
 * anew when either changes. Checked before memory is made for it (a pool
 * may be a sparse file that costs the client nothing): rows that hold
 * their pixels (libwayland lets a stride of `width` bytes through), a
 * size a GL compositor's texture takes, and the client's budget. */
static bool shm_copy_for(struct surface *surface, struct wl_shm_buffer *shm, uint32_t format, uint32_t width,
                         uint32_t height)
{
	struct compositor *compositor = surface->compositor;
	uda_allocation_metadata metadata = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	if (surface->shm_copy && uda_allocation_get_metadata(surface->shm_copy, &metadata) == UDA_SUCCESS &&
	    metadata.width == width && metadata.height == height && metadata.format == format)
		return true;
	drop_shm_copy(surface);
	uda_format_info info;
	const uint64_t stride = (uint64_t)wl_shm_buffer_get_stride(shm);
	const bool known = uda_format_get_info(format, &info) == UDA_SUCCESS && info.plane_count == 1;
	const uint64_t row = known ? ((uint64_t)width + info.planes[0].block_width - 1) / info.planes[0].block_width *
	                                     info.planes[0].bytes_per_block
	                           : 0;
	const char *problem = !known                                                    ? "a format of more than one plane"
	                      : width > SURFACE_MAX_SHM_SIDE || height > SURFACE_MAX_SHM_SIDE ? "larger than a texture"
	                      : stride < row                                                  ? "rows shorter than their pixels"
	                      : surface->owner && surface->owner->shm_bytes + row * height > CLIENT_MAX_SHM_BYTES
	                              ? "past the client's budget for wl_shm copies"
	                              : NULL;
	if (problem) {
		fprintf(stderr, "uda-compositor: a %ux%u wl_shm buffer refused: %s\n", width, height, problem);
		return false;
	}
	if (renderer_allocate_upload(compositor->renderer, format, width, height, &surface->shm_copy) != UDA_SUCCESS) {
		fprintf(stderr, "uda-compositor: no memory for a %ux%u wl_shm window: %s\n", width, height,
		        uda_context_get_error(compositor->ctx));
		return false;
	}
	surface->shm_copy_bytes = uda_allocation_get_metadata(surface->shm_copy, &metadata) == UDA_SUCCESS
	                                  ? metadata.size
	                                  : row * height;
	if (surface->owner)
		surface->owner->shm_bytes += surface->shm_copy_bytes;
	surface->shm_image = renderer_image_create(compositor->renderer, surface->shm_copy, &problem);
	if (!surface->shm_image) {
		fprintf(stderr, "uda-compositor: a wl_shm window's copy: %s\n", problem);
		drop_shm_copy(surface);
		return false;
	}
	return true;
}

/* A wl_shm buffer: copied into the surface's own allocation and given
 * back at once, as a GL compositor uploads it into a texture. */
static bool take_shm(struct surface *surface, struct wl_shm_buffer *shm)
{
	struct compositor *compositor = surface->compositor;
	const uint32_t format = uda_wayland_shm_format_to_fourcc(wl_shm_buffer_get_format(shm));
	const uint32_t width = (uint32_t)wl_shm_buffer_get_width(shm), height = (uint32_t)wl_shm_buffer_get_height(shm);
	if (!shm_copy_for(surface, shm, format, width, height))
		return false;
	/* A pool the client shrank reads as zeros; libwayland then sends
	 * wl_shm's invalid_fd error and the client goes. A buffer the copy
	 * refuses (rows shorter than its pixels, which libwayland lets
	 * through) shows nothing rather than an old or unwritten frame. */
	if (uda_wayland_shm_copy(shm, surface->shm_copy) != UDA_SUCCESS) {
		fprintf(stderr, "uda-compositor: a wl_shm copy: %s\n", uda_context_get_error(compositor->ctx));
		drop_shm_copy(surface);
		return false;
	}
	surface->width = width;
	surface->height = height;
	return true;
}

static void surface_commit(struct wl_client *client, struct wl_resource *resource)
{
	struct surface *surface = wl_resource_get_user_data(resource);
	if (surface->pending.attached) {
		struct wl_resource *attached = surface->pending.buffer;
		struct client_buffer *ours = client_buffer_from_resource(attached);
		struct wl_shm_buffer *shm = attached ? wl_shm_buffer_get(attached) : NULL;
		forget_pending_buffer(surface);
		surface->pending.attached = false;
		if (attached && !ours && !shm) {
			/* wl_surface names no error for it: wl_display's, on
			 * wl_display (object 1), as libwayland posts its own. */
			wl_resource_post_error(wl_client_get_object(client, 1), WL_DISPLAY_ERROR_INVALID_OBJECT,
			                       "wl_buffer@%u is none this compositor made", wl_resource_get_id(attached));
			return;
		}
		/* The new buffer is held before the old one goes: committing
		 * the buffer on screen again must not release it. */
		if (ours)
			client_buffer_hold(ours);
		release_content(surface);
		surface->has_content = false;
		if (ours) {
			surface->current = ours;
			surface->width = ours->width;
			surface->height = ours->height;
			surface->has_content = true;
		} else if (shm) {
			surface->has_content = take_shm(surface, shm);
			wl_buffer_send_release(attached);
		}
	}
	wl_list_insert_list(surface->frame_callbacks.prev, &surface->pending.callbacks);
	wl_list_init(&surface->pending.callbacks);
	surface->pending.callback_count = 0;
	wl_signal_emit(&surface->commit, surface);
	if (surface->mapped || !wl_list_empty(&surface->frame_callbacks))
		output_schedule_repaint(surface->compositor);
}

/* Nothing here scales or turns a buffer; the values must still be ones
 * the protocol has. */
static void surface_set_transform(struct wl_client *client, struct wl_resource *resource, int32_t transform)
{
	(void)client;
	if (transform < WL_OUTPUT_TRANSFORM_NORMAL || transform > WL_OUTPUT_TRANSFORM_FLIPPED_270)
		wl_resource_post_error(resource, WL_SURFACE_ERROR_INVALID_TRANSFORM, "transform %d", transform);
}

static void surface_set_scale(struct wl_client *client, struct wl_resource *resource, int32_t scale)
{
	(void)client;
	if (scale < 1)
		wl_resource_post_error(resource, WL_SURFACE_ERROR_INVALID_SCALE, "scale %d", scale);
}

/* Version 5: where a resize moved the surface's origin, which attach no
 * longer carries. Windows here are laid side by side: nothing moves. */
static void surface_offset(struct wl_client *client, struct wl_resource *resource, int32_t x, int32_t y)
{
	(void)client;
	(void)resource;
	(void)x;
	(void)y;
}

static const struct wl_surface_interface surface_impl = {
	.destroy = compositor_destroy_request,
	.attach = surface_attach,
	.damage = surface_damage,
	.frame = surface_frame,
	.set_opaque_region = surface_set_region,
	.set_input_region = surface_set_region,
	.commit = surface_commit,
	.set_buffer_transform = surface_set_transform,
	.set_buffer_scale = surface_set_scale,
	.damage_buffer = surface_damage,
	.offset = surface_offset,
};

static void destroy_callbacks(struct wl_list *callbacks)
{
	struct wl_resource *callback, *next;
	wl_resource_for_each_safe(callback, next, callbacks)
		wl_resource_destroy(callback);
}

static void surface_gone(struct wl_resource *resource)
{
	struct surface *surface = wl_resource_get_user_data(resource);
	wl_signal_emit(&surface->destroy, surface);
	surface_unmap(surface);
	forget_pending_buffer(surface);
	destroy_callbacks(&surface->pending.callbacks);
	destroy_callbacks(&surface->frame_callbacks);
	release_content(surface);
	drop_shm_copy(surface);
	wl_list_remove(&surface->link);
	if (surface->owner)
		client_state_count(surface->owner, &surface->owner->surfaces, -1);
	free(surface);
}

static void create_surface(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct client_state *owner = client_state_get(client);
	if (owner && owner->surfaces >= CLIENT_MAX_SURFACES) {
		wl_client_post_no_memory(client);
		return;
	}
	struct surface *surface = calloc(1, sizeof(*surface));
	if (surface)
		surface->resource =
		        wl_resource_create(client, &wl_surface_interface, wl_resource_get_version(resource), id);
	if (!surface || !surface->resource) {
		free(surface);
		wl_client_post_no_memory(client);
		return;
	}
	surface->compositor = wl_resource_get_user_data(resource);
	surface->owner = owner;
	if (owner)
		client_state_count(owner, &owner->surfaces, +1);
	wl_list_init(&surface->pending.callbacks);
	wl_list_init(&surface->frame_callbacks);
	wl_list_init(&surface->window_link);
	wl_list_insert(&surface->compositor->surfaces, &surface->link);
	wl_signal_init(&surface->commit);
	wl_signal_init(&surface->destroy);
	wl_resource_set_implementation(surface->resource, &surface_impl, surface, surface_gone);
}

static const struct wl_compositor_interface compositor_impl = {
	.create_surface = create_surface,
	.create_region = create_region,
};

static void bind_compositor(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &wl_compositor_interface, (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &compositor_impl, data, NULL);
}

bool surface_global_create(struct compositor *compositor)
{
	return wl_global_create(compositor->display, &wl_compositor_interface, 5, compositor, bind_compositor) != NULL;
}

struct surface *surface_from_resource(struct wl_resource *resource)
{
	return wl_resource_instance_of(resource, &wl_surface_interface, &surface_impl)
	               ? wl_resource_get_user_data(resource)
	               : NULL;
}

struct renderer_image *surface_image(const struct surface *surface)
{
	if (!surface->has_content)
		return NULL;
	return surface->current ? surface->current->image : surface->shm_image;
}

const char *surface_content_path(const struct surface *surface)
{
	if (!surface->has_content)
		return "nothing";
	return surface->current ? surface->current->path : "wl_shm";
}

void surface_map(struct surface *surface)
{
	if (surface->mapped)
		return;
	surface->mapped = true;
	wl_list_insert(surface->compositor->windows.prev, &surface->window_link);
	output_schedule_repaint(surface->compositor);
}

void surface_unmap(struct surface *surface)
{
	if (!surface->mapped)
		return;
	surface->mapped = false;
	wl_list_remove(&surface->window_link);
	wl_list_init(&surface->window_link);
	output_schedule_repaint(surface->compositor);
}
