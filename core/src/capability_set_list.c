#include <drm_fourcc.h>
#include <stdlib.h>
#include <string.h>

#include "capability_set_list.h"
#include "hash.h"

uda_result capability_set_list_new(uda_context *ctx, uda_capability_set_list **out)
{
	uda_capability_set_list *list = calloc(1, sizeof(*list));
	if (!list)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	list->ctx = ctx;
	*out = list;
	return UDA_SUCCESS;
}

static size_t align_up(size_t size)
{
	const size_t alignment = _Alignof(struct uda_capability_set_record);
	return (size + alignment - 1) / alignment * alignment;
}

uda_result capability_set_list_new_sized(uda_context *ctx, uint32_t sets, uint32_t caps, uint32_t payload,
                                         uda_capability_set_list **out)
{
	_Static_assert(_Alignof(struct uda_capability_record) <= _Alignof(struct uda_capability_set_record),
	               "one alignment serves both record arrays");
	if (sets > UDA_MAX_SETS_PER_LIST || caps > UINT32_MAX / 2 / sizeof(struct uda_capability_record) ||
	    payload > UINT32_MAX / 2)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	const size_t sets_at = align_up(sizeof(uda_capability_set_list));
	const size_t caps_at = align_up(sets_at + (size_t)sets * sizeof(struct uda_capability_set_record));
	const size_t payload_at = caps_at + (size_t)caps * sizeof(struct uda_capability_record);
	uint8_t *block = malloc(payload_at + payload);
	if (!block)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	uda_capability_set_list *list = (uda_capability_set_list *)block;
	*list = (uda_capability_set_list){
		.ctx = ctx,
		.arrays_inline = true,
		.sets = sets ? (struct uda_capability_set_record *)(block + sets_at) : NULL,
		.set_capacity = sets,
		.caps = caps ? (struct uda_capability_record *)(block + caps_at) : NULL,
		.cap_capacity = caps,
		.payload = payload ? block + payload_at : NULL,
		.payload_capacity = payload,
	};
	*out = list;
	return UDA_SUCCESS;
}

/* A block of its own holding an inline array's `capacity` elements, of
 * which `count` are in use. */
static void *array_out_of_block(const void *array, uint32_t count, uint32_t capacity, size_t element_size)
{
	void *moved = malloc((capacity ? capacity : 1) * element_size);
	if (moved && count)
		memcpy(moved, array, count * element_size);
	return moved;
}

/* Gives an inline list's arrays blocks of their own, which can then grow. */
static bool detach_arrays(struct uda_capability_set_list *list)
{
	void *sets = array_out_of_block(list->sets, list->set_count, list->set_capacity, sizeof(*list->sets));
	void *caps = array_out_of_block(list->caps, list->cap_count, list->cap_capacity, sizeof(*list->caps));
	void *payload = array_out_of_block(list->payload, list->payload_size, list->payload_capacity, 1);
	if (!sets || !caps || !payload) {
		free(sets);
		free(caps);
		free(payload);
		return false;
	}
	list->sets = sets;
	list->caps = caps;
	list->payload = payload;
	list->arrays_inline = false;
	return true;
}

bool capability_set_layout_modifier(const struct uda_capability_set_list *list,
                                    const struct uda_capability_set_record *set, uint64_t *out_modifier)
{
	const struct uda_capability_record *layout = &list->caps[set->cap_first + set->layout_index];
	if (layout->name != UDA_CAPABILITY_LAYOUT)
		return false;
	const uint8_t *p = capability_payload(list, layout);
	uint64_t modifier = 0;
	for (int i = 0; i < 8; i++)
		modifier |= (uint64_t)p[i] << (8 * i);
	*out_modifier = modifier;
	return true;
}

bool capability_set_is_linear(const struct uda_capability_set_list *list, const struct uda_capability_set_record *set)
{
	uint64_t modifier;
	return capability_set_layout_modifier(list, set, &modifier) && modifier == DRM_FORMAT_MOD_LINEAR;
}

