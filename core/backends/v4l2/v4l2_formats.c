/* v4l2_formats.h: the table. Sources per pair in
 * tests/backends/v4l2-fixtures/fourcc-map.md (kernel pixfmt docs,
 * drm_fourcc.h, GStreamer's v4l2codecs and video-info-dma tables). */
#include <drm_fourcc.h>
#include <linux/videodev2.h>
#include <stddef.h>

#include <uda/uda.h>

#include "v4l2_formats.h"

/* Raspberry Pi's column formats are downstream (not in mainline
 * videodev2.h). */
#ifndef V4L2_PIX_FMT_NV12_COL128
#define V4L2_PIX_FMT_NV12_COL128 v4l2_fourcc('N', 'C', '1', '2')
#endif
#ifndef V4L2_PIX_FMT_NV12_10_COL128
#define V4L2_PIX_FMT_NV12_10_COL128 v4l2_fourcc('N', 'C', '3', '0')
#endif

#define LINEAR DRM_FORMAT_MOD_LINEAR

static const struct v4l2_format_map formats[] = {
	/* Packed 4:2:2 */
	{V4L2_PIX_FMT_YUYV, DRM_FORMAT_YUYV, LINEAR, 1, false},
	{V4L2_PIX_FMT_UYVY, DRM_FORMAT_UYVY, LINEAR, 1, false},
	{V4L2_PIX_FMT_YVYU, DRM_FORMAT_YVYU, LINEAR, 1, false},
	{V4L2_PIX_FMT_VYUY, DRM_FORMAT_VYUY, LINEAR, 1, false},
	/* Semi-planar and planar 4:2:0, one buffer, then the N-C variants */
	{V4L2_PIX_FMT_NV12, DRM_FORMAT_NV12, LINEAR, 1, false},
	{V4L2_PIX_FMT_NV21, DRM_FORMAT_NV21, LINEAR, 1, false},
	{V4L2_PIX_FMT_YUV420, DRM_FORMAT_YUV420, LINEAR, 1, false},
	{V4L2_PIX_FMT_YVU420, DRM_FORMAT_YVU420, LINEAR, 1, false},
	{V4L2_PIX_FMT_P010, DRM_FORMAT_P010, LINEAR, 1, false},
	{V4L2_PIX_FMT_NV12M, DRM_FORMAT_NV12, LINEAR, 2, false},
	{V4L2_PIX_FMT_NV21M, DRM_FORMAT_NV21, LINEAR, 2, false},
	{V4L2_PIX_FMT_YUV420M, DRM_FORMAT_YUV420, LINEAR, 3, false},
	{V4L2_PIX_FMT_YVU420M, DRM_FORMAT_YVU420, LINEAR, 3, false},
	/* Tiled NV12 of decoders */
	{V4L2_PIX_FMT_NV12_4L4, DRM_FORMAT_NV12, DRM_FORMAT_MOD_VIVANTE_TILED, 1, false},
	{V4L2_PIX_FMT_NV12_32L32, DRM_FORMAT_NV12, DRM_FORMAT_MOD_ALLWINNER_TILED, 1, false},
	{V4L2_PIX_FMT_NV12_COL128, DRM_FORMAT_NV12, DRM_FORMAT_MOD_BROADCOM_SAND128, 1, true},
	{V4L2_PIX_FMT_NV12_10_COL128, DRM_FORMAT_P030, DRM_FORMAT_MOD_BROADCOM_SAND128, 1, true},
	/* RGB: V4L2 names bytes in memory order, DRM a little-endian word */
	{V4L2_PIX_FMT_RGB565, DRM_FORMAT_RGB565, LINEAR, 1, false},
	{V4L2_PIX_FMT_RGB24, DRM_FORMAT_BGR888, LINEAR, 1, false},
	{V4L2_PIX_FMT_BGR24, DRM_FORMAT_RGB888, LINEAR, 1, false},
	{V4L2_PIX_FMT_RGBA32, DRM_FORMAT_ABGR8888, LINEAR, 1, false},
	{V4L2_PIX_FMT_XBGR32, DRM_FORMAT_XRGB8888, LINEAR, 1, false},
	{V4L2_PIX_FMT_ABGR32, DRM_FORMAT_ARGB8888, LINEAR, 1, false},
	{V4L2_PIX_FMT_GREY, DRM_FORMAT_R8, LINEAR, 1, false},
};

const struct v4l2_format_map *v4l2_format_lookup(uint32_t v4l2_pixelformat)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (formats[i].v4l2 == v4l2_pixelformat)
			return &formats[i];
	}
	return NULL;
}

/* The modifier a SAND128 entry stands for is the family, whatever the
 * column height (which is the driver's to say). */
