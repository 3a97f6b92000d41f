/*
 * Vulkan Video pictures as negotiated images: decode outputs and encode
 * inputs. A VIDEO_DECODE or VIDEO_ENCODE atom names a profile
 * (uda_video_profile); the driver says whether it decodes or encodes it
 * at the assertion's size (vkGetPhysicalDeviceVideoCapabilitiesKHR) and in
 * which tilings it writes or reads its pictures
 * (vkGetPhysicalDeviceVideoFormatPropertiesKHR). Every image made for the
 * profile then carries it (VkVideoProfileListInfoKHR), in the queries
 * that answer capability sets as in the allocation and the imports.
 *
 * Encode, AV1 and VP9 are the final extensions of headers 1.3.274 (H.264
 * and H.265 encode), 1.3.277 (AV1 decode), 1.3.302 (AV1 encode) and
 * 1.4.317 (VP9 decode) (third_party/vulkan-headers).
 */
#include <stdlib.h>
#include <string.h>

#include "vulkan_backend.h"

/* The codec operations that are device features as well as extensions:
 * an image for them needs the feature enabled (VUID-VkImageCreateInfo-
 * pNext-10250 for AV1 encode, -10784 for VP9 decode). */
enum video_feature {
	VIDEO_FEATURE_NONE,
	VIDEO_FEATURE_ENCODE_AV1,
	VIDEO_FEATURE_DECODE_VP9,
};

/* The codec operations the backend knows, with what Vulkan needs for
 * each: the profile numbers its std header names, the structure that
 * carries the codec's capabilities, the headers its final extension came
 * in (a validation layer older than those cannot validate it), the
 * feature it needs, and, for decoding, the block a coded picture's size
 * is a whole number of (H.264 macroblocks; H.265's smallest coding block,
 * AV1's mode-info pair and VP9's mode-info block, 8x8), which the output
 * image must hold. An encoder says its own granularity. */