bool capability_set_names_a_handle(const struct uda_capability_set_list *list,
                                   const struct uda_capability_set_record *set)
{
	for (uint32_t i = 0; i < set->local_first; i++) {
		const struct uda_capability_record *cap = &list->caps[set->cap_first + i];
		if (cap->vendor == UDA_VENDOR_NONE && cap->name == UDA_CAPABILITY_HANDLE)
			return true;
	}
	return false;
}

uda_result uda_capability_set_list_create(uda_context *ctx, uda_capability_set_list **out_list)
{
	if (!ctx)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(ctx, out_list);
	return capability_set_list_new(ctx, out_list);
}

void uda_capability_set_list_destroy(uda_capability_set_list *list)
{
	if (!list)
		return;
	if (!list->arrays_inline) {
		free(list->sets);
		free(list->caps);
		free(list->payload);
	}
	free(list);
}

static bool grow(void **array, uint32_t *capacity, uint64_t needed, size_t element_size)
{
	if (needed <= *capacity)
		return true;
	if (needed > UINT32_MAX / 2)
		return false;
	/* A new array takes what is asked (at least a few elements): most
	 * lists hold one set, the copy an allocation keeps, and a block past
	 * malloc's small-size caches costs more than the copy itself. */
	uint64_t new_capacity = *capacity ? *capacity : (needed < 4 ? 4 : needed);
	while (new_capacity < needed)
		new_capacity *= 2;
	void *grown = realloc(*array, (size_t)new_capacity * element_size);
	if (!grown)
		return false;
	*array = grown;
	*capacity = (uint32_t)new_capacity;
	return true;
}

bool list_reserve(struct uda_capability_set_list *list, uint32_t extra_sets, uint32_t extra_caps,
                  uint32_t extra_payload)
{
	if (list->arrays_inline && ((uint64_t)list->set_count + extra_sets > list->set_capacity ||
	                            (uint64_t)list->cap_count + extra_caps > list->cap_capacity ||
	                            (uint64_t)list->payload_size + extra_payload > list->payload_capacity) &&
	    !detach_arrays(list))
		return false;
	return grow((void **)&list->sets, &list->set_capacity, (uint64_t)list->set_count + extra_sets,
	            sizeof(*list->sets)) &&
	       grow((void **)&list->caps, &list->cap_capacity, (uint64_t)list->cap_count + extra_caps,
	            sizeof(*list->caps)) &&
	       grow((void **)&list->payload, &list->payload_capacity, (uint64_t)list->payload_size + extra_payload, 1);
}

uint64_t capability_set_hash(const struct uda_capability_set_list *list, const struct uda_capability_set_record *set)
{
	uint64_t h = uda_hash_mix(UDA_HASH_SEED, set->constraints.present);
	for (uda_constraint_mask m = set->constraints.present; m; m &= m - 1)
		h = uda_hash_mix(h, set->constraints.value[__builtin_ctz(m)]);
	for (uint32_t i = 0; i < set->cap_count; i++) {
		const struct uda_capability_record *cap = &list->caps[set->cap_first + i];
		h = uda_hash_mix(h, cap->hash ^ ((uint64_t)cap->flags << 32));
		if (cap->flags & UDA_CAPABILITY_FLAG_LOCAL)
			h = uda_hash_bytes(h, cap->owner_uuid, UDA_UUID_SIZE);
	}
	return h;
}

bool capability_sets_equal(const struct uda_capability_set_list *la, const struct uda_capability_set_record *a,
                           const struct uda_capability_set_list *lb, const struct uda_capability_set_record *b)
{
	if (a->hash != b->hash || a->cap_count != b->cap_count || a->constraints.present != b->constraints.present)
		return false;
	for (uda_constraint_mask m = a->constraints.present; m; m &= m - 1) {
		int c = __builtin_ctz(m);
		if (a->constraints.value[c] != b->constraints.value[c])
			return false;
	}
	for (uint32_t i = 0; i < a->cap_count; i++) {
		const struct uda_capability_record *ca = &la->caps[a->cap_first + i];
		const struct uda_capability_record *cb = &lb->caps[b->cap_first + i];
		if (ca->flags != cb->flags ||
		    capability_key_compare(capability_payload(la, ca), ca, capability_payload(lb, cb), cb) != 0)
			return false;
	}
	return true;
}