static bool same_modifier(const struct v4l2_format_map *entry, uint64_t modifier)
{
	if (entry->column_height_in_bytesperline)
		return fourcc_mod_broadcom_mod(modifier) == entry->modifier;
	return entry->modifier == modifier;
}

unsigned v4l2_formats_for_drm(uint32_t drm, uint64_t modifier, const struct v4l2_format_map **out,
                              unsigned capacity)
{
	unsigned count = 0;
	for (uint8_t planes = 1; planes <= 3; planes++) {
		for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
			const struct v4l2_format_map *entry = &formats[i];
			if (entry->drm != drm || entry->memory_planes != planes || !same_modifier(entry, modifier))
				continue;
			if (count < capacity)
				out[count] = entry;
			count++;
		}
	}
	return count;
}

/* Newer than Debian 12's headers (Linux 6.1): the stateful AV1 and the
 * stateless AV1 frame formats. */
#ifndef V4L2_PIX_FMT_AV1
#define V4L2_PIX_FMT_AV1 v4l2_fourcc('A', 'V', '0', '1')
#endif
#ifndef V4L2_PIX_FMT_AV1_FRAME
#define V4L2_PIX_FMT_AV1_FRAME v4l2_fourcc('A', 'V', '1', 'F')
#endif

/* Bitstream formats by codec: stateful codecs take the stream, stateless
 * ones parsed slices or frames. */
static const struct {
	uint32_t codec; /* uda_video_codec */
	uint32_t v4l2;
} bitstreams[] = {
	{UDA_VIDEO_CODEC_H264, V4L2_PIX_FMT_H264},        {UDA_VIDEO_CODEC_H264, V4L2_PIX_FMT_H264_NO_SC},
	{UDA_VIDEO_CODEC_H264, V4L2_PIX_FMT_H264_SLICE},  {UDA_VIDEO_CODEC_H265, V4L2_PIX_FMT_HEVC},
	{UDA_VIDEO_CODEC_H265, V4L2_PIX_FMT_HEVC_SLICE},  {UDA_VIDEO_CODEC_VP8, V4L2_PIX_FMT_VP8},
	{UDA_VIDEO_CODEC_VP8, V4L2_PIX_FMT_VP8_FRAME},    {UDA_VIDEO_CODEC_VP9, V4L2_PIX_FMT_VP9},
	{UDA_VIDEO_CODEC_VP9, V4L2_PIX_FMT_VP9_FRAME},    {UDA_VIDEO_CODEC_AV1, V4L2_PIX_FMT_AV1},
	{UDA_VIDEO_CODEC_AV1, V4L2_PIX_FMT_AV1_FRAME},    {UDA_VIDEO_CODEC_MPEG2, V4L2_PIX_FMT_MPEG2},
	{UDA_VIDEO_CODEC_MPEG2, V4L2_PIX_FMT_MPEG2_SLICE}, {UDA_VIDEO_CODEC_JPEG, V4L2_PIX_FMT_JPEG},
	{UDA_VIDEO_CODEC_JPEG, V4L2_PIX_FMT_MJPEG},
};

