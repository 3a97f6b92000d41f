/* Private to the Wayland module of the uda EGL platform: displays of
 * wl_displays and window surfaces of wl_egl_windows (docs/wayland.md). */
#ifndef UDA_EGL_WAYLAND_PLATFORM_H
#define UDA_EGL_WAYLAND_PLATFORM_H

#include <wayland-client.h>
#include <wayland-egl-backend.h>

#include "../platform.h"

#define WAYLAND_MAX_SHM_FORMATS 64u
/* Buffers the compositor may hold at once before a swap waits: as many
 * as Mesa's platform_wayland keeps. */
#define WAYLAND_MAX_SHM_BUFFERS 4u

/* What the compositor offers, bound on the display's own event queue so
 * the application's dispatching never runs the platform's handlers. */
struct wayland_display {
	struct platform_display *display;
	struct wl_display *native;
	struct wl_event_queue *queue;
	struct wl_display *wrapper; /* native, its events on `queue` */
	struct wl_registry *registry;
	struct wl_shm *shm;
	uint32_t shm_formats[WAYLAND_MAX_SHM_FORMATS];
	uint32_t shm_format_count;
	uint32_t dmabuf_version; /* 0: no zwp_linux_dmabuf_v1 */
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

struct wayland_window {
	struct platform_surface *surface;
	struct wayland_display *wayland;
	/* The application's; NULL once it destroyed it (the surface is lost). */
	struct wl_egl_window *native;
	struct wl_surface *wl_surface; /* a wrapper of the native's, on our queue */
	uint32_t wl_surface_version;
	uint32_t format;     /* what GL renders (the config's) */
	uint32_t shm_format; /* what the compositor is sent */
	/* Pending frame callback (swap interval 1 waits for it before the
	 * next commit). */
	struct wl_callback *frame_callback;
	EGLint swap_interval;
	/* The compositor's connection failed: swaps fail. */
	bool disconnected;
	struct wayland_shm_buffer shm[WAYLAND_MAX_SHM_BUFFERS];
	uint64_t frames_presented;
};

/* wayland_display.c */
extern const struct platform_module platform_module_wayland;
/* Dispatches the display's queue, waiting at most timeout_ms for events
 * to arrive: 1 events were read (for any queue) or dispatched, 0 timed
 * out, -1 the connection failed. */
int wayland_display_dispatch(struct wayland_display *wayland, int timeout_ms);
/* CLOCK_MONOTONIC in milliseconds, for the deadlines of bounded waits. */
int64_t wayland_now_ms(void);
bool wayland_display_has_shm_format(const struct wayland_display *wayland, uint32_t format);

/* wayland_window.c */
bool wayland_window_create(struct platform_display *display, struct platform_surface *surface, void *native,
                           uint32_t format);

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
