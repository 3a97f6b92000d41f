/*
 * uda — a device memory allocator for Linux graphics.
 *
 * Public C API. Every object is opaque and belongs to the uda_context it was
 * created from. Conventions used throughout:
 *
 * - Every entry point returns a uda_result; on failure a human-readable
 *   message for the calling thread is available from uda_context_get_error().
 * - Output pointers are written only on success.
 * - Every _create has a _destroy that accepts NULL.
 * - Structs that may grow start with `type` and `next` (the Vulkan
 *   sType/pNext pattern): `type` names the struct, `next` points at an
 *   extension struct or is NULL. Unknown extension structs are rejected.
 * - Two-call enumeration: pass NULL for the array to learn the count.
 * - Threads: a context and its devices may be used from any number of
 *   threads at once (error messages are per thread). Builders, lists and
 *   allocations are each used by one thread at a time; a list that is
 *   only read may be shared.
 */
#ifndef UDA_H
#define UDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uda/uda_version.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define UDA_API __attribute__((visibility("default")))
#else
#define UDA_API
#endif

/* ------------------------------------------------------------------------ */
/* Results                                                                   */

typedef enum uda_result {
	UDA_SUCCESS = 0,
	/* A NULL pointer, a zero or out-of-range value, a wrong `type`. */
	UDA_ERROR_INVALID_ARGUMENT = -1,
	UDA_ERROR_OUT_OF_MEMORY = -2,
	/* Serialized input that is truncated, oversized, of another version
	 * or internally inconsistent. */
	UDA_ERROR_INVALID_DATA = -3,
	/* A format, handle type or feature this library or device lacks. */
	UDA_ERROR_UNSUPPORTED = -4,
	/* Negotiation found no capability set every device accepts. */
	UDA_ERROR_INCOMPATIBLE = -5,
	/* A lookup (device UUID, ...) matched nothing. */
	UDA_ERROR_NOT_FOUND = -6,
	/* The object already exists (a device UUID registered twice). */
	UDA_ERROR_EXISTS = -7,
	/* An arithmetic result (size, count, alignment) does not fit. */
	UDA_ERROR_OVERFLOW = -8,
	/* The output buffer is too small; the needed size was reported. */
	UDA_ERROR_BUFFER_TOO_SMALL = -9,
	/* A backend failed for its own reasons (see the message). */
	UDA_ERROR_BACKEND = -10,
	/* A wait (uda_surface_dequeue, _acquire) ended before anything came. */
	UDA_ERROR_TIMEOUT = -11,
} uda_result;

/* Static name of a result, "UDA_ERROR_INVALID_DATA" etc.; never NULL. */
UDA_API const char *uda_result_to_string(uda_result result);

/* ------------------------------------------------------------------------ */
/* Structure types (the `type` field of extensible structs)                 */

typedef enum uda_structure_type {
	UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO = 1,
	UDA_STRUCTURE_TYPE_ASSERTION = 2,
	UDA_STRUCTURE_TYPE_USAGE = 3,
	UDA_STRUCTURE_TYPE_DEVICE_INFO = 4,
	UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO = 5,
	UDA_STRUCTURE_TYPE_NEGOTIATION_INFO = 6,
	UDA_STRUCTURE_TYPE_ALLOCATION_METADATA = 7,
	UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO = 8,
	UDA_STRUCTURE_TYPE_IMPORT_INFO = 9,
	UDA_STRUCTURE_TYPE_SURFACE_CREATE_INFO = 10,
	UDA_STRUCTURE_TYPE_NEGOTIATION_PEER_INFO = 11,
	UDA_STRUCTURE_TYPE_NEGOTIATION_LAYOUT_FILTER = 12,
	UDA_STRUCTURE_TYPE_COLOR_INFO = 13,
	UDA_STRUCTURE_TYPE_TRANSITION_INFO = 14,
	UDA_STRUCTURE_TYPE_TRANSITION = 15,
	UDA_STRUCTURE_TYPE_REALLOCATE_INFO = 16,
	UDA_STRUCTURE_TYPE_ALLOCATION_IMPORT_INFO = 17,
	UDA_STRUCTURE_TYPE_NEGOTIATION_LAYOUT_RANKING = 18,
	/* uda_wayland_server.h (libuda-wayland-server) */
	UDA_STRUCTURE_TYPE_WAYLAND_FEEDBACK_CREATE_INFO = 19,
	UDA_STRUCTURE_TYPE_WAYLAND_DMABUF_ATTRIBUTES = 20,
	/* Native objects behind an allocation (uda_vulkan.h, uda_gl.h). */
	UDA_STRUCTURE_TYPE_VULKAN_NATIVE = 100,
	UDA_STRUCTURE_TYPE_GL_NATIVE = 101,
	UDA_STRUCTURE_TYPE_GL_IMPORT_INFO = 102,
	UDA_STRUCTURE_TYPE_GL_DEVICE_NATIVE = 103,
	UDA_STRUCTURE_TYPE_VULKAN_TRANSITION = 104,
	UDA_STRUCTURE_TYPE_DRM_NATIVE = 105,
	UDA_STRUCTURE_TYPE_V4L2_NATIVE = 106,
	UDA_STRUCTURE_TYPE_V4L2_DEVICE_NATIVE = 107,
} uda_structure_type;

/* Structure types from this value on belong to backend headers
 * (uda_vulkan.h, uda_gl.h): the core passes them to the backend, which
 * rejects the ones it does not know. */
#define UDA_STRUCTURE_TYPE_BACKEND_FIRST 100

#define UDA_UUID_SIZE 16

/* ------------------------------------------------------------------------ */
/* Context                                                                   */

typedef struct uda_context uda_context;

typedef enum uda_log_level {
	UDA_LOG_ERROR = 1,
	UDA_LOG_WARNING = 2,
	UDA_LOG_INFO = 3,
	UDA_LOG_DEBUG = 4,
} uda_log_level;

/* Called from whichever thread logs; must be thread-safe if the context is
 * used from several threads. `message` is valid for the call only. The
 * core holds none of its locks while calling it, so the callback may call
 * into uda (uda_context_get_error, uda_context_enumerate_devices, ...). */
typedef void (*uda_log_callback)(uda_log_level level, const char *message, void *user_data);

/* Do not load backend modules: only devices the caller registers with
 * uda_context_add_device exist (tests, embedders with their own backends). */
#define UDA_CONTEXT_CREATE_NO_BACKENDS 0x1u

typedef struct uda_context_create_info {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO */
	const void *next;
	uint32_t flags; /* UDA_CONTEXT_CREATE_* */
	/* Messages at or below this level reach log_callback; 0 means
	 * UDA_LOG_WARNING. */
	uda_log_level log_level;
	uda_log_callback log_callback; /* NULL: no logging */
	void *log_user_data;
} uda_context_create_info;

