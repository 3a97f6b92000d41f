/* v4l2_format_view.h */
#include <string.h>

#include "v4l2_format_view.h"

bool v4l2_buffer_type_is_mplane(uint32_t type)
{
	return type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE || type == V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE;
}

void v4l2_format_build(struct v4l2_format *out, uint32_t type, const struct v4l2_format_view *view)
{
	memset(out, 0, sizeof(*out));
	out->type = type;
	if (v4l2_buffer_type_is_mplane(type)) {
		out->fmt.pix_mp.pixelformat = view->pixelformat;
		out->fmt.pix_mp.width = view->width;
		out->fmt.pix_mp.height = view->height;
		out->fmt.pix_mp.field = V4L2_FIELD_NONE;
		out->fmt.pix_mp.num_planes = 1;
		out->fmt.pix_mp.plane_fmt[0].bytesperline = view->bytesperline;
		out->fmt.pix_mp.plane_fmt[0].sizeimage = view->sizeimage;
	} else {
		out->fmt.pix.pixelformat = view->pixelformat;
		out->fmt.pix.width = view->width;
		out->fmt.pix.height = view->height;
		out->fmt.pix.field = V4L2_FIELD_NONE;
		out->fmt.pix.bytesperline = view->bytesperline;
		out->fmt.pix.sizeimage = view->sizeimage;
	}
}

struct v4l2_format_view v4l2_format_read(const struct v4l2_format *format)
{
	/* (pix_mp is packed: its fields are copied, never pointed at.) */
	if (v4l2_buffer_type_is_mplane(format->type))
		return (struct v4l2_format_view){format->fmt.pix_mp.pixelformat,
		                                 format->fmt.pix_mp.width,
		                                 format->fmt.pix_mp.height,
		                                 format->fmt.pix_mp.plane_fmt[0].bytesperline,
		                                 format->fmt.pix_mp.plane_fmt[0].sizeimage,
		                                 format->fmt.pix_mp.num_planes};
	return (struct v4l2_format_view){format->fmt.pix.pixelformat, format->fmt.pix.width, format->fmt.pix.height,
	                                 format->fmt.pix.bytesperline, format->fmt.pix.sizeimage, 1};
}
