/*
 * uda-mock-vulkan: a Vulkan ICD for tests, loaded by the real loader (and
 * under the Khronos validation layer) through its own manifest. It answers
 * as an NVIDIA GPU with video decode and encode queues would: what lavapipe cannot
 * show here (video queues, VK_EXT_image_drm_format_modifier, multi-planar
 * images). Memory is a memfd, exported as both OPAQUE_FD and DMA_BUF, so
 * what one device writes another really reads.
 *
 * The answers are modelled, not recorded: NVIDIA's published block-linear
 * modifiers (drm_fourcc.h, DRM_FORMAT_MOD_NVIDIA_BLOCK_LINEAR_2D with the
 * Turing-and-later sector layout and page kind 6) for RGBA, BGRA, YUYV,
 * NV12 and P010, its decode profiles
 * (H.264 Baseline/Main/High up to 4096x4096, H.265 Main and Main 10 and
 * AV1 Main up to 8192x8192, as vulkaninfo shows them on Ampere; VP9
 * Profile 0 and 2 up to 8192x8192 behind its videoDecodeVP9 feature, as
 * NVDEC decodes them), NV12 and
 * P010 outputs, its encode profiles (H.264 Baseline/Main/High, H.265
 * Main and Main 10 and AV1 Main up to 4096x4096, as on Ada; AV1 encode
 * behind its videoEncodeAV1 feature) reading NV12 and P010 inputs in any
 * tiling it has,
 * and a DRM render node (VK_EXT_physical_device_drm, as NVIDIA's driver
 * reports with nvidia-drm loaded) that no real device has: MOCK_RENDER_MINOR,
 * past the 64 render minors the kernel hands out from 128, so a compositor
 * on the mock sends linux-dmabuf version 4 and no real node is mistaken
 * for it.
 * The queues execute nothing: the mock is for negotiation, allocation and
 * import, and the memory's bytes, not for decoding. UDA_MOCK_VULKAN_DECODE
 * (mock_video.c) switches how its decoder writes pictures, as drivers
 * differ there.
 */
#ifndef UDA_MOCK_ICD_H
#define UDA_MOCK_ICD_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vk_icd.h>
#include <vulkan/vulkan.h>

#define MOCK_MAX_PLANES 3
#define MOCK_RENDER_MAJOR 226u
#define MOCK_RENDER_MINOR 250u
#define MOCK_MEMORY_ALIGNMENT 4096u
/* NVIDIA's linear pitch: 256 bytes, what its display engine scans out. */
#define MOCK_LINEAR_PITCH_ALIGNMENT 256u
/* A block-linear GOB is 64 bytes wide and 8 rows high. */
#define MOCK_GOB_WIDTH 64u
#define MOCK_GOB_HEIGHT 8u

#define MOCK_MOD_LINEAR 0ull
/* DRM_FORMAT_MOD_NVIDIA_BLOCK_LINEAR_2D(0, 1, 2, 0x06, h), h = log2 of the
 * block height in GOBs. */
#define MOCK_MOD_BLOCK_LINEAR(h) (0x0300000000606010ull | (uint64_t)(h))
#define MOCK_BLOCK_LINEAR_HEIGHTS 6u

/* Every dispatchable object starts with the loader's slot. */
struct mock_instance {
	VK_LOADER_DATA loader;
};

struct mock_physical_device {
	VK_LOADER_DATA loader;
};

struct mock_queue {
	VK_LOADER_DATA loader;
};

#define MOCK_QUEUE_FAMILIES 4u
enum mock_queue_family {
	MOCK_QUEUE_GRAPHICS = 0,
	MOCK_QUEUE_TRANSFER = 1,
	MOCK_QUEUE_DECODE = 2,
	MOCK_QUEUE_ENCODE = 3,
};

struct mock_device {
	VK_LOADER_DATA loader;
	struct mock_queue queues[MOCK_QUEUE_FAMILIES];
	bool encode_av1; /* created with the videoEncodeAV1 feature */
	bool decode_vp9; /* created with the videoDecodeVP9 feature */
};

struct mock_command_buffer {
	VK_LOADER_DATA loader;
	/* The pool's list: destroying a pool frees what it allocated. */
	struct mock_command_buffer *next, **previous_next;
	bool resettable; /* its pool has VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT */
};

/* A format the mock knows: its planes, and what its tilings allow. */
struct mock_format {
	VkFormat format;
	uint32_t plane_count;
	struct {
		uint32_t bytes_per_texel, sub_x, sub_y;
	} planes[MOCK_MAX_PLANES];
	uint32_t bit_depth; /* of a video format; 0 otherwise */
	VkFormatFeatureFlags optimal, linear, modifier;
};

const struct mock_format *mock_format_find(VkFormat format);
/* The modifiers listed for a format (block-linear, then LINEAR), and their count. */
uint32_t mock_format_modifiers(const struct mock_format *format, uint64_t out[1 + MOCK_BLOCK_LINEAR_HEIGHTS]);
bool mock_format_has_modifier(const struct mock_format *format, uint64_t modifier);

/* Whether one image of the tiling may be made for OPAQUE_FD and DMA_BUF
 * at once: each handle type is compatible only with itself, unless
 * UDA_MOCK_VULKAN_HANDLES=together (then linear images may), as drivers
 * differ there too. */
bool mock_handles_together(VkImageTiling tiling);

/* The image usages a tiling of the format allows. */
VkImageUsageFlags mock_image_usages(const struct mock_format *format, VkImageTiling tiling);
bool mock_has_device_extension(const char *name);

/* Image layouts, as the driver would choose them. */
struct mock_layout {
	uint32_t plane_count;
	VkSubresourceLayout planes[MOCK_MAX_PLANES];
	VkDeviceSize size;
};
/* The layout of an image; with `explicit_planes`, checks an importer's
 * layout against the rules and keeps it. False where it breaks them. */
bool mock_layout_compute(const struct mock_format *format, VkImageTiling tiling, uint64_t modifier, uint32_t width,
                         uint32_t height, const VkSubresourceLayout *explicit_planes, uint32_t explicit_count,
                         struct mock_layout *out);

/* Video: whether a profile is one the mock decodes or encodes, its
 * limits, and the image usages its pictures allow. */
VkResult mock_video_check_profile(const VkVideoProfileInfoKHR *profile);
/* Every profile of a list must be supported and agree with the format's
 * bit depth, and decode usages need a decode profile, encode usages an
 * encode one; a usage with video bits needs such a list where `need_list`
 * (vkCreateImage). */
bool mock_video_profiles_allow(const void *pnext_chain, const struct mock_format *format, VkImageUsageFlags usage,
                               bool need_list);
/* Whether a device may make images for the list's profiles: AV1 encode
 * and VP9 decode need their features enabled
 * (VUID-VkImageCreateInfo-pNext-10250 and -10784). */
bool mock_video_device_allows(const struct mock_device *device, const void *pnext_chain);
VkImageUsageFlags mock_video_usages(VkImageTiling tiling);

/* Walks a pNext chain for a structure type. */
const void *mock_find_struct(const void *chain, VkStructureType type);
void *mock_find_out_struct(void *chain, VkStructureType type);

PFN_vkVoidFunction mock_lookup(const char *name);

/* UDA_MOCK_VULKAN_DEDICATED: whether external images require dedicated
 * memory (the default, as NVIDIA's) or only prefer it ("prefer"). */
bool mock_external_images_require_dedicated(void);

#endif