/* info may be NULL for defaults. Unless UDA_CONTEXT_CREATE_NO_BACKENDS is
 * set, backend modules are loaded from their JSON manifests, searched in
 * the folders of UDA_BACKEND_PATH (colon-separated, ignored in setuid
 * processes), $XDG_DATA_HOME/uda/backends.d, each $XDG_DATA_DIRS entry's
 * uda/backends.d and the installation's share/uda/backends.d; the first
 * manifest of a backend name wins; UDA_BACKEND_NO_DEFAULT_PATHS=1 leaves
 * only UDA_BACKEND_PATH (hermetic tests). A manifest or module that cannot be
 * used is skipped and the reason logged; it never fails the context. */
UDA_API uda_result uda_context_create(const uda_context_create_info *info, uda_context **out_context);
/* Destroys the context and the devices registered with it. Builders and
 * lists are the caller's and must be destroyed first. */
UDA_API void uda_context_destroy(uda_context *context);

/* The message of the most recent failed call made on this context by the
 * calling thread, or "" if there is none. Valid until the next call on
 * this context from this thread. Never NULL for a non-NULL context. */
UDA_API const char *uda_context_get_error(const uda_context *context);

/* ------------------------------------------------------------------------ */
/* Formats: DRM fourcc codes (drm_fourcc.h)                                  */

#define UDA_MAX_PLANES 4

typedef struct uda_format_plane_info {
	uint32_t bytes_per_block; /* bytes of one block of pixels */
	uint32_t block_width;     /* pixels per block, horizontally */
	uint32_t horizontal_subsampling;
	uint32_t vertical_subsampling;
} uda_format_plane_info;

typedef struct uda_format_info {
	uint32_t fourcc;
	const char *name; /* "ARGB8888", static */
	uint32_t plane_count;
	uda_format_plane_info planes[UDA_MAX_PLANES];
	bool has_alpha;
	bool is_yuv;
	/* Matching VkFormat in memory layout, or 0 (VK_FORMAT_UNDEFINED). */
	uint32_t vk_format;
	/* Matching sized GL internal format, or 0 where GL has none (GL cannot
	 * name BGR-ordered 10-bit or multi-planar YUV layouts). */
	uint32_t gl_internal_format;
} uda_format_info;

/* UDA_ERROR_UNSUPPORTED for a fourcc the table lacks. */
UDA_API uda_result uda_format_get_info(uint32_t fourcc, uda_format_info *out_info);
/* Two-call enumeration of every fourcc in the table. */
UDA_API uda_result uda_format_enumerate(uint32_t *count, uint32_t *fourccs);

/* ------------------------------------------------------------------------ */
/* Assertion and usage: what the caller wants                                */

typedef struct uda_assertion {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_ASSERTION */
	const void *next;
	uint32_t width;  /* 1 .. UDA_MAX_DIMENSION */
	uint32_t height; /* 1 .. UDA_MAX_DIMENSION */
	uint32_t format; /* DRM fourcc from the format table */
	/* 0 or the number of planes the caller expects (e.g. 1 for an NV12
	 * layout that keeps both planes in one memory plane). */
	uint32_t plane_count_hint;
} uda_assertion;

#define UDA_MAX_DIMENSION 65536u

/* Vendor IDs of usage atoms and capabilities. Vendor-specific values are
 * PCI vendor IDs (0x10de NVIDIA, 0x1002 AMD, 0x8086 Intel, ...); the core
 * never interprets their names or payloads. */
#define UDA_VENDOR_NONE 0x0000u

typedef enum uda_usage_name {
	UDA_USAGE_RENDER_TARGET = 1,
	UDA_USAGE_SAMPLED = 2,
	UDA_USAGE_STORAGE = 3,
	UDA_USAGE_SCANOUT = 4,
	UDA_USAGE_SCANOUT_CURSOR = 5,
	UDA_USAGE_SCANOUT_OVERLAY = 6,
	UDA_USAGE_VIDEO_DECODE = 7, /* payload: none or a uda_video_profile */
	UDA_USAGE_VIDEO_ENCODE = 8, /* payload: none or a uda_video_profile */
	/* CPU_READ and CPU_WRITE carry a 4-byte little-endian
	 * uda_cpu_access_frequency payload; every other common atom has none. */
	UDA_USAGE_CPU_READ = 9,
	UDA_USAGE_CPU_WRITE = 10,
	UDA_USAGE_TRANSFER_SRC = 11,
	UDA_USAGE_TRANSFER_DST = 12,
	UDA_USAGE_PROTECTED = 13,
	/* A camera (or a video grabber) writes captured frames into it: the
	 * capture queue of a V4L2 capture node. */
	UDA_USAGE_CAMERA_CAPTURE = 14,
} uda_usage_name;

typedef enum uda_cpu_access_frequency {
	UDA_CPU_ACCESS_NEVER = 0,
	UDA_CPU_ACCESS_RARELY = 1,
	UDA_CPU_ACCESS_OFTEN = 2,
} uda_cpu_access_frequency;

typedef struct uda_usage_atom {
	uint16_t vendor; /* UDA_VENDOR_NONE for uda_usage_name atoms */
	uint16_t name;
	uint32_t length; /* payload bytes, at most UDA_MAX_PAYLOAD_SIZE */
	const void *payload;
} uda_usage_atom;

typedef struct uda_usage {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_USAGE */
	const void *next;
	uint32_t atom_count; /* 1 .. UDA_MAX_USAGE_ATOMS */
	const uda_usage_atom *atoms;
} uda_usage;

#define UDA_MAX_USAGE_ATOMS 64u

/* VIDEO_DECODE and VIDEO_ENCODE atoms carry no payload (any bitstream) or
 * a uda_video_profile, encoded with uda_video_profile_to_payload: the
 * bitstream the buffer's pictures come from or go to, so that a decoder
 * that cannot decode it, or an encoder that cannot write it, answers no
 * sets rather than a buffer it cannot use. */
typedef enum uda_video_codec {
	UDA_VIDEO_CODEC_H264 = 1,
	UDA_VIDEO_CODEC_H265 = 2,
	UDA_VIDEO_CODEC_VP8 = 3,
	UDA_VIDEO_CODEC_VP9 = 4,
	UDA_VIDEO_CODEC_AV1 = 5,
	UDA_VIDEO_CODEC_MPEG2 = 6,
	UDA_VIDEO_CODEC_JPEG = 7,
} uda_video_codec;

typedef struct uda_video_profile {
	uint32_t codec; /* uda_video_codec */
	/* The codec's own profile number (H.264 profile_idc, H.265
	 * general_profile_idc, VP9 and AV1 profile), or 0: any (for VP9 and
	 * AV1 also their profile 0, the one every decoder of them takes). */
	uint32_t profile;
	/* Bits per luma and chroma sample, 8, 10 or 12; 0: any. */
	uint32_t bit_depth;
	/* 420, 422, 444, or 400 (luma only); 0: any. */
	uint32_t chroma;
} uda_video_profile;

