/* The formats the mock knows, their modifiers, and the layouts it gives
 * their images: linear rows at 256 bytes, block-linear rows at a GOB's 64
 * bytes with heights in whole blocks. */
#include <string.h>

#include "mock_icd.h"

#define COLOR_FEATURES                                                                                                 \
	(VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |                      \
	 VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT |                        \
	 VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT | VK_FORMAT_FEATURE_BLIT_SRC_BIT | VK_FORMAT_FEATURE_BLIT_DST_BIT |          \
	 VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT)
#define YCBCR_FEATURES                                                                                                 \
	(VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT | \
	 VK_FORMAT_FEATURE_MIDPOINT_CHROMA_SAMPLES_BIT | VK_FORMAT_FEATURE_COSITED_CHROMA_SAMPLES_BIT |                  \
	 VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_LINEAR_FILTER_BIT)
/* What a video picture is to the decoder and the encoder: an output or an
 * input in any tiling, a reference picture only in the driver's own. */
#define VIDEO_IO_FEATURES (VK_FORMAT_FEATURE_VIDEO_DECODE_OUTPUT_BIT_KHR | VK_FORMAT_FEATURE_VIDEO_ENCODE_INPUT_BIT_KHR)
#define VIDEO_FEATURES (VIDEO_IO_FEATURES | VK_FORMAT_FEATURE_VIDEO_DECODE_DPB_BIT_KHR)

static const struct mock_format formats[] = {
	{VK_FORMAT_R8G8B8A8_UNORM, 1, {{4, 1, 1}}, 0, COLOR_FEATURES, COLOR_FEATURES, COLOR_FEATURES},
	{VK_FORMAT_B8G8R8A8_UNORM, 1, {{4, 1, 1}}, 0, COLOR_FEATURES, COLOR_FEATURES, COLOR_FEATURES},
	/* Packed 4:2:2 (a camera's YUYV), sampled through a conversion. */
	{VK_FORMAT_G8B8G8R8_422_UNORM, 1, {{2, 1, 1}}, 0, YCBCR_FEATURES, YCBCR_FEATURES, YCBCR_FEATURES},
	/* Decode outputs and encode inputs: the DPB only in the driver's own
	 * tiling; linear only for copies, as on NVIDIA, except through the
	 * LINEAR modifier. */
	{VK_FORMAT_G8_B8R8_2PLANE_420_UNORM, 2, {{1, 1, 1}, {2, 2, 2}}, 8, YCBCR_FEATURES | VIDEO_FEATURES,
	 VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT, YCBCR_FEATURES | VIDEO_IO_FEATURES},
	{VK_FORMAT_G10X6_B10X6R10X6_2PLANE_420_UNORM_3PACK16, 2, {{2, 1, 1}, {4, 2, 2}}, 10,
	 YCBCR_FEATURES | VIDEO_FEATURES, VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT,
	 YCBCR_FEATURES | VIDEO_IO_FEATURES},
};

const struct mock_format *mock_format_find(VkFormat format)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (formats[i].format == format)
			return &formats[i];
	}
	return NULL;
}

uint32_t mock_format_modifiers(const struct mock_format *format, uint64_t out[1 + MOCK_BLOCK_LINEAR_HEIGHTS])
{
	/* The GPU's own layouts first, tallest blocks first, as a driver
	 * ranks them for large images; LINEAR last. */
	for (uint32_t h = 0; h < MOCK_BLOCK_LINEAR_HEIGHTS; h++)
		out[h] = MOCK_MOD_BLOCK_LINEAR(MOCK_BLOCK_LINEAR_HEIGHTS - 1 - h);
	out[MOCK_BLOCK_LINEAR_HEIGHTS] = MOCK_MOD_LINEAR;
	return 1 + MOCK_BLOCK_LINEAR_HEIGHTS;
}

bool mock_format_has_modifier(const struct mock_format *format, uint64_t modifier)
{
	uint64_t modifiers[1 + MOCK_BLOCK_LINEAR_HEIGHTS];
	const uint32_t count = mock_format_modifiers(format, modifiers);
	for (uint32_t i = 0; i < count; i++) {
		if (modifiers[i] == modifier)
			return true;
	}
	return false;
}

static uint64_t align_up(uint64_t value, uint64_t alignment)
{
	return (value + alignment - 1) / alignment * alignment;
}

bool mock_layout_compute(const struct mock_format *format, VkImageTiling tiling, uint64_t modifier, uint32_t width,
                         uint32_t height, const VkSubresourceLayout *explicit_planes, uint32_t explicit_count,
                         struct mock_layout *out)
{
	memset(out, 0, sizeof(*out));
	bool linear = tiling == VK_IMAGE_TILING_LINEAR ||
	              (tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT && modifier == MOCK_MOD_LINEAR);
	/* Optimal tiling: block-linear, 16 GOBs high. */
	uint32_t block_log2 = 4;
	if (tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT && !linear) {
		if (!mock_format_has_modifier(format, modifier))
			return false;
		block_log2 = (uint32_t)(modifier & 0xf);
	}
	if (explicit_planes && explicit_count != format->plane_count)
		return false;
	const uint64_t pitch_alignment = linear ? MOCK_LINEAR_PITCH_ALIGNMENT : MOCK_GOB_WIDTH;
	const uint64_t offset_alignment = linear ? MOCK_LINEAR_PITCH_ALIGNMENT : MOCK_MEMORY_ALIGNMENT;
	const uint64_t row_alignment = linear ? 1 : (uint64_t)MOCK_GOB_HEIGHT << block_log2;
	uint64_t end = 0;
	out->plane_count = format->plane_count;
	for (uint32_t p = 0; p < format->plane_count; p++) {
		const uint64_t plane_width = (width + format->planes[p].sub_x - 1) / format->planes[p].sub_x;
		const uint64_t plane_height = (height + format->planes[p].sub_y - 1) / format->planes[p].sub_y;
		const uint64_t min_pitch = plane_width * format->planes[p].bytes_per_texel;
		uint64_t pitch = align_up(min_pitch, pitch_alignment);
		uint64_t offset = align_up(end, offset_alignment);
		if (explicit_planes) {
			/* An import: the exporter's layout, if this hardware could
			 * have made it. */
			pitch = explicit_planes[p].rowPitch;
			offset = explicit_planes[p].offset;
			if (pitch < min_pitch || pitch % pitch_alignment || offset % offset_alignment || offset < end)
				return false;
		}
		const uint64_t rows = align_up(plane_height, row_alignment);
		out->planes[p] = (VkSubresourceLayout){
			.offset = offset,
			.size = pitch * rows,
			.rowPitch = pitch,
		};
		end = offset + pitch * rows;
	}
	out->size = align_up(end, MOCK_MEMORY_ALIGNMENT);
	return true;
}
