/* The mock's video decoder and encoder: the profiles they take, their
 * limits, and the images their pictures are written to or read from. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vk_video/vulkan_video_codecs_common.h>

#include "mock_icd.h"

/* Outputs in the driver's tiling also serve as reference pictures; with a
 * modifier only as outputs, copied into the DPB, which is how a display
 * can take the decoded picture as it is. */
#define OUTPUT_USAGES                                                                                                  \
	(VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |        \
	 VK_IMAGE_USAGE_TRANSFER_DST_BIT)
/* Encode inputs in any tiling, read as they are. */
#define INPUT_USAGES                                                                                                   \
	(VK_IMAGE_USAGE_VIDEO_ENCODE_SRC_BIT_KHR | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |        \
	 VK_IMAGE_USAGE_TRANSFER_DST_BIT)
#define DECODE_USAGES                                                                                                  \
	(VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR | VK_IMAGE_USAGE_VIDEO_DECODE_SRC_BIT_KHR |                             \
	 VK_IMAGE_USAGE_VIDEO_DECODE_DPB_BIT_KHR)
#define ENCODE_USAGES                                                                                                  \
	(VK_IMAGE_USAGE_VIDEO_ENCODE_SRC_BIT_KHR | VK_IMAGE_USAGE_VIDEO_ENCODE_DST_BIT_KHR |                             \
	 VK_IMAGE_USAGE_VIDEO_ENCODE_DPB_BIT_KHR)
#define VIDEO_USAGES (DECODE_USAGES | ENCODE_USAGES)

/* UDA_MOCK_VULKAN_DECODE picks how the decoder writes its pictures, as
 * drivers differ:
 *   "distinct" (default): outputs apart from reference pictures, in the
 *       driver's tiling or with a DRM modifier;
 *   "optimal": the same, in the driver's tiling only (no modifier);
 *   "coincide": outputs are reference pictures (DPB and output coincide,
 *       never apart), so they are DPB images, in the driver's tiling. */
enum decode_mode { DECODE_DISTINCT, DECODE_OPTIMAL, DECODE_COINCIDE };

static enum decode_mode decode_mode(void)
{
	const char *mode = getenv("UDA_MOCK_VULKAN_DECODE");
	return !mode                           ? DECODE_DISTINCT
	       : strcmp(mode, "optimal") == 0  ? DECODE_OPTIMAL
	       : strcmp(mode, "coincide") == 0 ? DECODE_COINCIDE
	                                       : DECODE_DISTINCT;
}

static bool is_encode(VkVideoCodecOperationFlagBitsKHR operation)
{
	return operation == VK_VIDEO_CODEC_OPERATION_ENCODE_H264_BIT_KHR ||
	       operation == VK_VIDEO_CODEC_OPERATION_ENCODE_H265_BIT_KHR ||
	       operation == VK_VIDEO_CODEC_OPERATION_ENCODE_AV1_BIT_KHR;
}

static VkImageUsageFlags decode_usages(VkImageTiling tiling)
{
	if (tiling == VK_IMAGE_TILING_OPTIMAL)
		return OUTPUT_USAGES | VK_IMAGE_USAGE_VIDEO_DECODE_DPB_BIT_KHR;
	return tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT && decode_mode() == DECODE_DISTINCT ? OUTPUT_USAGES : 0;
}

static VkImageUsageFlags encode_usages(VkImageTiling tiling)
{
	return tiling == VK_IMAGE_TILING_OPTIMAL || tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT ? INPUT_USAGES : 0;
}

VkImageUsageFlags mock_video_usages(VkImageTiling tiling)
{
	return decode_usages(tiling) | encode_usages(tiling);
}

static uint32_t depth_bits(VkVideoComponentBitDepthFlagsKHR depth)
{
	return depth == VK_VIDEO_COMPONENT_BIT_DEPTH_8_BIT_KHR    ? 8
	       : depth == VK_VIDEO_COMPONENT_BIT_DEPTH_10_BIT_KHR ? 10
	       : depth == VK_VIDEO_COMPONENT_BIT_DEPTH_12_BIT_KHR ? 12
	                                                          : 0;
}

