/* Small readers that let a backend inspect the set it is asked to
 * allocate or import without knowing the list's memory layout. */
#include <string.h>

#include "capability_set_list.h"

static uint64_t constraint_or(const struct uda_constraint_values *c, uda_constraint k, uint64_t fallback)
{
	return (c->present & (1u << k)) ? c->value[k] : fallback;
}

uda_result uda_backend_get_constraint(const uda_capability_set_list *list, uint32_t set_index,
                                      uda_constraint constraint, uint64_t fallback, uint64_t *out)
{
	if (!list)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(list->ctx, out && set_index < list->set_count && (unsigned)constraint < UDA_CONSTRAINT_COUNT);
	*out = constraint_or(&list->sets[set_index].constraints, constraint, fallback);
	return UDA_SUCCESS;
}

bool uda_backend_set_has_u32(const uda_capability_set_list *list, uint32_t set_index, uda_capability_name name,
                             uint32_t value)
{
	if (!list || set_index >= list->set_count)
		return false;
	const struct uda_capability_set_record *set = &list->sets[set_index];
	for (uint32_t i = 0; i < set->local_first; i++) {
		const struct uda_capability_record *cap = &list->caps[set->cap_first + i];
		if (cap->vendor != UDA_VENDOR_NONE || cap->name != name || cap->length != 4)
			continue;
		const uint8_t *p = capability_payload(list, cap);
		if ((uint32_t)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24) == value)
			return true;
	}
	return false;
}

bool uda_backend_set_is_linear(const uda_capability_set_list *list, uint32_t set_index)
{
	return list && set_index < list->set_count && capability_set_is_linear(list, &list->sets[set_index]);
}

uint32_t uda_backend_set_required_placement(const uda_capability_set_list *list, uint32_t set_index)
{
	if (!list || set_index >= list->set_count)
		return 0;
	const struct uda_capability_set_record *set = &list->sets[set_index];
	for (uint32_t i = 0; i < set->local_first; i++) {
		const struct uda_capability_record *cap = &list->caps[set->cap_first + i];
		if (cap->vendor != UDA_VENDOR_NONE || cap->name != UDA_CAPABILITY_PLACEMENT || cap->length != 4 ||
		    !(cap->flags & UDA_CAPABILITY_FLAG_REQUIRED))
			continue;
		const uint8_t *p = capability_payload(list, cap);
		return (uint32_t)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24);
	}
	return 0;
}

uint32_t uda_backend_find_capabilities(const uda_capability_set_list *list, uint32_t set_index, uint16_t vendor,
                                       uint16_t name, const uint8_t owner_uuid[UDA_UUID_SIZE], uda_capability *out,
                                       uint32_t capacity)
{
	if (!list || set_index >= list->set_count)
		return 0;
	const struct uda_capability_set_record *set = &list->sets[set_index];
	const uint32_t first = owner_uuid ? set->local_first : 0;
	const uint32_t end = owner_uuid ? set->cap_count : set->local_first;
	uint32_t found = 0;
	for (uint32_t i = first; i < end; i++) {
		const struct uda_capability_record *cap = &list->caps[set->cap_first + i];
		if (cap->vendor != vendor || cap->name != name ||
		    (owner_uuid && memcmp(cap->owner_uuid, owner_uuid, UDA_UUID_SIZE) != 0))
			continue;
		if (out && found < capacity) {
			out[found] = (uda_capability){cap->vendor, cap->name, cap->flags, cap->length,
			                              cap->length ? capability_payload(list, cap) : NULL, {0}};
			memcpy(out[found].owner_uuid, cap->owner_uuid, UDA_UUID_SIZE);
		}
		found++;
	}
	return found;
}

bool uda_backend_find_capability(const uda_capability_set_list *list, uint32_t set_index, uint16_t vendor,
                                 uint16_t name, const uint8_t owner_uuid[UDA_UUID_SIZE], uda_capability *out)
{
	if (!list || set_index >= list->set_count || !out)
		return false;
	const struct uda_capability_set_record *set = &list->sets[set_index];
	/* Non-LOCAL capabilities come first, LOCAL ones after local_first. */
	const uint32_t first = owner_uuid ? set->local_first : 0;
	const uint32_t end = owner_uuid ? set->cap_count : set->local_first;
	for (uint32_t i = first; i < end; i++) {
		const struct uda_capability_record *cap = &list->caps[set->cap_first + i];
		if (cap->vendor != vendor || cap->name != name ||
		    (owner_uuid && memcmp(cap->owner_uuid, owner_uuid, UDA_UUID_SIZE) != 0))
			continue;
		out->vendor = cap->vendor;
		out->name = cap->name;
		out->flags = cap->flags;
		out->length = cap->length;
		out->payload = cap->length ? capability_payload(list, cap) : NULL;
		memcpy(out->owner_uuid, cap->owner_uuid, UDA_UUID_SIZE);
		return true;
	}
	return false;
}

void uda_backend_uuid_from_name(const char *name, uint8_t out_uuid[UDA_UUID_SIZE])
{
	/* FNV-1a, twice with different seeds: 128 bits, stable forever. */
	uint64_t halves[2] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull};
	for (int h = 0; h < 2; h++) {
		for (const char *c = name; c && *c; c++)
			halves[h] = (halves[h] ^ (uint8_t)*c) * 0x100000001b3ull;
		for (int i = 0; i < 8; i++)
			out_uuid[h * 8 + i] = (uint8_t)(halves[h] >> (8 * i));
	}
}
