/* v4l2_capabilities.h */
#include <drm_fourcc.h>
#include <errno.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <string.h>

#include <uda/uda_backend.h>

#include "v4l2_capabilities.h"
#include "v4l2_format_view.h"

static bool size_fits(const struct v4l2_probed_format *format, uint32_t width, uint32_t height)
{
	if (format->stepwise)
		return width >= format->min_width && width <= format->max_width && height >= format->min_height &&
		       height <= format->max_height && (width - format->min_width) % format->step_width == 0 &&
		       (height - format->min_height) % format->step_height == 0;
	for (uint32_t i = 0; i < format->size_count; i++) {
		if (format->sizes[i][0] == width && format->sizes[i][1] == height)
			return true;
	}
	return format->size_count == 0; /* the driver lists none: TRY_FMT says */
}

/* Whether every plane of the format has plane 0's row size, as V4L2's
 * one-buffer formats share bytesperline (NV12's chroma row is as wide in
 * bytes as its luma row; YU12's is half, which uda's sets do not say). */
static bool planes_share_pitch(const uda_format_info *info, uint32_t width)
{
	uint64_t first = 0;
	for (uint32_t p = 0; p < info->plane_count; p++) {
		const uda_format_plane_info *plane = &info->planes[p];
		const uint64_t w = (width + plane->horizontal_subsampling - 1) / plane->horizontal_subsampling;
		const uint64_t row = (w + plane->block_width - 1) / plane->block_width * plane->bytes_per_block;
		if (p == 0)
			first = row;
		else if (row != first)
			return false;
	}
	return true;
}

/* Room for a reason made up of numbers. */
#define REASON_MAX 160

/* The driver's answer for width x height of the format: its
 * bytesperline and sizeimage, or a reason (in `reason` where it has
 * numbers). */
static const char *try_format(const struct v4l2_io *io, int fd, uint32_t type, uint32_t pixelformat, uint32_t width,
                              uint32_t height, bool decoder, uint32_t *out_pitch, uint32_t *out_size,
                              char reason[REASON_MAX])
{
	struct v4l2_format format;
	const struct v4l2_format_view asked = {.pixelformat = pixelformat, .width = width, .height = height};
	v4l2_format_build(&format, type, &asked);
	if (io->ioctl(io->data, fd, VIDIOC_TRY_FMT, &format) != 0)
		return "VIDIOC_TRY_FMT refused it";
	if (format.type != type)
		return "VIDIOC_TRY_FMT answered for another queue";
	const struct v4l2_format_view answer = v4l2_format_read(&format);
	/* A decoder writes whole macroblocks (or its own alignment): its
	 * pictures are that larger size, of which the asked one is shown. */
	if (decoder && answer.pixelformat == pixelformat && answer.width >= width && answer.height >= height &&
	    (answer.width != width || answer.height != height)) {
		snprintf(reason, REASON_MAX, "the driver writes %ux%u pictures: ask for %ux%u and show %ux%u of it",
		         answer.width, answer.height, answer.width, answer.height, width, height);
		return reason;
	}
	if (answer.pixelformat != pixelformat || answer.width != width || answer.height != height) {
		/* A camera's largest size, or a step the request missed: the
		 * answer names what the driver would take. */
		char fourcc[5];
		v4l2_fourcc_text(answer.pixelformat, fourcc);
		snprintf(reason, REASON_MAX, "the driver answers %s at %ux%u instead", fourcc, answer.width,
		         answer.height);
		return reason;
	}
	if (answer.num_planes != 1)
		return "the driver answers more than one buffer";
	*out_pitch = answer.bytesperline;
	*out_size = answer.sizeimage;
	return NULL;
}