/* The std profile of a codec profile structure: each of them is type,
 * next, then the profile; -1 where the structure is missing. */
static int64_t std_profile(const VkVideoProfileInfoKHR *profile, VkStructureType type)
{
	const struct {
		VkStructureType sType;
		const void *pNext;
		uint32_t std_profile;
	} *codec = mock_find_struct(profile->pNext, type);
	return codec ? (int64_t)codec->std_profile : -1;
}

VkResult mock_video_check_profile(const VkVideoProfileInfoKHR *profile)
{
	if (!profile || profile->sType != VK_STRUCTURE_TYPE_VIDEO_PROFILE_INFO_KHR)
		return VK_ERROR_VIDEO_PROFILE_OPERATION_NOT_SUPPORTED_KHR;
	uint32_t max_depth = 8;
	int64_t idc;
	switch (profile->videoCodecOperation) {
	case VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR: {
		/* Progressive, or interlaced with the fields' lines
		 * interleaved; not in planes of their own. */
		const VkVideoDecodeH264ProfileInfoKHR *h264 =
			mock_find_struct(profile->pNext, VK_STRUCTURE_TYPE_VIDEO_DECODE_H264_PROFILE_INFO_KHR);
		if (h264 && h264->pictureLayout != VK_VIDEO_DECODE_H264_PICTURE_LAYOUT_PROGRESSIVE_KHR &&
		    h264->pictureLayout != VK_VIDEO_DECODE_H264_PICTURE_LAYOUT_INTERLACED_INTERLEAVED_LINES_BIT_KHR)
			return VK_ERROR_VIDEO_PROFILE_CODEC_NOT_SUPPORTED_KHR;
	}
		/* fall through */
	case VK_VIDEO_CODEC_OPERATION_ENCODE_H264_BIT_KHR:
		idc = std_profile(profile, profile->videoCodecOperation == VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR
		                                   ? VK_STRUCTURE_TYPE_VIDEO_DECODE_H264_PROFILE_INFO_KHR
		                                   : VK_STRUCTURE_TYPE_VIDEO_ENCODE_H264_PROFILE_INFO_KHR);
		if (idc != STD_VIDEO_H264_PROFILE_IDC_BASELINE && idc != STD_VIDEO_H264_PROFILE_IDC_MAIN &&
		    idc != STD_VIDEO_H264_PROFILE_IDC_HIGH)
			return VK_ERROR_VIDEO_PROFILE_CODEC_NOT_SUPPORTED_KHR;
		break;
	case VK_VIDEO_CODEC_OPERATION_DECODE_H265_BIT_KHR:
	case VK_VIDEO_CODEC_OPERATION_ENCODE_H265_BIT_KHR:
		idc = std_profile(profile, profile->videoCodecOperation == VK_VIDEO_CODEC_OPERATION_DECODE_H265_BIT_KHR
		                                   ? VK_STRUCTURE_TYPE_VIDEO_DECODE_H265_PROFILE_INFO_KHR
		                                   : VK_STRUCTURE_TYPE_VIDEO_ENCODE_H265_PROFILE_INFO_KHR);
		if (idc == STD_VIDEO_H265_PROFILE_IDC_MAIN_10)
			max_depth = 10;
		else if (idc != STD_VIDEO_H265_PROFILE_IDC_MAIN)
			return VK_ERROR_VIDEO_PROFILE_CODEC_NOT_SUPPORTED_KHR;
		break;
	case VK_VIDEO_CODEC_OPERATION_ENCODE_AV1_BIT_KHR:
		/* Main: 8 and 10 bits, 4:2:0. */
		if (std_profile(profile, VK_STRUCTURE_TYPE_VIDEO_ENCODE_AV1_PROFILE_INFO_KHR) != STD_VIDEO_AV1_PROFILE_MAIN)
			return VK_ERROR_VIDEO_PROFILE_CODEC_NOT_SUPPORTED_KHR;
		max_depth = 10;
		break;
	case VK_VIDEO_CODEC_OPERATION_DECODE_AV1_BIT_KHR: {
		/* Main: 8 and 10 bits, 4:2:0. With film grain the output
		 * is the grained picture, never a reference one: a decoder
		 * whose outputs only coincide with its DPB has no such
		 * profile. */
		const VkVideoDecodeAV1ProfileInfoKHR *av1 =
			mock_find_struct(profile->pNext, VK_STRUCTURE_TYPE_VIDEO_DECODE_AV1_PROFILE_INFO_KHR);
		if (!av1 || av1->stdProfile != STD_VIDEO_AV1_PROFILE_MAIN ||
		    (av1->filmGrainSupport && decode_mode() == DECODE_COINCIDE))
			return VK_ERROR_VIDEO_PROFILE_CODEC_NOT_SUPPORTED_KHR;
		max_depth = 10;
		break;
	}
	case VK_VIDEO_CODEC_OPERATION_DECODE_VP9_BIT_KHR:
		/* Profile 0 (8 bits) and 2 (10 and 12 bits, 10 here), 4:2:0;
		 * not 1 and 3, the 4:2:2 and 4:4:4 ones. */
		idc = std_profile(profile, VK_STRUCTURE_TYPE_VIDEO_DECODE_VP9_PROFILE_INFO_KHR);
		if (idc == STD_VIDEO_VP9_PROFILE_2)
			max_depth = 10;
		else if (idc != STD_VIDEO_VP9_PROFILE_0)
			return VK_ERROR_VIDEO_PROFILE_CODEC_NOT_SUPPORTED_KHR;
		break;
	default:
		return VK_ERROR_VIDEO_PROFILE_OPERATION_NOT_SUPPORTED_KHR;
	}
	const uint32_t luma = depth_bits(profile->lumaBitDepth), chroma = depth_bits(profile->chromaBitDepth);
	if (profile->chromaSubsampling != VK_VIDEO_CHROMA_SUBSAMPLING_420_BIT_KHR || !luma || luma != chroma ||
	    luma > max_depth)
		return VK_ERROR_VIDEO_PROFILE_FORMAT_NOT_SUPPORTED_KHR;
	return VK_SUCCESS;
}

