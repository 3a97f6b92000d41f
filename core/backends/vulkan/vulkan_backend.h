/* Private to the vulkan backend: one instance per uda context, one
 * vulkan_device per VkPhysicalDevice it could open. */
#ifndef UDA_VULKAN_BACKEND_H
#define UDA_VULKAN_BACKEND_H

#include <vulkan/vulkan.h>

#include <uda/uda_backend.h>
#include <uda/uda_vulkan.h>

#define VULKAN_BACKEND_NAME "vulkan"

/* UDA_CAPABILITY_VULKAN_IMAGE_PARAMS (uda_backend.h), LOCAL: the image
 * parameters the device asked for, so that whichever of its sets is
 * chosen, its allocation or import creates the image the application
 * will use. */
#define VULKAN_CAPABILITY_IMAGE_PARAMS UDA_CAPABILITY_VULKAN_IMAGE_PARAMS

/* Every usage vulkan_usage_to_image_usage can produce. */
#define VULKAN_IMAGE_USAGE_KNOWN                                                                                       \
	(VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT |                  \
	 VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR |   \
	 VK_IMAGE_USAGE_VIDEO_DECODE_DPB_BIT_KHR | VK_IMAGE_USAGE_VIDEO_ENCODE_SRC_BIT_KHR)
#define VULKAN_IMAGE_USAGE_VIDEO                                                                                       \
	(VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR | VK_IMAGE_USAGE_VIDEO_DECODE_DPB_BIT_KHR |                             \
	 VK_IMAGE_USAGE_VIDEO_ENCODE_SRC_BIT_KHR)

/* The video profile an image is made for (VkVideoProfileInfoKHR and its
 * codec structure, as plain values that compare and travel); operation 0
 * for an image with no video use. */
struct vulkan_video_profile {
	uint32_t operation;   /* VkVideoCodecOperationFlagBitsKHR */
	uint32_t std_profile; /* StdVideoH264ProfileIdc, StdVideoH265ProfileIdc, StdVideoAV1Profile */
	uint32_t chroma;      /* VkVideoChromaSubsamplingFlagBitsKHR */
	uint32_t bit_depth;   /* VkVideoComponentBitDepthFlagBitsKHR, luma and chroma */
	uint32_t picture;     /* uda_video_picture_flags: interlaced H.264, AV1 film grain */
};
/* The first four fields, as IMAGE_PARAMS carry them after usage and flags;
 * picture flags follow where there are any. */
#define VULKAN_VIDEO_PROFILE_SIZE 16u

struct vulkan_image_params {
	uint32_t usage; /* VkImageUsageFlags */
	uint32_t flags; /* VkImageCreateFlags */
	/* An image with video usages must name its profile
	 * (VUID-VkImageCreateInfo-usage-04815). */
	struct vulkan_video_profile video;
};
/* IMAGE_PARAMS payloads: usage and flags, then the profile where there is
 * one, then its picture flags where they are not 0 (so that a peer that
 * knows no picture flags reads every profile without them). */
#define VULKAN_IMAGE_PARAMS_SIZE 8u
#define VULKAN_IMAGE_PARAMS_VIDEO_SIZE 24u
#define VULKAN_IMAGE_PARAMS_PICTURE_SIZE 28u

struct vulkan_backend {
	uda_context *ctx;
	VkInstance instance;
	VkDebugUtilsMessengerEXT messenger;
	PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger;
	/* The Khronos layer's header version where it validates this
	 * instance (UDA_VULKAN_VALIDATION=1, or the loader's environment),
	 * which decides what it can validate (vulkan_video.c); 0 otherwise. */
	uint32_t validation_layer_version;
	/* Devices still registered; the instance outlives them all. */
	unsigned live_devices;
};

struct vulkan_query_cache;

