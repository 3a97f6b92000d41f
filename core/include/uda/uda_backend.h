/*
 * uda backend interface: what a source of devices (a Vulkan driver, GL, a
 * DRM node, a DMA-BUF heap, a test fixture) implements so that the core can
 * negotiate with it.
 *
 * A backend registers each device it drives with uda_context_add_device,
 * handing over an interface table and a private pointer. The table is
 * versioned: fields are only ever appended, `version` says how many the
 * backend fills, and the core never calls past that.
 */
#ifndef UDA_BACKEND_H
#define UDA_BACKEND_H

#include <uda/uda.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UDA_DEVICE_INTERFACE_VERSION_1 1u
/* Adds get_device_native. */
#define UDA_DEVICE_INTERFACE_VERSION_2 2u
/* Adds transition and copy. */
#define UDA_DEVICE_INTERFACE_VERSION_3 3u
#define UDA_DEVICE_INTERFACE_VERSION UDA_DEVICE_INTERFACE_VERSION_3

/* What the backend knows of one allocation: its private object plus the
 * layout it chose. The core fills width, height, format and the UUIDs of
 * the metadata; the backend fills size, plane_count and planes. */
typedef struct uda_backend_allocation {
	void *data;
	uda_allocation_metadata metadata;
	/* Import with take_fd only: set when the backend (or its driver)
	 * kept the fd. The core closes a taken fd nobody kept, whatever the
	 * import's result. */
	bool took_fd;
} uda_backend_allocation;

/* A usage change as the allocation's device sees it (uda_allocation_transition). */
typedef struct uda_backend_transition {
	/* The device's own usage before and after; NULL where it does not
	 * use the memory. */
	const uda_usage *own_from;
	const uda_usage *own_to;
	/* Whether other devices use the memory before and after. */
	bool shared_before;
	bool shared_after;
	const uda_transition_info *info; /* the caller's, validated */
} uda_backend_transition;

