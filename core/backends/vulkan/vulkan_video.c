/*
 * Vulkan Video decode outputs as negotiated images. A VIDEO_DECODE atom
 * names a profile (uda_video_profile); the driver says whether it decodes
 * it at the assertion's size (vkGetPhysicalDeviceVideoCapabilitiesKHR) and
 * in which tilings its pictures can be written
 * (vkGetPhysicalDeviceVideoFormatPropertiesKHR). Every image made for the
 * profile then carries it (VkVideoProfileListInfoKHR), in the queries
 * that answer capability sets as in the allocation and the imports.
 *
 * Only decode: VK_KHR_video_encode_queue became final in headers 1.3.274,
 * and Debian 12's are 1.3.239 (the provisional encode extensions there
 * are not something to build on). AV1 and VP9 decode are newer still.
 */
#include <stdlib.h>
#include <string.h>

#include "vulkan_backend.h"

/* The uda codecs the backend knows, with what Vulkan needs for each: the
 * profile numbers its std header names, and the block a coded picture's
 * size is a whole number of (H.264 macroblocks; H.265's smallest coding
 * block, 8x8), which the output image must hold. */
static const struct {
	uint32_t codec; /* uda_video_codec */
	VkVideoCodecOperationFlagBitsKHR operation;
	const char *extension;
	const char *name;
	uint32_t profiles[5];
	uint32_t block;
} codecs[] = {
	{UDA_VIDEO_CODEC_H264, VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR, VK_KHR_VIDEO_DECODE_H264_EXTENSION_NAME,
	 "H.264",
	 {STD_VIDEO_H264_PROFILE_IDC_BASELINE, STD_VIDEO_H264_PROFILE_IDC_MAIN, STD_VIDEO_H264_PROFILE_IDC_HIGH,
	  STD_VIDEO_H264_PROFILE_IDC_HIGH_444_PREDICTIVE},
	 16},
	{UDA_VIDEO_CODEC_H265, VK_VIDEO_CODEC_OPERATION_DECODE_H265_BIT_KHR, VK_KHR_VIDEO_DECODE_H265_EXTENSION_NAME,
	 "H.265",
	 {STD_VIDEO_H265_PROFILE_IDC_MAIN, STD_VIDEO_H265_PROFILE_IDC_MAIN_10, STD_VIDEO_H265_PROFILE_IDC_MAIN_STILL_PICTURE,
	  STD_VIDEO_H265_PROFILE_IDC_FORMAT_RANGE_EXTENSIONS, STD_VIDEO_H265_PROFILE_IDC_SCC_EXTENSIONS},
	 8},
};

#define CODEC_COUNT (sizeof(codecs) / sizeof(codecs[0]))

static int codec_of_operation(uint32_t operation)
{
	for (size_t i = 0; i < CODEC_COUNT; i++) {
		if (codecs[i].operation == operation)
			return (int)i;
	}
	return -1;
}

static bool profile_named(size_t codec, uint32_t std_profile)
{
	for (size_t i = 0; i < sizeof(codecs[codec].profiles) / sizeof(codecs[codec].profiles[0]); i++) {
		if (codecs[codec].profiles[i] && codecs[codec].profiles[i] == std_profile)
			return true;
	}
	return false;
}

const char *vulkan_video_operation_name(uint32_t operation)
{
	const int codec = codec_of_operation(operation);
	return codec >= 0 ? codecs[codec].name : "an unknown codec";
}