bool mock_video_profiles_allow(const void *chain, const struct mock_format *format, VkImageUsageFlags usage,
                               bool need_list)
{
	const VkVideoProfileListInfoKHR *list = mock_find_struct(chain, VK_STRUCTURE_TYPE_VIDEO_PROFILE_LIST_INFO_KHR);
	if (!(usage & VIDEO_USAGES))
		return true;
	if (usage & (VK_IMAGE_USAGE_VIDEO_DECODE_SRC_BIT_KHR | VK_IMAGE_USAGE_VIDEO_ENCODE_DST_BIT_KHR |
	             VK_IMAGE_USAGE_VIDEO_ENCODE_DPB_BIT_KHR))
		return false;
	/* vkGetPhysicalDeviceImageFormatProperties has no room for a list
	 * (the validation layer asks it so): answered as for any profile. */
	if (!list && !need_list)
		return format->bit_depth != 0;
	if (!list || !list->profileCount)
		return false;
	bool decodes = false, encodes = false;
	for (uint32_t i = 0; i < list->profileCount; i++) {
		if (mock_video_check_profile(&list->pProfiles[i]) != VK_SUCCESS ||
		    depth_bits(list->pProfiles[i].lumaBitDepth) != format->bit_depth)
			return false;
		encodes = encodes || is_encode(list->pProfiles[i].videoCodecOperation);
		decodes = decodes || !is_encode(list->pProfiles[i].videoCodecOperation);
	}
	/* Each video usage needs a profile of its direction. */
	return (!(usage & DECODE_USAGES) || decodes) && (!(usage & ENCODE_USAGES) || encodes);
}

