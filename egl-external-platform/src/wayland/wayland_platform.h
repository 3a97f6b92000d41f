/* Private to the Wayland module of the uda EGL platform: displays of
 * wl_displays and window surfaces of wl_egl_windows (docs/wayland.md). */
#ifndef UDA_EGL_WAYLAND_PLATFORM_H
#define UDA_EGL_WAYLAND_PLATFORM_H

#include <pthread.h>
#include <wayland-client.h>
#include <wayland-egl-backend.h>

#include "../surface.h"
#include "wayland_feedback.h"
#include "wayland_uda_sets.h"

struct zwp_linux_dmabuf_v1;
struct zwp_linux_dmabuf_feedback_v1;
struct uda_allocation_manager_v1;
struct uda_surface_sets_v1;

/* How long the platform waits for the compositor's answer to a request
 * it cannot go on without (a roundtrip, a DMA-BUF import). A compositor
 * silent for longer is treated as gone, not waited for forever. */
#define WAYLAND_ANSWER_TIMEOUT_MS 5000

/* One zwp_linux_dmabuf_feedback_v1 object (default or per surface) and
 * what it sent (wayland_feedback.h's receiver). */
struct dmabuf_feedback_listener {
	struct zwp_linux_dmabuf_feedback_v1 *object;
	struct feedback_receiver receiver;
};

#define WAYLAND_MAX_SHM_FORMATS 64u
/* Buffers the compositor may hold at once before a swap waits: as many
 * as Mesa's platform_wayland keeps. */
#define WAYLAND_MAX_SHM_BUFFERS 4u

/* What the compositor offers, bound on the display's own event queue so
 * the application's dispatching never runs the platform's handlers. Each
 * window has a queue of its own besides (struct wayland_window): windows
 * swapped on two threads never run each other's handlers. */
struct wayland_display {
	struct platform_display *display;
	struct wl_display *native;
	/* Held while the display's queue is dispatched and while a window
	 * reads what its handlers write (the default feedback). */
	pthread_mutex_t lock;
	struct wl_event_queue *queue;
	struct wl_display *wrapper; /* native, its events on `queue` */
	struct wl_registry *registry;
	struct wl_shm *shm;
	uint32_t shm_formats[WAYLAND_MAX_SHM_FORMATS];
	uint32_t shm_format_count;
	/* zwp_linux_dmabuf_v1 version 3 or 4; NULL when the compositor has
	 * none (or an older one, which names no modifiers). */
	struct zwp_linux_dmabuf_v1 *dmabuf;
	uint32_t dmabuf_version;
	struct dmabuf_feedback_listener default_feedback; /* version 4 */
	struct feedback legacy_formats;                   /* version 3 */
	/* uda's own protocol (uda-allocation-v1.xml); NULL where the
	 * compositor does not offer it. */
	struct uda_allocation_manager_v1 *uda_manager;
	/* The module's (struct wayland_devices), copied at eglInitialize. */
	uda_context *context;
	uda_device *gl;
	uda_device *allocator;
	uda_device *system;
};

/* The module's own uda context, one for all its displays (the platform's
 * module_data): the GL device renders, a device of the same hardware
 * allocates what it renders into, and the system device makes the wl_shm
 * memory. Made at the first eglInitialize, gone at unload. */
struct wayland_devices {
	uda_context *context;
	uda_device *gl;
	uda_device *allocator;
	uda_device *system;
};

/* wl_shm's memory for one frame: a memfd of the system device, mapped. */
struct wayland_shm_buffer {
	uda_allocation *memory;
	uint8_t *pixels;
	struct wl_buffer *buffer;
	uint32_t width, height, stride;
	bool busy; /* attached, not released by the compositor yet */
	uint64_t age_frame; /* the frame last copied into it */
};

/* How a window's frames reach the compositor. */
enum wayland_buffer_path {
	/* Zero-copy: negotiated with the compositor's whole capability sets
	 * (uda's protocol) and sent with their metadata. */
	WAYLAND_PATH_UDA,
	/* Zero-copy: the buffers GL renders into are DMA-BUFs the compositor
	 * imports, negotiated with its feedback. */
	WAYLAND_PATH_DMABUF,
	/* The fallback where nothing is common: each frame is copied into
	 * wl_shm memory. */
	WAYLAND_PATH_SHM,
};