static const struct video_codec {
	uint32_t codec; /* uda_video_codec */
	bool encode;
	VkVideoCodecOperationFlagBitsKHR operation;
	const char *extension;
	const char *name;           /* the codec's */
	const char *operation_name; /* the operation's, for messages */
	VkStructureType capabilities_type;
	uint32_t final_in; /* VK_MAKE_API_VERSION of those headers */
	enum video_feature feature;
	uint32_t profiles[5];
	uint32_t profile_count;
	uint32_t block;
} codecs[] = {
	{UDA_VIDEO_CODEC_H264, false, VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR, VK_KHR_VIDEO_DECODE_H264_EXTENSION_NAME,
	 "H.264", "H.264 decode", VK_STRUCTURE_TYPE_VIDEO_DECODE_H264_CAPABILITIES_KHR, VK_MAKE_API_VERSION(0, 1, 3, 238),
	 VIDEO_FEATURE_NONE,
	 {STD_VIDEO_H264_PROFILE_IDC_BASELINE, STD_VIDEO_H264_PROFILE_IDC_MAIN, STD_VIDEO_H264_PROFILE_IDC_HIGH,
	  STD_VIDEO_H264_PROFILE_IDC_HIGH_444_PREDICTIVE},
	 4, 16},
	{UDA_VIDEO_CODEC_H265, false, VK_VIDEO_CODEC_OPERATION_DECODE_H265_BIT_KHR, VK_KHR_VIDEO_DECODE_H265_EXTENSION_NAME,
	 "H.265", "H.265 decode", VK_STRUCTURE_TYPE_VIDEO_DECODE_H265_CAPABILITIES_KHR, VK_MAKE_API_VERSION(0, 1, 3, 238),
	 VIDEO_FEATURE_NONE,
	 {STD_VIDEO_H265_PROFILE_IDC_MAIN, STD_VIDEO_H265_PROFILE_IDC_MAIN_10, STD_VIDEO_H265_PROFILE_IDC_MAIN_STILL_PICTURE,
	  STD_VIDEO_H265_PROFILE_IDC_FORMAT_RANGE_EXTENSIONS, STD_VIDEO_H265_PROFILE_IDC_SCC_EXTENSIONS},
	 5, 8},
	{UDA_VIDEO_CODEC_AV1, false, VK_VIDEO_CODEC_OPERATION_DECODE_AV1_BIT_KHR, VK_KHR_VIDEO_DECODE_AV1_EXTENSION_NAME,
	 "AV1", "AV1 decode", VK_STRUCTURE_TYPE_VIDEO_DECODE_AV1_CAPABILITIES_KHR, VK_MAKE_API_VERSION(0, 1, 3, 277),
	 VIDEO_FEATURE_NONE,
	 {STD_VIDEO_AV1_PROFILE_MAIN, STD_VIDEO_AV1_PROFILE_HIGH, STD_VIDEO_AV1_PROFILE_PROFESSIONAL}, 3, 8},
	{UDA_VIDEO_CODEC_VP9, false, VK_VIDEO_CODEC_OPERATION_DECODE_VP9_BIT_KHR, VK_KHR_VIDEO_DECODE_VP9_EXTENSION_NAME,
	 "VP9", "VP9 decode", VK_STRUCTURE_TYPE_VIDEO_DECODE_VP9_CAPABILITIES_KHR, VK_MAKE_API_VERSION(0, 1, 4, 317),
	 VIDEO_FEATURE_DECODE_VP9,
	 {STD_VIDEO_VP9_PROFILE_0, STD_VIDEO_VP9_PROFILE_1, STD_VIDEO_VP9_PROFILE_2, STD_VIDEO_VP9_PROFILE_3}, 4, 8},
	{UDA_VIDEO_CODEC_H264, true, VK_VIDEO_CODEC_OPERATION_ENCODE_H264_BIT_KHR, VK_KHR_VIDEO_ENCODE_H264_EXTENSION_NAME,
	 "H.264", "H.264 encode", VK_STRUCTURE_TYPE_VIDEO_ENCODE_H264_CAPABILITIES_KHR, VK_MAKE_API_VERSION(0, 1, 3, 274),
	 VIDEO_FEATURE_NONE,
	 {STD_VIDEO_H264_PROFILE_IDC_BASELINE, STD_VIDEO_H264_PROFILE_IDC_MAIN, STD_VIDEO_H264_PROFILE_IDC_HIGH,
	  STD_VIDEO_H264_PROFILE_IDC_HIGH_444_PREDICTIVE},
	 4, 0},
	{UDA_VIDEO_CODEC_H265, true, VK_VIDEO_CODEC_OPERATION_ENCODE_H265_BIT_KHR, VK_KHR_VIDEO_ENCODE_H265_EXTENSION_NAME,
	 "H.265", "H.265 encode", VK_STRUCTURE_TYPE_VIDEO_ENCODE_H265_CAPABILITIES_KHR, VK_MAKE_API_VERSION(0, 1, 3, 274),
	 VIDEO_FEATURE_NONE,
	 {STD_VIDEO_H265_PROFILE_IDC_MAIN, STD_VIDEO_H265_PROFILE_IDC_MAIN_10, STD_VIDEO_H265_PROFILE_IDC_MAIN_STILL_PICTURE,
	  STD_VIDEO_H265_PROFILE_IDC_FORMAT_RANGE_EXTENSIONS, STD_VIDEO_H265_PROFILE_IDC_SCC_EXTENSIONS},
	 5, 0},
	{UDA_VIDEO_CODEC_AV1, true, VK_VIDEO_CODEC_OPERATION_ENCODE_AV1_BIT_KHR, VK_KHR_VIDEO_ENCODE_AV1_EXTENSION_NAME,
	 "AV1", "AV1 encode", VK_STRUCTURE_TYPE_VIDEO_ENCODE_AV1_CAPABILITIES_KHR, VK_MAKE_API_VERSION(0, 1, 3, 302),
	 VIDEO_FEATURE_ENCODE_AV1,
	 {STD_VIDEO_AV1_PROFILE_MAIN, STD_VIDEO_AV1_PROFILE_HIGH, STD_VIDEO_AV1_PROFILE_PROFESSIONAL}, 3, 0},
};

