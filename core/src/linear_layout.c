#include <string.h>

#include "capability_set_list.h"
#include "linear_layout.h"

static uint64_t constraint_or(const struct uda_constraint_values *c, uda_constraint k, uint64_t fallback)
{
	return (c->present & (1u << k)) ? c->value[k] : fallback;
}

bool linear_layout_compute(const uda_format_info *format, uint32_t width, uint32_t height,
                           const struct uda_constraint_values *c, uda_allocation_metadata *out)
{
	const uint64_t pitch_alignment = constraint_or(c, UDA_CONSTRAINT_PITCH_ALIGNMENT, 1);
	const uint64_t offset_alignment = constraint_or(c, UDA_CONSTRAINT_OFFSET_ALIGNMENT, 1);
	const uint64_t plane_alignment = constraint_or(c, UDA_CONSTRAINT_PLANE_ALIGNMENT, 1);
	const uint64_t max_pitch = constraint_or(c, UDA_CONSTRAINT_MAX_PITCH, UINT64_MAX);
	uint64_t offset = 0; /* end of the previous plane, then start of this one */
	for (uint32_t p = 0; p < format->plane_count; p++) {
		const uda_format_plane_info *plane = &format->planes[p];
		uint64_t w = (width + plane->horizontal_subsampling - 1) / plane->horizontal_subsampling;
		uint64_t h = (height + plane->vertical_subsampling - 1) / plane->vertical_subsampling;
		uint64_t pitch = (w + plane->block_width - 1) / plane->block_width * plane->bytes_per_block;
		if (p == 0 && pitch < constraint_or(c, UDA_CONSTRAINT_MIN_PITCH, 0))
			pitch = c->value[UDA_CONSTRAINT_MIN_PITCH];
		if (!uda_align_up_u64(pitch, pitch_alignment, &pitch) || pitch > max_pitch)
			return false;
		/* Plane 0 starts the memory; later planes start at multiples of
		 * both the offset and the plane alignment. */
		uint64_t start_alignment;
		if (p > 0 && (!uda_lcm_u64(offset_alignment, plane_alignment, &start_alignment) ||
		              !uda_align_up_u64(offset, start_alignment, &offset)))
			return false;
		out->planes[p].offset = offset;
		out->planes[p].pitch = pitch;
		uint64_t plane_size;
		if (__builtin_mul_overflow(pitch, h, &plane_size) || __builtin_add_overflow(offset, plane_size, &offset))
			return false;
	}
	/* A device that reads past the planes asks for more. */
	const uint64_t min_size = constraint_or(c, UDA_CONSTRAINT_MIN_SIZE, 0);
	uint64_t size = offset > min_size ? offset : min_size;
	if (!uda_align_up_u64(size, constraint_or(c, UDA_CONSTRAINT_SIZE_ALIGNMENT, 1), &size) ||
	    size > constraint_or(c, UDA_CONSTRAINT_MAX_SIZE, UINT64_MAX))
		return false;
	out->plane_count = format->plane_count;
	out->size = size;
	return true;
}

uda_result uda_backend_linear_layout(const uda_assertion *assertion, const uda_capability_set_list *list,
                                     uint32_t set_index, uda_allocation_metadata *out)
{
	if (!list)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(list->ctx, assertion && out);
	UDA_CHECK_ARG(list->ctx, set_index < list->set_count);
	uda_format_info format;
	if (uda_format_get_info(assertion->format, &format) != UDA_SUCCESS)
		return uda_context_set_error(list->ctx, UDA_ERROR_UNSUPPORTED, "unknown fourcc 0x%08x", assertion->format);
	uda_allocation_metadata layout;
	memset(&layout, 0, sizeof(layout));
	if (!linear_layout_compute(&format, assertion->width, assertion->height, &list->sets[set_index].constraints,
	                           &layout))
		return uda_context_set_error(list->ctx, UDA_ERROR_UNSUPPORTED,
		                             "%ux%u %s does not fit the set's pitch and size limits", assertion->width,
		                             assertion->height, format.name);
	out->size = layout.size;
	out->plane_count = layout.plane_count;
	memcpy(out->planes, layout.planes, sizeof(out->planes));
	return UDA_SUCCESS;
}