struct vulkan_device {
	struct vulkan_backend *backend;
	VkPhysicalDevice physical;
	VkDevice device;
	uint32_t queue_family;
	uint32_t api_version;
	uint8_t device_uuid[VK_UUID_SIZE];
	uint8_t driver_uuid[VK_UUID_SIZE];
	char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE + 16];
	VkPhysicalDeviceMemoryProperties memory;

	bool has_external_memory_fd;
	bool has_external_memory_host;
	bool has_dma_buf;
	bool has_drm_properties;
	/* VK_EXT_image_drm_format_modifier (with dma-buf): explicit layouts. */
	bool has_drm_modifiers;
	VkDeviceSize host_pointer_alignment;
	/* lavapipe: its opaque fds are memfds headed by what its import
	 * maps (mesa_memory_file.c). */
	bool opaque_fds_are_mesa_files;

	/* Rendering is bounded by these too (VkPhysicalDeviceLimits). */
	uint32_t max_framebuffer_width, max_framebuffer_height;
	/* vkGetPhysicalDeviceImageFormatProperties2's answers, which never
	 * change for a device: every allocation and import asks again. */
	struct vulkan_query_cache *query_cache;

	PFN_vkGetMemoryFdKHR get_memory_fd;
	PFN_vkGetMemoryFdPropertiesKHR get_memory_fd_properties;
	PFN_vkGetMemoryHostPointerPropertiesEXT get_host_pointer_properties;
	PFN_vkGetImageDrmFormatModifierPropertiesEXT get_image_modifier;

	/* Vulkan Video (vulkan_video.c): the codec operations, decode and
	 * encode, that a queue family does and whose extensions exist; 0
	 * without VK_KHR_video_queue. */
	VkVideoCodecOperationFlagsKHR video_operations;
	/* Operations a queue does that are left out all the same: without
	 * their device feature (AV1 encode without videoEncodeAV1), or while
	 * validating with a layer older than their extension. */
	VkVideoCodecOperationFlagsKHR video_without_feature, video_unvalidatable;
	PFN_vkGetPhysicalDeviceVideoCapabilitiesKHR get_video_capabilities;
	PFN_vkGetPhysicalDeviceVideoFormatPropertiesKHR get_video_formats;
};


/* vulkan_device.c */
uda_result vulkan_device_open(struct vulkan_backend *backend, VkPhysicalDevice physical,
                              struct vulkan_device **out_device);
void vulkan_device_close(struct vulkan_device *device);
/* Fills drm when the device has VK_EXT_physical_device_drm. */
bool vulkan_device_query_drm(const struct vulkan_device *device, VkPhysicalDeviceDrmPropertiesEXT *drm);
/* Index of a memory type in `type_bits` with all of `required` (and the
 * most of `preferred`), or -1. */
int vulkan_device_find_memory_type(const struct vulkan_device *device, uint32_t type_bits,
                                   VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred);

/* vulkan_image.c */
struct vulkan_image_desc {
	VkFormat format;
	VkImageTiling tiling;
	uint64_t modifier; /* VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT only */
	VkImageUsageFlags usage;
	struct vulkan_video_profile video;
};
/* A 2D image of the layout, after checking the driver supports it (with
 * every handle type and the external memory `features` asked, EXPORTABLE
 * for allocations, IMPORTABLE for imports); with a modifier,
 * `explicit_layout` gives the planes (an import's metadata, or a layout
 * computed for the set), else the driver lays them out. */
VkResult vulkan_create_image(const struct vulkan_device *device, const struct vulkan_image_desc *desc,
                             uint32_t width, uint32_t height, VkExternalMemoryHandleTypeFlags handles,
                             VkExternalMemoryFeatureFlags features, const uda_allocation_metadata *explicit_layout,
                             bool *out_dedicated_only, VkImage *out);
/* Memory plane `plane` of an image with linear or modifier tiling. */
bool vulkan_image_plane_layout(const struct vulkan_device *device, VkImage image, VkImageTiling tiling,
                               uint32_t plane, VkSubresourceLayout *out);
/* The modifiers the driver lists for the format (at most
 * VULKAN_MAX_MODIFIERS), and one of them by value. */
#define VULKAN_MAX_MODIFIERS 64u
uint32_t vulkan_list_modifiers(const struct vulkan_device *device, VkFormat format,
                               VkDrmFormatModifierPropertiesEXT out[VULKAN_MAX_MODIFIERS]);
bool vulkan_find_modifier(const struct vulkan_device *device, VkFormat format, uint64_t modifier,
                          VkDrmFormatModifierPropertiesEXT *out);
