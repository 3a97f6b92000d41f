/* uda_device_get_formats: which formats of the table a device accepts for
 * a usage, asked one format at a time through the device's own answers. */
#include <string.h>

#include "capability_set_list.h"
#include "device.h"
#include "request.h"

#define PROBE_SIZE 64u

/* Fills `support` from the device's sets for `fourcc`; false if it has none. */
static bool probe_format(uda_device *device, const uda_usage *usage, uint32_t fourcc, uda_format_support *support)
{
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, PROBE_SIZE, PROBE_SIZE, fourcc, 0};
	uda_capability_set_list *sets;
	if (uda_device_query_capability_sets(device, &assertion, usage, &sets) != UDA_SUCCESS)
		return false;
	memset(support, 0, sizeof(*support));
	support->fourcc = fourcc;
	for (uint32_t s = 0; s < sets->set_count; s++) {
		uint64_t modifier;
		if (!capability_set_layout_modifier(sets, &sets->sets[s], &modifier)) {
			support->opaque_layout = true;
			continue;
		}
		bool seen = false;
		for (uint32_t i = 0; i < support->modifier_count && !seen; i++)
			seen = support->modifiers[i] == modifier;
		if (!seen && support->modifier_count < UDA_MAX_FORMAT_MODIFIERS)
			support->modifiers[support->modifier_count++] = modifier;
	}
	uda_capability_set_list_destroy(sets);
	return true;
}

uda_result uda_device_get_formats(uda_device *device, const uda_usage *usage, uint32_t *count,
                                  uda_format_support *formats)
{
	if (!uda_device_is_live(device))
		return UDA_ERROR_INVALID_ARGUMENT;
	uda_context *ctx = device->ctx;
	UDA_CHECK_ARG(ctx, count);
	uda_result result = uda_usage_validate(ctx, usage);
	if (result != UDA_SUCCESS)
		return result;
	uint32_t table_count = 0;
	uda_format_enumerate(&table_count, NULL);
	uint32_t fourccs[256];
	if (table_count > 256)
		table_count = 256;
	uda_format_enumerate(&table_count, fourccs);

	const uint32_t capacity = formats ? *count : 0;
	uint32_t found = 0;
	for (uint32_t i = 0; i < table_count; i++) {
		uda_format_support support;
		if (!probe_format(device, usage, fourccs[i], &support))
			continue;
		if (formats && found < capacity)
			formats[found] = support;
		found++;
	}
	if (formats && found > capacity) {
		*count = capacity;
		return uda_context_set_error(ctx, UDA_ERROR_BUFFER_TOO_SMALL, "an array of %u formats, the device has %u",
		                             capacity, found);
	}
	*count = found;
	return UDA_SUCCESS;
}
