/* V4L2 pixel formats in uda's terms: the DRM fourcc and layout modifier
 * of each V4L2 format whose memory another device can read as an image,
 * and how many memory planes (separate buffers) the V4L2 format takes.
 * The one place the V4L2 backend converts formats (issue 27); the pairs,
 * and where each is documented, are in
 * tests/backends/v4l2-fixtures/fourcc-map.md. */
#ifndef UDA_V4L2_FORMATS_H
#define UDA_V4L2_FORMATS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct v4l2_format_map {
	uint32_t v4l2;          /* V4L2_PIX_FMT_* */
	uint32_t drm;           /* DRM_FORMAT_* */
	uint64_t modifier;      /* DRM_FORMAT_MOD_*; LINEAR for untiled */
	uint8_t memory_planes;  /* buffers the V4L2 format takes (NV12M: 2) */
	bool column_height_in_bytesperline; /* Broadcom SAND128: the modifier's
	                                       height is the driver's bytesperline */
};

/* The entry of a V4L2 pixel format, or NULL: compressed bitstreams, raw
 * sensor (Bayer) data, vendor-compressed layouts without a DRM name
 * (Mediatek MT21C) and formats not listed have none. */
const struct v4l2_format_map *v4l2_format_lookup(uint32_t v4l2_pixelformat);
/* The V4L2 formats that carry `drm` with `modifier` (a SAND128 modifier of
 * any column height), single-buffer first: up to `capacity` written, the
 * number there are returned. */
unsigned v4l2_formats_for_drm(uint32_t drm, uint64_t modifier, const struct v4l2_format_map **out,
                              unsigned capacity);

/* A V4L2 pixel format's four characters for messages, the unprintable
 * ones (a driver's answer may hold any bytes) as '?'. */
void v4l2_fourcc_text(uint32_t v4l2_pixelformat, char out[5]);

/* Whether a V4L2 bitstream format carries `codec` (uda_video_codec):
 * the stream a stateful codec takes (H264) or the parsed slices or
 * frames of a stateless one (S264). */
bool v4l2_format_carries_codec(uint32_t v4l2_pixelformat, uint32_t codec);

/* A codec's profile number (uda_video_profile::profile: H.264
 * profile_idc, H.265 general_profile_idc, VP9's and AV1's profile) as an item of
 * V4L2's profile menu control. False for a pair V4L2 names no item for
 * (and for 0, which uda reads as any). */
struct v4l2_profile_item {
	uint32_t control; /* V4L2_CID_MPEG_VIDEO_*_PROFILE */
	int32_t item;     /* its menu item */
	const char *name; /* "High 10" */
};
bool v4l2_profile_menu_item(uint32_t codec, uint32_t profile, struct v4l2_profile_item *out);

#ifdef __cplusplus
}
#endif

#endif