#define CODEC_COUNT (sizeof(codecs) / sizeof(codecs[0]))

static const struct video_codec *codec_of_operation(uint32_t operation)
{
	for (size_t i = 0; i < CODEC_COUNT; i++) {
		if (codecs[i].operation == operation)
			return &codecs[i];
	}
	return NULL;
}

static bool profile_named(const struct video_codec *codec, uint32_t std_profile)
{
	for (uint32_t i = 0; i < codec->profile_count; i++) {
		if (codec->profiles[i] == std_profile)
			return true;
	}
	return false;
}

static const char *verb(const struct video_codec *codec)
{
	return codec->encode ? "encode" : "decode";
}

const char *vulkan_video_operation_name(uint32_t operation)
{
	const struct video_codec *codec = codec_of_operation(operation);
	return codec ? codec->operation_name : "an unknown codec operation";
}

void vulkan_video_chain_init(struct vulkan_video_chain *chain, const struct vulkan_video_profile *profile)
{
	memset(chain, 0, sizeof(*chain));
	switch (profile->operation) {
	case VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR:
		chain->codec.decode_h264 = (VkVideoDecodeH264ProfileInfoKHR){
			.sType = VK_STRUCTURE_TYPE_VIDEO_DECODE_H264_PROFILE_INFO_KHR,
			.stdProfileIdc = (StdVideoH264ProfileIdc)profile->std_profile,
			/* Interlaced: both fields in the one picture, lines
			 * interleaved, as a display or a deinterlacer reads a
			 * frame (not the fields in planes of their own). */
			.pictureLayout = (profile->picture & UDA_VIDEO_PICTURE_INTERLACED)
			                         ? VK_VIDEO_DECODE_H264_PICTURE_LAYOUT_INTERLACED_INTERLEAVED_LINES_BIT_KHR
			                         : VK_VIDEO_DECODE_H264_PICTURE_LAYOUT_PROGRESSIVE_KHR,
		};
		break;
	case VK_VIDEO_CODEC_OPERATION_DECODE_AV1_BIT_KHR:
		chain->codec.decode_av1 = (VkVideoDecodeAV1ProfileInfoKHR){
			.sType = VK_STRUCTURE_TYPE_VIDEO_DECODE_AV1_PROFILE_INFO_KHR,
			.stdProfile = (StdVideoAV1Profile)profile->std_profile,
			/* Without UDA_VIDEO_PICTURE_FILM_GRAIN, the profile every
			 * AV1 decoder has: a stream's grain is then the
			 * application's to apply. */
			.filmGrainSupport = (profile->picture & UDA_VIDEO_PICTURE_FILM_GRAIN) ? VK_TRUE : VK_FALSE,
		};
		break;
	case VK_VIDEO_CODEC_OPERATION_DECODE_VP9_BIT_KHR:
		chain->codec.decode_vp9 = (VkVideoDecodeVP9ProfileInfoKHR){
			.sType = VK_STRUCTURE_TYPE_VIDEO_DECODE_VP9_PROFILE_INFO_KHR,
			.stdProfile = (StdVideoVP9Profile)profile->std_profile,
		};
		break;
	case VK_VIDEO_CODEC_OPERATION_DECODE_H265_BIT_KHR:
		chain->codec.decode_h265 = (VkVideoDecodeH265ProfileInfoKHR){
			.sType = VK_STRUCTURE_TYPE_VIDEO_DECODE_H265_PROFILE_INFO_KHR,
			.stdProfileIdc = (StdVideoH265ProfileIdc)profile->std_profile,
		};
		break;
	case VK_VIDEO_CODEC_OPERATION_ENCODE_H264_BIT_KHR:
		chain->codec.encode_h264 = (VkVideoEncodeH264ProfileInfoKHR){
			.sType = VK_STRUCTURE_TYPE_VIDEO_ENCODE_H264_PROFILE_INFO_KHR,
			.stdProfileIdc = (StdVideoH264ProfileIdc)profile->std_profile,
		};
		break;
	case VK_VIDEO_CODEC_OPERATION_ENCODE_H265_BIT_KHR:
		chain->codec.encode_h265 = (VkVideoEncodeH265ProfileInfoKHR){
			.sType = VK_STRUCTURE_TYPE_VIDEO_ENCODE_H265_PROFILE_INFO_KHR,
			.stdProfileIdc = (StdVideoH265ProfileIdc)profile->std_profile,
		};
		break;
	case VK_VIDEO_CODEC_OPERATION_ENCODE_AV1_BIT_KHR:
		chain->codec.encode_av1 = (VkVideoEncodeAV1ProfileInfoKHR){
			.sType = VK_STRUCTURE_TYPE_VIDEO_ENCODE_AV1_PROFILE_INFO_KHR,
			.stdProfile = (StdVideoAV1Profile)profile->std_profile,
		};
		break;
	default:
		break;
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

/* Chains `feature`'s structure onto `features`: with VK_TRUE to enable
 * it, VK_FALSE to ask the driver whether it has it. Each feature belongs
 * to one codec operation, so it is chained once. */
static void chain_feature(struct vulkan_video_features *features, enum video_feature feature, VkBool32 value)
{
	switch (feature) {
	case VIDEO_FEATURE_ENCODE_AV1:
		features->encode_av1 = (VkPhysicalDeviceVideoEncodeAV1FeaturesKHR){
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VIDEO_ENCODE_AV1_FEATURES_KHR,
			.pNext = features->head,
			.videoEncodeAV1 = value,
		};
		features->head = &features->encode_av1;
		break;
	case VIDEO_FEATURE_DECODE_VP9:
		features->decode_vp9 = (VkPhysicalDeviceVideoDecodeVP9FeaturesKHR){
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VIDEO_DECODE_VP9_FEATURES_KHR,
			.pNext = features->head,
			.videoDecodeVP9 = value,
		};
		features->head = &features->decode_vp9;
		break;
	case VIDEO_FEATURE_NONE:
		break;
	}
}

static bool has_feature(const struct vulkan_video_features *features, enum video_feature feature)
{
	switch (feature) {
	case VIDEO_FEATURE_ENCODE_AV1:
		return features->encode_av1.videoEncodeAV1;
	case VIDEO_FEATURE_DECODE_VP9:
		return features->decode_vp9.videoDecodeVP9;
	case VIDEO_FEATURE_NONE:
		break;
	}
	return true;
}

void vulkan_video_device_init(struct vulkan_device *device, const struct vulkan_extension_list *extensions,
                              const char **enabled, uint32_t *enabled_count, struct vulkan_video_features *features)
{
	device->video_operations = 0;
	device->video_without_feature = 0;
	device->video_unvalidatable = 0;
	memset(features, 0, sizeof(*features));
	/* VK_KHR_video_queue needs synchronization2, core from 1.3. */
	const bool synchronization2 = device->api_version >= VK_API_VERSION_1_3 ||
	                              vulkan_has_extension(extensions, VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME);
	const bool decode = vulkan_has_extension(extensions, VK_KHR_VIDEO_DECODE_QUEUE_EXTENSION_NAME);
	const bool encode = vulkan_has_extension(extensions, VK_KHR_VIDEO_ENCODE_QUEUE_EXTENSION_NAME);
	if (!synchronization2 || !vulkan_has_extension(extensions, VK_KHR_VIDEO_QUEUE_EXTENSION_NAME) ||
	    (!decode && !encode))
		return;
	VkInstance instance = device->backend->instance;
	device->get_video_capabilities = (PFN_vkGetPhysicalDeviceVideoCapabilitiesKHR)vkGetInstanceProcAddr(
		instance, "vkGetPhysicalDeviceVideoCapabilitiesKHR");
	device->get_video_formats = (PFN_vkGetPhysicalDeviceVideoFormatPropertiesKHR)vkGetInstanceProcAddr(
		instance, "vkGetPhysicalDeviceVideoFormatPropertiesKHR");
	if (!device->get_video_capabilities || !device->get_video_formats)
		return;

	/* What the decode queues decode and the encode queues encode. */
	uint32_t count = 0;
	vkGetPhysicalDeviceQueueFamilyProperties2(device->physical, &count, NULL);
	VkQueueFamilyProperties2 *families = calloc(count ? count : 1, sizeof(*families));
	VkQueueFamilyVideoPropertiesKHR *video = calloc(count ? count : 1, sizeof(*video));
	VkVideoCodecOperationFlagsKHR decoded = 0, encoded = 0;
	if (families && video) {
		for (uint32_t i = 0; i < count; i++) {
			video[i].sType = VK_STRUCTURE_TYPE_QUEUE_FAMILY_VIDEO_PROPERTIES_KHR;
			families[i].sType = VK_STRUCTURE_TYPE_QUEUE_FAMILY_PROPERTIES_2;
			families[i].pNext = &video[i];
		}
		vkGetPhysicalDeviceQueueFamilyProperties2(device->physical, &count, families);
		for (uint32_t i = 0; i < count; i++) {
			const VkQueueFlags flags = families[i].queueFamilyProperties.queueFlags;
			if (flags & VK_QUEUE_VIDEO_DECODE_BIT_KHR)
				decoded |= video[i].videoCodecOperations;
			if (flags & VK_QUEUE_VIDEO_ENCODE_BIT_KHR)
				encoded |= video[i].videoCodecOperations;
		}
	}
	free(families);
	free(video);

	/* The features of the operations that need one, asked for where the
	 * extension is there and a validation layer, if any, knows it (an
	 * older one would take the structure for the application's error). */
	const uint32_t layer = device->backend->validation_layer_version;
	struct vulkan_video_features supported = {0};
	for (size_t i = 0; i < CODEC_COUNT; i++) {
		if (codecs[i].feature != VIDEO_FEATURE_NONE && vulkan_has_extension(extensions, codecs[i].extension) &&
		    (!layer || layer >= codecs[i].final_in))
			chain_feature(&supported, codecs[i].feature, VK_FALSE);
	}
	if (supported.head) {
		VkPhysicalDeviceFeatures2 all = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
		                                 .pNext = supported.head};
		vkGetPhysicalDeviceFeatures2(device->physical, &all);
	}

	/* An operation counts where a queue of its direction does it, the
	 * extensions of the direction and the codec exist, and its features
	 * are there. Under a validation layer older than its extension, which
	 * would take its structures for errors (or fail its calls), it is left
	 * out while validating. */
	bool decodes = false, encodes = false;
	for (size_t i = 0; i < CODEC_COUNT; i++) {
		const bool direction = codecs[i].encode ? encode && (encoded & codecs[i].operation)
		                                        : decode && (decoded & codecs[i].operation);
		if (!direction || !vulkan_has_extension(extensions, codecs[i].extension))
			continue;
		if (layer && layer < codecs[i].final_in) {
			device->video_unvalidatable |= codecs[i].operation;
			uda_context_log(device->backend->ctx, UDA_LOG_INFO,
			                "vulkan: %s: %s left out while validating: the validation layer (1.%u.%u) is older "
			                "than %s (1.%u.%u)",
			                device->name, codecs[i].operation_name, VK_API_VERSION_MINOR(layer),
			                VK_API_VERSION_PATCH(layer), codecs[i].extension,
			                VK_API_VERSION_MINOR(codecs[i].final_in), VK_API_VERSION_PATCH(codecs[i].final_in));
			continue;
		}
		if (!has_feature(&supported, codecs[i].feature)) {
			device->video_without_feature |= codecs[i].operation;
			continue;
		}
		chain_feature(features, codecs[i].feature, VK_TRUE);
		device->video_operations |= codecs[i].operation;
		enabled[(*enabled_count)++] = codecs[i].extension;
		encodes = encodes || codecs[i].encode;
		decodes = decodes || !codecs[i].encode;
	}
	if (!device->video_operations)
		return;
	enabled[(*enabled_count)++] = VK_KHR_VIDEO_QUEUE_EXTENSION_NAME;
	if (decodes)
		enabled[(*enabled_count)++] = VK_KHR_VIDEO_DECODE_QUEUE_EXTENSION_NAME;
	if (encodes)
		enabled[(*enabled_count)++] = VK_KHR_VIDEO_ENCODE_QUEUE_EXTENSION_NAME;
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
	for (uint32_t i = 0; i < usage->atom_count; i++) {
		const uda_usage_atom *candidate = &usage->atoms[i];
		if (candidate->vendor != UDA_VENDOR_NONE ||
		    (candidate->name != UDA_USAGE_VIDEO_DECODE && candidate->name != UDA_USAGE_VIDEO_ENCODE))
			continue;
		/* An image carries one profile here (IMAGE_PARAMS has room
		 * for one), so a picture decoded and encoded in place, which
		 * Vulkan allows with a profile list, is not served. */
		if (atom && (atom->name != candidate->name || atom->length != candidate->length ||
		             (atom->length && memcmp(atom->payload, candidate->payload, atom->length) != 0)))
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
			                             "vulkan: one image is made for one video profile here, and this "
			                             "usage names two");
		atom = candidate;
	}
	if (!atom)
		return UDA_SUCCESS;
	const bool encode = atom->name == UDA_USAGE_VIDEO_ENCODE;
	const char *direction = encode ? "encode" : "decode";
	uda_video_profile profile;
	uda_result result = uda_video_profile_from_atom(atom, &profile);
	if (result == UDA_ERROR_NOT_FOUND)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: Vulkan makes %s pictures for one profile: the %s usage needs a "
		                             "uda_video_profile naming the codec and its profile",
		                             direction, encode ? "VIDEO_ENCODE" : "VIDEO_DECODE");
	if (result != UDA_SUCCESS)
		return result;
	const struct video_codec *codec = NULL;
	for (size_t i = 0; i < CODEC_COUNT && !codec; i++) {
		if (codecs[i].codec == profile.codec && codecs[i].encode == encode)
			codec = &codecs[i];
	}
	if (!codec)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: codec %u is not one the vulkan backend can %s (H.264, H.265, AV1%s)",
		                             profile.codec, direction, encode ? "" : ", VP9");
	if (device->video_unvalidatable & codec->operation)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: %s leaves %s out while validating: the validation layer is older "
		                             "than %s",
		                             device->name, codec->operation_name, codec->extension);
	if (device->video_without_feature & codec->operation)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: %s lists %s without its device feature", device->name,
		                             codec->extension);
	if (!(device->video_operations & codec->operation)) {
		bool any = false;
		for (size_t i = 0; i < CODEC_COUNT; i++)
			any = any || (codecs[i].encode == encode && (device->video_operations & codecs[i].operation));
		if (!any)
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: %s has no video %s queue",
			                             device->name, direction);
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: %s has no queue that %ss %s",
		                             device->name, direction, codec->name);
	}
	/* A video session reads or writes only images made for its very
	 * profile (VUID-vkCmdDecodeVideoKHR-pDecodeInfo-07142,
	 * VUID-vkCmdEncodeVideoKHR-pEncodeInfo-08206), so "any" cannot be
	 * guessed for the application. AV1's profile 0 is its Main, VP9's its Profile 0. */
	if (!profile_named(codec, profile.profile)) {
		if (!profile.profile)
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
			                             "vulkan: name the %s profile: a Vulkan video session takes only images "
			                             "made for its profile",
			                             codec->name);
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: %s has no profile %u in Vulkan",
		                             codec->name, profile.profile);
	}

	/* Bit depth and chroma are the format's; a profile that says
	 * otherwise cannot have its pictures in this format. */
	uint32_t bits, chroma;
	if (!video_format_layout(format, &bits, &chroma))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: video pictures are YCbCr; VkFormat %d is not a video format", format);
	if ((profile.bit_depth && profile.bit_depth != bits) || (profile.chroma && profile.chroma != chroma))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: a %u-bit %u profile's pictures do not fit a %u-bit %u format",
		                             profile.bit_depth ? profile.bit_depth : bits,
		                             profile.chroma ? profile.chroma : chroma, bits, chroma);
	/* Picture flags are a decoder's: Vulkan encodes neither fields nor
	 * grain. */
	uint32_t picture = 0;
	uda_video_profile_picture_flags_from_atom(atom, &picture);
	if (picture && codec->encode)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: Vulkan encodes no %s pictures",
		                             (picture & UDA_VIDEO_PICTURE_INTERLACED) ? "interlaced" : "film-grained");
	*out = (struct vulkan_video_profile){
		.operation = codec->operation,
		.std_profile = profile.profile,
		.chroma = chroma_flag(chroma),
		.bit_depth = depth_flag(bits),
		.picture = picture,
	};
	return UDA_SUCCESS;
}