/* The payload: the four fields as little-endian u32s, in order. */
#define UDA_VIDEO_PROFILE_PAYLOAD_SIZE 16u

/* Writes the payload of a VIDEO_DECODE or VIDEO_ENCODE atom. */
UDA_API void uda_video_profile_to_payload(const uda_video_profile *profile,
                                          uint8_t out_payload[UDA_VIDEO_PROFILE_PAYLOAD_SIZE]);
/* Reads an atom's profile: UDA_ERROR_NOT_FOUND for an atom without one
 * (or not a video atom), UDA_ERROR_INVALID_ARGUMENT for a payload that is
 * not a valid profile. A payload with picture flags (below) holds a
 * profile too. */
UDA_API uda_result uda_video_profile_from_atom(const uda_usage_atom *atom, uda_video_profile *out_profile);

/* What a profile may say about its pictures beyond the bitstream's
 * profile: how a decoder writes them, which decides how a Vulkan
 * decoder's output image is made. A payload of
 * UDA_VIDEO_PROFILE_PICTURE_PAYLOAD_SIZE bytes is the profile's four
 * fields, then these flags as a little-endian u32. */
typedef enum uda_video_picture_flags {
	/* H.264 interlaced: a frame's two fields in one picture, their lines
	 * interleaved. */
	UDA_VIDEO_PICTURE_INTERLACED = 1u << 0,
	/* AV1 film grain: the decoder adds the stream's grain to the
	 * pictures it outputs. */
	UDA_VIDEO_PICTURE_FILM_GRAIN = 1u << 1,
} uda_video_picture_flags;
#define UDA_VIDEO_PICTURE_FLAGS_ALL 0x3u
#define UDA_VIDEO_PROFILE_PICTURE_PAYLOAD_SIZE 20u

/* Writes the payload of a VIDEO_DECODE or VIDEO_ENCODE atom whose profile
 * has picture flags (uda_video_picture_flags). */
UDA_API void uda_video_profile_to_picture_payload(const uda_video_profile *profile, uint32_t picture_flags,
                                                  uint8_t out_payload[UDA_VIDEO_PROFILE_PICTURE_PAYLOAD_SIZE]);
/* Reads an atom's picture flags: 0 for a profile without them;
 * UDA_ERROR_NOT_FOUND and UDA_ERROR_INVALID_ARGUMENT as
 * uda_video_profile_from_atom. Flags are known ones, INTERLACED with
 * H.264 only, FILM_GRAIN with AV1 only. */
UDA_API uda_result uda_video_profile_picture_flags_from_atom(const uda_usage_atom *atom, uint32_t *out_flags);


/* ------------------------------------------------------------------------ */
/* Constraints: numeric limits with core-defined merge rules                 */

typedef enum uda_constraint {
	/* Merged by least common multiple. */
	UDA_CONSTRAINT_ADDRESS_ALIGNMENT = 0, /* base address; power of two */
	UDA_CONSTRAINT_PITCH_ALIGNMENT = 1,   /* row pitch in bytes; any value */
	UDA_CONSTRAINT_OFFSET_ALIGNMENT = 2,  /* offset of image data; any value */
	UDA_CONSTRAINT_SIZE_ALIGNMENT = 3,    /* total size; power of two */
	UDA_CONSTRAINT_PLANE_ALIGNMENT = 4,   /* start of each plane; power of two */
	/* Merged by minimum. */
	UDA_CONSTRAINT_MAX_PITCH = 5,
	UDA_CONSTRAINT_MAX_WIDTH = 6,
	UDA_CONSTRAINT_MAX_HEIGHT = 7,
	UDA_CONSTRAINT_MAX_SIZE = 8,
	UDA_CONSTRAINT_MAX_PLANES = 9,
	/* Merged by maximum. */
	UDA_CONSTRAINT_MIN_PITCH = 10,
	/* Total size in bytes: a device that reads more than the planes
	 * (a V4L2 decoder's sizeimage, with its motion vectors after the
	 * picture) needs memory of at least this size. */
	UDA_CONSTRAINT_MIN_SIZE = 11,
	UDA_CONSTRAINT_COUNT = 12,
} uda_constraint;

/* Static name, "PITCH_ALIGNMENT"; NULL for an unknown constraint. */
UDA_API const char *uda_constraint_to_string(uda_constraint constraint);

/* ------------------------------------------------------------------------ */
/* Capabilities: opaque, vendor-typed                                        */

/* Intersection fails if it would drop a REQUIRED capability. */
#define UDA_CAPABILITY_FLAG_REQUIRED 0x1u
/* Device-local: passes through intersection tagged with its owner's
 * device UUID; only the owner acts on it. */
#define UDA_CAPABILITY_FLAG_LOCAL 0x2u
#define UDA_CAPABILITY_FLAGS_ALL  0x3u

/* Names of the common capabilities (vendor UDA_VENDOR_NONE). Every
 * capability set carries exactly one layout capability (LAYOUT or
 * LAYOUT_OPAQUE), which may not be LOCAL. */
typedef enum uda_capability_name {
	/* payload: uint64_t DRM format modifier, little-endian (8 bytes);
	 * DRM_FORMAT_MOD_LINEAR is pitch linear. */
	UDA_CAPABILITY_LAYOUT = 1,
	/* payload: 16-byte driver UUID followed by driver-private bytes; valid
	 * only between devices whose driver UUID matches. */
	UDA_CAPABILITY_LAYOUT_OPAQUE = 2,
	/* payload: uint32_t uda_handle_type, little-endian; one capability per
	 * handle type the memory can be exported or imported as. */
	UDA_CAPABILITY_HANDLE = 3,
	/* payload: uint32_t uda_placement, little-endian. */
	UDA_CAPABILITY_PLACEMENT = 4,
	/* payload: uint32_t uda_cpu_access, little-endian. */
	UDA_CAPABILITY_CPU_ACCESS = 5,
} uda_capability_name;

typedef enum uda_handle_type {
	UDA_HANDLE_TYPE_NONE = 0,
	UDA_HANDLE_TYPE_DMA_BUF = 1,
	UDA_HANDLE_TYPE_OPAQUE_FD = 2,
	UDA_HANDLE_TYPE_MEMFD = 3,
} uda_handle_type;

typedef enum uda_placement {
	UDA_PLACEMENT_SYSTEM = 1,
	UDA_PLACEMENT_DEVICE_LOCAL = 2,
	UDA_PLACEMENT_CONTIGUOUS = 3,
	UDA_PLACEMENT_PROTECTED = 4,
} uda_placement;

/* "system", "device-local", "contiguous", "protected"; "unknown" else. */
UDA_API const char *uda_placement_to_string(uint32_t placement);

typedef enum uda_cpu_access {
	UDA_CPU_ACCESS_MAPPABLE = 1,
	UDA_CPU_ACCESS_COHERENT = 2,
} uda_cpu_access;

#define UDA_MAX_PAYLOAD_SIZE         4096u
#define UDA_MAX_CAPABILITIES_PER_SET 256u

