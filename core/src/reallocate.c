/* uda_allocation_reallocate: new memory for new usages, and the old
 * contents carried over by whichever device can read both. */
#include <stdio.h>
#include <string.h>

#include "allocation.h"
#include "capability_set_list.h"
#include "device.h"

static bool can_copy(const uda_device *device)
{
	return device->impl->version >= UDA_DEVICE_INTERFACE_VERSION_3 && device->impl->copy;
}

/* The copy on `device`, which holds one of the two allocations and
 * imports the other. */
static uda_result copy_on(uda_device *device, uda_allocation *source, uda_allocation *destination)
{
	uda_allocation *imported = NULL;
	uda_allocation *foreign = source->device != device ? source : destination;
	uda_result result = UDA_SUCCESS;
	if (foreign->device != device) {
		const uda_allocation_import_info info = {
			.type = UDA_STRUCTURE_TYPE_ALLOCATION_IMPORT_INFO,
			.allocation = foreign,
			.device = device,
		};
		result = uda_import_allocation(&info, &imported);
	}
	if (result != UDA_SUCCESS)
		return result;
	void *from = (source == foreign && imported ? imported : source)->backend.data;
	void *to = (destination == foreign && imported ? imported : destination)->backend.data;
	result = device->impl->copy(device->data, device->ctx, from, to);
	uda_allocation_destroy(imported);
	return result;
}

static uint64_t row_bytes(const uda_format_plane_info *plane, uint32_t width)
{
	const uint64_t pixels = (width + plane->horizontal_subsampling - 1) / plane->horizontal_subsampling;
	return (pixels + plane->block_width - 1) / plane->block_width * plane->bytes_per_block;
}

static uda_result copy_by_cpu(uda_allocation *source, uda_allocation *destination)
{
	if (!capability_set_is_linear(source->set, &source->set->sets[0]) ||
	    !capability_set_is_linear(destination->set, &destination->set->sets[0]))
		return uda_context_set_error(source->ctx, UDA_ERROR_UNSUPPORTED,
		                             "the CPU copies only pitch-linear layouts");
	void *from = NULL, *to = NULL;
	uda_result result = uda_allocation_map(source, UDA_ACCESS_READ, &from);
	if (result != UDA_SUCCESS)
		return result;
	result = uda_allocation_map(destination, UDA_ACCESS_WRITE, &to);
	if (result == UDA_SUCCESS)
		result = uda_allocation_begin_cpu_access(source, UDA_ACCESS_READ);
	if (result == UDA_SUCCESS)
		result = uda_allocation_begin_cpu_access(destination, UDA_ACCESS_WRITE);
	if (result == UDA_SUCCESS) {
		const uda_allocation_metadata *a = &source->backend.metadata, *b = &destination->backend.metadata;
		uda_format_info format;
		uda_format_get_info(a->format, &format);
		/* Rows are found through the metadata's planes, so each format
		 * plane needs its own on both sides. */
		if (a->plane_count != format.plane_count || b->plane_count != format.plane_count)
			result = uda_context_set_error(source->ctx, UDA_ERROR_UNSUPPORTED,
			                               "the CPU copies only layouts with a memory plane per format plane");
		for (uint32_t p = 0; result == UDA_SUCCESS && p < format.plane_count; p++) {
			const uda_format_plane_info *plane = &format.planes[p];
			const uint64_t bytes = row_bytes(plane, a->width);
			const uint32_t rows = (a->height + plane->vertical_subsampling - 1) / plane->vertical_subsampling;
			for (uint32_t y = 0; y < rows; y++)
				memcpy((uint8_t *)to + b->planes[p].offset + y * b->planes[p].pitch,
				       (const uint8_t *)from + a->planes[p].offset + y * a->planes[p].pitch, bytes);
		}
		uda_allocation_end_cpu_access(destination, UDA_ACCESS_WRITE);
		uda_allocation_end_cpu_access(source, UDA_ACCESS_READ);
	}
	if (to)
		uda_allocation_unmap(destination);
	uda_allocation_unmap(source);
	return result;
}

/* The device of either allocation that can copy (the destination's
 * first: it will be used next), else the CPU. */
static uda_result copy_contents(uda_allocation *source, uda_allocation *destination)
{
	uda_context *ctx = source->ctx;
	uda_device *candidates[2] = {destination->device, source->device};
	const uint32_t count = candidates[0] == candidates[1] ? 1 : 2;
	char first_failure[256] = "";
	for (uint32_t i = 0; i < count; i++) {
		if (!can_copy(candidates[i]))
			continue;
		uda_result result = copy_on(candidates[i], source, destination);
		if (result == UDA_SUCCESS)
			return UDA_SUCCESS;
		if (!first_failure[0])
			snprintf(first_failure, sizeof(first_failure), "%s: %s", candidates[i]->name,
			         uda_context_get_error(ctx));
	}
	uda_result result = copy_by_cpu(source, destination);
	if (result != UDA_SUCCESS)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "no device can read both allocations (%s); the CPU cannot either: %s",
		                             first_failure[0] ? first_failure : "none copies",
		                             uda_context_get_error(ctx));
	return UDA_SUCCESS;
}

uda_result uda_allocation_reallocate(uda_allocation *allocation, const uda_reallocate_info *info,
                                     uda_allocation **out_allocation)
{
	if (!allocation)
		return UDA_ERROR_INVALID_ARGUMENT;
	uda_context *ctx = allocation->ctx;
	UDA_CHECK_ARG(ctx, info && info->type == UDA_STRUCTURE_TYPE_REALLOCATE_INFO);
	UDA_CHECK_ARG(ctx, out_allocation);
	UDA_CHECK_ARG(ctx, !(info->flags & ~UDA_REALLOCATE_COPY_CONTENTS));
	const uda_assertion assertion = allocation_assertion(allocation);
	const uda_negotiation_info negotiation = {
		.type = UDA_STRUCTURE_TYPE_NEGOTIATION_INFO,
		.next = info->next,
		.assertion = &assertion,
		.device_count = info->device_count,
		.devices = info->devices,
	};
	uda_allocation *fresh;
	uda_result result = uda_negotiate_allocate(ctx, &negotiation, &fresh, NULL, NULL);
	if (result != UDA_SUCCESS)
		return result;
	fresh->has_color = allocation->has_color;
	fresh->color = allocation->color;
	if (info->flags & UDA_REALLOCATE_COPY_CONTENTS) {
		result = copy_contents(allocation, fresh);
		if (result != UDA_SUCCESS) {
			uda_allocation_destroy(fresh);
			return result;
		}
	}
	*out_allocation = fresh;
	return UDA_SUCCESS;
}
