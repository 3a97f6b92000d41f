/* A client's linux-dmabuf buffer into a uda_allocation on the compositor's
 * render device: the checks linux-dmabuf defines errors for, against the
 * feedback the compositor sent, then uda_import's own. A bad buffer is a
 * protocol error, never a crash or a read outside the memory. */
#include <drm_fourcc.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uda/uda_backend.h> /* uda_context_set_error: messages on the caller's context */
#include <uda/uda_wayland_server.h>

#include "feedback_private.h"

static uda_result protocol_error(const uda_wayland_feedback *feedback, uint32_t *out_error, uint32_t error,
                                 const char *what)
{
	*out_error = error;
	return uda_context_set_error(feedback->context, UDA_ERROR_INVALID_DATA, "client DMA-BUF: %s", what);
}

/* The bytes a plane needs past its offset: every row but the last at the
 * stride, at least one row. Rows are the format's, subsampled; a tiled
 * layout's real size is the driver's to check, this is the protocol's
 * lower bound (what Weston and wlroots check too). */
static bool plane_fits(const uda_format_info *info, uint32_t plane, uint32_t height, uint64_t offset, uint64_t stride,
                       off_t file_size)
{
	uint32_t sub = plane < info->plane_count && info->planes[plane].vertical_subsampling
	                       ? info->planes[plane].vertical_subsampling
	                       : 1;
	uint64_t rows = (height + sub - 1) / sub;
	uint64_t needed = offset + stride * rows; /* < 2^32 + 2^32 * 2^16: no overflow */
	return file_size < 0 || (uint64_t)file_size >= needed;
}

uda_result uda_wayland_feedback_import_dmabuf(const uda_wayland_feedback *feedback,
                                              const uda_wayland_dmabuf_attributes *attributes,
                                              uda_allocation **out_allocation, uint32_t *out_protocol_error)
{
	if (!feedback || !attributes || !out_allocation || !out_protocol_error ||
	    attributes->type != UDA_STRUCTURE_TYPE_WAYLAND_DMABUF_ATTRIBUTES || attributes->next)
		return feedback ? uda_context_set_error(feedback->context, UDA_ERROR_INVALID_ARGUMENT,
		                                        "uda_wayland_feedback_import_dmabuf: bad arguments")
		                : UDA_ERROR_INVALID_ARGUMENT;
	*out_allocation = NULL;
	*out_protocol_error = 0;
	const uda_wayland_dmabuf_attributes *a = attributes;
	if (a->width <= 0 || a->height <= 0 || (uint32_t)a->width > UDA_MAX_DIMENSION ||
	    (uint32_t)a->height > UDA_MAX_DIMENSION)
		return protocol_error(feedback, out_protocol_error, UDA_WAYLAND_DMABUF_ERROR_INVALID_DIMENSIONS,
		                      "width or height out of range");
	const uint32_t entry = feedback_find_entry(feedback, a->format, a->modifier);
	uda_format_info info;
	if (entry == UINT32_MAX || uda_format_get_info(a->format, &info) != UDA_SUCCESS)
		return protocol_error(feedback, out_protocol_error, UDA_WAYLAND_DMABUF_ERROR_INVALID_FORMAT,
		                      "a format and modifier the feedback did not offer");
	/* A modifier may add planes (compression metadata), never take any. */
	if (a->plane_count < info.plane_count)
		return protocol_error(feedback, out_protocol_error, UDA_WAYLAND_DMABUF_ERROR_INCOMPLETE,
		                      "fewer planes than the format has");
	if (a->plane_count > UDA_MAX_PLANES)
		return protocol_error(feedback, out_protocol_error, UDA_WAYLAND_DMABUF_ERROR_INCOMPLETE,
		                      "more planes than uda describes");
	struct stat first;
	if (fstat(a->planes[0].fd, &first) != 0)
		return protocol_error(feedback, out_protocol_error, UDA_WAYLAND_DMABUF_ERROR_INCOMPLETE,
		                      "plane 0 has no open file");
	const off_t size = lseek(a->planes[0].fd, 0, SEEK_END);
	for (uint32_t p = 0; p < a->plane_count; p++) {
		struct stat st;
		if (fstat(a->planes[p].fd, &st) != 0)
			return protocol_error(feedback, out_protocol_error, UDA_WAYLAND_DMABUF_ERROR_INCOMPLETE,
			                      "a plane has no open file");
		/* uda describes one buffer: every plane in the same file. */
		if (st.st_dev != first.st_dev || st.st_ino != first.st_ino)
			return uda_context_set_error(feedback->context, UDA_ERROR_UNSUPPORTED,
			                             "client DMA-BUF: planes in different buffers");
		if ((size >= 0 && a->planes[p].offset >= (uint64_t)size) ||
		    !plane_fits(&info, p, (uint32_t)a->height, a->planes[p].offset, a->planes[p].stride, size))
			return protocol_error(feedback, out_protocol_error, UDA_WAYLAND_DMABUF_ERROR_OUT_OF_BOUNDS,
			                      "a plane reaches past its buffer");
	}
	if (feedback->render_set_of[entry] == UINT32_MAX)
		return uda_context_set_error(feedback->context, UDA_ERROR_UNSUPPORTED,
		                             "client DMA-BUF: a layout the render device does not sample");
	uda_allocation_metadata metadata = {
		.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA,
		.width = (uint32_t)a->width,
		.height = (uint32_t)a->height,
		.format = a->format,
		.handle_type = UDA_HANDLE_TYPE_DMA_BUF,
		.size = size > 0 ? (uint64_t)size : 0,
		.plane_count = a->plane_count,
	};
	for (uint32_t p = 0; p < a->plane_count; p++)
		metadata.planes[p] = (uda_plane_layout){a->planes[p].offset, a->planes[p].stride};
	/* The compositor samples; nothing it does writes a client's buffer. */
	const uda_import_info import = {
		.type = UDA_STRUCTURE_TYPE_IMPORT_INFO,
		.device = feedback->render_device,
		.fd = a->planes[0].fd,
		.metadata = &metadata,
		.set_list = feedback->render_sets,
		.set_index = feedback->render_set_of[entry],
		.flags = UDA_IMPORT_READ_ONLY,
	};
	return uda_import(&import, out_allocation);
}
