/* uda for Wayland compositors: linux-dmabuf feedback from negotiation.
 *
 * A compositor names the device it samples client buffers with and the
 * display devices whose planes may scan them out; uda negotiates, for
 * each format, what the render device can import (and, per display, what
 * it and the display share), and gives zwp_linux_dmabuf_v1 version 4
 * feedback from that: the main device, the format table, a render
 * tranche, and a scanout tranche per display for surfaces that can go on
 * a plane. Clients on any platform read it as they read any compositor's;
 * clients on uda's platform negotiate their buffers against it.
 *
 * Link: libuda-wayland-server. */
#ifndef UDA_WAYLAND_SERVER_H
#define UDA_WAYLAND_SERVER_H

#include <sys/types.h>

#include <uda/uda.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct uda_wayland_feedback uda_wayland_feedback;

typedef struct uda_wayland_feedback_create_info {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_WAYLAND_FEEDBACK_CREATE_INFO */
	const void *next;
	/* Samples client buffers: the main device, its sets the render
	 * tranche. It must have a DRM node (uda_device_info) for the
	 * feedback to name it. */
	uda_device *render_device;
	/* The formats to offer (DRM fourccs); 0: every format of uda's
	 * table that the render device imports. */
	uint32_t format_count;
	const uint32_t *formats;
	/* The buffer size negotiations assert: a typical window (limits such
	 * as a maximum pitch depend on it); 0 x 0 means 1920 x 1080. */
	uint32_t width, height;
	/* Display devices (UDA_DEVICE_API_DRM, or any device that answers
	 * UDA_USAGE_SCANOUT), one scanout tranche each, in this order. */
	uint32_t display_count;
	uda_device *const *displays;
} uda_wayland_feedback_create_info;

#define UDA_WAYLAND_MAX_FORMAT_TABLE 65536u /* linux-dmabuf's indices are 16-bit */

/* ZWP_LINUX_DMABUF_FEEDBACK_V1_TRANCHE_FLAGS_SCANOUT */
#define UDA_WAYLAND_TRANCHE_SCANOUT 0x1u

typedef struct uda_wayland_tranche {
	dev_t target_device;
	uint32_t flags; /* UDA_WAYLAND_TRANCHE_* */
	uint32_t index_count;
	const uint16_t *indices; /* into the format table; valid while the feedback lives */
} uda_wayland_tranche;

/* Negotiates every format for the render device alone and with each
 * display. A format the render device cannot import is left out (the
 * reason logged at debug); UDA_ERROR_INCOMPATIBLE when none is left.
 * Only explicit layouts that travel as DMA-BUF enter the table. */
UDA_API uda_result uda_wayland_feedback_create(uda_context *context, const uda_wayland_feedback_create_info *info,
                                               uda_wayland_feedback **out_feedback);
/* Accepts NULL. */
UDA_API void uda_wayland_feedback_destroy(uda_wayland_feedback *feedback);

/* The render device's DRM node (render node first, else primary);
 * UDA_ERROR_NOT_FOUND when it has none (feedback cannot be sent then). */
UDA_API uda_result uda_wayland_feedback_get_main_device(const uda_wayland_feedback *feedback, dev_t *out_device);

/* The format table as linux-dmabuf sends it: entries of 16 bytes (format
 * u32, padding u32, modifier u64, host order), in a sealed memfd a
 * compositor passes on as it is. *out_fd is a new descriptor, the
 * caller's to close. */
UDA_API uda_result uda_wayland_feedback_get_format_table(const uda_wayland_feedback *feedback, int *out_fd,
                                                         uint32_t *out_size);
/* One entry of the table. */
UDA_API uda_result uda_wayland_feedback_get_table_entry(const uda_wayland_feedback *feedback, uint32_t index,
                                                        uint32_t *out_format, uint64_t *out_modifier);

/* The tranches for a surface, best first: with display_index naming a
 * display whose plane the surface could take, that display's scanout
 * tranche, then the render tranche; with UDA_WAYLAND_NO_SCANOUT the render
 * tranche alone. Two-call: *count in, how many were written out
 * (UDA_ERROR_BUFFER_TOO_SMALL with the first *count written). A display
 * that shares nothing with the render device has no scanout tranche. */
#define UDA_WAYLAND_NO_SCANOUT UINT32_MAX
UDA_API uda_result uda_wayland_feedback_get_tranches(const uda_wayland_feedback *feedback, uint32_t display_index,
                                                     uint32_t *count, uda_wayland_tranche *tranches);

/* A client's zwp_linux_buffer_params_v1, as collected by add (plane
 * indices and duplicates are the compositor's to refuse there, with
 * PLANE_IDX and PLANE_SET) when create or create_immed comes. */
typedef struct uda_wayland_dmabuf_plane {
	int fd; /* the client's; stays the caller's */
	uint32_t offset;
	uint32_t stride;
} uda_wayland_dmabuf_plane;

