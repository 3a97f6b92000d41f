/* uda-compositor: a Wayland compositor on uda. Clients' buffers (uda's
 * own protocol, linux-dmabuf, wl_shm) become uda allocations on the
 * compositor's Vulkan device, which composites every window onto one
 * output image without copying the zero-copy ones, and writes chosen
 * frames as PNG files.
 *
 * Files, one job each: main.c (options, the socket, the loop),
 * compositor.c (start and end, without a socket), output.c (the
 * repaint: layout, frame callbacks, saved frames), surface.c
 * (wl_compositor, wl_surface, wl_region), xdg_shell.c, buffer.c (the
 * buffers clients attach), uda_allocation.c (uda's protocol),
 * linux_dmabuf.c, clients.c (what each client may hold), renderer.c
 * (Vulkan), png_writer.c. */
#ifndef UDA_COMPOSITOR_H
#define UDA_COMPOSITOR_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

#include <uda/uda.h>
#include <uda/uda_wayland_server.h>

struct renderer;
struct renderer_image;

#define COMPOSITOR_MAX_SAVED 16
/* The formats the compositor takes, as DRM fourccs (wl_shm's ARGB8888 and
 * XRGB8888 codes translate to the same). */
#define COMPOSITOR_FORMAT_COUNT 4
extern const uint32_t compositor_formats[COMPOSITOR_FORMAT_COUNT];

struct compositor_options {
	const char *socket_name; /* NULL: the first free wayland-N */
	const char *output;      /* folder of the PNG frames */
	uint32_t width, height;  /* the output */
	unsigned refresh_hz;
	uint64_t save[COMPOSITOR_MAX_SAVED];
	unsigned save_count;
	bool save_all;
	/* Frames are counted (and saved, and --frames ends) once this many
	 * windows are on the output. */
	unsigned windows;
	uint64_t frames;     /* counted frames, then leave once the clients have */
	uint64_t exit_after; /* counted frames, then exit at once (a crash, a restart) */
	bool uda_protocol;   /* offer uda_allocation_manager_v1 */
	bool linux_dmabuf;   /* offer zwp_linux_dmabuf_v1 where the device imports DMA-BUFs */
	bool quiet;          /* no line per frame */
};

struct compositor {
	struct compositor_options options;
	struct wl_display *display;
	struct wl_event_loop *loop;
	struct wl_event_source *stop_sources[2]; /* SIGINT, SIGTERM */
	uda_context *ctx;
	struct renderer *renderer;
	uda_device *device; /* the renderer's */
	/* What the device samples, per compositor_formats entry: the sets
	 * sent with uda's protocol and checked at create_buffer. */
	uda_capability_set_list *reader_sets[COMPOSITOR_FORMAT_COUNT];
	uda_wayland_feedback *feedback; /* NULL where linux-dmabuf is not offered */
	struct wl_list surfaces;         /* struct surface::link, every one */
	struct wl_list windows;          /* struct surface::window_link, in the order they were mapped */
	struct wl_event_source *repaint_timer;
	bool repaint_scheduled;
	double last_repaint_ms;
	uint64_t repaints, frames; /* every repaint; the counted ones */
	double cpu_ms_total;       /* compositor CPU time in counted repaints */
	struct wl_listener client_created;
	unsigned clients;
	bool finished; /* --frames reached: leave when the last client does */
	int exit_status;
};

/* ---- clients.c: what one client may hold ---- */
#define CLIENT_MAX_SURFACES 64
#define CLIENT_MAX_BUFFERS 64
/* zwp_linux_buffer_params_v1 objects not yet destroyed: each holds up to
 * four of the client's fds in the compositor. */
#define CLIENT_MAX_DMABUF_PARAMS 16
/* The compositor's copies of a client's wl_shm buffers, all its surfaces
 * together: a pool can be a sparse file that costs the client nothing. */
#define CLIENT_MAX_SHM_BYTES (512ull << 20)
struct client_state {
	struct wl_listener destroy;
	struct compositor *compositor;
	unsigned surfaces, buffers, dmabuf_params;
	uint64_t shm_bytes; /* within its surfaces' life: they keep the state */
	bool gone; /* the client is; its objects are on their way */
};
bool clients_init(struct compositor *compositor);
/* NULL only for a client the compositor never saw connect; valid while
 * the client or one of its surfaces, buffers or DMA-BUF params lives. */