void vulkan_video_chain_init(struct vulkan_video_chain *chain, const struct vulkan_video_profile *profile)
{
	memset(chain, 0, sizeof(*chain));
	if (profile->operation == VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR) {
		chain->codec.h264 = (VkVideoDecodeH264ProfileInfoKHR){
			.sType = VK_STRUCTURE_TYPE_VIDEO_DECODE_H264_PROFILE_INFO_KHR,
			.stdProfileIdc = (StdVideoH264ProfileIdc)profile->std_profile,
			/* What a display shows: whole frames. uda_video_profile
			 * names no picture layout, so interlaced streams are not
			 * served yet. */
			.pictureLayout = VK_VIDEO_DECODE_H264_PICTURE_LAYOUT_PROGRESSIVE_KHR,
		};
	} else {
		chain->codec.h265 = (VkVideoDecodeH265ProfileInfoKHR){
			.sType = VK_STRUCTURE_TYPE_VIDEO_DECODE_H265_PROFILE_INFO_KHR,
			.stdProfileIdc = (StdVideoH265ProfileIdc)profile->std_profile,
		};
	}
	chain->profile = (VkVideoProfileInfoKHR){
		.sType = VK_STRUCTURE_TYPE_VIDEO_PROFILE_INFO_KHR,
		.pNext = &chain->codec,
		.videoCodecOperation = (VkVideoCodecOperationFlagBitsKHR)profile->operation,
		.chromaSubsampling = profile->chroma,
		.lumaBitDepth = profile->bit_depth,
		.chromaBitDepth = profile->bit_depth,
	};
	chain->list = (VkVideoProfileListInfoKHR){
		.sType = VK_STRUCTURE_TYPE_VIDEO_PROFILE_LIST_INFO_KHR,
		.profileCount = 1,
		.pProfiles = &chain->profile,
	};
}

void vulkan_video_device_init(struct vulkan_device *device, const struct vulkan_extension_list *extensions,
                              const char **enabled, uint32_t *enabled_count)
{
	device->video_decode_operations = 0;
	/* VK_KHR_video_queue needs synchronization2, core from 1.3. */
	const bool synchronization2 = device->api_version >= VK_API_VERSION_1_3 ||
	                              vulkan_has_extension(extensions, VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME);
	if (!synchronization2 || !vulkan_has_extension(extensions, VK_KHR_VIDEO_QUEUE_EXTENSION_NAME) ||
	    !vulkan_has_extension(extensions, VK_KHR_VIDEO_DECODE_QUEUE_EXTENSION_NAME))
		return;
	VkInstance instance = device->backend->instance;
	device->get_video_capabilities = (PFN_vkGetPhysicalDeviceVideoCapabilitiesKHR)vkGetInstanceProcAddr(
		instance, "vkGetPhysicalDeviceVideoCapabilitiesKHR");
	device->get_video_formats = (PFN_vkGetPhysicalDeviceVideoFormatPropertiesKHR)vkGetInstanceProcAddr(
		instance, "vkGetPhysicalDeviceVideoFormatPropertiesKHR");
	if (!device->get_video_capabilities || !device->get_video_formats)
		return;

	uint32_t count = 0;
	vkGetPhysicalDeviceQueueFamilyProperties2(device->physical, &count, NULL);
	VkQueueFamilyProperties2 *families = calloc(count ? count : 1, sizeof(*families));
	VkQueueFamilyVideoPropertiesKHR *video = calloc(count ? count : 1, sizeof(*video));
	VkVideoCodecOperationFlagsKHR operations = 0;
	if (families && video) {
		for (uint32_t i = 0; i < count; i++) {
			video[i].sType = VK_STRUCTURE_TYPE_QUEUE_FAMILY_VIDEO_PROPERTIES_KHR;
			families[i].sType = VK_STRUCTURE_TYPE_QUEUE_FAMILY_PROPERTIES_2;
			families[i].pNext = &video[i];
		}
		vkGetPhysicalDeviceQueueFamilyProperties2(device->physical, &count, families);
		for (uint32_t i = 0; i < count; i++) {
			if (families[i].queueFamilyProperties.queueFlags & VK_QUEUE_VIDEO_DECODE_BIT_KHR)
				operations |= video[i].videoCodecOperations;
		}
	}
	free(families);
	free(video);

	/* A codec counts where a queue decodes it and its extension exists. */
	for (size_t i = 0; i < CODEC_COUNT; i++) {
		if ((operations & codecs[i].operation) && vulkan_has_extension(extensions, codecs[i].extension)) {
			device->video_decode_operations |= codecs[i].operation;
			enabled[(*enabled_count)++] = codecs[i].extension;
		}
	}
	if (!device->video_decode_operations)
		return;
	enabled[(*enabled_count)++] = VK_KHR_VIDEO_QUEUE_EXTENSION_NAME;
	enabled[(*enabled_count)++] = VK_KHR_VIDEO_DECODE_QUEUE_EXTENSION_NAME;
	if (device->api_version < VK_API_VERSION_1_3)
		enabled[(*enabled_count)++] = VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME;
}