/* A wl_buffer of one of the uda_surface's zero-copy buffers (uda's
 * protocol or linux-dmabuf), kept while the buffer lives. */
struct wayland_dmabuf_buffer {
	uint64_t buffer_id;
	struct wl_buffer *buffer;
	bool busy; /* attached; the frame stays acquired until release */
};

/* A linux-dmabuf params object's answer (created or failed). `late`: the
 * wait for it gave up; the params stay on the window's queue in a slot
 * of the window, and what comes is destroyed, so that the compositor
 * does not keep a buffer nobody uses. */
struct wayland_params_answer {
	struct wl_buffer *buffer;
	bool answered;
	bool late;
	struct zwp_linux_buffer_params_v1 *params; /* late ones only */
};
#define WAYLAND_MAX_LATE_PARAMS 4u

struct wayland_window {
	struct platform_surface *surface;
	struct wayland_display *wayland;
	/* The window's own queue: its wl_surface, frame callbacks, buffers,
	 * feedback and sets live on it, made through wrappers of the
	 * display's globals (NULL where the compositor lacks one), named
	 * *_global beside the window's buffers of the same protocols. */
	struct wl_event_queue *queue;
	struct zwp_linux_dmabuf_v1 *dmabuf_global;
	struct wl_shm *shm_global;
	struct uda_allocation_manager_v1 *uda_manager;
	/* The application's; NULL once it destroyed it (the surface is lost). */
	struct wl_egl_window *native;
	struct wl_surface *wl_surface; /* a wrapper of the native's, on our queue */
	uint32_t wl_surface_version;
	uint32_t format;     /* what GL renders (the config's) */
	uint32_t shm_format; /* what the compositor is sent */
	bool shm_swizzle;    /* red and blue swapped on the way */
	/* Pending frame callback (swap interval 1 waits for it before the
	 * next commit). */
	struct wl_callback *frame_callback;
	EGLint swap_interval;
	/* The compositor's connection failed: swaps fail. */
	bool disconnected;
	struct wayland_shm_buffer shm[WAYLAND_MAX_SHM_BUFFERS];
	uint64_t frames_presented;
	enum wayland_buffer_path path;
	struct wayland_dmabuf_buffer dmabuf[UDA_SURFACE_MAX_BUFFERS];
	/* The buffers of the uda_surface being replaced, while buffers are
	 * negotiated anew: their releases still come, and are the current
	 * uda_surface's until the replacement takes over. */
	struct wayland_dmabuf_buffer retiring[UDA_SURFACE_MAX_BUFFERS];
	/* Version 4: the surface's own feedback, and the generation of it
	 * (or of the default) the buffers were negotiated for. */
	struct dmabuf_feedback_listener feedback;
	uint64_t negotiated_generation;
	/* Whether the buffers were made from the display's default feedback
	 * (there was one, and none of the surface's yet), and its generation
	 * then. */
	bool negotiated_default;
	uint64_t negotiated_default_generation;
	/* A DMA-BUF the compositor refused: wl_shm from now on. */
	bool dmabuf_refused;
	/* A buffer uda's protocol could not send: DMA-BUFs or wl_shm from
	 * now on. */
	bool uda_refused;
	/* uda's protocol: the compositor's sets for the surface, and the
	 * generation of them the buffers were negotiated for. */
	struct uda_surface_sets_v1 *uda_sets_object;
	struct uda_sets_receiver uda_sets;
	uint64_t negotiated_uda_generation;
	/* linux-dmabuf params whose answer came too late (wayland_dmabuf.c),
	 * destroyed with the window's queue at the latest. */
	struct wayland_params_answer late_params[WAYLAND_MAX_LATE_PARAMS];
};

/* wayland_display.c */
extern const struct platform_module platform_module_wayland;
/* Dispatches `queue` (the display's or a window's), waiting at most
 * timeout_ms for events to arrive: 1 events were read (for any queue) or
 * dispatched, 0 timed out, -1 the connection failed. A window's dispatch
 * also runs what came for the display's queue, unless another thread is
 * at it. */
int wayland_display_dispatch(struct wayland_display *wayland, struct wl_event_queue *queue, int timeout_ms);
/* CLOCK_MONOTONIC in milliseconds, for the deadlines of bounded waits. */
int64_t wayland_now_ms(void);
/* Dispatches `queue` until an event handler sets *flag, for at most
 * timeout_ms; returns *flag. */