struct client_state *client_state_get(struct wl_client *client);
/* `counter` (&state->surfaces, ->buffers or ->dmabuf_params) changed by `change`;
 * accepts a NULL state. */
void client_state_count(struct client_state *state, unsigned *counter, int change);

/* ---- buffer.c: the wl_buffers of uda allocations ---- */
struct client_buffer {
	struct wl_resource *resource; /* NULL once the client destroyed it */
	struct compositor *compositor;
	struct client_state *owner;
	uda_allocation *allocation;
	struct renderer_image *image;
	uint32_t width, height;
	const char *path; /* how it came: "uda's protocol" or "linux-dmabuf" */
	unsigned holds;   /* surfaces showing it */
};
/* A wl_buffer over `allocation` (taken: freed on failure too), with its
 * image made; NULL with *out_problem when the client holds too many or
 * the renderer refuses it (the caller answers the client). */
struct client_buffer *client_buffer_create(struct compositor *compositor, struct wl_client *client, uint32_t id,
                                           uda_allocation *allocation, const char *path, const char **out_problem);
/* Our wl_buffer's, or NULL (a wl_shm buffer, or something else). */
struct client_buffer *client_buffer_from_resource(struct wl_resource *resource);
void client_buffer_hold(struct client_buffer *buffer);
/* Sends release when the last surface lets go of a buffer the client
 * still has; frees it when the client destroyed it already. */
void client_buffer_drop(struct client_buffer *buffer);

/* ---- surface.c ---- */
enum surface_role { SURFACE_ROLE_NONE, SURFACE_ROLE_XDG_TOPLEVEL, SURFACE_ROLE_XDG_POPUP };

struct surface {
	struct compositor *compositor;
	struct wl_resource *resource;
	struct client_state *owner;
	struct {
		bool attached;
		struct wl_resource *buffer; /* NULL: detach */
		struct wl_listener buffer_destroy;
		struct wl_list callbacks; /* wl_resource links */
		unsigned callback_count;
	} pending;
	struct wl_list frame_callbacks; /* committed, done at the next repaint */
	/* What the window shows: a held buffer of ours, or the surface's own
	 * copy of a wl_shm buffer. */
	struct client_buffer *current;
	uda_allocation *shm_copy;
	uint64_t shm_copy_bytes; /* counted in owner->shm_bytes */
	struct renderer_image *shm_image;
	uint32_t width, height;
	bool has_content;
	enum surface_role role;
	struct xdg_surface_state *xdg; /* set by xdg_shell.c */
	bool mapped;
	struct wl_list link;        /* compositor::surfaces */
	struct wl_list window_link; /* compositor::windows while mapped */
	struct wl_signal commit;    /* the role's hook, after the state moved */
	struct wl_signal destroy;
};
bool surface_global_create(struct compositor *compositor);
struct surface *surface_from_resource(struct wl_resource *resource);
struct renderer_image *surface_image(const struct surface *surface);
/* How the content came, for the log: zero-copy or copied. */
const char *surface_content_path(const struct surface *surface);
/* The role maps and unmaps the window. */
void surface_map(struct surface *surface);
void surface_unmap(struct surface *surface);

/* ---- xdg_shell.c ---- */
bool xdg_shell_global_create(struct compositor *compositor);

/* ---- uda_allocation.c, linux_dmabuf.c ---- */
bool uda_allocation_global_create(struct compositor *compositor);
/* False only on failure; a device that imports no DMA-BUF leaves it out
 * with a message. */
bool linux_dmabuf_global_create(struct compositor *compositor);
/* The reader sets of a format the compositor takes, or NULL. */
const uda_capability_set_list *compositor_reader_sets(const struct compositor *compositor, uint32_t format);

/* ---- output.c ---- */
bool output_init(struct compositor *compositor);
void output_finish(struct compositor *compositor);
void output_schedule_repaint(struct compositor *compositor);

/* ---- compositor.c ---- */
/* The context, renderer, display and globals for `compositor->options`;
 * false with the reason printed (compositor_finish still to be called).
 * No socket: the caller adds one, or connects clients itself. */
bool compositor_start(struct compositor *compositor);
/* Destroys the clients and everything compositor_start made; accepts a
 * compositor whose start failed part way. */
void compositor_finish(struct compositor *compositor);

double compositor_now_ms(void);
/* The handler of every destructor request (destroy, release): the
 * resource goes, and its destroy callback with it. */
void compositor_destroy_request(struct wl_client *client, struct wl_resource *resource);

#endif