/* The set of one format, or a reason. */
static const char *format_set(uda_capability_set_builder *builder, const struct v4l2_io *io, int fd,
                              const struct v4l2_probed_queue *queue, const struct v4l2_probed_format *format,
                              uint32_t width, uint32_t height, bool cpu_access, uint32_t bitstream,
                              char reason[REASON_MAX])
{
	const struct v4l2_format_map *image = format->image;
	uda_format_info info;
	if (uda_format_get_info(image->drm, &info) != UDA_SUCCESS)
		return "uda has no such DRM format";
	if (image->memory_planes != 1)
		return "planes in separate buffers, which uda does not describe";
	/* Broadcom's SAND128 columns: the modifier names them, but where
	 * each plane starts in them is not written yet (packed_layout), so
	 * a set would negotiate and never allocate nor import. */
	if (image->column_height_in_bytesperline)
		return "Broadcom SAND128 columns, whose plane layout uda does not write yet";
	if (!size_fits(format, width, height))
		return "the size is not one the driver lists";
	const bool linear = image->modifier == DRM_FORMAT_MOD_LINEAR;
	if (cpu_access && !linear)
		return "a tiled layout, which the CPU cannot read as rows";
	if (linear && !planes_share_pitch(&info, width))
		return "planes of different pitches under one bytesperline";
	uint32_t pitch = 0, size = 0;
	const char *problem =
		try_format(io, fd, queue->type, format->pixelformat, width, height, bitstream != 0, &pitch, &size, reason);
	if (problem)
		return problem;
	if (!pitch || !size)
		return "the driver answers no bytesperline or no sizeimage";
	uda_capability_set_builder_reset(builder);
	const struct v4l2_queue_params params = {queue->type, format->pixelformat, pitch, size, bitstream};
	uint8_t payload[UDA_CAPABILITY_V4L2_QUEUE_DECODER_SIZE];
	const uda_capability queue_capability = {
		.vendor = UDA_VENDOR_API_BACKEND,
		.name = UDA_CAPABILITY_V4L2_QUEUE,
		.flags = UDA_CAPABILITY_FLAG_LOCAL,
		.length = v4l2_queue_params_write(&params, payload),
		.payload = payload,
	};
	if (uda_capability_set_builder_add_capability(builder, &queue_capability) != UDA_SUCCESS ||
	    (cpu_access && uda_capability_set_builder_add_u32(builder, UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE,
	                                                      UDA_CAPABILITY_FLAG_REQUIRED) != UDA_SUCCESS))
		return "out of memory";
	if (uda_capability_set_builder_add_layout(builder, image->modifier, 0) != UDA_SUCCESS ||
	    uda_capability_set_builder_add_u32(builder, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF,
	                                       UDA_CAPABILITY_FLAG_REQUIRED) != UDA_SUCCESS ||
	    uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_MAX_WIDTH, width) != UDA_SUCCESS ||
	    uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_MAX_HEIGHT, height) != UDA_SUCCESS ||
	    uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_MAX_PLANES, info.plane_count) !=
	            UDA_SUCCESS)
		return "out of memory";
	/* The driver's pitch, and no other: a pitch alignment of it with it as
	 * the maximum. Then its sizeimage must hold the planes at that pitch.
	 * A tiled format too: its modifier lays out the tiles, but the driver
	 * reads rows of them at bytesperline, planes packed one after the
	 * other, as an import is checked (packed_layout). */
	const uint64_t row = ((uint64_t)width + info.planes[0].block_width - 1) / info.planes[0].block_width *
	                     info.planes[0].bytes_per_block;
	if (pitch < row)
		return "the driver's bytesperline is below the row";
	if (uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_PITCH_ALIGNMENT, pitch) != UDA_SUCCESS ||
	    uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_MAX_PITCH, pitch) != UDA_SUCCESS ||
	    uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_MIN_PITCH, pitch) != UDA_SUCCESS)
		return "out of memory";
	uint64_t needed = 0;
	for (uint32_t p = 0; p < info.plane_count; p++)
		needed += (uint64_t)pitch * ((height + info.planes[p].vertical_subsampling - 1) /
		                             info.planes[p].vertical_subsampling);
	if (size < needed)
		return "the driver's sizeimage is below its planes";
	/* The driver reads sizeimage bytes, which may run past the planes
	 * (hantro's motion vectors): memory made elsewhere must hold them. */
	if (uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_MIN_SIZE, size) != UDA_SUCCESS)
		return "out of memory";
	return NULL;
}