/* Memory planes of the format with that modifier; 0 if the driver does
 * not list the modifier. */
uint32_t vulkan_modifier_plane_count(const struct vulkan_device *device, VkFormat format, uint64_t modifier);

/* vulkan_capabilities.c */
struct image_support {
	VkImageFormatProperties limits;
	VkExternalMemoryFeatureFlags features;
	/* The handle types one image may be made for beside the one asked
	 * (VUID-VkImageCreateInfo-pNext-00990). */
	VkExternalMemoryHandleTypeFlags compatible;
};
/* vulkan_query_cache.c: the driver's answers to vulkan_query_image. */
struct vulkan_query_cache *vulkan_query_cache_create(void);
void vulkan_query_cache_destroy(struct vulkan_query_cache *cache);
bool vulkan_query_cache_find(struct vulkan_query_cache *cache, const struct vulkan_image_desc *desc,
                             VkExternalMemoryHandleTypeFlagBits handle, bool *out_supported, struct image_support *out);
void vulkan_query_cache_add(struct vulkan_query_cache *cache, const struct vulkan_image_desc *desc,
                            VkExternalMemoryHandleTypeFlagBits handle, bool supported,
                            const struct image_support *support);

/* vkGetPhysicalDeviceImageFormatProperties2 for a 2D image of `desc` with
 * memory of `handle` (and, for a video image, vulkan_video_image_allowed);
 * false where the driver does not support it. The modifier counts only
 * with VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT. */
bool vulkan_query_image(const struct vulkan_device *device, const struct vulkan_image_desc *desc,
                        VkExternalMemoryHandleTypeFlagBits handle, struct image_support *out);
/* The image usage a uda usage needs, and whether it asks for CPU access. */
uda_result vulkan_usage_to_image_usage(uda_context *ctx, const uda_usage *usage, VkImageUsageFlags *out_usage,
                                       bool *out_cpu);
uda_result vulkan_get_capability_sets(void *device_data, uda_context *ctx, const uda_assertion *assertion,
                                      const uda_usage *usage, uda_capability_set_list *out_list);
/* What image a set asks of this device: tiling (and the DRM modifier, for
 * VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT) from its layout, usage
 * from its IMAGE_PARAMS capability or, in a set another device chose, every
 * usage the format supports with that tiling. */
/* `handle`: the import's handle type, or UDA_HANDLE_TYPE_NONE for an
 * allocation (the set's handles decide). */
uda_result vulkan_image_params_for_set(const struct vulkan_device *device, uda_context *ctx, VkFormat format,
                                       const uda_capability_set_list *set, uint32_t set_index,
                                       uda_handle_type handle, VkImageTiling *out_tiling, uint64_t *out_modifier,
                                       struct vulkan_image_params *out_params);

/* vulkan_video.c */
/* The Vulkan structures of one profile, ready to chain: `list` heads them.
 * Filled in place (they point at each other); not to be copied. */
struct vulkan_video_chain {
	VkVideoProfileListInfoKHR list;
	VkVideoProfileInfoKHR profile;
	union {
		VkVideoDecodeH264ProfileInfoKHR decode_h264;
		VkVideoDecodeH265ProfileInfoKHR decode_h265;
		VkVideoDecodeAV1ProfileInfoKHR decode_av1;
		VkVideoDecodeVP9ProfileInfoKHR decode_vp9;
		VkVideoEncodeH264ProfileInfoKHR encode_h264;
		VkVideoEncodeH265ProfileInfoKHR encode_h265;
		VkVideoEncodeAV1ProfileInfoKHR encode_av1;
	} codec;
};
void vulkan_video_chain_init(struct vulkan_video_chain *chain, const struct vulkan_video_profile *profile);
/* Learns what the device decodes and encodes; adds the extensions that
 * needs to `enabled` (room for VULKAN_VIDEO_EXTENSIONS more: seven codec
 * operations, the video, decode and encode queues, synchronization2). */
#define VULKAN_VIDEO_EXTENSIONS 11u
struct vulkan_extension_list {
	VkExtensionProperties *properties;
	uint32_t count;
};
bool vulkan_has_extension(const struct vulkan_extension_list *list, const char *name);
/* The video features a device is created with: `head` is the chain of
 * those enabled (NULL for none), for the caller's VkDeviceCreateInfo.
 * Filled in place; not to be copied. */