typedef struct uda_capability {
	uint16_t vendor;
	uint16_t name;
	uint32_t flags;  /* UDA_CAPABILITY_FLAG_* */
	uint32_t length; /* payload bytes, 0 .. UDA_MAX_PAYLOAD_SIZE */
	const void *payload;
	/* LOCAL capabilities only: the device that owns it. All zero means
	 * "not yet tagged"; uda_negotiate tags a device's LOCAL capabilities
	 * with that device's UUID. */
	uint8_t owner_uuid[UDA_UUID_SIZE];
} uda_capability;

/* ------------------------------------------------------------------------ */
/* Capability sets and ordered lists of them                                 */

/* A mutable scratch object that collects one set's constraints and
 * capabilities; appending it to a list copies, validates and canonicalizes
 * its contents. */
typedef struct uda_capability_set_builder uda_capability_set_builder;

/* An ordered list of capability sets, best first. Immutable except for
 * uda_capability_set_list_append_set and _append_copy. */
typedef struct uda_capability_set_list uda_capability_set_list;

UDA_API uda_result uda_capability_set_builder_create(uda_context *context, uda_capability_set_builder **out_builder);
UDA_API void uda_capability_set_builder_destroy(uda_capability_set_builder *builder);
/* Forgets every constraint and capability added so far. */
UDA_API uda_result uda_capability_set_builder_reset(uda_capability_set_builder *builder);
/* Sets (or replaces) one constraint. Alignments must be non-zero, and a
 * power of two where uda_constraint says so; maxima must be non-zero. */
UDA_API uda_result uda_capability_set_builder_set_constraint(uda_capability_set_builder *builder,
                                                             uda_constraint constraint, uint64_t value);
/* Copies the capability (payload included). A capability equal to one
 * already added (same vendor, name, length, payload, LOCAL owner) is an
 * error. */
UDA_API uda_result uda_capability_set_builder_add_capability(uda_capability_set_builder *builder,
                                                             const uda_capability *capability);
/* Shorthand for a UDA_CAPABILITY_LAYOUT capability with this modifier. */
UDA_API uda_result uda_capability_set_builder_add_layout(uda_capability_set_builder *builder,
                                                         uint64_t drm_format_modifier, uint32_t flags);
/* Shorthand for a common capability with a 4-byte little-endian payload
 * (HANDLE, PLACEMENT, CPU_ACCESS). */
UDA_API uda_result uda_capability_set_builder_add_u32(uda_capability_set_builder *builder, uda_capability_name name,
                                                      uint32_t value, uint32_t flags);

UDA_API uda_result uda_capability_set_list_create(uda_context *context, uda_capability_set_list **out_list);
UDA_API void uda_capability_set_list_destroy(uda_capability_set_list *list);
/* Appends the builder's set at the end (lowest preference). Fails if the
 * set does not have exactly one layout capability, if its constraints
 * contradict each other (min pitch above max pitch, no pitch multiple of
 * the pitch alignment within the bounds), or if the list is full. The
 * builder is left unchanged. A set equal to one already in the list is
 * appended all the same; such a list cannot be serialized until
 * intersection (or the caller) removes the repeat. */
UDA_API uda_result uda_capability_set_list_append_set(uda_capability_set_list *list,
                                                      const uda_capability_set_builder *builder);
/* Appends a copy of set `set_index` of `source` (same context) at the end
 * of `list`; backends use it to answer from sets they computed once.
 * `source` may be `list` itself. */
UDA_API uda_result uda_capability_set_list_append_copy(uda_capability_set_list *list,
                                                       const uda_capability_set_list *source, uint32_t set_index);
/* A deep copy, for keeping a list beyond the life of its source. */
UDA_API uda_result uda_capability_set_list_copy(const uda_capability_set_list *list,
                                                uda_capability_set_list **out_copy);

UDA_API uda_result uda_capability_set_list_get_count(const uda_capability_set_list *list, uint32_t *out_count);
/* *out_present tells whether the set has the constraint; *out_value is
 * written only when it does. */
UDA_API uda_result uda_capability_set_list_get_constraint(const uda_capability_set_list *list, uint32_t set_index,
                                                          uda_constraint constraint, bool *out_present,
                                                          uint64_t *out_value);
UDA_API uda_result uda_capability_set_list_get_capability_count(const uda_capability_set_list *list, uint32_t set_index,
                                                                uint32_t *out_count);
/* Capabilities of a set are kept in a canonical order (vendor, name,
 * payload, then LOCAL ones), not in the order they were added. The payload
 * pointer points into the list's storage, which an append may move: it is
 * valid until the list is next modified (appended to) or destroyed. */
UDA_API uda_result uda_capability_set_list_get_capability(const uda_capability_set_list *list, uint32_t set_index,
                                                          uint32_t capability_index, uda_capability *out_capability);
/* The set's one layout capability; its payload pointer is valid as for
 * uda_capability_set_list_get_capability. */
UDA_API uda_result uda_capability_set_list_get_layout(const uda_capability_set_list *list, uint32_t set_index,
                                                      uda_capability *out_capability);
/* The DRM format modifier of the set's LAYOUT capability, or
 * DRM_FORMAT_MOD_INVALID (0x00ffffffffffffff, which no LAYOUT may carry)
 * when the layout is LAYOUT_OPAQUE: driver-private, named by no
 * modifier. */
UDA_API uda_result uda_capability_set_list_get_modifier(const uda_capability_set_list *list, uint32_t set_index,
                                                        uint64_t *out_modifier);
/* *out_equal tells whether two sets hold the same constraints and the
 * same capabilities with the same flags and owners. */
UDA_API uda_result uda_capability_set_list_sets_equal(const uda_capability_set_list *a, uint32_t a_index,
                                                      const uda_capability_set_list *b, uint32_t b_index,
                                                      bool *out_equal);

/* Every compatible pair (a set of `a`, a set of `b`), ordered by a's
 * preference then b's, failures dropped, duplicates removed. Capabilities
 * in both are kept (flags OR-ed); one present on one side only is dropped,
 * or fails the pair if REQUIRED; LOCAL ones pass through. Constraints merge
 * through the core's table; one present on one side passes unchanged; an
 * impossible merge fails the pair. A pair whose result would hold more
 * than UDA_MAX_CAPABILITIES_PER_SET capabilities (LOCAL ones of both sides
 * add up) fails too: no set anywhere exceeds that limit. An empty result
 * is a success with an empty list. Both lists must belong to the same
 * context. */
UDA_API uda_result uda_capability_set_list_intersect(const uda_capability_set_list *a, const uda_capability_set_list *b,
                                                     uda_capability_set_list **out_result);

/* Serialized form: versioned, little-endian, length-prefixed, at most
 * UDA_MAX_SERIALIZED_SIZE bytes. With data == NULL only *out_size is
 * written; with a buffer shorter than needed, *out_size receives the needed
 * size and UDA_ERROR_BUFFER_TOO_SMALL is returned (what the buffer then
 * holds is unspecified). A list that holds the
 * same set twice is refused (UDA_ERROR_INVALID_ARGUMENT), as the reader
 * refuses it. */