bool capability_set_finish(const struct uda_capability_set_list *list, struct uda_capability_set_record *set,
                           const char **why)
{
	uint32_t layouts = 0;
	set->local_first = set->cap_count;
	set->payload_bytes = 0;
	for (uint32_t i = 0; i < set->cap_count; i++) {
		const struct uda_capability_record *cap = &list->caps[set->cap_first + i];
		if ((cap->flags & UDA_CAPABILITY_FLAG_LOCAL) && set->local_first == set->cap_count)
			set->local_first = i;
		if (capability_is_layout(cap->vendor, cap->name)) {
			layouts++;
			set->layout_index = i;
		}
		set->payload_bytes += cap->length;
	}
	if (layouts != 1) {
		*why = layouts ? "a set has more than one layout capability" : "a set has no layout capability";
		return false;
	}
	if (!uda_constraint_values_consistent(&set->constraints, why))
		return false;
	set->hash = capability_set_hash(list, set);
	return true;
}

/* Insertion sort: sets hold a few capabilities, and it needs no
 * comparison context (qsort_r is not portable). */
static void sort_set_capabilities(struct uda_capability_set_list *list, struct uda_capability_set_record *set)
{
	/* An empty set may come with no capability array at all. */
	if (set->cap_count < 2)
		return;
	struct uda_capability_record *caps = &list->caps[set->cap_first];
	for (uint32_t i = 1; i < set->cap_count; i++) {
		struct uda_capability_record key = caps[i];
		uint32_t j = i;
		while (j > 0 && capability_key_compare(capability_payload(list, &caps[j - 1]), &caps[j - 1],
		                                       capability_payload(list, &key), &key) > 0) {
			caps[j] = caps[j - 1];
			j--;
		}
		caps[j] = key;
	}
}

