/* zero_copy_compositor.h: uda's own protocol, served from a thread. */
#include <drm_fourcc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>

#include <uda/uda_wayland_server.h>

#include "uda-allocation-v1-server-protocol.h"
#include "zero_copy_compositor.h"

struct zero_copy_compositor {
	pthread_t thread;
	bool running;
	int stop_fd;
	struct wl_event_source *stop_source;
	struct wl_display *display;
	char folder[64], socket[128];
	uda_context *ctx;
	uda_device *vulkan;
	uda_capability_set_list *sets;
	uint32_t width, height;
	pthread_mutex_t lock; /* guards what the test reads */
	uint8_t pixel[4];
	bool has_pixel;
	unsigned frames, refused;
};

struct surface {
	struct zero_copy_compositor *compositor;
	struct wl_resource *pending, *current; /* wl_buffers */
	struct wl_resource *callbacks[16];     /* frame callbacks until the next commit */
	unsigned callback_count;
};

static void destroy_request(struct wl_client *client, struct wl_resource *resource)
{
	(void)client;
	wl_resource_destroy(resource);
}

/* ---- wl_buffer of an imported allocation ---- */

static const struct wl_buffer_interface buffer_impl = {.destroy = destroy_request};

static void buffer_gone(struct wl_resource *resource)
{
	uda_allocation_destroy(wl_resource_get_user_data(resource));
}

/* ---- wl_surface ---- */

static void surface_attach(struct wl_client *client, struct wl_resource *resource, struct wl_resource *buffer,
                           int32_t x, int32_t y)
{
	(void)client;
	(void)x;
	(void)y;
	struct surface *surface = wl_resource_get_user_data(resource);
	surface->pending = buffer;
}

static void surface_damage(struct wl_client *client, struct wl_resource *resource, int32_t x, int32_t y,
                           int32_t width, int32_t height)
{
	(void)client;
	(void)resource;
	(void)x;
	(void)y;
	(void)width;
	(void)height;
}

/* A callback may go before its surface (the client disconnects): it
 * leaves the surface's list itself. */
static void callback_gone(struct wl_resource *callback)
{
	struct surface *surface = wl_resource_get_user_data(callback);
	for (unsigned i = 0; surface && i < surface->callback_count; i++) {
		if (surface->callbacks[i] == callback)
			surface->callbacks[i] = surface->callbacks[--surface->callback_count];
	}
}

static void surface_frame(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct surface *surface = wl_resource_get_user_data(resource);
	struct wl_resource *callback = wl_resource_create(client, &wl_callback_interface, 1, id);
	if (!callback || surface->callback_count == 16) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(callback, NULL, surface, callback_gone);
	surface->callbacks[surface->callback_count++] = callback;
}

static void surface_region(struct wl_client *client, struct wl_resource *resource, struct wl_resource *region)
{
	(void)client;
	(void)resource;
	(void)region;
}

/* The frame is what the buffer holds now: read through the import, no
 * copy on the way. */
static void read_centre(struct zero_copy_compositor *compositor, uda_allocation *allocation)
{
	uda_allocation_metadata metadata = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	void *pixels = NULL;
	if (uda_allocation_get_metadata(allocation, &metadata) != UDA_SUCCESS ||
	    uda_allocation_map(allocation, UDA_ACCESS_READ, &pixels) != UDA_SUCCESS)
		return;
	uda_allocation_begin_cpu_access(allocation, UDA_ACCESS_READ);
	const uint8_t *p = (const uint8_t *)pixels + metadata.planes[0].offset +
	                   (metadata.height / 2) * metadata.planes[0].pitch + (metadata.width / 2) * 4u;
	pthread_mutex_lock(&compositor->lock);
	memcpy(compositor->pixel, p, 4);
	compositor->has_pixel = true;
	compositor->frames++;
	pthread_mutex_unlock(&compositor->lock);
	uda_allocation_end_cpu_access(allocation, UDA_ACCESS_READ);
	uda_allocation_unmap(allocation);
}

static void surface_commit(struct wl_client *client, struct wl_resource *resource)
{
	(void)client;
	struct surface *surface = wl_resource_get_user_data(resource);
	if (surface->pending) {
		read_centre(surface->compositor, wl_resource_get_user_data(surface->pending));
		if (surface->current && surface->current != surface->pending)
			wl_buffer_send_release(surface->current);
		surface->current = surface->pending;
		surface->pending = NULL;
	}
	while (surface->callback_count) {
		struct wl_resource *callback = surface->callbacks[0];
		wl_callback_send_done(callback, 0);
		wl_resource_destroy(callback); /* callback_gone takes it off the list */
	}
}

static void surface_transform(struct wl_client *client, struct wl_resource *resource, int32_t value)
{
	(void)client;
	(void)resource;
	(void)value;
}

