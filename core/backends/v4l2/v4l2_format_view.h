/* One view of a struct v4l2_format for buffers of one memory plane,
 * whichever API the queue speaks (single-planar `pix`, or multi-planar
 * `pix_mp` with one plane): the fields the V4L2 backend and its replay
 * read and write, so that neither spells out both members. */
#ifndef UDA_V4L2_FORMAT_VIEW_H
#define UDA_V4L2_FORMAT_VIEW_H

#include <linux/videodev2.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct v4l2_format_view {
	uint32_t pixelformat, width, height;
	uint32_t bytesperline, sizeimage;
	uint32_t num_planes; /* always 1 on a single-planar queue */
};

/* Whether a V4L2_BUF_TYPE_* speaks the multi-planar API. */
bool v4l2_buffer_type_is_mplane(uint32_t type);
/* A format of `type` with the view's fields, progressive (V4L2_FIELD_NONE)
 * and of one plane; everything else zero. */
void v4l2_format_build(struct v4l2_format *out, uint32_t type, const struct v4l2_format_view *view);
/* The view of a format, read from the member its type names. */
struct v4l2_format_view v4l2_format_read(const struct v4l2_format *format);

#ifdef __cplusplus
}
#endif

#endif