#define UDA_MAX_SERIALIZED_SIZE (16u * 1024u * 1024u)
#define UDA_MAX_SETS_PER_LIST   65536u

UDA_API uda_result uda_capability_set_list_serialize(const uda_capability_set_list *list, void *data, size_t capacity,
                                                     size_t *out_size);
/* Input is untrusted: anything malformed is UDA_ERROR_INVALID_DATA, and
 * so is a list that holds the same set twice. */
UDA_API uda_result uda_capability_set_list_deserialize(uda_context *context, const void *data, size_t size,
                                                       uda_capability_set_list **out_list);

/* ------------------------------------------------------------------------ */
/* Devices                                                                   */

typedef struct uda_device uda_device;

/* The API through which a device is driven. The same hardware reached
 * through two APIs (lavapipe through Vulkan, llvmpipe through GL) is two
 * uda devices with the same device UUID and different APIs. */
typedef enum uda_device_api {
	UDA_DEVICE_API_ANY = 0, /* lookups only: any API */
	UDA_DEVICE_API_CPU = 1,
	UDA_DEVICE_API_VULKAN = 2,
	UDA_DEVICE_API_GL = 3,
	UDA_DEVICE_API_DRM = 4,
	UDA_DEVICE_API_OTHER = 5, /* in-process devices of embedders and tests */
	/* An allocation-only memory source (a DMA-BUF heap): it takes part in
	 * no intersection; uda_negotiate_allocate asks it for a set that no
	 * negotiating device allocates (docs/core.md, "Memory sources"). */
	UDA_DEVICE_API_DMA_HEAP = 6,
	/* A V4L2 video node: a camera, a decoder, an encoder, a converter
	 * (uda_v4l2.h). */
	UDA_DEVICE_API_V4L2 = 7,
} uda_device_api;

/* Static name, "VULKAN"; NULL for an unknown value. */
UDA_API const char *uda_device_api_to_string(uda_device_api api);

/* A DRM device node by its character device number (st_rdev). */
typedef struct uda_drm_node {
	bool present;
	uint32_t major;
	uint32_t minor;
} uda_drm_node;

typedef struct uda_device_info {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_DEVICE_INFO */
	const void *next;
	/* VkPhysicalDeviceIDProperties::deviceUUID / GL_DEVICE_UUID_EXT. */
	uint8_t device_uuid[UDA_UUID_SIZE];
	/* VkPhysicalDeviceIDProperties::driverUUID / GL_DRIVER_UUID_EXT. */
	uint8_t driver_uuid[UDA_UUID_SIZE];
	const char *name;         /* valid while the device lives */
	const char *backend_name; /* valid while the device lives */
	uda_device_api api;
	/* The DRM nodes the backend knows for the device (from
	 * VK_EXT_physical_device_drm, EGL_EXT_device_drm, or its own fd). */
	uda_drm_node drm_primary;
	uda_drm_node drm_render;
} uda_device_info;

/* Two-call enumeration, in registration order. With an array of *count
 * entries that is too small, the first *count devices are written, *count
 * is left at that number and UDA_ERROR_BUFFER_TOO_SMALL is returned (with
 * a message, like every failure). */
UDA_API uda_result uda_context_enumerate_devices(uda_context *context, uint32_t *count, uda_device **devices);
/* The first device with this device UUID through `api`
 * (UDA_DEVICE_API_ANY: through any). UDA_ERROR_NOT_FOUND if none. */
UDA_API uda_result uda_context_find_device(uda_context *context, const uint8_t device_uuid[UDA_UUID_SIZE],
                                           uda_device_api api, uda_device **out_device);
/* The first device through `api` whose primary or render node is the
 * DRM device `drm_fd` refers to. */
UDA_API uda_result uda_context_find_device_by_drm_fd(uda_context *context, int drm_fd, uda_device_api api,
                                                     uda_device **out_device);
/* Whether two devices are the same hardware: equal device UUIDs (and
 * driver UUIDs, for opaque handles to be valid between them). */
UDA_API bool uda_device_same_hardware(const uda_device *a, const uda_device *b);
/* The context the device belongs to; NULL for NULL, and for a pointer
 * that is readable but not a live uda_device (such as an untyped EGL
 * native display of another kind), which every uda_device_* call and
 * every info struct naming a device refuses with
 * UDA_ERROR_INVALID_ARGUMENT. */
UDA_API uda_context *uda_device_get_context(const uda_device *device);
/* The caller sets out_info->type; the rest is written. */
UDA_API uda_result uda_device_get_info(const uda_device *device, uda_device_info *out_info);
/* The API objects of the device itself, for an application or a platform
 * built on uda to use: `out_native` is a struct of the device's API whose
 * `type` the caller sets (uda_gl_device_native in uda_gl.h).
 * UDA_ERROR_UNSUPPORTED if the backend has none of that type. */
UDA_API uda_result uda_device_get_native(const uda_device *device, void *out_native);
/* The device's capability sets for the assertion and usage, best first,
 * LOCAL capabilities tagged with this device's UUID, each set once (the
 * first of equal sets is kept). A device that cannot serve the request at
 * all returns UDA_ERROR_UNSUPPORTED. */
UDA_API uda_result uda_device_get_capability_sets(uda_device *device, const uda_assertion *assertion,
                                                  const uda_usage *usage, uda_capability_set_list **out_list);

/* What a device can do with one format for a usage. */
#define UDA_MAX_FORMAT_MODIFIERS 16u
typedef struct uda_format_support {
	uint32_t fourcc;
	/* The DRM format modifiers of its LAYOUT sets, best first (at most
	 * UDA_MAX_FORMAT_MODIFIERS; modifier_count says how many). */
	uint32_t modifier_count;
	uint64_t modifiers[UDA_MAX_FORMAT_MODIFIERS];
	/* Whether a driver-private LAYOUT_OPAQUE set is offered too. */
	bool opaque_layout;
} uda_format_support;

/* Two-call enumeration of the formats of uda's table the device accepts
 * for `usage`, in table order. Each format is asked at a 64x64 probe: the
 * limits of a real size (max width, pitch) are the real assertion's to
 * ask with uda_device_get_capability_sets. */
UDA_API uda_result uda_device_get_formats(uda_device *device, const uda_usage *usage, uint32_t *count,
                                          uda_format_support *formats);

/* ------------------------------------------------------------------------ */
/* Negotiation                                                               */

typedef struct uda_device_usage {
	uda_device *device;
	const uda_usage *usage;
} uda_device_usage;

typedef struct uda_negotiation_info {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_NEGOTIATION_INFO */
	const void *next;
	const uda_assertion *assertion;
	uint32_t device_count; /* 1 .. UDA_MAX_NEGOTIATION_DEVICES */
	const uda_device_usage *devices;
} uda_negotiation_info;