/* The sample layout of a video format: bit depth and chroma subsampling. */
static bool video_format_layout(VkFormat format, uint32_t *out_bits, uint32_t *out_chroma)
{
	switch (format) {
	case VK_FORMAT_G8_B8R8_2PLANE_420_UNORM:
		*out_bits = 8, *out_chroma = 420;
		return true;
	case VK_FORMAT_G10X6_B10X6R10X6_2PLANE_420_UNORM_3PACK16:
		*out_bits = 10, *out_chroma = 420;
		return true;
	case VK_FORMAT_G12X4_B12X4R12X4_2PLANE_420_UNORM_3PACK16:
		*out_bits = 12, *out_chroma = 420;
		return true;
	case VK_FORMAT_G8_B8R8_2PLANE_422_UNORM:
		*out_bits = 8, *out_chroma = 422;
		return true;
	default:
		return false;
	}
}

static VkVideoComponentBitDepthFlagBitsKHR depth_flag(uint32_t bits)
{
	return bits == 8    ? VK_VIDEO_COMPONENT_BIT_DEPTH_8_BIT_KHR
	       : bits == 10 ? VK_VIDEO_COMPONENT_BIT_DEPTH_10_BIT_KHR
	       : bits == 12 ? VK_VIDEO_COMPONENT_BIT_DEPTH_12_BIT_KHR
	                    : VK_VIDEO_COMPONENT_BIT_DEPTH_INVALID_KHR;
}

static VkVideoChromaSubsamplingFlagBitsKHR chroma_flag(uint32_t chroma)
{
	return chroma == 420   ? VK_VIDEO_CHROMA_SUBSAMPLING_420_BIT_KHR
	       : chroma == 422 ? VK_VIDEO_CHROMA_SUBSAMPLING_422_BIT_KHR
	       : chroma == 444 ? VK_VIDEO_CHROMA_SUBSAMPLING_444_BIT_KHR
	       : chroma == 400 ? VK_VIDEO_CHROMA_SUBSAMPLING_MONOCHROME_BIT_KHR
	                       : VK_VIDEO_CHROMA_SUBSAMPLING_INVALID_KHR;
}