/* Picture flags as the backend writes them: known ones, each with the
 * one decode operation it belongs to. */
static bool picture_flags_valid(const struct vulkan_video_profile *profile)
{
	if (profile->picture & ~(uint32_t)UDA_VIDEO_PICTURE_FLAGS_ALL)
		return false;
	if ((profile->picture & UDA_VIDEO_PICTURE_INTERLACED) &&
	    profile->operation != VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR)
		return false;
	return !(profile->picture & UDA_VIDEO_PICTURE_FILM_GRAIN) ||
	       profile->operation == VK_VIDEO_CODEC_OPERATION_DECODE_AV1_BIT_KHR;
}

bool vulkan_video_params_valid(const struct vulkan_device *device, const struct vulkan_video_profile *profile,
                               VkImageUsageFlags usage)
{
	const struct video_codec *codec = codec_of_operation(profile->operation);
	if (!codec || !(device->video_operations & profile->operation) || !profile_named(codec, profile->std_profile) ||
	    profile->chroma == 0 || (profile->chroma & (profile->chroma - 1)) || profile->bit_depth == 0 ||
	    (profile->bit_depth & (profile->bit_depth - 1)) || !picture_flags_valid(profile))
		return false;
	/* The picture's use is the profile's direction, as the backend
	 * writes it: a decode output (a reference picture too where the
	 * driver's outputs are), or an encode input. */
	const VkImageUsageFlags decoding = VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR | VK_IMAGE_USAGE_VIDEO_DECODE_DPB_BIT_KHR;
	return codec->encode ? (usage & VK_IMAGE_USAGE_VIDEO_ENCODE_SRC_BIT_KHR) && !(usage & decoding)
	                     : (usage & VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR) &&
	                               !(usage & VK_IMAGE_USAGE_VIDEO_ENCODE_SRC_BIT_KHR);
}

