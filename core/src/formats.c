/* The DRM fourcc table: plane layout of every format uda knows and the
 * VkFormat / GL internal format with the same memory layout.
 *
 * DRM fourccs name the bit layout of a little-endian word, Vulkan's
 * non-packed formats name bytes in memory order: DRM ARGB8888 ([31:0]
 * A:R:G:B) is bytes B,G,R,A, which is VK_FORMAT_B8G8R8A8_UNORM. X formats map
 * to the alpha format of the same layout; the caller ignores alpha. */
#include <drm_fourcc.h>
#include <GLES3/gl32.h>
#include <GLES2/gl2ext.h>
#include <vulkan/vulkan_core.h>

#include <uda/uda.h>

#define PLANE(bytes, block_w, hsub, vsub)                                                                              \
	{                                                                                                              \
		(bytes), (block_w), (hsub), (vsub)                                                                     \
	}
#define P1(bytes)                                                                                                      \
	{                                                                                                              \
		PLANE(bytes, 1, 1, 1)                                                                                  \
	}

/* GL_RGB565 etc. are core; these come from extensions llvmpipe and most
 * drivers expose (EXT_texture_format_BGRA8888, EXT_texture_norm16). */
#ifndef GL_BGRA8_EXT
#define GL_BGRA8_EXT 0x93A1
#endif