uda_result vulkan_video_profile_for_usage(const struct vulkan_device *device, uda_context *ctx,
                                          const uda_usage *usage, VkFormat format, struct vulkan_video_profile *out)
{
	memset(out, 0, sizeof(*out));
	const uda_usage_atom *atom = NULL;
	for (uint32_t i = 0; i < usage->atom_count && !atom; i++) {
		if (usage->atoms[i].vendor == UDA_VENDOR_NONE && usage->atoms[i].name == UDA_USAGE_VIDEO_DECODE)
			atom = &usage->atoms[i];
	}
	if (!atom)
		return UDA_SUCCESS;
	if (!device->video_decode_operations)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: %s has no video decode queue",
		                             device->name);
	uda_video_profile profile;
	uda_result result = uda_video_profile_from_atom(atom, &profile);
	if (result == UDA_ERROR_NOT_FOUND)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: Vulkan makes decode outputs for one profile: the VIDEO_DECODE usage "
		                             "needs a uda_video_profile naming the codec and its profile");
	if (result != UDA_SUCCESS)
		return result;
	size_t codec = 0;
	while (codec < CODEC_COUNT && codecs[codec].codec != profile.codec)
		codec++;
	if (codec == CODEC_COUNT)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: codec %u is not one the vulkan backend decodes (H.264, H.265)",
		                             profile.codec);
	if (!(device->video_decode_operations & codecs[codec].operation))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: %s does not decode %s", device->name,
		                             codecs[codec].name);
	/* A decode session writes only into images made for its very
	 * profile (VUID-vkCmdDecodeVideoKHR-pDecodeInfo-07142), so "any"
	 * cannot be guessed for the application. */
	if (!profile.profile)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: name the %s profile: a Vulkan decoder writes only into images made "
		                             "for its session's profile",
		                             codecs[codec].name);
	if (!profile_named(codec, profile.profile))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: %s has no profile %u in Vulkan",
		                             codecs[codec].name, profile.profile);

	/* Bit depth and chroma are the format's; a profile that says
	 * otherwise cannot have its pictures in this format. */
	uint32_t bits, chroma;
	if (!video_format_layout(format, &bits, &chroma))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: decoded pictures are YCbCr; VkFormat %d is not a video format", format);
	if ((profile.bit_depth && profile.bit_depth != bits) || (profile.chroma && profile.chroma != chroma))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: a %u-bit %u profile's pictures do not fit a %u-bit %u format",
		                             profile.bit_depth ? profile.bit_depth : bits,
		                             profile.chroma ? profile.chroma : chroma, bits, chroma);
	*out = (struct vulkan_video_profile){
		.operation = codecs[codec].operation,
		.std_profile = profile.profile,
		.chroma = chroma_flag(chroma),
		.bit_depth = depth_flag(bits),
	};
	return UDA_SUCCESS;
}

bool vulkan_video_profile_valid(const struct vulkan_device *device, const struct vulkan_video_profile *profile)
{
	const int codec = codec_of_operation(profile->operation);
	return codec >= 0 && (device->video_decode_operations & profile->operation) &&
	       profile_named((size_t)codec, profile->std_profile) && profile->chroma != 0 &&
	       !(profile->chroma & (profile->chroma - 1)) && profile->bit_depth != 0 &&
	       !(profile->bit_depth & (profile->bit_depth - 1));
}

bool vulkan_video_image_allowed(const struct vulkan_device *device, const struct vulkan_image_desc *desc)
{
	uint32_t bits, chroma;
	if (!vulkan_video_profile_valid(device, &desc->video) || !video_format_layout(desc->format, &bits, &chroma) ||
	    depth_flag(bits) != desc->video.bit_depth || chroma_flag(chroma) != desc->video.chroma)
		return false;
	const uint32_t tilings = vulkan_video_tilings(device, &desc->video, desc->format, desc->usage);
	return desc->tiling == VK_IMAGE_TILING_OPTIMAL               ? (tilings & VULKAN_VIDEO_TILING_OPTIMAL) != 0
	       : desc->tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT ? (tilings & VULKAN_VIDEO_TILING_MODIFIER) != 0
	                                                                  : false;
}