bool vulkan_video_image_allowed(const struct vulkan_device *device, const struct vulkan_image_desc *desc)
{
	uint32_t bits, chroma;
	if (!vulkan_video_params_valid(device, &desc->video, desc->usage) ||
	    !video_format_layout(desc->format, &bits, &chroma) || depth_flag(bits) != desc->video.bit_depth ||
	    chroma_flag(chroma) != desc->video.chroma)
		return false;
	const uint32_t tilings = vulkan_video_tilings(device, &desc->video, desc->format, desc->usage);
	return desc->tiling == VK_IMAGE_TILING_OPTIMAL               ? (tilings & VULKAN_VIDEO_TILING_OPTIMAL) != 0
	       : desc->tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT ? (tilings & VULKAN_VIDEO_TILING_MODIFIER) != 0
	                                                                  : false;
}

uda_result vulkan_video_check_picture(const struct vulkan_device *device, uda_context *ctx,
                                      const struct vulkan_video_profile *profile, const uda_assertion *assertion,
                                      VkImageUsageFlags *out_usage)
{
	const struct video_codec *codec = codec_of_operation(profile->operation);
	if (!codec)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: video operation 0x%x is unknown",
		                             profile->operation);
	struct vulkan_video_chain chain;
	vulkan_video_chain_init(&chain, profile);
	/* The direction's and the codec's capabilities must be chained,
	 * though only the extents, the decode flags and the encode input
	 * granularity are read. */
	union {
		VkBaseOutStructure base;
		VkVideoDecodeH264CapabilitiesKHR decode_h264;
		VkVideoDecodeH265CapabilitiesKHR decode_h265;
		VkVideoDecodeAV1CapabilitiesKHR decode_av1;
		VkVideoDecodeVP9CapabilitiesKHR decode_vp9;
		VkVideoEncodeH264CapabilitiesKHR encode_h264;
		VkVideoEncodeH265CapabilitiesKHR encode_h265;
		VkVideoEncodeAV1CapabilitiesKHR encode_av1;
	} codec_capabilities;
	memset(&codec_capabilities, 0, sizeof(codec_capabilities));
	codec_capabilities.base.sType = codec->capabilities_type;
	VkVideoDecodeCapabilitiesKHR decode = {
		.sType = VK_STRUCTURE_TYPE_VIDEO_DECODE_CAPABILITIES_KHR,
		.pNext = &codec_capabilities,
	};
	VkVideoEncodeCapabilitiesKHR encode = {
		.sType = VK_STRUCTURE_TYPE_VIDEO_ENCODE_CAPABILITIES_KHR,
		.pNext = &codec_capabilities,
	};
	VkVideoCapabilitiesKHR capabilities = {
		.sType = VK_STRUCTURE_TYPE_VIDEO_CAPABILITIES_KHR,
		.pNext = codec->encode ? (void *)&encode : (void *)&decode,
	};
	VkResult vr = device->get_video_capabilities(device->physical, &chain.profile, &capabilities);
	const char *name = codec->name;
	if (vr != VK_SUCCESS)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: %s does not %s %s profile %u: %s",
		                             device->name, verb(codec), name, profile->std_profile,
		                             vulkan_result_string(vr));
	if (assertion->width < capabilities.minCodedExtent.width || assertion->height < capabilities.minCodedExtent.height ||
	    assertion->width > capabilities.maxCodedExtent.width || assertion->height > capabilities.maxCodedExtent.height)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: %s %ss %s profile %u from %ux%u to %ux%u, not %ux%u", device->name,
		                             verb(codec), name, profile->std_profile, capabilities.minCodedExtent.width,
		                             capabilities.minCodedExtent.height, capabilities.maxCodedExtent.width,
		                             capabilities.maxCodedExtent.height, assertion->width, assertion->height);
	/* A decode output holds the whole coded picture (VUID-
	 * VkVideoDecodeInfoKHR-dstPictureResource-07144): 1080p H.264 is
	 * 1920x1088 coded, its 1080 rows shown. An encoder reads its input in
	 * granules of encodeInputPictureGranularity, up to the edge of the
	 * last one, so the input holds whole granules. */
	uint32_t block_width = codec->block, block_height = codec->block;
	if (codec->encode) {
		block_width = encode.encodeInputPictureGranularity.width ? encode.encodeInputPictureGranularity.width : 1;
		block_height = encode.encodeInputPictureGranularity.height ? encode.encodeInputPictureGranularity.height : 1;
	}
	if (assertion->width % block_width || assertion->height % block_height)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             codec->encode ? "vulkan: %s encoder input is read in whole %ux%u blocks: ask for "
		                                             "%ux%u and fill %ux%u of it"
		                                           : "vulkan: %s pictures are whole %ux%u blocks: ask for %ux%u "
		                                             "and show %ux%u of it",
		                             name, block_width, block_height,
		                             (assertion->width + block_width - 1) / block_width * block_width,
		                             (assertion->height + block_height - 1) / block_height * block_height,
		                             assertion->width, assertion->height);
	/* A driver whose decode outputs are its reference pictures (DPB and
	 * output coincide, and never stand apart) writes the picture into a
	 * DPB slot: the image is one. */
	if (!codec->encode && (decode.flags & VK_VIDEO_DECODE_CAPABILITY_DPB_AND_OUTPUT_COINCIDE_BIT_KHR) &&
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