typedef struct uda_device_interface {
	uint32_t version; /* UDA_DEVICE_INTERFACE_VERSION_1 .. _3 */

	/* Appends to `out_list` (empty, created by the core) the sets this
	 * device can work with for the assertion and usage, best first. The
	 * assertion and usage are already validated. Return
	 * UDA_ERROR_UNSUPPORTED (with a message set through
	 * uda_context_set_error) when the device cannot serve the request;
	 * an empty list is treated the same way. Mandatory. */
	uda_result (*get_capability_sets)(void *device_data, uda_context *context,
	                                  const uda_assertion *assertion, const uda_usage *usage,
	                                  uda_capability_set_list *out_list);

	/* Releases device_data when the context is destroyed. Optional. */
	void (*destroy)(void *device_data);

	/* The entry points below are optional: a device without `allocate`
	 * never allocates, one without `import` never imports. `free` is
	 * mandatory when either exists. Allocation objects are the backend's
	 * own; the core passes them back unchanged. */

	/* Allocates memory satisfying set `set_index` of `set_list` (already
	 * validated against the assertion) and fills out->data and the layout
	 * fields of out->metadata. */
	uda_result (*allocate)(void *device_data, uda_context *context, const uda_assertion *assertion,
	                       const uda_capability_set_list *set_list, uint32_t set_index,
	                       uda_backend_allocation *out);
	/* Imports `fd` whose metadata and set the core has checked (size,
	 * seals, UUIDs, handle type). With take_fd false the fd stays the
	 * caller's (dup it to keep it); with take_fd true the backend may
	 * keep it instead of a dup, or hand it to a driver that does, and
	 * then sets out->took_fd (the core closes it otherwise). `next` is
	 * the application's uda_import_info::next chain, every struct of a
	 * backend type (UDA_STRUCTURE_TYPE_BACKEND_FIRST and up): refuse the
	 * ones this backend does not define with UDA_ERROR_UNSUPPORTED.
	 * Memory of an image shared as OPAQUE_FD is always a dedicated
	 * allocation of exactly the image's size: exporters allocate it so
	 * and importers declare it so. */
	uda_result (*import)(void *device_data, uda_context *context, int fd, bool take_fd,
	                     const uda_allocation_metadata *metadata, const uda_capability_set_list *set_list,
	                     const void *next, uda_backend_allocation *out);
	void (*free)(void *device_data, void *allocation);
	/* A new O_CLOEXEC fd of `handle_type`. */
	uda_result (*export_fd)(void *device_data, uda_context *context, void *allocation, uda_handle_type handle_type,
	                        int *out_fd);
	uda_result (*map)(void *device_data, uda_context *context, void *allocation, uint32_t access,
	                  void **out_pointer);
	void (*unmap)(void *device_data, void *allocation, void *pointer);
	/* Optional even with map: NULL means coherent, nothing to do. */
	uda_result (*begin_cpu_access)(void *device_data, uda_context *context, void *allocation, uint32_t access);
	uda_result (*end_cpu_access)(void *device_data, uda_context *context, void *allocation, uint32_t access);
	/* Fills the API struct `out_native` (its type already set by the
	 * caller: check it) with the objects behind the allocation. */
	uda_result (*get_native)(void *device_data, uda_context *context, void *allocation, void *out_native);

	/* Version 2 and up. Fills the API struct `out_native` (type set by
	 * the caller: check it) with the device's own API objects (its
	 * EGLDisplay, its VkPhysicalDevice). Optional. */
	uda_result (*get_device_native)(void *device_data, uda_context *context, void *out_native);

	/* Version 3 and up, both optional. */

	/* What the allocation's LOCAL capabilities need for a usage change
	 * whose devices the core found can all use the memory's layout. Add
	 * operations with uda_backend_transition_add_op, or call
	 * uda_backend_transition_reallocate when a LOCAL capability cannot
	 * serve the new usage; fill the backend's structs chained to
	 * out->next and refuse any other with UDA_ERROR_UNSUPPORTED. out->kind
	 * is REALLOCATE already when a device of `to` cannot use the memory:
	 * then list what makes the contents readable for the copy. Without
	 * this entry point LOCAL capabilities need nothing. */
	uda_result (*transition)(void *device_data, uda_context *context, void *allocation,
	                         const uda_capability_set_list *set_list, const uda_backend_transition *change,
	                         uda_transition *out);
	/* Copies the pixels of `source` into `destination`: two allocations
	 * of this device (either may be an import) of the same width, height
	 * and format, whose layouts may differ. The source is in the state
	 * the RELEASE operations of a hand-off leave it; the destination is
	 * left in that state too. */
	uda_result (*copy)(void *device_data, uda_context *context, void *source, void *destination);
} uda_device_interface;

/* For a transition entry point: appends an operation (the core fills in
 * the device). UDA_ERROR_BUFFER_TOO_SMALL past UDA_MAX_TRANSITION_OPS. */
UDA_API uda_result uda_backend_transition_add_op(uda_transition *transition, uda_transition_op_kind kind,
                                                 uint16_t capability_vendor, uint16_t capability_name);
/* For a transition entry point: the memory cannot serve the change;
 * printf-style reason (a reason given earlier stays). */
