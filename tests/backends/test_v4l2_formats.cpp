// The V4L2 backend's format table (core/backends/v4l2/v4l2_formats.c):
// each pair as its sources document it, and every pixel format that real
// drivers answered in the recordings (tests/backends/v4l2-fixtures) either
// in the table or known to have no DRM image format.
#include <drm_fourcc.h>
#include <dirent.h>
#include <fstream>
#include <gtest/gtest.h>
#include <linux/videodev2.h>
#include <regex>
#include <set>
#include <string>

#include <uda/uda.h>

#include "v4l2_formats.h"

namespace
{

uint32_t fourcc(const std::string &chars)
{
	return v4l2_fourcc(chars[0], chars[1], chars[2], chars[3]);
}

void expect_pair(const char *v4l2, uint32_t drm, uint64_t modifier, uint8_t planes)
{
	const v4l2_format_map *entry = v4l2_format_lookup(fourcc(v4l2));
	ASSERT_NE(entry, nullptr) << v4l2;
	EXPECT_EQ(entry->drm, drm) << v4l2;
	EXPECT_EQ(entry->modifier, modifier) << v4l2;
	EXPECT_EQ(entry->memory_planes, planes) << v4l2;
}

} // namespace

TEST(V4l2Formats, EachPairIsTheDocumentedOne)
{
	expect_pair("YUYV", DRM_FORMAT_YUYV, DRM_FORMAT_MOD_LINEAR, 1);
	expect_pair("NV12", DRM_FORMAT_NV12, DRM_FORMAT_MOD_LINEAR, 1);
	expect_pair("NM12", DRM_FORMAT_NV12, DRM_FORMAT_MOD_LINEAR, 2);
	expect_pair("YM12", DRM_FORMAT_YUV420, DRM_FORMAT_MOD_LINEAR, 3);
	expect_pair("VT12", DRM_FORMAT_NV12, DRM_FORMAT_MOD_VIVANTE_TILED, 1);
	expect_pair("ST12", DRM_FORMAT_NV12, DRM_FORMAT_MOD_ALLWINNER_TILED, 1);
	expect_pair("NC12", DRM_FORMAT_NV12, DRM_FORMAT_MOD_BROADCOM_SAND128, 1);
	expect_pair("NC30", DRM_FORMAT_P030, DRM_FORMAT_MOD_BROADCOM_SAND128, 1);
	// V4L2 names bytes in memory order, DRM a little-endian word.
	expect_pair("RGB3", DRM_FORMAT_BGR888, DRM_FORMAT_MOD_LINEAR, 1);
	expect_pair("BGR3", DRM_FORMAT_RGB888, DRM_FORMAT_MOD_LINEAR, 1);
	expect_pair("AB24", DRM_FORMAT_ABGR8888, DRM_FORMAT_MOD_LINEAR, 1);
	EXPECT_TRUE(v4l2_format_lookup(fourcc("NC12"))->column_height_in_bytesperline);
	EXPECT_FALSE(v4l2_format_lookup(fourcc("VT12"))->column_height_in_bytesperline);
}

TEST(V4l2Formats, BitstreamsSensorDataAndVendorCompressionHaveNone)
{
	for (const char *v4l2 : {"MJPG", "JPEG", "H264", "HEVC", "S264", "S265", "MG2S", "VP8F", "AV1F", "MT21", "BA81",
	                         "pRAA", "UVCH"})
		EXPECT_EQ(v4l2_format_lookup(fourcc(v4l2)), nullptr) << v4l2;
}

// Every bitstream the recorded codecs answered, stateful and stateless,
// carries its codec and no other; raw formats carry none.
TEST(V4l2Formats, EachRecordedBitstreamCarriesItsCodec)
{
	const std::pair<const char *, uda_video_codec> streams[] = {
	    {"H264", UDA_VIDEO_CODEC_H264}, {"S264", UDA_VIDEO_CODEC_H264},  {"HEVC", UDA_VIDEO_CODEC_H265},
	    {"S265", UDA_VIDEO_CODEC_H265}, {"VP80", UDA_VIDEO_CODEC_VP8},   {"VP8F", UDA_VIDEO_CODEC_VP8},
	    {"VP90", UDA_VIDEO_CODEC_VP9},  {"AV1F", UDA_VIDEO_CODEC_AV1},   {"MPG2", UDA_VIDEO_CODEC_MPEG2},
	    {"MG2S", UDA_VIDEO_CODEC_MPEG2}, {"MJPG", UDA_VIDEO_CODEC_JPEG}, {"JPEG", UDA_VIDEO_CODEC_JPEG},
	};
	for (const auto &[code, codec] : streams) {
		for (uint32_t other = UDA_VIDEO_CODEC_H264; other <= UDA_VIDEO_CODEC_JPEG; other++)
			EXPECT_EQ(v4l2_format_carries_codec(fourcc(code), other), other == codec) << code << " " << other;
	}
	EXPECT_FALSE(v4l2_format_carries_codec(fourcc("NV12"), UDA_VIDEO_CODEC_H264));
	v4l2_profile_item item;
	ASSERT_TRUE(v4l2_profile_menu_item(UDA_VIDEO_CODEC_H264, 110, &item));
	EXPECT_EQ(item.control, static_cast<uint32_t>(V4L2_CID_MPEG_VIDEO_H264_PROFILE));
	EXPECT_EQ(item.item, V4L2_MPEG_VIDEO_H264_PROFILE_HIGH_10);
	EXPECT_STREQ(item.name, "High 10");
	ASSERT_TRUE(v4l2_profile_menu_item(UDA_VIDEO_CODEC_H265, 2, &item));
	EXPECT_EQ(item.item, V4L2_MPEG_VIDEO_HEVC_PROFILE_MAIN_10);
	EXPECT_FALSE(v4l2_profile_menu_item(UDA_VIDEO_CODEC_H264, 0, &item)) << "0 is any";
	EXPECT_FALSE(v4l2_profile_menu_item(UDA_VIDEO_CODEC_JPEG, 1, &item));
}