#define UDA_MAX_NEGOTIATION_DEVICES 32u

/* Chained to uda_negotiation_info::next (or uda_surface_create_info::next):
 * the capability sets of devices outside this context, such as a
 * compositor's sent over a socket (deserialized), folded in after the
 * context's devices. The list stays the caller's. */
typedef struct uda_negotiation_peer_info {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_NEGOTIATION_PEER_INFO */
	const void *next;
	const uda_capability_set_list *sets;
} uda_negotiation_peer_info;

#define UDA_MAX_NEGOTIATION_PEERS 8u

/* Chained to uda_negotiation_info::next (or uda_surface_create_info::next),
 * at most once: what a caller with its own rules about layouts and handles
 * asks of the result, applied after the fold. With modifier_count > 0 only
 * sets whose LAYOUT is one of `modifiers` stay (an explicit modifier list,
 * as gbm_bo_create_with_modifiers2 or a client's linux-dmabuf feedback
 * gives; LAYOUT_OPAQUE sets go). Then the sets that carry
 * preferred_handle_type move to the front, each group in its negotiated
 * order (GBM users expect DMA-BUFs where the devices have them). Nothing
 * left is UDA_ERROR_INCOMPATIBLE. The filter stays the caller's. */
typedef struct uda_negotiation_layout_filter {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_NEGOTIATION_LAYOUT_FILTER */
	const void *next;
	uint32_t modifier_count; /* 0 .. UDA_MAX_FILTER_MODIFIERS; 0: any layout */
	const uint64_t *modifiers;
	uda_handle_type preferred_handle_type; /* UDA_HANDLE_TYPE_NONE: keep the order */
} uda_negotiation_layout_filter;

#define UDA_MAX_FILTER_MODIFIERS 256u

/* Chained to uda_negotiation_info::next (or uda_surface_create_info::next),
 * at most once, applied after the layout filter: a consumer's order of
 * layouts. The negotiated sets move, stably, into ascending rank of their
 * LAYOUT; sets of a layout the ranking does not name (LAYOUT_OPAQUE ones
 * among them) go after every ranked one, in negotiated order. A Wayland
 * compositor's linux-dmabuf feedback gives one: a modifier ranks as the
 * first tranche that lists it, so a scanout tranche the compositor sends
 * first leads, while within a tranche (which the protocol leaves
 * unordered) the devices' own order stands. Copied. */
typedef struct uda_negotiation_layout_ranking {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_NEGOTIATION_LAYOUT_RANKING */
	const void *next;
	uint32_t count; /* 1 .. UDA_MAX_FILTER_MODIFIERS */
	const uint64_t *modifiers;
	const uint32_t *ranks; /* one per modifier; lower goes first */
} uda_negotiation_layout_ranking;

/* Asks every device for its sets, drops the sets that cannot hold the
 * assertion (max width/height/planes/pitch/size), and intersects the
 * lists left to right, dropping again after each step the merged sets
 * that can no longer hold it, and stopping as soon as nothing is left. On
 * success every set of the list holds the assertion, best first, and
 * there is at least one; if nothing is common the result is
 * UDA_ERROR_INCOMPATIBLE and the message names the device at which the
 * fold became empty. */
UDA_API uda_result uda_negotiate(uda_context *context, const uda_negotiation_info *info,
                                 uda_capability_set_list **out_list);

/* ------------------------------------------------------------------------ */
/* Allocation metadata: what an importer needs to know about memory         */

typedef struct uda_plane_layout {
	uint64_t offset; /* bytes from the start of the memory */
	uint64_t pitch;  /* bytes per row */
} uda_plane_layout;

typedef struct uda_allocation_metadata {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_ALLOCATION_METADATA */
	const void *next;
	uint32_t width;
	uint32_t height;
	uint32_t format; /* DRM fourcc */
	uda_handle_type handle_type;
	uint64_t size; /* bytes of memory behind the handle */
	uint32_t plane_count;
	uda_plane_layout planes[UDA_MAX_PLANES];
	/* The device that allocated the memory. */
	uint8_t device_uuid[UDA_UUID_SIZE];
	uint8_t driver_uuid[UDA_UUID_SIZE];
} uda_allocation_metadata;

/* What the pixels mean: colour primaries, transfer function and, for HDR,
 * the static metadata of CTA-861-G (the HDR_OUTPUT_METADATA a display
 * takes). Content information, not a memory property: it is never
 * negotiated, and travels with the allocation's metadata. */
typedef enum uda_color_primaries {
	UDA_COLOR_PRIMARIES_UNSPECIFIED = 0,
	UDA_COLOR_PRIMARIES_BT709 = 1,  /* and sRGB */
	UDA_COLOR_PRIMARIES_BT2020 = 2,
	UDA_COLOR_PRIMARIES_DCI_P3 = 3,
	UDA_COLOR_PRIMARIES_DISPLAY_P3 = 4,
} uda_color_primaries;

typedef enum uda_transfer_function {
	UDA_TRANSFER_FUNCTION_UNSPECIFIED = 0,
	UDA_TRANSFER_FUNCTION_SRGB = 1,
	UDA_TRANSFER_FUNCTION_LINEAR = 2, /* scene-linear (FP16 scRGB) */
	UDA_TRANSFER_FUNCTION_PQ = 3,     /* SMPTE ST 2084 */
	UDA_TRANSFER_FUNCTION_HLG = 4,    /* ARIB STD-B67 */
	UDA_TRANSFER_FUNCTION_BT709 = 5,
} uda_transfer_function;

typedef struct uda_color_info {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_COLOR_INFO */
	const void *next;        /* NULL */
	uda_color_primaries primaries;
	uda_transfer_function transfer;
	/* Mastering display, CTA-861-G: chromaticities (red, green, blue,
	 * then white point) in units of 0.00002 (at most 50000); luminance in
	 * cd/m^2 (max) and 0.0001 cd/m^2 (min); 0 where unknown. */
	uint16_t display_primaries_x[3], display_primaries_y[3];
	uint16_t white_point_x, white_point_y;
	uint32_t max_display_mastering_luminance;
	uint32_t min_display_mastering_luminance;
	/* Content light levels, cd/m^2; 0 where unknown. */
	uint32_t max_content_light_level;
	uint32_t max_frame_average_light_level;
} uda_color_info;

/* Serializes the metadata together with the capability set it satisfies
 * (set_index of set_list). Same buffer conventions as list
 * serialization. Fails if the metadata is inconsistent (planes outside
 * size, plane count against the format). metadata->next may hold a
 * uda_color_info, which then travels too (wire version 2; without one the
 * bytes are version 1, which every uda reads). */
UDA_API uda_result uda_allocation_metadata_serialize(uda_context *context, const uda_allocation_metadata *metadata,
                                                     const uda_capability_set_list *set_list, uint32_t set_index,
                                                     void *data, size_t capacity, size_t *out_size);