static void put_u32(uint8_t *to, uint32_t value)
{
	for (int i = 0; i < 4; i++)
		to[i] = (uint8_t)(value >> (8 * i));
}

static uint32_t get_u32(const uint8_t *from)
{
	return from[0] | from[1] << 8 | from[2] << 16 | (uint32_t)from[3] << 24;
}

uint32_t v4l2_queue_params_write(const struct v4l2_queue_params *params,
                                 uint8_t out[UDA_CAPABILITY_V4L2_QUEUE_DECODER_SIZE])
{
	put_u32(out, params->type);
	put_u32(out + 4, params->pixelformat);
	put_u32(out + 8, params->bytesperline);
	put_u32(out + 12, params->sizeimage);
	if (!params->bitstream)
		return UDA_CAPABILITY_V4L2_QUEUE_SIZE;
	put_u32(out + 16, params->bitstream);
	return UDA_CAPABILITY_V4L2_QUEUE_DECODER_SIZE;
}

bool v4l2_queue_params_find(const uda_capability_set_list *sets, uint32_t index, const uint8_t owner[UDA_UUID_SIZE],
                            struct v4l2_queue_params *out)
{
	uda_capability capability;
	if (!uda_backend_find_capability(sets, index, UDA_VENDOR_API_BACKEND, UDA_CAPABILITY_V4L2_QUEUE, owner,
	                                 &capability) ||
	    (capability.length != UDA_CAPABILITY_V4L2_QUEUE_SIZE &&
	     capability.length != UDA_CAPABILITY_V4L2_QUEUE_DECODER_SIZE))
		return false;
	const uint8_t *p = capability.payload;
	*out = (struct v4l2_queue_params){get_u32(p), get_u32(p + 4), get_u32(p + 8), get_u32(p + 12), 0};
	if (capability.length == UDA_CAPABILITY_V4L2_QUEUE_DECODER_SIZE) {
		out->bitstream = get_u32(p + 16);
		/* The decoder's form names a bitstream. */
		if (!out->bitstream)
			return false;
	}
	return true;
}

uda_result v4l2_capability_sets(uda_context *ctx, const struct v4l2_io *io, int fd,
                                const struct v4l2_probed_queue *queue, uint32_t width, uint32_t height,
                                uint32_t drm_format, bool cpu_access, uint32_t bitstream,
                                uda_capability_set_list **out_sets)
{
	*out_sets = NULL;
	uda_capability_set_builder *builder = NULL;
	uda_capability_set_list *sets = NULL;
	if (uda_capability_set_builder_create(ctx, &builder) != UDA_SUCCESS ||
	    uda_capability_set_list_create(ctx, &sets) != UDA_SUCCESS) {
		uda_capability_set_builder_destroy(builder);
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	const char *last = "no format of the queue carries it";
	char reason[REASON_MAX], last_reason[REASON_MAX];
	char fourcc_text[5];
	uint32_t count = 0;
	for (uint32_t i = 0; i < queue->format_count; i++) {
		const struct v4l2_probed_format *format = &queue->formats[i];
		if (!format->image || format->image->drm != drm_format)
			continue;
		const char *problem =
			format_set(builder, io, fd, queue, format, width, height, cpu_access, bitstream, reason);
		v4l2_fourcc_text(format->pixelformat, fourcc_text);
		if (problem) {
			uda_context_log(ctx, UDA_LOG_DEBUG, "v4l2: %s at %ux%u: %s", fourcc_text, width, height, problem);
			snprintf(last_reason, sizeof(last_reason), "%s", problem);
			last = last_reason;
			continue;
		}
		if (uda_capability_set_list_append_set(sets, builder) == UDA_SUCCESS)
			count++;
	}
	uda_capability_set_builder_destroy(builder);
	if (!count) {
		uda_capability_set_list_destroy(sets);
		return uda_context_set_error(ctx, UDA_ERROR_INCOMPATIBLE, "v4l2: no set for %ux%u of 0x%08x: %s", width,
		                             height, drm_format, last);
	}
	*out_sets = sets;
	return UDA_SUCCESS;
}