static const uda_format_info formats[] = {
    /* 8-bit RGB(A) */
    {DRM_FORMAT_ARGB8888, "ARGB8888", 1, P1(4), true, false, VK_FORMAT_B8G8R8A8_UNORM, GL_BGRA8_EXT},
    {DRM_FORMAT_XRGB8888, "XRGB8888", 1, P1(4), false, false, VK_FORMAT_B8G8R8A8_UNORM, GL_BGRA8_EXT},
    {DRM_FORMAT_ABGR8888, "ABGR8888", 1, P1(4), true, false, VK_FORMAT_R8G8B8A8_UNORM, GL_RGBA8},
    {DRM_FORMAT_XBGR8888, "XBGR8888", 1, P1(4), false, false, VK_FORMAT_R8G8B8A8_UNORM, GL_RGBA8},
    {DRM_FORMAT_RGBA8888, "RGBA8888", 1, P1(4), true, false, VK_FORMAT_UNDEFINED, 0},
    {DRM_FORMAT_BGRA8888, "BGRA8888", 1, P1(4), true, false, VK_FORMAT_UNDEFINED, 0},
    {DRM_FORMAT_RGB888, "RGB888", 1, P1(3), false, false, VK_FORMAT_B8G8R8_UNORM, 0},
    {DRM_FORMAT_BGR888, "BGR888", 1, P1(3), false, false, VK_FORMAT_R8G8B8_UNORM, GL_RGB8},
    {DRM_FORMAT_RGB565, "RGB565", 1, P1(2), false, false, VK_FORMAT_R5G6B5_UNORM_PACK16, GL_RGB565},
    {DRM_FORMAT_R8, "R8", 1, P1(1), false, false, VK_FORMAT_R8_UNORM, GL_R8},
    {DRM_FORMAT_GR88, "GR88", 1, P1(2), false, false, VK_FORMAT_R8G8_UNORM, GL_RG8},
    {DRM_FORMAT_R16, "R16", 1, P1(2), false, false, VK_FORMAT_R16_UNORM, GL_R16_EXT},
    {DRM_FORMAT_GR1616, "GR1616", 1, P1(4), false, false, VK_FORMAT_R16G16_UNORM, GL_RG16_EXT},
    /* 10-bit: GL has no BGR-ordered 10:10:10:2 internal format. */
    {DRM_FORMAT_ARGB2101010, "ARGB2101010", 1, P1(4), true, false, VK_FORMAT_A2R10G10B10_UNORM_PACK32, 0},
    {DRM_FORMAT_XRGB2101010, "XRGB2101010", 1, P1(4), false, false, VK_FORMAT_A2R10G10B10_UNORM_PACK32, 0},
    {DRM_FORMAT_ABGR2101010, "ABGR2101010", 1, P1(4), true, false, VK_FORMAT_A2B10G10R10_UNORM_PACK32, GL_RGB10_A2},
    {DRM_FORMAT_XBGR2101010, "XBGR2101010", 1, P1(4), false, false, VK_FORMAT_A2B10G10R10_UNORM_PACK32, GL_RGB10_A2},
    /* 16 bits per channel */
    {DRM_FORMAT_ABGR16161616F, "ABGR16161616F", 1, P1(8), true, false, VK_FORMAT_R16G16B16A16_SFLOAT, GL_RGBA16F},
    {DRM_FORMAT_XBGR16161616F, "XBGR16161616F", 1, P1(8), false, false, VK_FORMAT_R16G16B16A16_SFLOAT, GL_RGBA16F},
    {DRM_FORMAT_ABGR16161616, "ABGR16161616", 1, P1(8), true, false, VK_FORMAT_R16G16B16A16_UNORM, GL_RGBA16_EXT},
    /* YUV: GL samples these only through external images. */
    {DRM_FORMAT_NV12,
     "NV12",
     2,
     {PLANE(1, 1, 1, 1), PLANE(2, 1, 2, 2)},
     false,
     true,
     VK_FORMAT_G8_B8R8_2PLANE_420_UNORM,
     0},
    {DRM_FORMAT_NV21, "NV21", 2, {PLANE(1, 1, 1, 1), PLANE(2, 1, 2, 2)}, false, true, VK_FORMAT_UNDEFINED, 0},
    {DRM_FORMAT_NV16,
     "NV16",
     2,
     {PLANE(1, 1, 1, 1), PLANE(2, 1, 2, 1)},
     false,
     true,
     VK_FORMAT_G8_B8R8_2PLANE_422_UNORM,
     0},
    {DRM_FORMAT_P010,
     "P010",
     2,
     {PLANE(2, 1, 1, 1), PLANE(4, 1, 2, 2)},
     false,
     true,
     VK_FORMAT_G10X6_B10X6R10X6_2PLANE_420_UNORM_3PACK16,
     0},
    {DRM_FORMAT_P012,
     "P012",
     2,
     {PLANE(2, 1, 1, 1), PLANE(4, 1, 2, 2)},
     false,
     true,
     VK_FORMAT_G12X4_B12X4R12X4_2PLANE_420_UNORM_3PACK16,
     0},
    {DRM_FORMAT_P016,
     "P016",
     2,
     {PLANE(2, 1, 1, 1), PLANE(4, 1, 2, 2)},
     false,
     true,
     VK_FORMAT_G16_B16R16_2PLANE_420_UNORM,
     0},
    {DRM_FORMAT_YUV420,
     "YUV420",
     3,
     {PLANE(1, 1, 1, 1), PLANE(1, 1, 2, 2), PLANE(1, 1, 2, 2)},
     false,
     true,
     VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM,
     0},
    {DRM_FORMAT_YUYV, "YUYV", 1, {PLANE(4, 2, 1, 1)}, false, true, VK_FORMAT_G8B8G8R8_422_UNORM, 0},
};

#define FORMAT_COUNT (sizeof(formats) / sizeof(formats[0]))

uda_result uda_format_get_info(uint32_t fourcc, uda_format_info *out_info)
{
	if (!out_info)
		return UDA_ERROR_INVALID_ARGUMENT;
	for (size_t i = 0; i < FORMAT_COUNT; i++) {
		if (formats[i].fourcc == fourcc) {
			*out_info = formats[i];
			return UDA_SUCCESS;
		}
	}
	return UDA_ERROR_UNSUPPORTED;
}

uda_result uda_format_enumerate(uint32_t *count, uint32_t *fourccs)
{
	if (!count)
		return UDA_ERROR_INVALID_ARGUMENT;
	if (!fourccs) {
		*count = FORMAT_COUNT;
		return UDA_SUCCESS;
	}
	uint32_t n = *count < FORMAT_COUNT ? *count : (uint32_t)FORMAT_COUNT;
	for (uint32_t i = 0; i < n; i++)
		fourccs[i] = formats[i].fourcc;
	*count = n;
	return n < FORMAT_COUNT ? UDA_ERROR_BUFFER_TOO_SMALL : UDA_SUCCESS;
}