uda_result vulkan_video_check_decode(const struct vulkan_device *device, uda_context *ctx,
                                     const struct vulkan_video_profile *profile, const uda_assertion *assertion,
                                     VkImageUsageFlags *out_usage)
{
	struct vulkan_video_chain chain;
	vulkan_video_chain_init(&chain, profile);
	/* The codec's capabilities must be chained, though only the
	 * extents are read. */
	VkVideoDecodeH264CapabilitiesKHR h264 = {.sType = VK_STRUCTURE_TYPE_VIDEO_DECODE_H264_CAPABILITIES_KHR};
	VkVideoDecodeH265CapabilitiesKHR h265 = {.sType = VK_STRUCTURE_TYPE_VIDEO_DECODE_H265_CAPABILITIES_KHR};
	VkVideoDecodeCapabilitiesKHR decode = {
		.sType = VK_STRUCTURE_TYPE_VIDEO_DECODE_CAPABILITIES_KHR,
		.pNext = profile->operation == VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR ? (void *)&h264 : (void *)&h265,
	};
	VkVideoCapabilitiesKHR capabilities = {.sType = VK_STRUCTURE_TYPE_VIDEO_CAPABILITIES_KHR, .pNext = &decode};
	VkResult vr = device->get_video_capabilities(device->physical, &chain.profile, &capabilities);
	const int codec = codec_of_operation(profile->operation);
	const char *name = vulkan_video_operation_name(profile->operation);
	if (vr != VK_SUCCESS || codec < 0)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: %s does not decode %s profile %u: %s",
		                             device->name, name, profile->std_profile, vulkan_result_string(vr));
	if (assertion->width < capabilities.minCodedExtent.width || assertion->height < capabilities.minCodedExtent.height ||
	    assertion->width > capabilities.maxCodedExtent.width || assertion->height > capabilities.maxCodedExtent.height)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: %s decodes %s profile %u from %ux%u to %ux%u, not %ux%u", device->name,
		                             name, profile->std_profile, capabilities.minCodedExtent.width,
		                             capabilities.minCodedExtent.height, capabilities.maxCodedExtent.width,
		                             capabilities.maxCodedExtent.height, assertion->width, assertion->height);
	/* The output holds the whole coded picture (VUID-VkVideoDecodeInfoKHR-
	 * dstPictureResource-07144): 1080p H.264 is 1920x1088 coded, its
	 * 1080 rows shown. */
	const uint32_t block = codecs[codec].block;
	if (assertion->width % block || assertion->height % block)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: %s pictures are whole %ux%u blocks: ask for %ux%u and show %ux%u of it",
		                             name, block, block, (assertion->width + block - 1) / block * block,
		                             (assertion->height + block - 1) / block * block, assertion->width,
		                             assertion->height);
	/* A driver whose outputs are its reference pictures (DPB and output
	 * coincide, and never stand apart) writes the picture into a DPB
	 * slot: the image is one. */
	if ((decode.flags & VK_VIDEO_DECODE_CAPABILITY_DPB_AND_OUTPUT_COINCIDE_BIT_KHR) &&
	    !(decode.flags & VK_VIDEO_DECODE_CAPABILITY_DPB_AND_OUTPUT_DISTINCT_BIT_KHR))
		*out_usage |= VK_IMAGE_USAGE_VIDEO_DECODE_DPB_BIT_KHR;
	return UDA_SUCCESS;
}

uint32_t vulkan_video_tilings(const struct vulkan_device *device, const struct vulkan_video_profile *profile,
                              VkFormat format, VkImageUsageFlags usage)
{
	struct vulkan_video_chain chain;
	vulkan_video_chain_init(&chain, profile);
	const VkPhysicalDeviceVideoFormatInfoKHR info = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VIDEO_FORMAT_INFO_KHR,
		.pNext = &chain.list,
		.imageUsage = usage,
	};
	uint32_t count = 0;
	if (device->get_video_formats(device->physical, &info, &count, NULL) != VK_SUCCESS || !count)
		return 0;
	VkVideoFormatPropertiesKHR *properties = calloc(count, sizeof(*properties));
	if (!properties)
		return 0;
	for (uint32_t i = 0; i < count; i++)
		properties[i].sType = VK_STRUCTURE_TYPE_VIDEO_FORMAT_PROPERTIES_KHR;
	uint32_t tilings = 0;
	if (device->get_video_formats(device->physical, &info, &count, properties) >= 0) {
		for (uint32_t i = 0; i < count; i++) {
			if (properties[i].format != format || properties[i].imageType != VK_IMAGE_TYPE_2D ||
			    (properties[i].imageUsageFlags & usage) != usage)
				continue;
			if (properties[i].imageTiling == VK_IMAGE_TILING_OPTIMAL)
				tilings |= VULKAN_VIDEO_TILING_OPTIMAL;
			else if (properties[i].imageTiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT)
				tilings |= VULKAN_VIDEO_TILING_MODIFIER;
		}
	}
	free(properties);
	return tilings;
}