static const struct wl_surface_interface surface_impl = {
	.destroy = destroy_request,
	.attach = surface_attach,
	.damage = surface_damage,
	.frame = surface_frame,
	.set_opaque_region = surface_region,
	.set_input_region = surface_region,
	.commit = surface_commit,
	.set_buffer_transform = surface_transform,
	.set_buffer_scale = surface_transform,
	.damage_buffer = surface_damage,
};

static void surface_gone(struct wl_resource *resource)
{
	struct surface *surface = wl_resource_get_user_data(resource);
	/* Callbacks that outlive it forget it. */
	for (unsigned i = 0; i < surface->callback_count; i++)
		wl_resource_set_user_data(surface->callbacks[i], NULL);
	free(surface);
}

static void create_surface(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct surface *surface = calloc(1, sizeof(*surface));
	struct wl_resource *object =
	        surface ? wl_resource_create(client, &wl_surface_interface, wl_resource_get_version(resource), id) : NULL;
	if (!object) {
		free(surface);
		wl_client_post_no_memory(client);
		return;
	}
	surface->compositor = wl_resource_get_user_data(resource);
	wl_resource_set_implementation(object, &surface_impl, surface, surface_gone);
}

static void create_region(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	(void)resource;
	(void)id;
	wl_client_post_implementation_error(client, "no regions here");
}

static const struct wl_compositor_interface compositor_impl = {
	.create_surface = create_surface,
	.create_region = create_region,
};

static void bind_compositor(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &wl_compositor_interface, (int)version, id);
	if (resource)
		wl_resource_set_implementation(resource, &compositor_impl, data, NULL);
}

/* ---- uda_allocation_manager_v1 ---- */

static const struct uda_surface_sets_v1_interface sets_impl = {.destroy = destroy_request};

static void get_surface_sets(struct wl_client *client, struct wl_resource *resource, uint32_t id,
                             struct wl_resource *wl_surface)
{
	(void)wl_surface;
	struct zero_copy_compositor *compositor = wl_resource_get_user_data(resource);
	struct wl_resource *sets = wl_resource_create(client, &uda_surface_sets_v1_interface, 1, id);
	if (!sets)
		return;
	wl_resource_set_implementation(sets, &sets_impl, compositor, NULL);
	uda_wayland_surface_sets_send_format(sets, DRM_FORMAT_ABGR8888, compositor->sets);
	uda_wayland_surface_sets_send_done(sets);
}

static void create_buffer(struct wl_client *client, struct wl_resource *resource, uint32_t id, int32_t fd,
                          struct wl_array *metadata)
{
	struct zero_copy_compositor *compositor = wl_resource_get_user_data(resource);
	uda_allocation *allocation = NULL;
	uda_result result =
	        uda_wayland_import_buffer(compositor->sets, compositor->vulkan, fd, metadata->data, metadata->size,
	                                  &allocation);
	close(fd);
	if (result != UDA_SUCCESS) {
		pthread_mutex_lock(&compositor->lock);
		compositor->refused++;
		pthread_mutex_unlock(&compositor->lock);
		wl_resource_post_error(resource,
		                       result == UDA_ERROR_INVALID_DATA ? UDA_ALLOCATION_MANAGER_V1_ERROR_INVALID_METADATA
		                                                        : UDA_ALLOCATION_MANAGER_V1_ERROR_INVALID_FD,
		                       "%s", uda_context_get_error(compositor->ctx));
		return;
	}
	struct wl_resource *buffer = wl_resource_create(client, &wl_buffer_interface, 1, id);
	if (!buffer) {
		uda_allocation_destroy(allocation);
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(buffer, &buffer_impl, allocation, buffer_gone);
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

/* ---- The thread ---- */

static int stop_requested(int fd, uint32_t mask, void *data)
{
	(void)fd;
	(void)mask;
	wl_display_terminate(((struct zero_copy_compositor *)data)->display);
	return 0;
}

static void *serve(void *data)
{
	wl_display_run(((struct zero_copy_compositor *)data)->display);
	return NULL;
}

/* The sets of what the compositor does with a frame: its Vulkan device
 * samples it, and here the CPU reads it back too. */
static bool make_sets(struct zero_copy_compositor *compositor)
{
	uint32_t count = 0;
	uda_device *devices[16];
	count = 16;
	if (uda_context_enumerate_devices(compositor->ctx, &count, devices) != UDA_SUCCESS)
		return false;
	for (uint32_t i = 0; i < count && !compositor->vulkan; i++) {
		uda_device_info info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
		if (uda_device_get_info(devices[i], &info) == UDA_SUCCESS && info.api == UDA_DEVICE_API_VULKAN)
			compositor->vulkan = devices[i];
	}
	if (!compositor->vulkan)
		return false;
	static const uint8_t often[4] = {UDA_CPU_ACCESS_OFTEN, 0, 0, 0};
	const uda_usage_atom atoms[] = {{UDA_VENDOR_NONE, UDA_USAGE_SAMPLED, 0, NULL},
	                                {UDA_VENDOR_NONE, UDA_USAGE_CPU_READ, sizeof(often), often}};
	const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 2, atoms};
	const uda_device_usage reader = {compositor->vulkan, &usage};
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, compositor->width, compositor->height,
	                                 DRM_FORMAT_ABGR8888, 0};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, NULL, &assertion, 1, &reader};
	return uda_negotiate(compositor->ctx, &info, &compositor->sets) == UDA_SUCCESS;
}

