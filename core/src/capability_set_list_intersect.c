/* Intersection of two capability-set lists.
 *
 * Every set has exactly one layout capability and a pair can only survive
 * if both sets have the same layout, so `b` is indexed by layout first and
 * each set of `a` is paired only with the sets of `b` that share its
 * layout: the work is proportional to the pairs that can succeed, not to
 * |a|·|b|. Results are written straight into the output list's arrays
 * (grown geometrically, never per pair) and deduplicated through an
 * open-addressing table of set hashes. */
#include <stdlib.h>
#include <string.h>

#include "capability_set_list.h"

#define EMPTY UINT32_MAX

struct layout_index {
	uint32_t mask;
	uint32_t *heads; /* slot -> first set of b with that layout, or EMPTY */
	uint32_t *next;  /* set of b -> next set of b with the same layout */
};

struct dedup_table {
	uint32_t mask;
	uint32_t count;
	uint32_t *slots; /* set index in the result, or EMPTY */
	bool owns_slots; /* false while slots live in the shared scratch block */
};

static uint32_t table_size_for(uint32_t count)
{
	uint32_t size = 16;
	while (size < count * 2u)
		size <<= 1;
	return size;
}

static const struct uda_capability_record *layout_of(const uda_capability_set_list *list,
                                                     const struct uda_capability_set_record *set)
{
	return &list->caps[set->cap_first + set->layout_index];
}

/* `heads` must hold table_size_for(b->set_count) slots and `next`
 * b->set_count entries. */
static void layout_index_build(struct layout_index *index, uint32_t *heads, uint32_t *next,
                               const uda_capability_set_list *b)
{
	uint32_t size = table_size_for(b->set_count);
	index->mask = size - 1;
	index->heads = heads;
	index->next = next;
	memset(index->heads, 0xff, sizeof(uint32_t) * size);
	/* Walking b backwards and pushing to the front leaves every chain in
	 * b's order of preference. */
	for (uint32_t j = b->set_count; j-- > 0;) {
		const struct uda_capability_record *layout = layout_of(b, &b->sets[j]);
		uint32_t slot = (uint32_t)layout->hash & index->mask;
		for (;;) {
			uint32_t head = index->heads[slot];
			if (head == EMPTY) {
				index->next[j] = EMPTY;
				index->heads[slot] = j;
				break;
			}
			const struct uda_capability_record *other = layout_of(b, &b->sets[head]);
			if (capability_key_compare(capability_payload(b, layout), layout, capability_payload(b, other),
			                           other) == 0) {
				index->next[j] = head;
				index->heads[slot] = j;
				break;
			}
			slot = (slot + 1) & index->mask;
		}
	}
}

static uint32_t layout_index_find(const struct layout_index *index, const uda_capability_set_list *b,
                                  const uda_capability_set_list *a, const struct uda_capability_record *layout)
{
	uint32_t slot = (uint32_t)layout->hash & index->mask;
	for (;;) {
		uint32_t head = index->heads[slot];
		if (head == EMPTY)
			return EMPTY;
		const struct uda_capability_record *other = layout_of(b, &b->sets[head]);
		if (capability_key_compare(capability_payload(a, layout), layout, capability_payload(b, other),
		                           other) == 0)
			return head;
		slot = (slot + 1) & index->mask;
	}
}

/* Appends one capability (payload copied) to the result's pools, which
 * have been reserved for the whole pair beforehand. */
static void emit(uda_capability_set_list *out, const uda_capability_set_list *src,
                 const struct uda_capability_record *cap, uint32_t flags)
{
	struct uda_capability_record *dst = &out->caps[out->cap_count++];
	*dst = *cap;
	dst->flags = flags;
	dst->payload_offset = out->payload_size;
	if (cap->length)
		memcpy(out->payload + out->payload_size, capability_payload(src, cap), cap->length);
	out->payload_size += cap->length;
}

/* Writes the intersection of sets sa and sb at the end of `out` (not yet
 * counted in out->set_count). Returns false if the pair fails; the caller
 * then rolls the pools back. */
static bool intersect_pair(uda_capability_set_list *out, const uda_capability_set_list *a,
                           const struct uda_capability_set_record *sa, const uda_capability_set_list *b,
                           const struct uda_capability_set_record *sb)
{
	struct uda_capability_set_record *set = &out->sets[out->set_count];
	set->constraints = sa->constraints;
	if (!uda_constraint_values_merge(&set->constraints, &sb->constraints))
		return false;

	set->cap_first = out->cap_count;
	const struct uda_capability_record *ca = &a->caps[sa->cap_first];
	const struct uda_capability_record *cb = &b->caps[sb->cap_first];
	uint32_t i = 0, j = 0;

	/* Shared capabilities: intersection of the two sorted non-LOCAL runs. */
	while (i < sa->local_first || j < sb->local_first) {
		int order;
		if (i == sa->local_first)
			order = 1;
		else if (j == sb->local_first)
			order = -1;
		else
			order = capability_key_compare(capability_payload(a, &ca[i]), &ca[i],
			                               capability_payload(b, &cb[j]), &cb[j]);
		if (order == 0) {
			emit(out, a, &ca[i], ca[i].flags | cb[j].flags);
			i++;
			j++;
		} else if (order < 0) {
			if (ca[i].flags & UDA_CAPABILITY_FLAG_REQUIRED)
				return false;
			i++;
		} else {
			if (cb[j].flags & UDA_CAPABILITY_FLAG_REQUIRED)
				return false;
			j++;
		}
	}
	/* LOCAL capabilities: union of the two sorted LOCAL runs. */
	while (i < sa->cap_count || j < sb->cap_count) {
		int order;
		if (i == sa->cap_count)
			order = 1;
		else if (j == sb->cap_count)
			order = -1;
		else
			order = capability_key_compare(capability_payload(a, &ca[i]), &ca[i],
			                               capability_payload(b, &cb[j]), &cb[j]);
		if (order == 0) {
			emit(out, a, &ca[i], ca[i].flags | cb[j].flags);
			i++;
			j++;
		} else if (order < 0) {
			emit(out, a, &ca[i], ca[i].flags);
			i++;
		} else {
			emit(out, b, &cb[j], cb[j].flags);
			j++;
		}
	}
	set->cap_count = out->cap_count - set->cap_first;
	/* LOCAL capabilities of both sides add up. A set over the limit could
	 * not be serialized or rebuilt through a builder, so the pair fails
	 * like any other impossible merge. */
	if (set->cap_count > UDA_MAX_CAPABILITIES_PER_SET)
		return false;
	const char *why;
	return capability_set_finish(out, set, &why);
}

