/* A Wayland client that breaks the rules on purpose, one way per run, for
 * the test that uda-compositor answers with the protocol's error (or
 * drops the connection) and goes on serving everyone else.
 *   misbehaving-client MODE          (the compositor: $WAYLAND_DISPLAY)
 * Exits 0 when the compositor answered as expected, printing how.
 * MODE:
 *   garbage-metadata     uda create_buffer whose metadata is noise: invalid_metadata
 *   small-fd             real metadata, an fd far smaller than it says: invalid_fd
 *   unconfigured-buffer  a buffer committed before the first configure: xdg_surface error
 *   shrunk-pool          a wl_shm pool truncated under the compositor: wl_shm's invalid_fd
 *   flood                up to 100000 frame callbacks without a commit: no_memory
 *   malformed            bytes that are no Wayland message: the connection goes
 *   bad-dmabuf           linux-dmabuf params with plane 9 (plane_idx), where offered
 *   params-flood         linux-dmabuf params, each holding four fds, never used: no_memory
 *   gone-mid-frame       a window with a uda buffer committed, then gone at once
 *   stall                a window committed thousands of times, events never read
 *   role-outlives-surface  an xdg_surface asked for a toplevel after its wl_surface went:
 *                        made inert, no error, and the connection goes on
 *   xdg-surface-first    an xdg_surface destroyed before its toplevel: defunct_role_object
 *   commit-flood         frame callbacks asked for 64 at a time, each batch committed: no_memory
 *   wm-base-first        an xdg_wm_base destroyed before its xdg_surface: defunct_surfaces
 *   role-switch          a toplevel's wl_surface asked to be a popup through a new xdg_surface:
 *                        xdg_wm_base's role error
 *   huge-shm             a 16384x16384 wl_shm buffer on a sparse pool: refused without an error,
 *                        before the compositor makes memory for it (its log says so) */
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>

#include <uda/uda.h>

#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "uda-allocation-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

#define WIDTH 64
#define HEIGHT 48

struct globals {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct xdg_wm_base *wm_base;
	struct wl_shm *shm;
	struct uda_allocation_manager_v1 *uda;
	struct zwp_linux_dmabuf_v1 *dmabuf;
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	uint32_t configure_serial;
};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
                            uint32_t version)
{
	(void)version;
	struct globals *g = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0)
		g->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	else if (strcmp(interface, xdg_wm_base_interface.name) == 0)
		g->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
	else if (strcmp(interface, wl_shm_interface.name) == 0)
		g->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (strcmp(interface, uda_allocation_manager_v1_interface.name) == 0)
		g->uda = wl_registry_bind(registry, name, &uda_allocation_manager_v1_interface, 1);
	else if (strcmp(interface, zwp_linux_dmabuf_v1_interface.name) == 0)
		g->dmabuf = wl_registry_bind(registry, name, &zwp_linux_dmabuf_v1_interface, 3);
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
	(void)data;
	(void)registry;
	(void)name;
}

static const struct wl_registry_listener registry_listener = {registry_global, registry_global_remove};

static void configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	(void)xdg_surface;
	((struct globals *)data)->configure_serial = serial;
}

static const struct xdg_surface_listener xdg_surface_listener = {.configure = configure};

static void toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width, int32_t height,
                               struct wl_array *states)
{
	(void)data;
	(void)toplevel;
	(void)width;
	(void)height;
	(void)states;
}

static void toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
	(void)data;
	(void)toplevel;
}

static const struct xdg_toplevel_listener toplevel_listener = {.configure = toplevel_configure,
                                                               .close = toplevel_close};

static void connect_to_compositor(struct globals *g)
{
	g->display = wl_display_connect(NULL);
	if (!g->display) {
		fprintf(stderr, "misbehaving-client: no compositor\n");
		exit(1);
	}
	struct wl_registry *registry = wl_display_get_registry(g->display);
	wl_registry_add_listener(registry, &registry_listener, g);
	wl_display_roundtrip(g->display);
	if (!g->compositor || !g->wm_base || !g->shm) {
		fprintf(stderr, "misbehaving-client: the compositor lacks core globals\n");
		exit(1);
	}
}