/* Untrusted input. On success *out_metadata is filled (type set, next
 * NULL) and *out_set_list receives a new one-set list the caller owns. */
UDA_API uda_result uda_allocation_metadata_deserialize(uda_context *context, const void *data, size_t size,
                                                       uda_allocation_metadata *out_metadata,
                                                       uda_capability_set_list **out_set_list);
/* The colour information serialized metadata carries, after the same
 * checks as uda_allocation_metadata_deserialize; UDA_ERROR_NOT_FOUND when
 * it carries none. */
UDA_API uda_result uda_allocation_metadata_deserialize_color_info(uda_context *context, const void *data,
                                                                  size_t size, uda_color_info *out_color);

/* ------------------------------------------------------------------------ */
/* Allocations                                                               */

typedef struct uda_allocation uda_allocation;

typedef struct uda_allocation_create_info {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO */
	const void *next;
	uda_device *device; /* the device whose backend allocates */
	const uda_assertion *assertion;
	/* The capability set to satisfy: set_index of set_list (typically the
	 * result of uda_negotiate). Copied. */
	const uda_capability_set_list *set_list;
	uint32_t set_index;
} uda_allocation_create_info;

/* Allocates memory satisfying one capability set on one device.
 * UDA_ERROR_UNSUPPORTED if the device's backend does not allocate. */
UDA_API uda_result uda_allocate(const uda_allocation_create_info *info, uda_allocation **out_allocation);

/* Negotiates as uda_negotiate does, then allocates with fallback: the
 * negotiated sets are tried best first, and for each set the devices in
 * the order of info->devices, until one allocation succeeds. Each failure
 * on the way is logged at debug level; only the last one is returned. If
 * out_sets is not NULL it receives the negotiated list (caller owns it)
 * and *out_set_index the index of the set that was allocated. */
UDA_API uda_result uda_negotiate_allocate(uda_context *context, const uda_negotiation_info *info,
                                          uda_allocation **out_allocation, uda_capability_set_list **out_sets,
                                          uint32_t *out_set_index);

/* Frees the allocation (memory stays alive while exported fds or other
 * importers hold it). Accepts NULL. Unmaps a mapping still in place. */
UDA_API void uda_allocation_destroy(uda_allocation *allocation);

/* Whether `candidate` is a live allocation of `context`, without reading
 * it (an EGL native pixmap, an EGLClientBuffer). UDA_SUCCESS or
 * UDA_ERROR_NOT_FOUND. */
UDA_API uda_result uda_context_validate_allocation(uda_context *context, const void *candidate);

/* Size, planes and device UUIDs. handle_type is UDA_HANDLE_TYPE_NONE: the
 * handle type is chosen at export. */
UDA_API uda_result uda_allocation_get_metadata(const uda_allocation *allocation,
                                               uda_allocation_metadata *out_metadata);
/* The one-set list of the capability set the memory satisfies; owned by
 * the allocation, never modified, valid until the allocation is
 * destroyed. */
UDA_API uda_result uda_allocation_get_capability_set(const uda_allocation *allocation,
                                                     const uda_capability_set_list **out_set_list);
UDA_API uda_result uda_allocation_get_device(const uda_allocation *allocation, uda_device **out_device);

/* The API objects behind the allocation, for the application to use
 * directly: `out_native` is a struct of the device's API whose `type` the
 * caller sets (uda_vulkan_native in uda_vulkan.h, uda_gl_native in
 * uda_gl.h). UDA_ERROR_UNSUPPORTED if the device's backend has no such
 * objects. Valid while the allocation lives. */
UDA_API uda_result uda_allocation_get_native(const uda_allocation *allocation, void *out_native);

/* A new file descriptor (O_CLOEXEC, owned by the caller) for the memory.
 * UDA_ERROR_UNSUPPORTED if the set or the backend cannot carry that
 * handle type. */
UDA_API uda_result uda_allocation_export(uda_allocation *allocation, uda_handle_type handle_type, int *out_fd);
/* The serialized metadata an importer needs with an fd of handle_type;
 * buffer conventions as uda_capability_set_list_serialize. The set keeps
 * every LOCAL capability, whoever owns it: for the owning device's own
 * later use (another process of the same hardware) or a relay. */
UDA_API uda_result uda_allocation_serialize_metadata(const uda_allocation *allocation, uda_handle_type handle_type,
                                                     void *data, size_t capacity, size_t *out_size);
/* The same for one recipient: LOCAL capabilities of owners other than
 * the device of `recipient_device_uuid` are left out. They describe state
 * of hardware the recipient is not (a cache, a compression) and nothing
 * it could act on. */
UDA_API uda_result uda_allocation_serialize_metadata_for(const uda_allocation *allocation, uda_handle_type handle_type,
                                                         const uint8_t recipient_device_uuid[UDA_UUID_SIZE],
                                                         void *data, size_t capacity, size_t *out_size);

typedef struct uda_import_info {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_IMPORT_INFO */
	/* NULL, or a chain of the importing backend's own structs
	 * (uda_gl_import_info); a backend refuses any it does not know. */
	const void *next;
	uda_device *device; /* the importing device */
	int fd;             /* the caller's, unless flags has UDA_IMPORT_TAKE_FD */
	const uda_allocation_metadata *metadata; /* handle_type names the fd's kind */
	const uda_capability_set_list *set_list; /* the set the memory satisfies */
	uint32_t set_index;
	uint32_t flags; /* UDA_IMPORT_* */
} uda_import_info;

/* The fd passes to uda with the call, whatever its result: kept (or handed
 * to the driver) on success, closed on failure. Saves the dup and close a
 * caller that has no further use for the fd (a compositor's client
 * buffer) would otherwise pay. */
#define UDA_IMPORT_TAKE_FD 0x1u
/* The importer only reads the memory (a consumer that samples or scans
 * out). The allocation refuses CPU write access (map, begin_cpu_access),
 * and a MEMFD is reopened read-only before any backend sees it, so no
 * writable mapping of it can be made through uda, nor through an fd this
 * import exports again. Other handle types carry no access mode the kernel
 * enforces; for them the refusal of CPU writes is what this flag gives.
 * Never imports executable: uda maps nothing PROT_EXEC. */
#define UDA_IMPORT_READ_ONLY 0x2u

/* Imports memory another device (or process) exported. Everything is
 * checked before the backend sees it: the metadata's consistency, the fd's
 * real size against metadata->size, seals of a MEMFD (SHRINK and GROW),
 * device and driver UUIDs for OPAQUE_FD, the handle type against the set.
 * Each failure has its own message and leaves no descriptor open. */
UDA_API uda_result uda_import(const uda_import_info *info, uda_allocation **out_allocation);
/* uda_import from an fd and uda_allocation_serialize_metadata bytes. */
UDA_API uda_result uda_import_serialized(uda_device *device, int fd, const void *metadata, size_t metadata_size,
                                         uda_allocation **out_allocation);