bool mock_video_device_allows(const struct mock_device *device, const void *chain)
{
	const VkVideoProfileListInfoKHR *list = mock_find_struct(chain, VK_STRUCTURE_TYPE_VIDEO_PROFILE_LIST_INFO_KHR);
	for (uint32_t i = 0; list && i < list->profileCount; i++) {
		const VkVideoCodecOperationFlagBitsKHR operation = list->pProfiles[i].videoCodecOperation;
		const char *missing =
			operation == VK_VIDEO_CODEC_OPERATION_ENCODE_AV1_BIT_KHR && !device->encode_av1
				? "an AV1 encode image on a device without videoEncodeAV1 (VUID-VkImageCreateInfo-pNext-10250)"
			: operation == VK_VIDEO_CODEC_OPERATION_DECODE_VP9_BIT_KHR && !device->decode_vp9
				? "a VP9 decode image on a device without videoDecodeVP9 (VUID-VkImageCreateInfo-pNext-10784)"
				: NULL;
		if (missing) {
			fprintf(stderr, "uda-mock-vulkan: %s\n", missing);
			return false;
		}
	}
	return true;
}

/* The codec's capability structure, which the query must chain
 * (VUID-vkGetPhysicalDeviceVideoCapabilitiesKHR-pVideoProfile-07184 and
 * its siblings). */
static VkStructureType codec_capabilities_type(VkVideoCodecOperationFlagBitsKHR operation)
{
	switch (operation) {
	case VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR:
		return VK_STRUCTURE_TYPE_VIDEO_DECODE_H264_CAPABILITIES_KHR;
	case VK_VIDEO_CODEC_OPERATION_DECODE_H265_BIT_KHR:
		return VK_STRUCTURE_TYPE_VIDEO_DECODE_H265_CAPABILITIES_KHR;
	case VK_VIDEO_CODEC_OPERATION_DECODE_AV1_BIT_KHR:
		return VK_STRUCTURE_TYPE_VIDEO_DECODE_AV1_CAPABILITIES_KHR;
	case VK_VIDEO_CODEC_OPERATION_DECODE_VP9_BIT_KHR:
		return VK_STRUCTURE_TYPE_VIDEO_DECODE_VP9_CAPABILITIES_KHR;
	case VK_VIDEO_CODEC_OPERATION_ENCODE_H264_BIT_KHR:
		return VK_STRUCTURE_TYPE_VIDEO_ENCODE_H264_CAPABILITIES_KHR;
	case VK_VIDEO_CODEC_OPERATION_ENCODE_H265_BIT_KHR:
		return VK_STRUCTURE_TYPE_VIDEO_ENCODE_H265_CAPABILITIES_KHR;
	default:
		return VK_STRUCTURE_TYPE_VIDEO_ENCODE_AV1_CAPABILITIES_KHR;
	}
}

