/* What a V4L2 node is and offers, from its own answers (VIDIOC_QUERYCAP,
 * VIDIOC_ENUM_FMT per queue, VIDIOC_ENUM_FRAMESIZES per format), checked
 * before anything uses them: the first step of a V4L2 device. */
#ifndef UDA_V4L2_PROBE_H
#define UDA_V4L2_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "v4l2_formats.h"
#include "v4l2_io.h"

#ifdef __cplusplus
extern "C" {
#endif

#define V4L2_PROBE_MAX_FORMATS 64 /* per queue; more is a driver looping */
#define V4L2_PROBE_MAX_SIZES 64   /* discrete sizes per format */

enum v4l2_node_role {
	V4L2_NODE_CAMERA,    /* capture only: a camera, a grabber */
	V4L2_NODE_OUTPUT,    /* output only */
	V4L2_NODE_DECODER,   /* memory-to-memory, bitstream in, pictures out */
	V4L2_NODE_ENCODER,   /* memory-to-memory, pictures in, bitstream out */
	V4L2_NODE_CONVERTER, /* memory-to-memory, pictures both ways (an ISP, a scaler) */
};

struct v4l2_probed_format {
	uint32_t pixelformat;               /* V4L2_PIX_FMT_* */
	bool compressed;                    /* V4L2_FMT_FLAG_COMPRESSED */
	const struct v4l2_format_map *image; /* NULL: no DRM image format */
	/* The sizes it takes: discrete ones listed, or a range. */
	bool stepwise;
	uint32_t min_width, max_width, step_width, min_height, max_height, step_height;
	uint32_t size_count; /* discrete */
	uint32_t sizes[V4L2_PROBE_MAX_SIZES][2];
};

struct v4l2_probed_queue {
	bool present;
	uint32_t type; /* V4L2_BUF_TYPE_VIDEO_{CAPTURE,OUTPUT}[_MPLANE] */
	/* V4L2_BUF_CAP_SUPPORTS_MMAP / _DMABUF as VIDIOC_REQBUFS of no
	 * buffers answers; both where the kernel (before 4.20) says nothing. */
	uint32_t memory_caps;
	uint32_t format_count;
	struct v4l2_probed_format formats[V4L2_PROBE_MAX_FORMATS];
};

struct v4l2_probed_node {
	char driver[16 + 1], card[32 + 1], bus_info[32 + 1];
	uint32_t device_caps;
	enum v4l2_node_role role;
	struct v4l2_probed_queue capture, output;
};

/* Probes the node open at fd. False, with why, for a node that is no
 * video device (a metadata node, a radio, a subdevice) or whose answers
 * cannot be used; answers past the limits above are cut there. */
bool v4l2_probe_node(const struct v4l2_io *io, int fd, struct v4l2_probed_node *out, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