struct vulkan_video_features {
	VkPhysicalDeviceVideoEncodeAV1FeaturesKHR encode_av1;
	VkPhysicalDeviceVideoDecodeVP9FeaturesKHR decode_vp9;
	void *head;
};
void vulkan_video_device_init(struct vulkan_device *device, const struct vulkan_extension_list *extensions,
                              const char **enabled, uint32_t *enabled_count, struct vulkan_video_features *features);
/* The profile a usage's VIDEO_DECODE or VIDEO_ENCODE atom names for
 * images of `format`, checked against the device (zero when the usage has
 * no video atom). */
uda_result vulkan_video_profile_for_usage(const struct vulkan_device *device, uda_context *ctx,
                                          const uda_usage *usage, VkFormat format, struct vulkan_video_profile *out);
/* Whether the device decodes the profile into, or encodes it from, an
 * image of the assertion's size; adds the usages the driver's decoding
 * needs of the output (DPB, where outputs are reference pictures) to
 * *out_usage. */
uda_result vulkan_video_check_picture(const struct vulkan_device *device, uda_context *ctx,
                                     const struct vulkan_video_profile *profile, const uda_assertion *assertion,
                                     VkImageUsageFlags *out_usage);
/* Which tilings the driver lists for pictures of the profile in `format`
 * with `usage`: VULKAN_VIDEO_TILING_* bits. */
#define VULKAN_VIDEO_TILING_OPTIMAL 1u
#define VULKAN_VIDEO_TILING_MODIFIER 2u
uint32_t vulkan_video_tilings(const struct vulkan_device *device, const struct vulkan_video_profile *profile,
                              VkFormat format, VkImageUsageFlags usage);
/* Checks a profile read from another process's IMAGE_PARAMS, and that the
 * image usage beside it is the profile's direction's. */
bool vulkan_video_params_valid(const struct vulkan_device *device, const struct vulkan_video_profile *profile,
                               VkImageUsageFlags usage);
/* Whether an image of `desc` (with a profile) is one the driver lists for
 * it: the format's depth and chroma the profile's, the tiling and usage
 * among those vkGetPhysicalDeviceVideoFormatPropertiesKHR answers
 * (VUID-VkImageCreateInfo-pNext-06811). */
bool vulkan_video_image_allowed(const struct vulkan_device *device, const struct vulkan_image_desc *desc);
const char *vulkan_video_operation_name(uint32_t operation);

/* vulkan_memory.c */
uda_result vulkan_allocate(void *device_data, uda_context *ctx, const uda_assertion *assertion,
                           const uda_capability_set_list *set, uint32_t set_index, uda_backend_allocation *out);
uda_result vulkan_import(void *device_data, uda_context *ctx, int fd, bool take_fd,
                         const uda_allocation_metadata *metadata, const uda_capability_set_list *set, const void *next,
                         uda_backend_allocation *out);
void vulkan_free(void *device_data, void *allocation);
uda_result vulkan_export_fd(void *device_data, uda_context *ctx, void *allocation, uda_handle_type handle_type,
                            int *out_fd);
uda_result vulkan_map(void *device_data, uda_context *ctx, void *allocation, uint32_t access, void **out_pointer);
void vulkan_unmap(void *device_data, void *allocation, void *pointer);
uda_result vulkan_begin_cpu_access(void *device_data, uda_context *ctx, void *allocation, uint32_t access);
uda_result vulkan_end_cpu_access(void *device_data, uda_context *ctx, void *allocation, uint32_t access);
uda_result vulkan_get_native(void *device_data, uda_context *ctx, void *allocation, void *out_native);
void vulkan_allocation_extent(const void *allocation, uint32_t *out_width, uint32_t *out_height);

/* vulkan_transition.c */
uda_result vulkan_transition(void *device_data, uda_context *ctx, void *allocation,
                             const uda_capability_set_list *set, const uda_backend_transition *change,
                             uda_transition *out);
uda_result vulkan_copy(void *device_data, uda_context *ctx, void *source, void *destination);

const char *vulkan_result_string(VkResult result);

#endif