static void set_std_header(VkExtensionProperties *header, const char *name, uint32_t version)
{
	strcpy(header->extensionName, name);
	header->specVersion = version;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceVideoCapabilitiesKHR(VkPhysicalDevice physical, const VkVideoProfileInfoKHR *profile,
                       VkVideoCapabilitiesKHR *capabilities)
{
	const VkResult result = mock_video_check_profile(profile);
	if (result != VK_SUCCESS)
		return result;
	const VkVideoCodecOperationFlagBitsKHR operation = profile->videoCodecOperation;
	/* A query without the direction's and the codec's structures is the
	 * application's error; the mock fails it loudly rather than answer. */
	if (!mock_find_out_struct(capabilities->pNext, is_encode(operation)
	                                                       ? VK_STRUCTURE_TYPE_VIDEO_ENCODE_CAPABILITIES_KHR
	                                                       : VK_STRUCTURE_TYPE_VIDEO_DECODE_CAPABILITIES_KHR) ||
	    !mock_find_out_struct(capabilities->pNext, codec_capabilities_type(operation))) {
		fprintf(stderr, "uda-mock-vulkan: vkGetPhysicalDeviceVideoCapabilitiesKHR without the %s and codec "
		                "capability structures\n",
		        is_encode(operation) ? "encode" : "decode");
		return VK_ERROR_INITIALIZATION_FAILED;
	}
	capabilities->flags = VK_VIDEO_CAPABILITY_SEPARATE_REFERENCE_IMAGES_BIT_KHR;
	capabilities->minBitstreamBufferOffsetAlignment = 256;
	capabilities->minBitstreamBufferSizeAlignment = 256;
	capabilities->pictureAccessGranularity = (VkExtent2D){16, 16};
	capabilities->maxDpbSlots = 17;
	capabilities->maxActiveReferencePictures = 16;
	switch (operation) {
	case VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR:
		capabilities->minCodedExtent = (VkExtent2D){48, 16};
		capabilities->maxCodedExtent = (VkExtent2D){4096, 4096};
		set_std_header(&capabilities->stdHeaderVersion, VK_STD_VULKAN_VIDEO_CODEC_H264_DECODE_EXTENSION_NAME,
		               VK_STD_VULKAN_VIDEO_CODEC_H264_DECODE_SPEC_VERSION);
		break;
	case VK_VIDEO_CODEC_OPERATION_DECODE_H265_BIT_KHR:
		capabilities->minCodedExtent = (VkExtent2D){144, 144};
		capabilities->maxCodedExtent = (VkExtent2D){8192, 8192};
		set_std_header(&capabilities->stdHeaderVersion, VK_STD_VULKAN_VIDEO_CODEC_H265_DECODE_EXTENSION_NAME,
		               VK_STD_VULKAN_VIDEO_CODEC_H265_DECODE_SPEC_VERSION);
		break;
	case VK_VIDEO_CODEC_OPERATION_DECODE_AV1_BIT_KHR:
		capabilities->minCodedExtent = (VkExtent2D){16, 16};
		capabilities->maxCodedExtent = (VkExtent2D){8192, 8192};
		capabilities->maxDpbSlots = 9;
		capabilities->maxActiveReferencePictures = 7;
		set_std_header(&capabilities->stdHeaderVersion, VK_STD_VULKAN_VIDEO_CODEC_AV1_DECODE_EXTENSION_NAME,
		               VK_STD_VULKAN_VIDEO_CODEC_AV1_DECODE_SPEC_VERSION);
		break;
	case VK_VIDEO_CODEC_OPERATION_DECODE_VP9_BIT_KHR:
		capabilities->minCodedExtent = (VkExtent2D){128, 128};
		capabilities->maxCodedExtent = (VkExtent2D){8192, 8192};
		capabilities->maxDpbSlots = 9;
		capabilities->maxActiveReferencePictures = 3;
		set_std_header(&capabilities->stdHeaderVersion, VK_STD_VULKAN_VIDEO_CODEC_VP9_DECODE_EXTENSION_NAME,
		               VK_STD_VULKAN_VIDEO_CODEC_VP9_DECODE_SPEC_VERSION);
		break;
	case VK_VIDEO_CODEC_OPERATION_ENCODE_H264_BIT_KHR:
		capabilities->minCodedExtent = (VkExtent2D){160, 64};
		capabilities->maxCodedExtent = (VkExtent2D){4096, 4096};
		set_std_header(&capabilities->stdHeaderVersion, VK_STD_VULKAN_VIDEO_CODEC_H264_ENCODE_EXTENSION_NAME,
		               VK_STD_VULKAN_VIDEO_CODEC_H264_ENCODE_SPEC_VERSION);
		break;
	case VK_VIDEO_CODEC_OPERATION_ENCODE_AV1_BIT_KHR:
		capabilities->minCodedExtent = (VkExtent2D){128, 128};
		capabilities->maxCodedExtent = (VkExtent2D){4096, 4096};
		set_std_header(&capabilities->stdHeaderVersion, VK_STD_VULKAN_VIDEO_CODEC_AV1_ENCODE_EXTENSION_NAME,
		               VK_STD_VULKAN_VIDEO_CODEC_AV1_ENCODE_SPEC_VERSION);
		break;
	default: /* H.265 encode: mock_video_check_profile took no other */
		capabilities->minCodedExtent = (VkExtent2D){160, 64};
		capabilities->maxCodedExtent = (VkExtent2D){4096, 4096};
		set_std_header(&capabilities->stdHeaderVersion, VK_STD_VULKAN_VIDEO_CODEC_H265_ENCODE_EXTENSION_NAME,
		               VK_STD_VULKAN_VIDEO_CODEC_H265_ENCODE_SPEC_VERSION);
		break;
	}
	VkVideoDecodeCapabilitiesKHR *decode =
		mock_find_out_struct(capabilities->pNext, VK_STRUCTURE_TYPE_VIDEO_DECODE_CAPABILITIES_KHR);
	const VkVideoDecodeAV1ProfileInfoKHR *av1_profile =
		mock_find_struct(profile->pNext, VK_STRUCTURE_TYPE_VIDEO_DECODE_AV1_PROFILE_INFO_KHR);
	const bool film_grain = av1_profile && av1_profile->filmGrainSupport;
	if (decode && !is_encode(operation))
		decode->flags = decode_mode() == DECODE_COINCIDE ? VK_VIDEO_DECODE_CAPABILITY_DPB_AND_OUTPUT_COINCIDE_BIT_KHR
		                : film_grain ? VK_VIDEO_DECODE_CAPABILITY_DPB_AND_OUTPUT_DISTINCT_BIT_KHR
		                             : VK_VIDEO_DECODE_CAPABILITY_DPB_AND_OUTPUT_COINCIDE_BIT_KHR |
		                                       VK_VIDEO_DECODE_CAPABILITY_DPB_AND_OUTPUT_DISTINCT_BIT_KHR;
	/* The encoder reads its input in whole macroblocks (H.264), coding
	 * tree blocks (H.265, 32x32) or 16x16 blocks (AV1). */
	VkVideoEncodeCapabilitiesKHR *encode =
		mock_find_out_struct(capabilities->pNext, VK_STRUCTURE_TYPE_VIDEO_ENCODE_CAPABILITIES_KHR);
	if (encode && is_encode(operation)) {
		encode->flags = 0;
		encode->rateControlModes = VK_VIDEO_ENCODE_RATE_CONTROL_MODE_DISABLED_BIT_KHR |
		                           VK_VIDEO_ENCODE_RATE_CONTROL_MODE_CBR_BIT_KHR |
		                           VK_VIDEO_ENCODE_RATE_CONTROL_MODE_VBR_BIT_KHR;
		encode->maxRateControlLayers = 1;
		encode->maxBitrate = 800000000;
		encode->maxQualityLevels = 7;
		encode->encodeInputPictureGranularity =
			operation == VK_VIDEO_CODEC_OPERATION_ENCODE_H265_BIT_KHR ? (VkExtent2D){32, 32} : (VkExtent2D){16, 16};
		encode->supportedEncodeFeedbackFlags = VK_VIDEO_ENCODE_FEEDBACK_BITSTREAM_BUFFER_OFFSET_BIT_KHR |
		                                       VK_VIDEO_ENCODE_FEEDBACK_BITSTREAM_BYTES_WRITTEN_BIT_KHR;
	}
	VkVideoDecodeH264CapabilitiesKHR *h264_caps =
		mock_find_out_struct(capabilities->pNext, VK_STRUCTURE_TYPE_VIDEO_DECODE_H264_CAPABILITIES_KHR);
	if (h264_caps) {
		h264_caps->maxLevelIdc = STD_VIDEO_H264_LEVEL_IDC_5_2;
		h264_caps->fieldOffsetGranularity = (VkOffset2D){0, 0};
	}
	VkVideoDecodeH265CapabilitiesKHR *h265_caps =
		mock_find_out_struct(capabilities->pNext, VK_STRUCTURE_TYPE_VIDEO_DECODE_H265_CAPABILITIES_KHR);
	if (h265_caps)
		h265_caps->maxLevelIdc = STD_VIDEO_H265_LEVEL_IDC_6_2;
	VkVideoDecodeAV1CapabilitiesKHR *av1_caps =
		mock_find_out_struct(capabilities->pNext, VK_STRUCTURE_TYPE_VIDEO_DECODE_AV1_CAPABILITIES_KHR);
	if (av1_caps)
		av1_caps->maxLevel = STD_VIDEO_AV1_LEVEL_6_0;
	VkVideoDecodeVP9CapabilitiesKHR *vp9_caps =
		mock_find_out_struct(capabilities->pNext, VK_STRUCTURE_TYPE_VIDEO_DECODE_VP9_CAPABILITIES_KHR);
	if (vp9_caps)
		vp9_caps->maxLevel = STD_VIDEO_VP9_LEVEL_6_2;
	VkVideoEncodeH264CapabilitiesKHR *h264_encode =
		mock_find_out_struct(capabilities->pNext, VK_STRUCTURE_TYPE_VIDEO_ENCODE_H264_CAPABILITIES_KHR);
	if (h264_encode) {
		h264_encode->maxLevelIdc = STD_VIDEO_H264_LEVEL_IDC_5_2;
		h264_encode->maxSliceCount = 32;
		h264_encode->maxPPictureL0ReferenceCount = 4;
		h264_encode->maxBPictureL0ReferenceCount = 4;
		h264_encode->maxL1ReferenceCount = 1;
		h264_encode->maxTemporalLayerCount = 1;
		h264_encode->maxQp = 51;
		h264_encode->minQp = 0;
	}
	VkVideoEncodeAV1CapabilitiesKHR *av1_encode =
		mock_find_out_struct(capabilities->pNext, VK_STRUCTURE_TYPE_VIDEO_ENCODE_AV1_CAPABILITIES_KHR);
	if (av1_encode) {
		av1_encode->maxLevel = STD_VIDEO_AV1_LEVEL_6_0;
		av1_encode->codedPictureAlignment = (VkExtent2D){8, 8};
		av1_encode->maxTiles = (VkExtent2D){1, 1};
		av1_encode->minTileSize = (VkExtent2D){64, 64};
		av1_encode->maxTileSize = (VkExtent2D){4096, 2304};
		av1_encode->superblockSizes = VK_VIDEO_ENCODE_AV1_SUPERBLOCK_SIZE_64_BIT_KHR;
		av1_encode->maxSingleReferenceCount = 1;
		av1_encode->singleReferenceNameMask = 1;
		av1_encode->maxTemporalLayerCount = 1;
		av1_encode->maxSpatialLayerCount = 1;
		av1_encode->maxOperatingPoints = 1;
		av1_encode->maxQIndex = 255;
	}
	VkVideoEncodeH265CapabilitiesKHR *h265_encode =
		mock_find_out_struct(capabilities->pNext, VK_STRUCTURE_TYPE_VIDEO_ENCODE_H265_CAPABILITIES_KHR);
	if (h265_encode) {
		h265_encode->maxLevelIdc = STD_VIDEO_H265_LEVEL_IDC_6_2;
		h265_encode->maxSliceSegmentCount = 32;
		h265_encode->maxTiles = (VkExtent2D){1, 1};
		h265_encode->ctbSizes = VK_VIDEO_ENCODE_H265_CTB_SIZE_32_BIT_KHR;
		h265_encode->transformBlockSizes = VK_VIDEO_ENCODE_H265_TRANSFORM_BLOCK_SIZE_4_BIT_KHR |
		                                   VK_VIDEO_ENCODE_H265_TRANSFORM_BLOCK_SIZE_32_BIT_KHR;
		h265_encode->maxPPictureL0ReferenceCount = 4;
		h265_encode->maxBPictureL0ReferenceCount = 4;
		h265_encode->maxL1ReferenceCount = 1;
		h265_encode->maxSubLayerCount = 1;
		h265_encode->maxQp = 51;
		h265_encode->minQp = 0;
	}
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceVideoFormatPropertiesKHR(VkPhysicalDevice physical,
                                                        const VkPhysicalDeviceVideoFormatInfoKHR *info,
                                                        uint32_t *count, VkVideoFormatPropertiesKHR *properties)
{
	const VkVideoProfileListInfoKHR *list =
		mock_find_struct(info->pNext, VK_STRUCTURE_TYPE_VIDEO_PROFILE_LIST_INFO_KHR);
	if (!(info->imageUsage & VIDEO_USAGES) || !list || !list->profileCount)
		return VK_ERROR_IMAGE_USAGE_NOT_SUPPORTED_KHR;
	/* Outputs that are reference pictures are asked for as both (the
	 * spec's rule for DPB_AND_OUTPUT_COINCIDE without DISTINCT). */
	const VkImageUsageFlags output_and_dpb =
		VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR | VK_IMAGE_USAGE_VIDEO_DECODE_DPB_BIT_KHR;
	if (decode_mode() == DECODE_COINCIDE && (info->imageUsage & output_and_dpb) &&
	    (info->imageUsage & output_and_dpb) != output_and_dpb)
		return VK_ERROR_IMAGE_USAGE_NOT_SUPPORTED_KHR;
	uint32_t depth = 0;
	bool decodes = false, encodes = false;
	for (uint32_t i = 0; i < list->profileCount; i++) {
		const VkResult result = mock_video_check_profile(&list->pProfiles[i]);
		if (result != VK_SUCCESS)
			return result;
		const uint32_t d = depth_bits(list->pProfiles[i].lumaBitDepth);
		if (depth && d != depth)
			return VK_ERROR_FORMAT_NOT_SUPPORTED;
		depth = d;
		encodes = encodes || is_encode(list->pProfiles[i].videoCodecOperation);
		decodes = decodes || !is_encode(list->pProfiles[i].videoCodecOperation);
	}
	/* Decode pictures for decode profiles, encode ones for encode
	 * profiles; the mock lists no picture for both at once. */
	if (((info->imageUsage & DECODE_USAGES) && !decodes) || ((info->imageUsage & ENCODE_USAGES) && !encodes) ||
	    ((info->imageUsage & DECODE_USAGES) && (info->imageUsage & ENCODE_USAGES)))
		return VK_ERROR_IMAGE_USAGE_NOT_SUPPORTED_KHR;
	const VkFormat format =
		depth == 10 ? VK_FORMAT_G10X6_B10X6R10X6_2PLANE_420_UNORM_3PACK16 : VK_FORMAT_G8_B8R8_2PLANE_420_UNORM;
	const VkImageTiling tilings[] = {VK_IMAGE_TILING_OPTIMAL, VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT};
	VkVideoFormatPropertiesKHR found[2];
	uint32_t n = 0;
	for (uint32_t t = 0; t < 2; t++) {
		const VkImageUsageFlags allowed = (info->imageUsage & ENCODE_USAGES) ? encode_usages(tilings[t])
		                                                                    : decode_usages(tilings[t]);
		if ((info->imageUsage & allowed) != info->imageUsage || !allowed)
			continue;
		found[n++] = (VkVideoFormatPropertiesKHR){
			.sType = VK_STRUCTURE_TYPE_VIDEO_FORMAT_PROPERTIES_KHR,
			.format = format,
			.componentMapping = {VK_COMPONENT_SWIZZLE_IDENTITY, VK_COMPONENT_SWIZZLE_IDENTITY,
		                             VK_COMPONENT_SWIZZLE_IDENTITY, VK_COMPONENT_SWIZZLE_IDENTITY},
			.imageType = VK_IMAGE_TYPE_2D,
			.imageTiling = tilings[t],
			.imageUsageFlags = allowed,
		};
	}
	if (!n)
		return VK_ERROR_FORMAT_NOT_SUPPORTED;
	if (!properties) {
		*count = n;
		return VK_SUCCESS;
	}
	const uint32_t written = *count < n ? *count : n;
	for (uint32_t i = 0; i < written; i++) {
		void *next = properties[i].pNext;
		properties[i] = found[i];
		properties[i].pNext = next;
	}
	*count = written;
	return written < n ? VK_INCOMPLETE : VK_SUCCESS;
}