/* A toplevel; configured (acked) unless `ack` is false. */
static void make_window(struct globals *g, bool ack)
{
	g->surface = wl_compositor_create_surface(g->compositor);
	g->xdg_surface = xdg_wm_base_get_xdg_surface(g->wm_base, g->surface);
	xdg_surface_add_listener(g->xdg_surface, &xdg_surface_listener, g);
	g->toplevel = xdg_surface_get_toplevel(g->xdg_surface);
	xdg_toplevel_add_listener(g->toplevel, &toplevel_listener, g);
	xdg_toplevel_set_title(g->toplevel, "misbehaving-client");
	if (!ack)
		return;
	wl_surface_commit(g->surface);
	while (!g->configure_serial && wl_display_dispatch(g->display) >= 0)
		;
	xdg_surface_ack_configure(g->xdg_surface, g->configure_serial);
}

static struct wl_buffer *shm_buffer(struct globals *g, int *out_fd)
{
	const int size = WIDTH * HEIGHT * 4;
	int fd = memfd_create("misbehaving-shm", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, size) != 0)
		exit(1);
	struct wl_shm_pool *pool = wl_shm_create_pool(g->shm, fd, size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, WIDTH, HEIGHT, WIDTH * 4, WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	*out_fd = fd;
	return buffer;
}

/* Real metadata of an allocation this process's Vulkan device makes for
 * what the compositor does (sample and blit), and its fd. */
static size_t real_metadata(uint8_t *out, size_t capacity, int *out_fd)
{
	uda_context *ctx;
	if (uda_context_create(NULL, &ctx) != UDA_SUCCESS)
		exit(1);
	uda_device *devices[16];
	uint32_t count = 16;
	uda_context_enumerate_devices(ctx, &count, devices);
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, WIDTH, HEIGHT, DRM_FORMAT_ABGR8888, 0};
	const uda_usage_atom atoms[] = {{UDA_VENDOR_NONE, UDA_USAGE_SAMPLED, 0, NULL},
	                                {UDA_VENDOR_NONE, UDA_USAGE_TRANSFER_SRC, 0, NULL}};
	const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 2, atoms};
	size_t size = 0;
	for (uint32_t i = 0; i < count && !size; i++) {
		uda_device_info info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
		uda_device_get_info(devices[i], &info);
		if (info.api != UDA_DEVICE_API_VULKAN)
			continue;
		const uda_device_usage entry = {devices[i], &usage};
		const uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, NULL, &assertion, 1, &entry};
		uda_allocation *allocation = NULL;
		/* The handle the set names: OPAQUE_FD on lavapipe, a DMA-BUF on
		 * a GPU with modifiers. */
		uda_handle_type handle = UDA_HANDLE_TYPE_OPAQUE_FD;
		if (uda_negotiate_allocate(ctx, &negotiation, &allocation, NULL, NULL) != UDA_SUCCESS ||
		    (uda_allocation_export(allocation, handle, out_fd) != UDA_SUCCESS &&
		     uda_allocation_export(allocation, handle = UDA_HANDLE_TYPE_DMA_BUF, out_fd) != UDA_SUCCESS) ||
		    uda_allocation_serialize_metadata(allocation, handle, out, capacity, &size) != UDA_SUCCESS)
			size = 0;
		uda_allocation_destroy(allocation);
	}
	uda_context_destroy(ctx);
	if (!size) {
		fprintf(stderr, "misbehaving-client: no allocation to take metadata from\n");
		exit(1);
	}
	return size;
}

static struct wl_buffer *uda_buffer(struct globals *g, const uint8_t *metadata, size_t size, int fd)
{
	if (!g->uda) {
		fprintf(stderr, "misbehaving-client: the compositor does not offer uda's protocol\n");
		exit(1);
	}
	struct wl_array array = {.size = size, .alloc = size, .data = (void *)metadata};
	return uda_allocation_manager_v1_create_buffer(g->uda, fd, &array);
}

