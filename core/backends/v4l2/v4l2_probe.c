/* v4l2_probe.h */
#include <errno.h>
#include <linux/videodev2.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "v4l2_probe.h"

#define V4L2_PROBE_MAX_DIMENSION 65536u /* no image here is wider or taller */

static bool fail(char *why, size_t why_size, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	if (why && why_size)
		vsnprintf(why, why_size, format, args);
	va_end(args);
	return false;
}

/* A driver's string: up to its first NUL, within its field, printable. */
static void copy_name(char *to, size_t to_size, const uint8_t *from, size_t from_size)
{
	size_t n = 0;
	for (; n < from_size && n + 1 < to_size && from[n]; n++)
		to[n] = from[n] >= 0x20 && from[n] < 0x7f ? (char)from[n] : '?';
	to[n] = '\0';
}

static bool dimension_valid(uint32_t value)
{
	return value > 0 && value <= V4L2_PROBE_MAX_DIMENSION;
}

static void probe_sizes(const struct v4l2_io *io, int fd, struct v4l2_probed_format *format)
{
	for (uint32_t index = 0; index < V4L2_PROBE_MAX_SIZES; index++) {
		struct v4l2_frmsizeenum size = {.index = index, .pixel_format = format->pixelformat};
		if (io->ioctl(io->data, fd, VIDIOC_ENUM_FRAMESIZES, &size) != 0)
			return;
		if (size.index != index || size.pixel_format != format->pixelformat)
			return; /* not an answer to what was asked */
		if (size.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
			const uint32_t w = size.discrete.width, h = size.discrete.height;
			if (!dimension_valid(w) || !dimension_valid(h))
				continue;
			bool seen = false; /* UVC lists some sizes twice */
			for (uint32_t i = 0; i < format->size_count && !seen; i++)
				seen = format->sizes[i][0] == w && format->sizes[i][1] == h;
			if (!seen) {
				format->sizes[format->size_count][0] = w;
				format->sizes[format->size_count][1] = h;
				format->size_count++;
			}
			continue;
		}
		/* A range is the only answer, at index 0. */
		const struct v4l2_frmsize_stepwise *s = &size.stepwise;
		if (index != 0 || (size.type != V4L2_FRMSIZE_TYPE_STEPWISE && size.type != V4L2_FRMSIZE_TYPE_CONTINUOUS) ||
		    !dimension_valid(s->min_width) || !dimension_valid(s->max_width) || s->min_width > s->max_width ||
		    !dimension_valid(s->min_height) || !dimension_valid(s->max_height) || s->min_height > s->max_height)
			return;
		format->stepwise = true;
		format->min_width = s->min_width;
		format->max_width = s->max_width;
		format->min_height = s->min_height;
		format->max_height = s->max_height;
		const bool continuous = size.type == V4L2_FRMSIZE_TYPE_CONTINUOUS;
		format->step_width = continuous || !s->step_width ? 1 : s->step_width;
		format->step_height = continuous || !s->step_height ? 1 : s->step_height;
		return;
	}
}

/* Which memory the queue takes: a REQBUFS of no buffers frees nothing on
 * a new fd and answers the queue's capabilities. */
static void probe_memory(const struct v4l2_io *io, int fd, struct v4l2_probed_queue *queue)
{
	const uint32_t known = V4L2_BUF_CAP_SUPPORTS_MMAP | V4L2_BUF_CAP_SUPPORTS_DMABUF;
	struct v4l2_requestbuffers request = {.count = 0, .type = queue->type, .memory = V4L2_MEMORY_MMAP};
	if (io->ioctl(io->data, fd, VIDIOC_REQBUFS, &request) == 0 && request.capabilities)
		queue->memory_caps = request.capabilities & known;
	else
		queue->memory_caps = known;
}

