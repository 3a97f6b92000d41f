/* uda_wayland_shm_copy: a client's wl_shm pixels into the compositor's
 * memory, under libwayland's protection against a pool that shrinks. */
#include <drm_fourcc.h>
#include <string.h>
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>

#include <uda/uda_backend.h> /* uda_context_set_error: messages on the caller's context */
#include <uda/uda_wayland_server.h>

/* wl_shm's codes are fourccs but for ARGB8888 (0) and XRGB8888 (1). */
uint32_t uda_wayland_shm_format_to_fourcc(uint32_t shm_format)
{
	return shm_format == WL_SHM_FORMAT_ARGB8888   ? DRM_FORMAT_ARGB8888
	       : shm_format == WL_SHM_FORMAT_XRGB8888 ? DRM_FORMAT_XRGB8888
	                                              : shm_format;
}

uda_result uda_wayland_shm_copy(struct wl_shm_buffer *buffer, uda_allocation *allocation)
{
	if (!buffer || !allocation)
		return UDA_ERROR_INVALID_ARGUMENT;
	uda_device *device = NULL;
	uda_allocation_get_device(allocation, &device);
	uda_context *ctx = uda_device_get_context(device);
	uda_allocation_metadata metadata = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	uda_format_info info;
	const int32_t width = wl_shm_buffer_get_width(buffer), height = wl_shm_buffer_get_height(buffer);
	const int32_t stride = wl_shm_buffer_get_stride(buffer);
	const uint32_t format = uda_wayland_shm_format_to_fourcc(wl_shm_buffer_get_format(buffer));
	uda_result result = uda_allocation_get_metadata(allocation, &metadata);
	if (result != UDA_SUCCESS)
		return result;
	if (width <= 0 || height <= 0 || (uint32_t)width != metadata.width || (uint32_t)height != metadata.height ||
	    format != metadata.format || uda_format_get_info(format, &info) != UDA_SUCCESS || info.plane_count != 1)
		return uda_context_set_error(ctx, UDA_ERROR_INCOMPATIBLE,
		                             "wl_shm buffer %dx%d 0x%08x into a %ux%u 0x%08x allocation", width, height,
		                             format, metadata.width, metadata.height, metadata.format);
	const size_t row = ((size_t)width + info.planes[0].block_width - 1) / info.planes[0].block_width *
	                   info.planes[0].bytes_per_block;
	if ((size_t)stride < row || metadata.planes[0].pitch < row)
		return uda_context_set_error(ctx, UDA_ERROR_INCOMPATIBLE, "wl_shm stride %d below a row of %zu bytes",
		                             stride, row);
	void *target = NULL;
	result = uda_allocation_map(allocation, UDA_ACCESS_WRITE, &target);
	if (result != UDA_SUCCESS)
		return result;
	uda_allocation_begin_cpu_access(allocation, UDA_ACCESS_WRITE);
	/* libwayland (libwayland-server's wl_shm) checked offset, stride and
	 * height against the pool at create_buffer; a pool shrunk since
	 * faults, and begin_access turns the fault into zeros and the
	 * client's error. */
	wl_shm_buffer_begin_access(buffer);
	const uint8_t *from = wl_shm_buffer_get_data(buffer);
	uint8_t *to = (uint8_t *)target + metadata.planes[0].offset;
	for (int32_t y = 0; y < height; y++)
		memcpy(to + (size_t)y * metadata.planes[0].pitch, from + (size_t)y * (size_t)stride, row);
	wl_shm_buffer_end_access(buffer);
	uda_allocation_end_cpu_access(allocation, UDA_ACCESS_WRITE);
	uda_allocation_unmap(allocation);
	return UDA_SUCCESS;
}