typedef struct uda_wayland_dmabuf_attributes {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_WAYLAND_DMABUF_ATTRIBUTES */
	const void *next;
	int32_t width, height;
	uint32_t format; /* DRM fourcc */
	uint64_t modifier;
	uint32_t plane_count; /* planes 0 .. plane_count - 1 were added */
	uda_wayland_dmabuf_plane planes[UDA_MAX_PLANES];
} uda_wayland_dmabuf_attributes;

/* zwp_linux_buffer_params_v1 errors (the protocol's values) that
 * uda_wayland_feedback_import_dmabuf gives. */
#define UDA_WAYLAND_DMABUF_ERROR_INCOMPLETE 3
#define UDA_WAYLAND_DMABUF_ERROR_INVALID_FORMAT 4
#define UDA_WAYLAND_DMABUF_ERROR_INVALID_DIMENSIONS 5
#define UDA_WAYLAND_DMABUF_ERROR_OUT_OF_BOUNDS 6

/* A client's DMA-BUF as a uda_allocation on the render device, checked
 * before any driver sees it: the format and modifier must be in the
 * feedback's table, the planes the format needs present, the size sane,
 * each plane's offset + stride x rows inside its file, all planes in one
 * buffer; then uda_import with the render device's negotiated set (its
 * own checks: fd kind and size, the layout inside the memory).
 * - UDA_SUCCESS: *out_allocation, the compositor's; the fds stay the
 *   caller's (uda keeps its own).
 * - UDA_ERROR_INVALID_DATA: the client broke the protocol;
 *   *out_protocol_error is the error to post on the params.
 * - any other error: the device cannot take this buffer; answer `failed`
 *   (create) or invalid_wl_buffer (create_immed).
 * The message says which check refused (uda_context_get_error). */
UDA_API uda_result uda_wayland_feedback_import_dmabuf(const uda_wayland_feedback *feedback,
                                                      const uda_wayland_dmabuf_attributes *attributes,
                                                      uda_allocation **out_allocation, uint32_t *out_protocol_error);

struct wl_resource;
struct wl_shm_buffer;

/* A client's wl_shm buffer (libwayland's wl_shm, wl_display_init_shm)
 * copied into `allocation`, the compositor's: of the buffer's size and
 * format (wl_shm's codes are fourccs but for ARGB8888 and XRGB8888),
 * mappable for writing. The read happens inside wl_shm_buffer_begin_access
 * and _end_access: a pool the client shrank under the compositor reads as
 * zeros and is answered with wl_shm's invalid_fd error by libwayland,
 * never a SIGBUS. UDA_ERROR_INCOMPATIBLE when size or format differ. */
UDA_API uda_result uda_wayland_shm_copy(struct wl_shm_buffer *buffer, uda_allocation *allocation);
/* The DRM fourcc of a wl_shm format code (wl_shm_buffer_get_format): the
 * format the allocation given to uda_wayland_shm_copy must have. */
UDA_API uint32_t uda_wayland_shm_format_to_fourcc(uint32_t shm_format);

/* Sends the feedback on a zwp_linux_dmabuf_feedback_v1 resource (one of
 * get_default_feedback's or get_surface_feedback's), as
 * uda_wayland_feedback_get_tranches gives it for display_index, ending
 * with `done`: format_table, main_device, then per tranche
 * tranche_target_device, tranche_formats, tranche_flags, tranche_done.
 * Send it again to the same resource when what the surface can do changes
 * (it goes on a plane, or back). */
UDA_API uda_result uda_wayland_feedback_send(const uda_wayland_feedback *feedback, struct wl_resource *resource,
                                             uint32_t display_index);

/* uda's own protocol (wayland/protocol/uda-allocation-v1.xml), which
 * carries whole capability sets where linux-dmabuf carries formats and
 * modifiers. On a uda_surface_sets_v1 resource: the capability sets the
 * compositor's reading devices agree on for one format (a sealed memfd of
 * the serialized list, sent as format_sets); then done, once every format
 * of the group went. */
UDA_API uda_result uda_wayland_surface_sets_send_format(struct wl_resource *resource, uint32_t format,
                                                        const uda_capability_set_list *sets);
UDA_API void uda_wayland_surface_sets_send_done(struct wl_resource *resource);

/* uda_allocation_manager_v1.create_buffer: the client's fd and serialized
 * metadata (untrusted) imported on `device`, checked against the sets the
 * compositor sent for this buffer's format (`reader_sets`), not against
 * the client's own: the client's layout must be one of them, and its
 * size, planes and pitches must meet that set's constraints (what the
 * compositor's devices need), before the device sees anything.
 * UDA_ERROR_INVALID_DATA: metadata that cannot be read (the protocol's
 * invalid_metadata); UDA_ERROR_INCOMPATIBLE: a layout the compositor did
 * not send; UDA_ERROR_INVALID_ARGUMENT: a buffer that breaks the set's
 * constraints or the fd's size (invalid_fd). The fd stays the caller's. */
UDA_API uda_result uda_wayland_import_buffer(const uda_capability_set_list *reader_sets, uda_device *device, int fd,
                                             const void *metadata, size_t metadata_size,
                                             uda_allocation **out_allocation);

#ifdef __cplusplus
}
#endif

#endif