static void probe_queue(const struct v4l2_io *io, int fd, uint32_t type, struct v4l2_probed_queue *queue)
{
	queue->present = true;
	queue->type = type;
	probe_memory(io, fd, queue);
	/* A driver that answers every index would loop: the limit ends it. */
	for (uint32_t index = 0; index < V4L2_PROBE_MAX_FORMATS; index++) {
		struct v4l2_fmtdesc description = {.index = index, .type = type};
		if (io->ioctl(io->data, fd, VIDIOC_ENUM_FMT, &description) != 0)
			return;
		if (description.index != index || description.type != type || !description.pixelformat)
			continue;
		bool seen = false;
		for (uint32_t i = 0; i < queue->format_count && !seen; i++)
			seen = queue->formats[i].pixelformat == description.pixelformat;
		if (seen)
			continue;
		struct v4l2_probed_format *format = &queue->formats[queue->format_count++];
		format->pixelformat = description.pixelformat;
		format->compressed = description.flags & V4L2_FMT_FLAG_COMPRESSED;
		format->image = format->compressed ? NULL : v4l2_format_lookup(description.pixelformat);
		probe_sizes(io, fd, format);
	}
}

static bool any_compressed(const struct v4l2_probed_queue *queue)
{
	for (uint32_t i = 0; i < queue->format_count; i++) {
		if (queue->formats[i].compressed)
			return true;
	}
	return false;
}

bool v4l2_probe_node(const struct v4l2_io *io, int fd, struct v4l2_probed_node *out, char *why, size_t why_size)
{
	memset(out, 0, sizeof(*out));
	struct v4l2_capability capability;
	memset(&capability, 0, sizeof(capability));
	if (io->ioctl(io->data, fd, VIDIOC_QUERYCAP, &capability) != 0)
		return fail(why, why_size, "VIDIOC_QUERYCAP: %s", strerror(errno));
	const uint32_t caps =
	        capability.capabilities & V4L2_CAP_DEVICE_CAPS ? capability.device_caps : capability.capabilities;
	copy_name(out->driver, sizeof(out->driver), capability.driver, sizeof(capability.driver));
	copy_name(out->card, sizeof(out->card), capability.card, sizeof(capability.card));
	copy_name(out->bus_info, sizeof(out->bus_info), capability.bus_info, sizeof(capability.bus_info));
	out->device_caps = caps;
	const bool m2m = caps & (V4L2_CAP_VIDEO_M2M | V4L2_CAP_VIDEO_M2M_MPLANE);
	const bool capture = m2m || (caps & (V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_VIDEO_CAPTURE_MPLANE));
	const bool output = m2m || (caps & (V4L2_CAP_VIDEO_OUTPUT | V4L2_CAP_VIDEO_OUTPUT_MPLANE));
	if (!capture && !output)
		return fail(why, why_size, "%s: not a video device (capabilities 0x%08x)", out->card, caps);
	if (!(caps & V4L2_CAP_STREAMING))
		return fail(why, why_size, "%s: no streaming I/O, so no buffers to share", out->card);
	const bool mplane =
	        caps & (V4L2_CAP_VIDEO_M2M_MPLANE | V4L2_CAP_VIDEO_CAPTURE_MPLANE | V4L2_CAP_VIDEO_OUTPUT_MPLANE);
	if (capture)
		probe_queue(io, fd, mplane ? V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE : V4L2_BUF_TYPE_VIDEO_CAPTURE, &out->capture);
	if (output)
		probe_queue(io, fd, mplane ? V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE : V4L2_BUF_TYPE_VIDEO_OUTPUT, &out->output);
	if (!out->capture.format_count && !out->output.format_count)
		return fail(why, why_size, "%s: no format on any queue", out->card);
	if (!m2m) {
		out->role = capture ? V4L2_NODE_CAMERA : V4L2_NODE_OUTPUT;
	} else {
		const bool in = any_compressed(&out->output), result = any_compressed(&out->capture);
		out->role = in && !result ? V4L2_NODE_DECODER : result && !in ? V4L2_NODE_ENCODER : V4L2_NODE_CONVERTER;
	}
	return true;
}