static void dedup_init(struct dedup_table *table, uint32_t *slots, uint32_t size)
{
	memset(slots, 0xff, sizeof(uint32_t) * size);
	table->slots = slots;
	table->mask = size - 1;
	table->count = 0;
	table->owns_slots = false;
}

static bool dedup_grow(struct dedup_table *table, const uda_capability_set_list *out)
{
	uint32_t size = (table->mask + 1) * 2;
	uint32_t *slots = malloc(sizeof(uint32_t) * size);
	if (!slots)
		return false;
	memset(slots, 0xff, sizeof(uint32_t) * size);
	for (uint32_t i = 0; i <= table->mask; i++) {
		uint32_t index = table->slots[i];
		if (index == EMPTY)
			continue;
		uint32_t slot = (uint32_t)out->sets[index].hash & (size - 1);
		while (slots[slot] != EMPTY)
			slot = (slot + 1) & (size - 1);
		slots[slot] = index;
	}
	if (table->owns_slots)
		free(table->slots);
	table->slots = slots;
	table->mask = size - 1;
	table->owns_slots = true;
	return true;
}

/* Inserts the set just written at out->sets[out->set_count] unless an
 * equal one is already in the result. Returns false only when growing the
 * table fails; *duplicate tells which case happened. */
static bool dedup_insert(struct dedup_table *table, const uda_capability_set_list *out, bool *duplicate)
{
	if ((table->count + 1) * 2 > table->mask + 1 && !dedup_grow(table, out))
		return false;
	const struct uda_capability_set_record *set = &out->sets[out->set_count];
	uint32_t slot = (uint32_t)set->hash & table->mask;
	for (;;) {
		uint32_t index = table->slots[slot];
		if (index == EMPTY)
			break;
		if (capability_sets_equal(out, &out->sets[index], out, set)) {
			*duplicate = true;
			return true;
		}
		slot = (slot + 1) & table->mask;
	}
	table->slots[slot] = out->set_count;
	table->count++;
	*duplicate = false;
	return true;
}

uda_result uda_capability_set_list_intersect(const uda_capability_set_list *a, const uda_capability_set_list *b,
                                             uda_capability_set_list **out_result)
{
	if (!a || !b)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(a->ctx, out_result);
	UDA_CHECK_ARG(a->ctx, a->ctx == b->ctx);

	uda_capability_set_list *out;
	uda_result result = capability_set_list_new(a->ctx, &out);
	if (result != UDA_SUCCESS)
		return result;
	if (a->set_count == 0 || b->set_count == 0) {
		*out_result = out;
		return UDA_SUCCESS;
	}

	/* One scratch block for the layout index of b and the first dedup
	 * table: small negotiations pay for one allocation, not two. */
	uint32_t expected = a->set_count > b->set_count ? a->set_count : b->set_count;
	uint32_t index_size = table_size_for(b->set_count);
	uint32_t dedup_size = table_size_for(expected);
	uint32_t *scratch = malloc(sizeof(uint32_t) * ((size_t)index_size + b->set_count + dedup_size));
	struct layout_index index;
	struct dedup_table dedup = {0};
	if (!scratch || !list_reserve(out, expected, expected * 4, expected * 16))
		goto out_of_memory;
	layout_index_build(&index, scratch, scratch + index_size, b);
	dedup_init(&dedup, scratch + index_size + b->set_count, dedup_size);

	for (uint32_t i = 0; i < a->set_count; i++) {
		const struct uda_capability_set_record *sa = &a->sets[i];
		for (uint32_t j = layout_index_find(&index, b, a, layout_of(a, sa)); j != EMPTY; j = index.next[j]) {
			const struct uda_capability_set_record *sb = &b->sets[j];
			if (out->set_count >= UDA_MAX_SETS_PER_LIST) {
				result = uda_context_set_error(a->ctx, UDA_ERROR_OVERFLOW,
				                               "intersection exceeds %u sets", UDA_MAX_SETS_PER_LIST);
				goto fail;
			}
			if (!list_reserve(out, 1, sa->cap_count + sb->cap_count, sa->payload_bytes + sb->payload_bytes))
				goto out_of_memory;
			uint32_t cap_mark = out->cap_count, payload_mark = out->payload_size;
			bool duplicate = false;
			if (intersect_pair(out, a, sa, b, sb)) {
				if (!dedup_insert(&dedup, out, &duplicate))
					goto out_of_memory;
				if (!duplicate) {
					out->set_count++;
					continue;
				}
			}
			out->cap_count = cap_mark;
			out->payload_size = payload_mark;
		}
	}

	if (dedup.owns_slots)
		free(dedup.slots);
	free(scratch);
	*out_result = out;
	return UDA_SUCCESS;

out_of_memory:
	result = uda_context_set_error(a->ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
fail:
	if (dedup.owns_slots)
		free(dedup.slots);
	free(scratch);
	uda_capability_set_list_destroy(out);
	return result;
}
