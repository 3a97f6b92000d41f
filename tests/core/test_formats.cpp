// The DRM fourcc table.
#include <drm_fourcc.h>
#include <set>

#include "set_spec.hpp"

namespace
{

// VkFormat and GL values, spelled out here rather than taken from the
// headers the table itself uses, so a wrong row cannot agree with itself.
constexpr uint32_t VK_B8G8R8A8_UNORM = 44, VK_R8G8B8A8_UNORM = 37, VK_A2R10G10B10_UNORM = 58, VK_A2B10G10R10_UNORM = 64,
                   VK_R16G16B16A16_SFLOAT = 97, VK_NV12 = 1000156003, VK_P010 = 1000156013;
constexpr uint32_t GL_RGBA8_ = 0x8058, GL_BGRA8 = 0x93A1, GL_RGB10_A2_ = 0x8059, GL_RGBA16F_ = 0x881A;

struct Expected {
	uint32_t fourcc;
	uint32_t planes;
	uint32_t bytes0;
	bool alpha;
	uint32_t vk;
	uint32_t gl;
};

TEST(Formats, RequiredFormatsHaveTheRightLayoutAndMappings)
{
	const Expected expected[] = {
	    {DRM_FORMAT_ARGB8888, 1, 4, true, VK_B8G8R8A8_UNORM, GL_BGRA8},
	    {DRM_FORMAT_XRGB8888, 1, 4, false, VK_B8G8R8A8_UNORM, GL_BGRA8},
	    {DRM_FORMAT_ABGR8888, 1, 4, true, VK_R8G8B8A8_UNORM, GL_RGBA8_},
	    {DRM_FORMAT_XBGR8888, 1, 4, false, VK_R8G8B8A8_UNORM, GL_RGBA8_},
	    {DRM_FORMAT_XRGB2101010, 1, 4, false, VK_A2R10G10B10_UNORM, 0},
	    {DRM_FORMAT_ARGB2101010, 1, 4, true, VK_A2R10G10B10_UNORM, 0},
	    {DRM_FORMAT_ABGR2101010, 1, 4, true, VK_A2B10G10R10_UNORM, GL_RGB10_A2_},
	    {DRM_FORMAT_ABGR16161616F, 1, 8, true, VK_R16G16B16A16_SFLOAT, GL_RGBA16F_},
	    {DRM_FORMAT_NV12, 2, 1, false, VK_NV12, 0},
	    {DRM_FORMAT_P010, 2, 2, false, VK_P010, 0},
	};
	for (const Expected &e : expected) {
		uda_format_info info;
		ASSERT_EQ(uda_format_get_info(e.fourcc, &info), UDA_SUCCESS) << std::hex << e.fourcc;
		EXPECT_EQ(info.fourcc, e.fourcc);
		EXPECT_EQ(info.plane_count, e.planes) << info.name;
		EXPECT_EQ(info.planes[0].bytes_per_block, e.bytes0) << info.name;
		EXPECT_EQ(info.has_alpha, e.alpha) << info.name;
		EXPECT_EQ(info.vk_format, e.vk) << info.name;
		EXPECT_EQ(info.gl_internal_format, e.gl) << info.name;
	}
}

TEST(Formats, YuvChromaPlanesAreSubsampled)
{
	uda_format_info nv12, p010;
	ASSERT_EQ(uda_format_get_info(DRM_FORMAT_NV12, &nv12), UDA_SUCCESS);
	ASSERT_EQ(uda_format_get_info(DRM_FORMAT_P010, &p010), UDA_SUCCESS);
	EXPECT_TRUE(nv12.is_yuv);
	EXPECT_EQ(nv12.planes[1].bytes_per_block, 2u);
	EXPECT_EQ(nv12.planes[1].horizontal_subsampling, 2u);
	EXPECT_EQ(nv12.planes[1].vertical_subsampling, 2u);
	EXPECT_EQ(p010.planes[1].bytes_per_block, 4u);
	EXPECT_STREQ(p010.name, "P010");
}

TEST(Formats, EnumerationListsEveryEntryOnce)
{
	uint32_t count = 0;
	ASSERT_EQ(uda_format_enumerate(&count, nullptr), UDA_SUCCESS);
	ASSERT_GE(count, 10u);
	std::vector<uint32_t> fourccs(count);
	ASSERT_EQ(uda_format_enumerate(&count, fourccs.data()), UDA_SUCCESS);
	std::set<uint32_t> unique(fourccs.begin(), fourccs.end());
	EXPECT_EQ(unique.size(), fourccs.size());
	for (uint32_t f : fourccs) {
		uda_format_info info;
		ASSERT_EQ(uda_format_get_info(f, &info), UDA_SUCCESS);
		EXPECT_GE(info.plane_count, 1u);
		EXPECT_LE(info.plane_count, static_cast<uint32_t>(UDA_MAX_PLANES));
		for (uint32_t p = 0; p < info.plane_count; p++) {
			EXPECT_GT(info.planes[p].bytes_per_block, 0u) << info.name;
			EXPECT_GT(info.planes[p].block_width, 0u) << info.name;
			EXPECT_GT(info.planes[p].horizontal_subsampling, 0u) << info.name;
			EXPECT_GT(info.planes[p].vertical_subsampling, 0u) << info.name;
		}
		// The name is the fourcc's own spelling in drm_fourcc.h.
		EXPECT_NE(info.name, nullptr);
	}
	uint32_t short_count = 3;
	EXPECT_EQ(uda_format_enumerate(&short_count, fourccs.data()), UDA_ERROR_BUFFER_TOO_SMALL);
	EXPECT_EQ(short_count, 3u);
}

TEST(Formats, UnknownFourccIsUnsupported)
{
	uda_format_info info;
	EXPECT_EQ(uda_format_get_info(fourcc_code('N', 'O', 'P', 'E'), &info), UDA_ERROR_UNSUPPORTED);
	EXPECT_EQ(uda_format_get_info(DRM_FORMAT_XRGB8888, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_format_enumerate(nullptr, nullptr), UDA_ERROR_INVALID_ARGUMENT);
}

} // namespace