bool wayland_display_wait_for(struct wayland_display *wayland, struct wl_event_queue *queue, const bool *flag,
                              int timeout_ms);
/* Whether `size` bytes at `pointer` lie on mapped pages, so a native of
 * unknown kind can be looked at (Mesa asks the same question this way). */
bool wayland_readable(const void *pointer, size_t size);
bool wayland_display_has_shm_format(const struct wayland_display *wayland, uint32_t format);

/* wayland_window.c */
bool wayland_window_create(struct platform_display *display, struct platform_surface *surface, void *native,
                           uint32_t format);

/* wayland_buffers.c */
/* A uda_surface for the window at this size, choosing window->path:
 * DMA-BUFs where the compositor's feedback and uda's devices agree and
 * the compositor took the first, else CPU-readable buffers for wl_shm.
 * NULL where neither works. */
uda_surface *wayland_buffers_negotiate(struct wayland_window *window, uint32_t width, uint32_t height);
/* Negotiates again if the feedback changed since; the surface must hold
 * no buffer. */
void wayland_buffers_follow_feedback(struct wayland_window *window);
/* The wl_buffer of a zero-copy buffer, made on first use through `path`
 * (WAYLAND_PATH_UDA or WAYLAND_PATH_DMABUF: the caller's, never read from
 * the window, whose path may be the previous negotiation's); NULL when
 * the compositor refused it. */
struct wayland_dmabuf_buffer *wayland_buffers_dmabuf_of(struct wayland_window *window, enum wayland_buffer_path path,
                                                        uint64_t buffer_id, uda_allocation *allocation);
void wayland_buffers_forget(struct wayland_window *window);
/* Destroys the params still waiting for a late answer (before the
 * window's queue goes). */
void wayland_dmabuf_forget_late_params(struct wayland_window *window);

/* wayland_uda.c */
void wayland_uda_bind(struct wayland_display *wayland, struct wl_registry *registry, uint32_t name);
void wayland_uda_unbind(struct wayland_display *wayland);
/* Asks for the surface's sets where the compositor offers uda's
 * protocol; false where it does not. */
bool wayland_uda_listen(struct wayland_window *window);
void wayland_uda_stop(struct wayland_window *window);
/* A wl_buffer of the allocation, sent with its metadata; NULL (logged)
 * where it cannot be exported. */
struct wl_buffer *wayland_uda_create_buffer(struct wayland_window *window, uda_allocation *allocation);

/* wayland_dmabuf.c */
void wayland_dmabuf_bind(struct wayland_display *wayland, struct wl_registry *registry, uint32_t name,
                         uint32_t version);
void wayland_dmabuf_unbind(struct wayland_display *wayland);
/* The display's feedback: version 4's default, version 3's format list;
 * NULL when there is none (yet). */
const struct feedback *wayland_dmabuf_feedback(const struct wayland_display *wayland);
void dmabuf_feedback_listen(struct dmabuf_feedback_listener *state, struct zwp_linux_dmabuf_feedback_v1 *object);
void dmabuf_feedback_stop(struct dmabuf_feedback_listener *state);
/* A wl_buffer of the allocation, exported as one DMA-BUF; NULL (logged)
 * when it cannot be exported or the compositor refused it. */
struct wl_buffer *wayland_dmabuf_create_buffer(struct wayland_window *window, uda_allocation *allocation,
                                               uint64_t modifier);

/* wayland_shm.c */
/* The wl_shm format a window of `format` is sent as (0: none the
 * compositor takes), and whether its pixels need their red and blue
 * swapped on the way. */
uint32_t wayland_shm_format_for(const struct wayland_display *wayland, uint32_t format, bool *out_swizzle);
/* An idle buffer of the window's size (made, or remade at a new size);
 * NULL with an EGL error set. Waits, bounded, for the compositor to
 * release one if it holds them all. */
struct wayland_shm_buffer *wayland_shm_acquire(struct wayland_window *window, uint32_t width, uint32_t height);
/* Copies a frame's rows into the buffer, converting the channel order. */
void wayland_shm_copy(struct wayland_window *window, struct wayland_shm_buffer *buffer, const uint8_t *pixels,
                      uint64_t pitch);
void wayland_shm_destroy_all(struct wayland_window *window);

#endif