UDA_API void uda_backend_transition_reallocate(uda_transition *transition, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

typedef struct uda_device_create_info {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO */
	const void *next;
	uint8_t device_uuid[UDA_UUID_SIZE];
	uint8_t driver_uuid[UDA_UUID_SIZE];
	const char *name;                      /* copied; required */
	const char *backend_name;              /* copied; required */
	uda_device_api api;                    /* not UDA_DEVICE_API_ANY */
	uda_drm_node drm_primary;              /* optional */
	uda_drm_node drm_render;               /* optional */
	const uda_device_interface *interface; /* must outlive the device */
	void *device_data;
} uda_device_create_info;

/* Registers a device. A device of API DRM that shares a DRM node with a
 * device of another API takes that device's UUID, whichever registers
 * first (one piece of hardware, one identity): a DRM backend never relies
 * on the UUID it passed. On success the context owns device_data and
 * calls interface->destroy(device_data) when the context is destroyed; on
 * failure nothing is taken. UDA_ERROR_EXISTS if a device with this device
 * UUID is registered already through the same API. */
UDA_API uda_result uda_context_add_device(uda_context *context, const uda_device_create_info *info,
                                          uda_device **out_device);

/* Records a printf-style message as the calling thread's error on the
 * context and returns `result`, so backends report failures the way the
 * core does: `return uda_context_set_error(ctx, UDA_ERROR_..., "...")`. */
UDA_API uda_result uda_context_set_error(const uda_context *context, uda_result result, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Logs through the context's callback. */
UDA_API void uda_context_log(const uda_context *context, uda_log_level level, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Pitch-linear layout of the assertion under set `set_index`'s
 * constraints: every plane's pitch is its row size rounded up to the pitch
 * alignment (plane 0 at least the min pitch), planes are packed in order at
 * the plane and offset alignments, and the size is rounded up to the size
 * alignment. Fills size, plane_count and planes of *out.
 * UDA_ERROR_UNSUPPORTED if max pitch or max size cannot be met. */
UDA_API uda_result uda_backend_linear_layout(const uda_assertion *assertion, const uda_capability_set_list *set_list,
                                             uint32_t set_index, uda_allocation_metadata *out);

/* Reads one constraint of a set, UDA_SUCCESS with *out = fallback when the
 * set does not have it. */
UDA_API uda_result uda_backend_get_constraint(const uda_capability_set_list *set_list, uint32_t set_index,
                                              uda_constraint constraint, uint64_t fallback, uint64_t *out);

/* Whether the set carries the common capability `name` with this 4-byte
 * value (HANDLE, PLACEMENT, CPU_ACCESS). */
UDA_API bool uda_backend_set_has_u32(const uda_capability_set_list *set_list, uint32_t set_index,
                                     uda_capability_name name, uint32_t value);

/* Whether the set's layout is pitch-linear (LAYOUT with
 * DRM_FORMAT_MOD_LINEAR): what memory without a tiling of its own (a
 * memfd, a heap's bytes, a dumb buffer) can satisfy. */
UDA_API bool uda_backend_set_is_linear(const uda_capability_set_list *set_list, uint32_t set_index);

/* The placement the set requires (a PLACEMENT capability flagged
 * REQUIRED), or 0 when it requires none. A backend that cannot give memory
 * that placement refuses the set, so that the next device or a memory
 * source (a DMA-BUF heap) is asked. */
UDA_API uint32_t uda_backend_set_required_placement(const uda_capability_set_list *set_list, uint32_t set_index);

/* A UUID for a device that has none of its own (a DMA-BUF heap, a
 * display engine no GPU API names), from a name that every process gives
 * it alike ("system", "pci:0000:01:00.0"): a hash, stable across
 * versions of uda. */
UDA_API void uda_backend_uuid_from_name(const char *name, uint8_t out_uuid[UDA_UUID_SIZE]);

/* Finds a capability of the set by vendor and name. For a LOCAL one pass
 * the owner's device UUID (the backend's own, to find what it put there);
 * NULL finds only capabilities that are not LOCAL. The payload points into
 * the list and is valid until the list changes. */
UDA_API bool uda_backend_find_capability(const uda_capability_set_list *set_list, uint32_t set_index,
                                         uint16_t vendor, uint16_t name, const uint8_t owner_uuid[UDA_UUID_SIZE],
                                         uda_capability *out_capability);
/* Every capability of the set matching vendor, name and (for LOCAL ones)
 * owner, in set order: the count, with the first `capacity` written to
 * `out` (which may be NULL). Devices of the same hardware in different
 * processes or contexts tag their LOCAL capabilities with the same UUID,
 * so a set can hold one per such device; the owner acts on them all. */
UDA_API uint32_t uda_backend_find_capabilities(const uda_capability_set_list *set_list, uint32_t set_index,
                                               uint16_t vendor, uint16_t name,
                                               const uint8_t owner_uuid[UDA_UUID_SIZE], uda_capability *out,
                                               uint32_t capacity);

/* Capabilities private to an API backend (Vulkan, GL) rather than to a
 * hardware vendor: PCI vendor ID 0xffff is never assigned. They are LOCAL
 * by nature; the layout of each payload is the backend's own. */
#define UDA_VENDOR_API_BACKEND 0xffffu

/* LOCAL, vendor UDA_VENDOR_API_BACKEND: the Vulkan image an allocation of
 * a Vulkan device holds. payload: u32 VkImageUsageFlags, u32
 * VkImageCreateFlags, little-endian. The Vulkan backend writes it into its
 * sets; VK_LAYER_UDA_allocator reads it so that an application's image of
 * an OPAQUE_FD allocation is created identical to the exporter's, as
 * opaque imports require. */
#define UDA_CAPABILITY_VULKAN_IMAGE_PARAMS 0x5601u
#define UDA_CAPABILITY_VULKAN_IMAGE_PARAMS_SIZE 8u

/* LOCAL, vendor UDA_VENDOR_API_BACKEND: the V4L2 queue a set of a V4L2
 * device (uda_v4l2.h) was answered for, and the driver's VIDIOC_TRY_FMT
 * answer there. payload: u32 V4L2_BUF_TYPE_*, u32 V4L2 pixel format, u32
 * bytesperline, u32 sizeimage, little-endian; for a decoder's pictures
 * (UDA_CAPABILITY_V4L2_QUEUE_DECODER_SIZE) then u32 the V4L2 pixel format
 * of the bitstream its OUTPUT queue was set to first, since a decoder's
 * pictures follow its bitstream. Only the v4l2 backend reads it: to
 * allocate on that queue, or to check an import against it. */
#define UDA_CAPABILITY_V4L2_QUEUE 0x5602u
#define UDA_CAPABILITY_V4L2_QUEUE_SIZE 16u
#define UDA_CAPABILITY_V4L2_QUEUE_DECODER_SIZE 20u

/* Driver-private bytes of a LAYOUT_OPAQUE payload (after the 16-byte
 * driver UUID) that Vulkan and GL backends agree on: the layout the
 * driver gives an image of the assertion's format with the "optimal"
 * tiling of EXT_external_objects (VK_IMAGE_TILING_OPTIMAL,
 * GL_OPTIMAL_TILING_EXT). Little-endian u32. Only devices of the same
 * driver UUID can share it, through OPAQUE_FD handles. */
#define UDA_OPAQUE_LAYOUT_OPTIMAL_TILING 1u
#define UDA_OPAQUE_LAYOUT_PAYLOAD_SIZE (UDA_UUID_SIZE + 4u)

/* ------------------------------------------------------------------------ */
/* Backend modules                                                           */

/* A shared module named by a manifest exports UDA_BACKEND_ENTRY_POINT, of
 * type uda_backend_get_interface_fn. The core passes the highest backend
 * interface version it knows; the module returns its interface, whose
 * version the core checks before calling anything else. */
#define UDA_BACKEND_INTERFACE_VERSION_1 1u
#define UDA_BACKEND_INTERFACE_VERSION UDA_BACKEND_INTERFACE_VERSION_1
#define UDA_BACKEND_ENTRY_POINT "uda_backend_get_interface"

typedef struct uda_backend_interface {
	uint32_t version; /* UDA_BACKEND_INTERFACE_VERSION_1 */
	const char *name;
	/* Finds the backend's devices and registers each with
	 * uda_context_add_device. Returning an error (or registering nothing)
	 * is not fatal to the context: the backend is skipped. */
	uda_result (*load)(uda_context *context, void **out_backend_data);
	/* Called after every device of the context has been destroyed.
	 * Optional. */
	void (*unload)(void *backend_data);
} uda_backend_interface;

typedef uda_result (*uda_backend_get_interface_fn)(uint32_t core_interface_version,
                                                   const uda_backend_interface **out_interface);

/* Defines a module's entry point for its interface (of version 1). */
#define UDA_BACKEND_DEFINE_ENTRY_POINT(interface)                                                                      \
	UDA_API uda_result uda_backend_get_interface(uint32_t core_interface_version,                               \
	                                             const uda_backend_interface **out_interface);                  \
	UDA_API uda_result uda_backend_get_interface(uint32_t core_interface_version,                               \
	                                             const uda_backend_interface **out_interface)                   \
	{                                                                                                              \
		if (core_interface_version < UDA_BACKEND_INTERFACE_VERSION_1 || !out_interface)                       \
			return UDA_ERROR_UNSUPPORTED;                                                                  \
		*out_interface = &(interface);                                                                         \
		return UDA_SUCCESS;                                                                                    \
	}

#ifdef __cplusplus
}
#endif

#endif /* UDA_BACKEND_H */