typedef struct uda_allocation_import_info {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_ALLOCATION_IMPORT_INFO */
	/* NULL, or the importing backend's structs, as uda_import_info::next
	 * (uda_gl_import_info). */
	const void *next;
	uda_allocation *allocation; /* the memory, made or imported here */
	uda_device *device;         /* the importing device, of the same context */
	/* UDA_HANDLE_TYPE_NONE: the allocation's set's handle types, DMA-BUF
	 * first, then OPAQUE_FD, then MEMFD, until the device takes one; else
	 * that one only. */
	uda_handle_type handle_type;
	uint32_t flags; /* UDA_IMPORT_READ_ONLY */
} uda_allocation_import_info;

/* An allocation on another device of its context: what a compositor with
 * two APIs in one process (Vulkan allocates, GL samples) needs. The memory
 * travels as a peer process would take it, an exported fd checked by
 * uda_import, with the allocation's metadata, set and colour information
 * as they are, without their round trip through bytes. An allocation
 * imported read-only is imported read-only again. Where every handle type
 * fails, the first one's reason is reported. */
UDA_API uda_result uda_import_allocation(const uda_allocation_import_info *info, uda_allocation **out_allocation);

/* The allocation's colour information, copied (color NULL: none). Export
 * metadata carries it; uda_import_serialized and uda_import (a
 * uda_color_info chained to metadata->next) give it to the import. */
UDA_API uda_result uda_allocation_set_color_info(uda_allocation *allocation, const uda_color_info *color);
/* UDA_ERROR_NOT_FOUND when the allocation has none. */
UDA_API uda_result uda_allocation_get_color_info(const uda_allocation *allocation, uda_color_info *out_color);

#define UDA_ACCESS_READ 0x1u
#define UDA_ACCESS_WRITE 0x2u

/* Maps the whole allocation for the CPU (plane offsets from the metadata
 * apply). One mapping at a time; UDA_ERROR_UNSUPPORTED where the
 * placement is not mappable. */
UDA_API uda_result uda_allocation_map(uda_allocation *allocation, uint32_t access, void **out_pointer);
UDA_API uda_result uda_allocation_unmap(uda_allocation *allocation);
/* Bracket CPU access to a mapping: begin makes device writes visible to
 * the CPU, end makes CPU writes visible to devices. Cheap no-ops on
 * coherent memory; required for correctness on non-coherent memory. */
UDA_API uda_result uda_allocation_begin_cpu_access(uda_allocation *allocation, uint32_t access);
UDA_API uda_result uda_allocation_end_cpu_access(uda_allocation *allocation, uint32_t access);

/* ------------------------------------------------------------------------ */
/* Usage changes: transition or reallocate                                   */

/* Who uses the memory before and after a change. The allocation's own
 * device may be absent from either side (a producer that hands its
 * memory to others and stops using it); every other device must be able
 * to import it. A device appears at most once per side. */
typedef struct uda_transition_info {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_TRANSITION_INFO */
	const void *next;
	uint32_t from_count; /* 0 .. UDA_MAX_NEGOTIATION_DEVICES */
	const uda_device_usage *from;
	uint32_t to_count; /* 1 .. UDA_MAX_NEGOTIATION_DEVICES */
	const uda_device_usage *to;
} uda_transition_info;

typedef enum uda_transition_kind {
	/* The memory serves the new usage as it is. */
	UDA_TRANSITION_NONE = 0,
	/* It does once the listed operations are done. */
	UDA_TRANSITION_DEVICE_OPS = 1,
	/* It cannot: uda_allocation_reallocate. The listed operations (if
	 * any) make the contents readable for the copy reallocation does. */
	UDA_TRANSITION_REALLOCATE = 2,
} uda_transition_kind;

typedef enum uda_transition_op_kind {
	/* The owner finishes with the memory before other devices use it:
	 * flush a LOCAL cache, resolve a LOCAL compression, release
	 * ownership of the memory. */
	UDA_TRANSITION_OP_RELEASE = 1,
	/* The owner takes the memory back once the others are done:
	 * acquire ownership, invalidate a LOCAL cache. */
	UDA_TRANSITION_OP_ACQUIRE = 2,
} uda_transition_op_kind;

typedef struct uda_transition_op {
	uda_device *device; /* the one that performs it: the allocation's */
	uda_transition_op_kind kind;
	/* The LOCAL capability of the allocation's set it is about. */
	uint16_t capability_vendor;
	uint16_t capability_name;
} uda_transition_op;

#define UDA_MAX_TRANSITION_OPS 8u
#define UDA_TRANSITION_REASON_SIZE 256u

typedef struct uda_transition {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_TRANSITION */
	/* NULL, or output structs of the allocation's backend, filled with
	 * the API form of each operation (uda_vulkan_transition). */
	void *next;
	uda_transition_kind kind;
	uint32_t op_count;
	uda_transition_op ops[UDA_MAX_TRANSITION_OPS];
	/* For REALLOCATE: which device cannot use the memory, and why. */
	char reason[UDA_TRANSITION_REASON_SIZE];
} uda_transition;

/* What switching the allocation from one set of device usages to another
 * needs. Every device of `to` is asked for its sets, and each must share
 * one with the allocation's set that the memory's layout satisfies (and,
 * for a device other than the allocation's, a handle type it imports);
 * then the allocation's backend says what its LOCAL capabilities need.
 * When `from` and `to` are the same, nothing is asked: UDA_TRANSITION_NONE
 * at no cost. A change the memory cannot serve is UDA_SUCCESS with
 * kind REALLOCATE; errors are for bad arguments and failing devices. */
UDA_API uda_result uda_allocation_transition(uda_allocation *allocation, const uda_transition_info *info,
                                             uda_transition *out_transition);

/* Copy the old contents into the new allocation (uda_allocation_reallocate),
 * through the device that can read both: the allocation's own or the new
 * one's backend, after importing the other memory, else the CPU through
 * two maps. UDA_ERROR_UNSUPPORTED when none can. */
#define UDA_REALLOCATE_COPY_CONTENTS 0x1u

typedef struct uda_reallocate_info {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_REALLOCATE_INFO */
	/* NULL, or the negotiation structs uda_negotiation_info::next takes
	 * (uda_negotiation_peer_info, uda_negotiation_layout_filter). */
	const void *next;
	uint32_t device_count; /* the new usages, as for uda_negotiate */
	const uda_device_usage *devices;
	uint32_t flags; /* UDA_REALLOCATE_* */
} uda_reallocate_info;

/* Negotiates the allocation's assertion for the new usages and allocates
 * anew (uda_negotiate_allocate), keeping the colour information and,
 * with UDA_REALLOCATE_COPY_CONTENTS, the pixels. The old allocation is
 * left as it was: the caller destroys it once its users have moved. */
UDA_API uda_result uda_allocation_reallocate(uda_allocation *allocation, const uda_reallocate_info *info,
                                             uda_allocation **out_allocation);

#ifdef __cplusplus
}
#endif

#endif /* UDA_H */