/* Runs until the connection fails; 0 when it failed with `code` on
 * `interface` (NULL: any error, or the connection simply closed). */
static int expect_error(struct globals *g, const char *mode, const struct wl_interface *interface, uint32_t code)
{
	while (wl_display_roundtrip(g->display) >= 0)
		;
	const struct wl_interface *got_interface = NULL;
	uint32_t id = 0;
	const int error = wl_display_get_error(g->display);
	const uint32_t got_code = error == EPROTO ? wl_display_get_protocol_error(g->display, &got_interface, &id) : 0;
	/* libwayland-client reads wl_display's own errors as errno values. */
	const bool no_memory = interface == &wl_display_interface && code == WL_DISPLAY_ERROR_NO_MEMORY;
	const bool as_expected = no_memory   ? error == ENOMEM
	                         : interface ? error == EPROTO && got_interface == interface && got_code == code
	                                     : error != 0;
	printf("misbehaving-client: %s: %s %u on %s%s\n", mode, error == EPROTO ? "protocol error" : "connection error",
	       error == EPROTO ? got_code : (uint32_t)error, got_interface ? got_interface->name : "the connection",
	       as_expected ? ", as expected" : ", NOT what was expected");
	return as_expected ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: misbehaving-client MODE\n");
		return 2;
	}
	const char *mode = argv[1];
	struct globals g = {0};
	/* The real allocation first: GPU start-up is not the compositor's time. */
	uint8_t metadata[4096];
	size_t metadata_size = 0;
	int real_fd = -1;
	if (strcmp(mode, "small-fd") == 0 || strcmp(mode, "gone-mid-frame") == 0)
		metadata_size = real_metadata(metadata, sizeof(metadata), &real_fd);
	connect_to_compositor(&g);
	int fd = -1;
	if (strcmp(mode, "garbage-metadata") == 0) {
		for (size_t i = 0; i < 200; i++)
			metadata[i] = (uint8_t)(i * 37 + 11);
		fd = memfd_create("garbage", MFD_CLOEXEC);
		uda_buffer(&g, metadata, 200, fd);
		return expect_error(&g, mode, &uda_allocation_manager_v1_interface,
		                    UDA_ALLOCATION_MANAGER_V1_ERROR_INVALID_METADATA);
	}
	if (strcmp(mode, "small-fd") == 0) {
		fd = memfd_create("small", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, 4096) != 0) /* far less than the metadata says */
			return 1;
		uda_buffer(&g, metadata, metadata_size, fd);
		return expect_error(&g, mode, &uda_allocation_manager_v1_interface,
		                    UDA_ALLOCATION_MANAGER_V1_ERROR_INVALID_FD);
	}
	if (strcmp(mode, "unconfigured-buffer") == 0) {
		make_window(&g, false);
		wl_surface_attach(g.surface, shm_buffer(&g, &fd), 0, 0);
		wl_surface_commit(g.surface);
		return expect_error(&g, mode, &xdg_surface_interface, XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER);
	}
	if (strcmp(mode, "shrunk-pool") == 0) {
		make_window(&g, true);
		struct wl_buffer *buffer = shm_buffer(&g, &fd);
		if (ftruncate(fd, 0) != 0) /* the compositor's mapping now ends at 0 */
			return 1;
		wl_surface_attach(g.surface, buffer, 0, 0);
		wl_surface_commit(g.surface);
		return expect_error(&g, mode, &wl_buffer_interface, WL_SHM_ERROR_INVALID_FD); /* libwayland posts it on the buffer */
	}
	if (strcmp(mode, "flood") == 0) {
		make_window(&g, true);
		/* In batches, each followed by a roundtrip, so that the error
		 * is read before a write meets the closed socket. */
		for (int i = 1; i <= 100000; i++) {
			wl_surface_frame(g.surface);
			if (i % 50 == 0 && wl_display_roundtrip(g.display) < 0)
				break;
		}
		return expect_error(&g, mode, &wl_display_interface, WL_DISPLAY_ERROR_NO_MEMORY);
	}
	if (strcmp(mode, "malformed") == 0) {
		const uint32_t noise[4] = {0xdeadbeef, 0x00080000, 0x12345678, 0x9abcdef0};
		if (write(wl_display_get_fd(g.display), noise, sizeof(noise)) != (ssize_t)sizeof(noise))
			return 1;
		return expect_error(&g, mode, NULL, 0);
	}
	if (strcmp(mode, "bad-dmabuf") == 0) {
		if (!g.dmabuf) {
			printf("misbehaving-client: %s: no linux-dmabuf here, nothing to break\n", mode);
			return 0;
		}
		fd = memfd_create("dmabuf", MFD_CLOEXEC);
		struct zwp_linux_buffer_params_v1 *params = zwp_linux_dmabuf_v1_create_params(g.dmabuf);
		zwp_linux_buffer_params_v1_add(params, fd, 9, 0, WIDTH * 4, 0, 0);
		return expect_error(&g, mode, &zwp_linux_buffer_params_v1_interface,
		                    ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_PLANE_IDX);
	}
	if (strcmp(mode, "params-flood") == 0) {
		if (!g.dmabuf) {
			printf("misbehaving-client: %s: no linux-dmabuf here, nothing to flood\n", mode);
			return 0;
		}
		/* Each params object keeps its fds in the compositor until it is
		 * used or destroyed; 1000 of them would be 4000 descriptors. */
		fd = memfd_create("dmabuf", MFD_CLOEXEC);
		for (int i = 1; i <= 1000; i++) {
			struct zwp_linux_buffer_params_v1 *params = zwp_linux_dmabuf_v1_create_params(g.dmabuf);
			for (uint32_t plane = 0; plane < 4; plane++)
				zwp_linux_buffer_params_v1_add(params, fd, plane, 0, WIDTH * 4, 0, 0);
			if (i % 8 == 0 && wl_display_roundtrip(g.display) < 0)
				break;
		}
		return expect_error(&g, mode, &wl_display_interface, WL_DISPLAY_ERROR_NO_MEMORY);
	}
	if (strcmp(mode, "gone-mid-frame") == 0) {
		make_window(&g, true);
		wl_surface_attach(g.surface, uda_buffer(&g, metadata, metadata_size, real_fd), 0, 0);
		wl_surface_frame(g.surface);
		wl_surface_commit(g.surface);
		wl_display_flush(g.display);
		printf("misbehaving-client: %s: gone\n", mode);
		_exit(0); /* no goodbye, nothing cleaned up */
	}
	if (strcmp(mode, "stall") == 0) {
		make_window(&g, true);
		struct wl_buffer *buffer = shm_buffer(&g, &fd);
		/* Requests only: the events (releases, frame callbacks) pile up
		 * on the compositor's side of the socket. */
		for (int i = 0; i < 20000 && wl_display_flush(g.display) >= 0; i++) {
			wl_surface_attach(g.surface, buffer, 0, 0);
			wl_surface_damage(g.surface, 0, 0, WIDTH, HEIGHT);
			wl_surface_frame(g.surface);
			wl_surface_commit(g.surface);
			if (i % 100 == 0)
				usleep(1000);
		}
		sleep(2);
		printf("misbehaving-client: %s: never read a thing\n", mode);
		return 0;
	}
	if (strcmp(mode, "role-outlives-surface") == 0) {
		g.surface = wl_compositor_create_surface(g.compositor);
		g.xdg_surface = xdg_wm_base_get_xdg_surface(g.wm_base, g.surface);
		wl_surface_destroy(g.surface);
		g.toplevel = xdg_surface_get_toplevel(g.xdg_surface);
		xdg_toplevel_set_title(g.toplevel, "inert");
		xdg_toplevel_set_min_size(g.toplevel, WIDTH, HEIGHT);
		xdg_toplevel_destroy(g.toplevel);
		xdg_surface_destroy(g.xdg_surface);
		/* And a window of its own afterwards, on the same connection. */
		make_window(&g, true);
		const int status = wl_display_roundtrip(g.display);
		printf("misbehaving-client: %s: %s\n", mode,
		       status >= 0 ? "inert role object, connection alive, as expected" : "the connection failed");
		return status >= 0 ? 0 : 1;
	}
	if (strcmp(mode, "commit-flood") == 0) {
		make_window(&g, true);
		/* Committing moves callbacks out of the pending state; the
		 * compositor counts them until its next repaint all the same. */
		for (int batch = 0; batch < 2000; batch++) {
			for (int i = 0; i < 64; i++)
				wl_surface_frame(g.surface);
			wl_surface_commit(g.surface);
			if (batch % 4 == 3 && wl_display_flush(g.display) < 0)
				break;
		}
		return expect_error(&g, mode, &wl_display_interface, WL_DISPLAY_ERROR_NO_MEMORY);
	}
	if (strcmp(mode, "wm-base-first") == 0) {
		make_window(&g, true);
		/* xdg_wm_base.destroy, its proxy kept so the error names it. */
		wl_proxy_marshal_flags((struct wl_proxy *)g.wm_base, XDG_WM_BASE_DESTROY, NULL,
		                       wl_proxy_get_version((struct wl_proxy *)g.wm_base), 0);
		return expect_error(&g, mode, &xdg_wm_base_interface, XDG_WM_BASE_ERROR_DEFUNCT_SURFACES);
	}
	if (strcmp(mode, "role-switch") == 0) {
		make_window(&g, true);
		xdg_toplevel_destroy(g.toplevel);
		xdg_surface_destroy(g.xdg_surface);
		struct xdg_surface *again = xdg_wm_base_get_xdg_surface(g.wm_base, g.surface);
		struct xdg_positioner *positioner = xdg_wm_base_create_positioner(g.wm_base);
		xdg_positioner_set_size(positioner, WIDTH, HEIGHT);
		xdg_positioner_set_anchor_rect(positioner, 0, 0, 1, 1);
		xdg_surface_get_popup(again, NULL, positioner);
		return expect_error(&g, mode, &xdg_wm_base_interface, XDG_WM_BASE_ERROR_ROLE);
	}
	if (strcmp(mode, "huge-shm") == 0) {
		make_window(&g, true);
		const int32_t side = 16384, stride = side * 4;
		fd = memfd_create("huge-shm", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, (off_t)stride * side) != 0) /* sparse: nothing written */
			return 1;
		struct wl_shm_pool *pool = wl_shm_create_pool(g.shm, fd, stride * side);
		struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, side, side, stride, WL_SHM_FORMAT_XRGB8888);
		wl_shm_pool_destroy(pool);
		wl_surface_attach(g.surface, buffer, 0, 0);
		wl_surface_commit(g.surface);
		const int status = wl_display_roundtrip(g.display);
		printf("misbehaving-client: %s: %s\n", mode,
		       status >= 0 ? "refused without an error, as expected" : "the connection failed");
		return status >= 0 ? 0 : 1;
	}
	if (strcmp(mode, "xdg-surface-first") == 0) {
		make_window(&g, true);
		/* xdg_surface.destroy, with the proxy kept on this side (the
		 * generated destructor would forget it at once): the error
		 * then names an object the client still knows. */
		wl_proxy_marshal_flags((struct wl_proxy *)g.xdg_surface, XDG_SURFACE_DESTROY, NULL,
		                       wl_proxy_get_version((struct wl_proxy *)g.xdg_surface), 0);
		return expect_error(&g, mode, &xdg_surface_interface, XDG_SURFACE_ERROR_DEFUNCT_ROLE_OBJECT);
	}
	fprintf(stderr, "misbehaving-client: unknown mode %s\n", mode);
	return 2;
}