void v4l2_fourcc_text(uint32_t v4l2_pixelformat, char out[5])
{
	for (int i = 0; i < 4; i++) {
		const unsigned char c = (unsigned char)(v4l2_pixelformat >> (8 * i));
		out[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	out[4] = '\0';
}

bool v4l2_format_carries_codec(uint32_t v4l2_pixelformat, uint32_t codec)
{
	for (size_t i = 0; i < sizeof(bitstreams) / sizeof(bitstreams[0]); i++) {
		if (bitstreams[i].codec == codec && bitstreams[i].v4l2 == v4l2_pixelformat)
			return true;
	}
	return false;
}

/* Linux 6.5's AV1 profile menu, for older headers. */
#ifndef V4L2_CID_MPEG_VIDEO_AV1_PROFILE
#define V4L2_CID_MPEG_VIDEO_AV1_PROFILE (V4L2_CID_CODEC_BASE + 655)
#define V4L2_MPEG_VIDEO_AV1_PROFILE_HIGH 1
#define V4L2_MPEG_VIDEO_AV1_PROFILE_PROFESSIONAL 2
#endif

/* Codec profile numbers (what the bitstream says: H.264 profile_idc,
 * H.265 general_profile_idc, VP9's and AV1's seq_profile) as the items of V4L2's
 * profile menu controls, which decoders and encoders expose. */
static const struct {
	uint32_t codec, profile;
	uint32_t control;
	int32_t item;
	const char *name;
} profiles[] = {
	{UDA_VIDEO_CODEC_H264, 66, V4L2_CID_MPEG_VIDEO_H264_PROFILE, V4L2_MPEG_VIDEO_H264_PROFILE_BASELINE, "Baseline"},
	{UDA_VIDEO_CODEC_H264, 77, V4L2_CID_MPEG_VIDEO_H264_PROFILE, V4L2_MPEG_VIDEO_H264_PROFILE_MAIN, "Main"},
	{UDA_VIDEO_CODEC_H264, 88, V4L2_CID_MPEG_VIDEO_H264_PROFILE, V4L2_MPEG_VIDEO_H264_PROFILE_EXTENDED, "Extended"},
	{UDA_VIDEO_CODEC_H264, 100, V4L2_CID_MPEG_VIDEO_H264_PROFILE, V4L2_MPEG_VIDEO_H264_PROFILE_HIGH, "High"},
	{UDA_VIDEO_CODEC_H264, 110, V4L2_CID_MPEG_VIDEO_H264_PROFILE, V4L2_MPEG_VIDEO_H264_PROFILE_HIGH_10, "High 10"},
	{UDA_VIDEO_CODEC_H264, 122, V4L2_CID_MPEG_VIDEO_H264_PROFILE, V4L2_MPEG_VIDEO_H264_PROFILE_HIGH_422,
	 "High 4:2:2"},
	{UDA_VIDEO_CODEC_H264, 244, V4L2_CID_MPEG_VIDEO_H264_PROFILE, V4L2_MPEG_VIDEO_H264_PROFILE_HIGH_444_PREDICTIVE,
	 "High 4:4:4 Predictive"},
	{UDA_VIDEO_CODEC_H264, 44, V4L2_CID_MPEG_VIDEO_H264_PROFILE, V4L2_MPEG_VIDEO_H264_PROFILE_CAVLC_444_INTRA,
	 "CAVLC 4:4:4 Intra"},
	{UDA_VIDEO_CODEC_H264, 83, V4L2_CID_MPEG_VIDEO_H264_PROFILE, V4L2_MPEG_VIDEO_H264_PROFILE_SCALABLE_BASELINE,
	 "Scalable Baseline"},
	{UDA_VIDEO_CODEC_H264, 86, V4L2_CID_MPEG_VIDEO_H264_PROFILE, V4L2_MPEG_VIDEO_H264_PROFILE_SCALABLE_HIGH,
	 "Scalable High"},
	{UDA_VIDEO_CODEC_H264, 118, V4L2_CID_MPEG_VIDEO_H264_PROFILE, V4L2_MPEG_VIDEO_H264_PROFILE_MULTIVIEW_HIGH,
	 "Multiview High"},
	{UDA_VIDEO_CODEC_H264, 128, V4L2_CID_MPEG_VIDEO_H264_PROFILE, V4L2_MPEG_VIDEO_H264_PROFILE_STEREO_HIGH,
	 "Stereo High"},
	{UDA_VIDEO_CODEC_H265, 1, V4L2_CID_MPEG_VIDEO_HEVC_PROFILE, V4L2_MPEG_VIDEO_HEVC_PROFILE_MAIN, "Main"},
	{UDA_VIDEO_CODEC_H265, 2, V4L2_CID_MPEG_VIDEO_HEVC_PROFILE, V4L2_MPEG_VIDEO_HEVC_PROFILE_MAIN_10, "Main 10"},
	{UDA_VIDEO_CODEC_H265, 3, V4L2_CID_MPEG_VIDEO_HEVC_PROFILE, V4L2_MPEG_VIDEO_HEVC_PROFILE_MAIN_STILL_PICTURE,
	 "Main Still Picture"},
	{UDA_VIDEO_CODEC_VP9, 1, V4L2_CID_MPEG_VIDEO_VP9_PROFILE, V4L2_MPEG_VIDEO_VP9_PROFILE_1, "Profile 1"},
	{UDA_VIDEO_CODEC_VP9, 2, V4L2_CID_MPEG_VIDEO_VP9_PROFILE, V4L2_MPEG_VIDEO_VP9_PROFILE_2, "Profile 2"},
	{UDA_VIDEO_CODEC_VP9, 3, V4L2_CID_MPEG_VIDEO_VP9_PROFILE, V4L2_MPEG_VIDEO_VP9_PROFILE_3, "Profile 3"},
	{UDA_VIDEO_CODEC_AV1, 1, V4L2_CID_MPEG_VIDEO_AV1_PROFILE, V4L2_MPEG_VIDEO_AV1_PROFILE_HIGH, "High"},
	{UDA_VIDEO_CODEC_AV1, 2, V4L2_CID_MPEG_VIDEO_AV1_PROFILE, V4L2_MPEG_VIDEO_AV1_PROFILE_PROFESSIONAL,
	 "Professional"},
};

bool v4l2_profile_menu_item(uint32_t codec, uint32_t profile, struct v4l2_profile_item *out)
{
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		if (profiles[i].codec == codec && profiles[i].profile == profile) {
			*out = (struct v4l2_profile_item){profiles[i].control, profiles[i].item, profiles[i].name};
			return true;
		}
	}
	return false;
}