static int listen_on(struct zero_copy_compositor *compositor)
{
	snprintf(compositor->folder, sizeof(compositor->folder), "/tmp/uda-zero-copy-XXXXXX");
	if (!mkdtemp(compositor->folder))
		return -1;
	snprintf(compositor->socket, sizeof(compositor->socket), "%s/wayland-0", compositor->folder);
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	if (strlen(compositor->socket) >= sizeof(address.sun_path))
		return -1;
	memcpy(address.sun_path, compositor->socket, strlen(compositor->socket) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&address, sizeof(address)) != 0 || listen(fd, 4) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

struct zero_copy_compositor *zero_copy_compositor_start(uint32_t width, uint32_t height)
{
	struct zero_copy_compositor *compositor = calloc(1, sizeof(*compositor));
	if (!compositor)
		return NULL;
	compositor->width = width;
	compositor->height = height;
	compositor->stop_fd = -1;
	pthread_mutex_init(&compositor->lock, NULL);
	int listen_fd = -1;
	bool ok = uda_context_create(NULL, &compositor->ctx) == UDA_SUCCESS && make_sets(compositor) &&
	          (compositor->display = wl_display_create()) &&
	          wl_global_create(compositor->display, &wl_compositor_interface, 4, compositor, bind_compositor) &&
	          wl_global_create(compositor->display, &uda_allocation_manager_v1_interface, 1, compositor,
	                           bind_manager) &&
	          (listen_fd = listen_on(compositor)) >= 0 && wl_display_add_socket_fd(compositor->display, listen_fd) == 0;
	if (ok) {
		listen_fd = -1; /* the display's now */
		compositor->stop_fd = eventfd(0, EFD_CLOEXEC);
		compositor->stop_source = compositor->stop_fd < 0
		                                  ? NULL
		                                  : wl_event_loop_add_fd(wl_display_get_event_loop(compositor->display),
		                                                         compositor->stop_fd, WL_EVENT_READABLE,
		                                                         stop_requested, compositor);
		ok = compositor->stop_source && pthread_create(&compositor->thread, NULL, serve, compositor) == 0;
		compositor->running = ok;
	}
	if (listen_fd >= 0)
		close(listen_fd);
	if (!ok) {
		zero_copy_compositor_stop(compositor);
		return NULL;
	}
	return compositor;
}

const char *zero_copy_compositor_socket(const struct zero_copy_compositor *compositor)
{
	return compositor->socket;
}

bool zero_copy_compositor_last_pixel(struct zero_copy_compositor *compositor, uint8_t out_rgba[4])
{
	pthread_mutex_lock(&compositor->lock);
	bool has = compositor->has_pixel;
	memcpy(out_rgba, compositor->pixel, 4);
	pthread_mutex_unlock(&compositor->lock);
	return has;
}

unsigned zero_copy_compositor_frames(struct zero_copy_compositor *compositor)
{
	pthread_mutex_lock(&compositor->lock);
	unsigned frames = compositor->frames;
	pthread_mutex_unlock(&compositor->lock);
	return frames;
}

unsigned zero_copy_compositor_refused(struct zero_copy_compositor *compositor)
{
	pthread_mutex_lock(&compositor->lock);
	unsigned refused = compositor->refused;
	pthread_mutex_unlock(&compositor->lock);
	return refused;
}

void zero_copy_compositor_stop(struct zero_copy_compositor *compositor)
{
	if (!compositor)
		return;
	if (compositor->running) {
		uint64_t one = 1;
		if (write(compositor->stop_fd, &one, sizeof(one)) == sizeof(one))
			pthread_join(compositor->thread, NULL);
	}
	if (compositor->stop_source)
		wl_event_source_remove(compositor->stop_source);
	if (compositor->display) {
		wl_display_destroy_clients(compositor->display);
		wl_display_destroy(compositor->display);
	}
	if (compositor->stop_fd >= 0)
		close(compositor->stop_fd);
	uda_capability_set_list_destroy(compositor->sets);
	uda_context_destroy(compositor->ctx);
	if (compositor->socket[0])
		unlink(compositor->socket);
	if (compositor->folder[0])
		rmdir(compositor->folder);
	pthread_mutex_destroy(&compositor->lock);
	free(compositor);
}