TEST(V4l2Formats, ADrmFormatFindsItsV4l2OnesSingleBufferFirst)
{
	const v4l2_format_map *found[4] = {};
	ASSERT_EQ(v4l2_formats_for_drm(DRM_FORMAT_NV12, DRM_FORMAT_MOD_LINEAR, found, 4), 2u);
	EXPECT_EQ(found[0]->v4l2, V4L2_PIX_FMT_NV12);
	EXPECT_EQ(found[1]->v4l2, V4L2_PIX_FMT_NV12M);
	// A SAND128 modifier of any column height is the driver's NC12.
	ASSERT_EQ(v4l2_formats_for_drm(DRM_FORMAT_NV12, DRM_FORMAT_MOD_BROADCOM_SAND128_COL_HEIGHT(96), found, 4), 1u);
	EXPECT_EQ(found[0]->v4l2, fourcc("NC12"));
	ASSERT_EQ(v4l2_formats_for_drm(DRM_FORMAT_NV12, DRM_FORMAT_MOD_VIVANTE_TILED, found, 4), 1u);
	EXPECT_EQ(found[0]->v4l2, V4L2_PIX_FMT_NV12_4L4);
	// Counted beyond the room given, nothing written past it.
	EXPECT_EQ(v4l2_formats_for_drm(DRM_FORMAT_YUV420, DRM_FORMAT_MOD_LINEAR, found, 1), 2u);
	EXPECT_EQ(v4l2_formats_for_drm(DRM_FORMAT_NV12, I915_FORMAT_MOD_Y_TILED, found, 4), 0u);
}

// Every format the recorded drivers enumerated ("[n]: 'XXXX' ...") is in the
// table or known to have no DRM image format: a new recording with a format
// nobody classified fails here.
TEST(V4l2Formats, EveryFormatTheRecordedDriversAnsweredIsClassified)
{
	const std::set<std::string> no_image_format = {
		"MJPG", "JPEG", "H264", "HEVC", "VP80", "VP90", "MPG2", "MPG4", "H263", "VC1G", "VC1L", "XVID", "S264",
		"S265", "MG2S", "VP8F", "VP9F", "AV1F", "MT21", "UVCH", "BGR4", "Y10 ", "Y12 ", "Y14 ", "Y16 ", "Y10P", "Y12P",
		"Y14P",
	};
	const std::regex entry(R"(\[[0-9]+\]: '(....)')");
	// Raw Bayer and packed sensor formats: no DRM equivalent.
	const std::regex bayer(R"(^(BA81|GBRG|GRBG|RGGB|(BG|GB|GR|RG|pB|pG|pR|B[GAY]|G[BR]|R[G])..|p[A-Za-z]{3}|BYR2)$)");
	DIR *dir = opendir(UDA_TEST_V4L2_FIXTURE_DIR);
	ASSERT_NE(dir, nullptr);
	unsigned files = 0, formats = 0, mapped = 0;
	std::set<std::string> unclassified;
	for (dirent *e; (e = readdir(dir));) {
		std::string name = e->d_name;
		if (name.size() < 5 || name.substr(name.size() - 4) != ".txt")
			continue;
		files++;
		std::ifstream file(std::string(UDA_TEST_V4L2_FIXTURE_DIR) + "/" + name);
		for (std::string line; std::getline(file, line);) {
			for (std::sregex_iterator it(line.begin(), line.end(), entry), end; it != end; ++it) {
				const std::string code = (*it)[1];
				formats++;
				if (v4l2_format_lookup(fourcc(code)))
					mapped++;
				else if (!no_image_format.count(code) && !std::regex_match(code, bayer))
					unclassified.insert(code + " (" + name + ")");
			}
		}
	}
	closedir(dir);
	EXPECT_GE(files, 20u);
	EXPECT_GT(mapped, 50u) << "of " << formats;
	for (const std::string &code : unclassified)
		ADD_FAILURE() << "a recorded format nobody classified: " << code;
}