uda_result uda_capability_set_list_append_set(uda_capability_set_list *list, const uda_capability_set_builder *builder)
{
	if (!list)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(list->ctx, builder);
	UDA_CHECK_ARG(list->ctx, builder->ctx == list->ctx);
	if (list->set_count >= UDA_MAX_SETS_PER_LIST)
		return uda_context_set_error(list->ctx, UDA_ERROR_OVERFLOW, "a list holds at most %u sets",
		                             UDA_MAX_SETS_PER_LIST);
	if (!list_reserve(list, 1, builder->cap_count, builder->payload_size))
		return uda_context_set_error(list->ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");

	struct uda_capability_set_record *set = &list->sets[list->set_count];
	memset(set, 0, sizeof(*set));
	set->cap_first = list->cap_count;
	set->cap_count = builder->cap_count;
	set->constraints = builder->constraints;
	for (uint32_t i = 0; i < builder->cap_count; i++) {
		struct uda_capability_record cap = builder->caps[i];
		if (cap.length)
			memcpy(list->payload + list->payload_size + cap.payload_offset,
			       builder->payload + cap.payload_offset, cap.length);
		cap.payload_offset += list->payload_size;
		list->caps[set->cap_first + i] = cap;
	}
	sort_set_capabilities(list, set);

	const char *why;
	if (!capability_set_finish(list, set, &why))
		return uda_context_set_error(list->ctx, UDA_ERROR_INVALID_ARGUMENT, "invalid capability set: %s", why);
	list->cap_count += builder->cap_count;
	list->payload_size += builder->payload_size;
	list->set_count++;
	return UDA_SUCCESS;
}

uda_result uda_capability_set_list_append_copy(uda_capability_set_list *list, const uda_capability_set_list *source,
                                               uint32_t set_index)
{
	if (!list)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(list->ctx, source && source->ctx == list->ctx);
	if (set_index >= source->set_count)
		return uda_context_set_error(list->ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "set index %u out of range (list holds %u)", set_index, source->set_count);
	if (list->set_count >= UDA_MAX_SETS_PER_LIST)
		return uda_context_set_error(list->ctx, UDA_ERROR_OVERFLOW, "a list holds at most %u sets",
		                             UDA_MAX_SETS_PER_LIST);
	/* A copy of the record, not a pointer: when list == source, reserving
	 * may move the very array the record lives in. The capabilities and
	 * payloads are read through `source` after reserving, so they are
	 * found where the arrays are now. */
	const struct uda_capability_set_record src = source->sets[set_index];
	if (!list_reserve(list, 1, src.cap_count, src.payload_bytes))
		return uda_context_set_error(list->ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	struct uda_capability_set_record *set = &list->sets[list->set_count++];
	*set = src;
	set->cap_first = list->cap_count;
	for (uint32_t i = 0; i < src.cap_count; i++) {
		struct uda_capability_record cap = source->caps[src.cap_first + i];
		if (cap.length)
			memcpy(list->payload + list->payload_size, capability_payload(source, &cap), cap.length);
		cap.payload_offset = list->payload_size;
		list->payload_size += cap.length;
		list->caps[list->cap_count++] = cap;
	}
	return UDA_SUCCESS;
}

uda_result capability_set_list_copy_set(const uda_capability_set_list *list, uint32_t set_index,
                                       uda_capability_set_list **out)
{
	if (set_index >= list->set_count)
		return uda_context_set_error(list->ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "set index %u out of range (list holds %u)", set_index, list->set_count);
	const struct uda_capability_set_record *set = &list->sets[set_index];
	uda_capability_set_list *copy;
	uda_result result = capability_set_list_new_sized(list->ctx, 1, set->cap_count, set->payload_bytes, &copy);
	if (result != UDA_SUCCESS)
		return result;
	result = uda_capability_set_list_append_copy(copy, list, set_index);
	if (result != UDA_SUCCESS) {
		uda_capability_set_list_destroy(copy);
		return result;
	}
	*out = copy;
	return UDA_SUCCESS;
}

uda_result uda_capability_set_list_copy(const uda_capability_set_list *list, uda_capability_set_list **out_copy)
{
	if (!list)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(list->ctx, out_copy);
	uda_capability_set_list *copy = NULL;
	uda_result result =
		capability_set_list_new_sized(list->ctx, list->set_count, list->cap_count, list->payload_size, &copy);
	if (result != UDA_SUCCESS)
		return result;
	if (list->set_count)
		memcpy(copy->sets, list->sets, list->set_count * sizeof(*list->sets));
	if (list->cap_count)
		memcpy(copy->caps, list->caps, list->cap_count * sizeof(*list->caps));
	if (list->payload_size)
		memcpy(copy->payload, list->payload, list->payload_size);
	copy->set_count = list->set_count;
	copy->cap_count = list->cap_count;
	copy->payload_size = list->payload_size;
	*out_copy = copy;
	return UDA_SUCCESS;
}

uda_result uda_capability_set_list_get_count(const uda_capability_set_list *list, uint32_t *out_count)
{
	if (!list)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(list->ctx, out_count);
	*out_count = list->set_count;
	return UDA_SUCCESS;
}

static uda_result check_set_index(const uda_capability_set_list *list, uint32_t set_index)
{
	if (set_index >= list->set_count)
		return uda_context_set_error(list->ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "set index %u out of range (list holds %u)", set_index, list->set_count);
	return UDA_SUCCESS;
}

uda_result uda_capability_set_list_get_constraint(const uda_capability_set_list *list, uint32_t set_index,
                                                  uda_constraint constraint, bool *out_present, uint64_t *out_value)
{
	if (!list)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(list->ctx, out_present && out_value);
	UDA_CHECK_ARG(list->ctx, (unsigned)constraint < UDA_CONSTRAINT_COUNT);
	uda_result result = check_set_index(list, set_index);
	if (result != UDA_SUCCESS)
		return result;
	const struct uda_constraint_values *values = &list->sets[set_index].constraints;
	*out_present = (values->present & (1u << constraint)) != 0;
	if (*out_present)
		*out_value = values->value[constraint];
	return UDA_SUCCESS;
}

uda_result uda_capability_set_list_get_capability_count(const uda_capability_set_list *list, uint32_t set_index,
                                                        uint32_t *out_count)
{
	if (!list)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(list->ctx, out_count);
	uda_result result = check_set_index(list, set_index);
	if (result != UDA_SUCCESS)
		return result;
	*out_count = list->sets[set_index].cap_count;
	return UDA_SUCCESS;
}

static void capability_to_public(const uda_capability_set_list *list, const struct uda_capability_record *cap,
                                 uda_capability *out)
{
	memset(out, 0, sizeof(*out));
	out->vendor = cap->vendor;
	out->name = cap->name;
	out->flags = cap->flags;
	out->length = cap->length;
	out->payload = cap->length ? capability_payload(list, cap) : NULL;
	memcpy(out->owner_uuid, cap->owner_uuid, UDA_UUID_SIZE);
}

uda_result uda_capability_set_list_get_capability(const uda_capability_set_list *list, uint32_t set_index,
                                                  uint32_t capability_index, uda_capability *out_capability)
{
	if (!list)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(list->ctx, out_capability);
	uda_result result = check_set_index(list, set_index);
	if (result != UDA_SUCCESS)
		return result;
	const struct uda_capability_set_record *set = &list->sets[set_index];
	if (capability_index >= set->cap_count)
		return uda_context_set_error(list->ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "capability index %u out of range (set holds %u)", capability_index,
		                             set->cap_count);
	capability_to_public(list, &list->caps[set->cap_first + capability_index], out_capability);
	return UDA_SUCCESS;
}

uda_result uda_capability_set_list_get_layout(const uda_capability_set_list *list, uint32_t set_index,
                                              uda_capability *out_capability)
{
	if (!list)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(list->ctx, out_capability);
	uda_result result = check_set_index(list, set_index);
	if (result != UDA_SUCCESS)
		return result;
	const struct uda_capability_set_record *set = &list->sets[set_index];
	capability_to_public(list, &list->caps[set->cap_first + set->layout_index], out_capability);
	return UDA_SUCCESS;
}

uda_result uda_capability_set_list_get_modifier(const uda_capability_set_list *list, uint32_t set_index,
                                                uint64_t *out_modifier)
{
	if (!list)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(list->ctx, out_modifier);
	uda_result result = check_set_index(list, set_index);
	if (result != UDA_SUCCESS)
		return result;
	if (!capability_set_layout_modifier(list, &list->sets[set_index], out_modifier))
		*out_modifier = DRM_FORMAT_MOD_INVALID;
	return UDA_SUCCESS;
}

uda_result uda_capability_set_list_sets_equal(const uda_capability_set_list *a, uint32_t a_index,
                                              const uda_capability_set_list *b, uint32_t b_index, bool *out_equal)
{
	if (!a || !b)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(a->ctx, out_equal);
	uda_result result = check_set_index(a, a_index);
	if (result == UDA_SUCCESS)
		result = check_set_index(b, b_index);
	if (result != UDA_SUCCESS)
		return result;
	*out_equal = capability_sets_equal(a, &a->sets[a_index], b, &b->sets[b_index]);
	return UDA_SUCCESS;
}

void capability_set_list_tag_local(uda_capability_set_list *list, const uint8_t owner_uuid[UDA_UUID_SIZE])
{
	for (uint32_t s = 0; s < list->set_count; s++) {
		struct uda_capability_set_record *set = &list->sets[s];
		if (set->local_first == set->cap_count)
			continue;
		struct uda_capability_record *caps = &list->caps[set->cap_first];
		for (uint32_t i = set->local_first; i < set->cap_count; i++)
			memcpy(caps[i].owner_uuid, owner_uuid, UDA_UUID_SIZE);
		/* Re-owning can make two LOCAL capabilities equal: keep one. */
		sort_set_capabilities(list, set);
		uint32_t kept = set->local_first + 1;
		for (uint32_t i = set->local_first + 1; i < set->cap_count; i++) {
			struct uda_capability_record *last = &caps[kept - 1];
			if (capability_key_compare(capability_payload(list, last), last,
			                           capability_payload(list, &caps[i]), &caps[i]) == 0)
				last->flags |= caps[i].flags;
			else
				caps[kept++] = caps[i];
		}
		set->cap_count = kept;
		const char *why;
		/* Cannot fail: layouts and constraints are untouched. */
		(void)capability_set_finish(list, set, &why);
	}
}

void capability_set_list_keep_local_of(uda_capability_set_list *list, const uint8_t owner_uuid[UDA_UUID_SIZE])
{
	for (uint32_t s = 0; s < list->set_count; s++) {
		struct uda_capability_set_record *set = &list->sets[s];
		struct uda_capability_record *caps = &list->caps[set->cap_first];
		uint32_t kept = set->local_first;
		for (uint32_t i = set->local_first; i < set->cap_count; i++) {
			if (memcmp(caps[i].owner_uuid, owner_uuid, UDA_UUID_SIZE) == 0)
				caps[kept++] = caps[i];
		}
		if (kept == set->cap_count)
			continue;
		set->cap_count = kept;
		const char *why;
		/* Cannot fail: layouts and constraints are untouched. */
		(void)capability_set_finish(list, set, &why);
	}
}

void capability_set_list_filter(uda_capability_set_list *list,
                                bool (*keep)(const struct uda_capability_set_record *set, const void *data),
                                const void *data)
{
	/* Capabilities and payloads of dropped sets stay in the pools
	 * unreferenced; compacting them is not worth the copies. */
	uint32_t kept = 0;
	for (uint32_t s = 0; s < list->set_count; s++) {
		if (keep(&list->sets[s], data))
			list->sets[kept++] = list->sets[s];
	}
	list->set_count = kept;
}

#define NO_SET UINT32_MAX

/* Walks the sets in order, keeping each one not equal to a set kept
 * before it. With `remove` the kept sets are compacted in place; without,
 * the walk stops at the first repeat. Returns the index of that repeat
 * (or NO_SET) and its earlier equal in *out_original; false only when the
 * table cannot be allocated. */
static bool scan_repeats(uda_capability_set_list *list, bool remove, uint32_t *out_repeat, uint32_t *out_original)
{
	*out_repeat = NO_SET;
	uint32_t size = 16;
	while (size < list->set_count * 2u)
		size <<= 1;
	/* Device answers are a handful of sets: no allocation for them. */
	uint32_t small[64];
	uint32_t *slots = size <= 64 ? small : malloc(sizeof(uint32_t) * size);
	if (!slots)
		return false;
	memset(slots, 0xff, sizeof(uint32_t) * size);
	uint32_t mask = size - 1, kept = 0;
	for (uint32_t s = 0; s < list->set_count; s++) {
		const struct uda_capability_set_record *set = &list->sets[s];
		uint32_t slot = (uint32_t)set->hash & mask;
		uint32_t equal = NO_SET;
		for (; slots[slot] != NO_SET; slot = (slot + 1) & mask) {
			const struct uda_capability_set_record *other = &list->sets[slots[slot]];
			if (capability_sets_equal(list, other, list, set)) {
				equal = slots[slot];
				break;
			}
		}
		if (equal != NO_SET) {
			if (!remove) {
				*out_repeat = s;
				*out_original = equal;
				break;
			}
			continue;
		}
		if (remove && kept != s)
			list->sets[kept] = *set;
		slots[slot] = kept++;
	}
	if (remove)
		list->set_count = kept;
	if (slots != small)
		free(slots);
	return true;
}

uda_result capability_set_list_check_unique(const uda_capability_set_list *list, uda_result fail)
{
	uint32_t repeat, original;
	/* Without `remove` the scan only reads the list. */
	if (!scan_repeats((uda_capability_set_list *)list, false, &repeat, &original))
		return uda_context_set_error(list->ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	if (repeat != NO_SET)
		return uda_context_set_error(list->ctx, fail, "set %u repeats set %u", repeat, original);
	return UDA_SUCCESS;
}

uda_result capability_set_list_remove_duplicates(uda_capability_set_list *list)
{
	uint32_t repeat, original;
	if (!scan_repeats(list, true, &repeat, &original))
		return uda_context_set_error(list->ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	return UDA_SUCCESS;
}
