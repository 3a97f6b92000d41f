/* Serialized form of capability-set lists (all integers little-endian):
 *
 *   u32 magic "UDAL"   u16 version (1)   u16 reserved (0)
 *   u32 total size in bytes, header included
 *   u32 set count
 *   per set:  u16 constraint count, u16 capability count
 *             per constraint: u16 id, u16 reserved (0), u64 value
 *             per capability: u16 vendor, u16 name, u32 flags, u32 length,
 *                             16-byte owner UUID if LOCAL, payload bytes
 *
 * Deserialization rebuilds each set through the builder, so serialized
 * input passes exactly the checks that sets built in-process pass. */
#include <stdlib.h>

#include "byte_io.h"
#include "capability_set_list.h"
#include "capability_set_list_serialize.h"

#define LIST_MAGIC             0x4c414455u /* "UDAL" */
#define LIST_VERSION           1u
#define LIST_HEADER_SIZE       16u
#define CONSTRAINT_RECORD_SIZE 12u
#define CAPABILITY_RECORD_SIZE 12u
#define SMALL_LIST_SIZE        1024u

static void write_set(struct byte_writer *w, const uda_capability_set_list *list,
                      const struct uda_capability_set_record *set)
{
	write_u16(w, (uint16_t)__builtin_popcount(set->constraints.present));
	write_u16(w, (uint16_t)set->cap_count);
	for (uda_constraint_mask m = set->constraints.present; m; m &= m - 1) {
		int c = __builtin_ctz(m);
		write_u16(w, (uint16_t)c);
		write_u16(w, 0);
		write_u64(w, set->constraints.value[c]);
	}
	for (uint32_t i = 0; i < set->cap_count; i++) {
		const struct uda_capability_record *cap = &list->caps[set->cap_first + i];
		write_u16(w, cap->vendor);
		write_u16(w, cap->name);
		write_u32(w, cap->flags);
		write_u32(w, cap->length);
		if (cap->flags & UDA_CAPABILITY_FLAG_LOCAL)
			write_bytes(w, cap->owner_uuid, UDA_UUID_SIZE);
		write_bytes(w, capability_payload(list, cap), cap->length);
	}
}

uda_result capability_set_list_check_writable(const uda_capability_set_list *list, uint32_t first, uint32_t count)
{
	for (uint32_t s = first; s < first + count; s++) {
		if (list->sets[s].cap_count > UDA_MAX_CAPABILITIES_PER_SET)
			return uda_context_set_error(list->ctx, UDA_ERROR_OVERFLOW,
			                             "set %u has %u capabilities, a serialized set at most %u", s,
			                             list->sets[s].cap_count, UDA_MAX_CAPABILITIES_PER_SET);
	}
	return UDA_SUCCESS;
}

void capability_set_list_write(struct byte_writer *w, const uda_capability_set_list *list, uint32_t first,
                               uint32_t count)
{
	size_t start = w->size;
	write_u32(w, LIST_MAGIC);
	write_u16(w, LIST_VERSION);
	write_u16(w, 0);
	write_u32(w, 0); /* total size, patched below */
	write_u32(w, count);
	for (uint32_t s = first; s < first + count; s++)
		write_set(w, list, &list->sets[s]);
	patch_u32(w, start + 8, (uint32_t)(w->size - start));
}

uda_result uda_capability_set_list_serialize(const uda_capability_set_list *list, void *data, size_t capacity,
                                             size_t *out_size)
{
	if (!list)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(list->ctx, out_size);
	UDA_CHECK_ARG(list->ctx, data || capacity == 0);
	uda_result result = capability_set_list_check_writable(list, 0, list->set_count);
	/* The reader refuses repeated sets; appending allows them. */
	if (result == UDA_SUCCESS)
		result = capability_set_list_check_unique(list, UDA_ERROR_INVALID_ARGUMENT);
	if (result != UDA_SUCCESS)
		return result;
	/* One pass: the writer measures whatever the buffer holds. */
	struct byte_writer w = {.data = data, .capacity = data ? capacity : 0};
	capability_set_list_write(&w, list, 0, list->set_count);
	if (w.size > UDA_MAX_SERIALIZED_SIZE)
		return uda_context_set_error(list->ctx, UDA_ERROR_OVERFLOW,
		                             "serialized list would take %zu bytes, more than %u", w.size,
		                             UDA_MAX_SERIALIZED_SIZE);
	*out_size = w.size;
	if (data && capacity < w.size)
		return uda_context_set_error(list->ctx, UDA_ERROR_BUFFER_TOO_SMALL, "buffer of %zu bytes, %zu needed",
		                             capacity, w.size);
	return UDA_SUCCESS;
}

#define INVALID(...) uda_context_set_error(ctx, UDA_ERROR_INVALID_DATA, __VA_ARGS__)

static uda_result read_set(uda_context *ctx, struct byte_reader *r, uda_capability_set_builder *builder,
                           uint32_t set_index)
{
	uint16_t constraint_count = read_u16(r);
	uint16_t cap_count = read_u16(r);
	if (r->failed)
		return INVALID("set %u: truncated header", set_index);
	if (constraint_count > UDA_CONSTRAINT_COUNT)
		return INVALID("set %u: %u constraints, at most %u exist", set_index, constraint_count,
		               UDA_CONSTRAINT_COUNT);
	if (cap_count > UDA_MAX_CAPABILITIES_PER_SET)
		return INVALID("set %u: %u capabilities, at most %u allowed", set_index, cap_count,
		               UDA_MAX_CAPABILITIES_PER_SET);
	/* Cheap plausibility check before any per-record work. */
	if ((size_t)constraint_count * CONSTRAINT_RECORD_SIZE + (size_t)cap_count * CAPABILITY_RECORD_SIZE >
	    r->size - r->offset)
		return INVALID("set %u: counts exceed the remaining %zu bytes", set_index, r->size - r->offset);

	uda_constraint_mask seen = 0;
	for (uint16_t i = 0; i < constraint_count; i++) {
		uint16_t id = read_u16(r);
		uint16_t reserved = read_u16(r);
		uint64_t value = read_u64(r);
		if (r->failed)
			return INVALID("set %u: truncated constraint", set_index);
		if (id >= UDA_CONSTRAINT_COUNT || reserved)
			return INVALID("set %u: unknown constraint %u", set_index, id);
		if (seen & (1u << id))
			return INVALID("set %u: constraint %s given twice", set_index,
			               uda_constraint_to_string((uda_constraint)id));
		seen |= 1u << id;
		if (uda_capability_set_builder_set_constraint(builder, (uda_constraint)id, value) != UDA_SUCCESS)
			return INVALID("set %u: %s", set_index, uda_context_get_error(ctx));
	}
	for (uint16_t i = 0; i < cap_count; i++) {
		uda_capability cap = {0};
		cap.vendor = read_u16(r);
		cap.name = read_u16(r);
		cap.flags = read_u32(r);
		cap.length = read_u32(r);
		if (r->failed)
			return INVALID("set %u: truncated capability", set_index);
		if (cap.length > UDA_MAX_PAYLOAD_SIZE)
			return INVALID("set %u: capability payload of %u bytes", set_index, cap.length);
		if (cap.flags & UDA_CAPABILITY_FLAG_LOCAL) {
			const uint8_t *owner = read_bytes(r, UDA_UUID_SIZE);
			if (!owner)
				return INVALID("set %u: truncated owner UUID", set_index);
			memcpy(cap.owner_uuid, owner, UDA_UUID_SIZE);
		}
		cap.payload = read_bytes(r, cap.length);
		if (r->failed)
			return INVALID("set %u: truncated payload", set_index);
		if (uda_capability_set_builder_add_capability(builder, &cap) != UDA_SUCCESS)
			return INVALID("set %u: %s", set_index, uda_context_get_error(ctx));
	}
	return UDA_SUCCESS;
}

uda_result capability_set_list_read(uda_context *ctx, struct byte_reader *r, uda_capability_set_list **out_list)
{
	size_t start = r->offset;
	uint32_t magic = read_u32(r);
	uint16_t version = read_u16(r);
	uint16_t reserved = read_u16(r);
	uint32_t total_size = read_u32(r);
	uint32_t set_count = read_u32(r);
	if (r->failed)
		return INVALID("capability-set list: truncated header");
	if (magic != LIST_MAGIC)
		return INVALID("capability-set list: bad magic 0x%08x", magic);
	if (version != LIST_VERSION || reserved)
		return INVALID("capability-set list: version %u, this library reads %u", version, LIST_VERSION);
	if (total_size < LIST_HEADER_SIZE || total_size > UDA_MAX_SERIALIZED_SIZE || total_size > r->size - start)
		return INVALID("capability-set list: size field %u does not match the %zu bytes given", total_size,
		               r->size - start);
	if (set_count > UDA_MAX_SETS_PER_LIST)
		return INVALID("capability-set list: %u sets, at most %u allowed", set_count, UDA_MAX_SETS_PER_LIST);
	/* The smallest set is 4 bytes of header, one layout capability. */
	if ((uint64_t)set_count * (4 + CAPABILITY_RECORD_SIZE + 8) > total_size - LIST_HEADER_SIZE)
		return INVALID("capability-set list: %u sets cannot fit in %u bytes", set_count, total_size);

	/* Read only within the declared size. */
	struct byte_reader body = {.data = r->data, .size = start + total_size, .offset = r->offset};
	uda_capability_set_list *list = NULL;
	uda_capability_set_builder builder = {.ctx = ctx};
	/* A small input (the one set of an allocation's metadata) gets its
	 * list in one block with room for all it can hold; a large one grows
	 * as it proves itself, rather than reserving for what it claims. */
	const uint32_t body_size = total_size - LIST_HEADER_SIZE;
	uda_result result = total_size <= SMALL_LIST_SIZE
	                            ? capability_set_list_new_sized(ctx, set_count, body_size / CAPABILITY_RECORD_SIZE,
	                                                            body_size, &list)
	                            : capability_set_list_new(ctx, &list);
	for (uint32_t s = 0; result == UDA_SUCCESS && s < set_count; s++) {
		uda_capability_set_builder_reset(&builder);
		result = read_set(ctx, &body, &builder, s);
		if (result == UDA_SUCCESS && uda_capability_set_list_append_set(list, &builder) != UDA_SUCCESS)
			result = INVALID("set %u: %s", s, uda_context_get_error(ctx));
	}
	if (result == UDA_SUCCESS && body.offset != body.size)
		result = INVALID("capability-set list: %zu trailing bytes", body.size - body.offset);
	/* No writer emits a set twice (intersection and device answers are
	 * deduplicated, serialization refuses repeats), and every copy of a
	 * set pairs with every copy on the other side of an intersection:
	 * repeats are only ever a way to make later work quadratic. */
	if (result == UDA_SUCCESS)
		result = capability_set_list_check_unique(list, UDA_ERROR_INVALID_DATA);
	capability_set_builder_release(&builder);
	if (result != UDA_SUCCESS) {
		uda_capability_set_list_destroy(list);
		return result;
	}
	r->offset = body.offset;
	*out_list = list;
	return UDA_SUCCESS;
}

uda_result uda_capability_set_list_deserialize(uda_context *ctx, const void *data, size_t size,
                                               uda_capability_set_list **out_list)
{
	if (!ctx)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(ctx, out_list);
	UDA_CHECK_ARG(ctx, data || size == 0);
	if (size > UDA_MAX_SERIALIZED_SIZE)
		return INVALID("capability-set list of %zu bytes, more than %u", size, UDA_MAX_SERIALIZED_SIZE);
	struct byte_reader r = {.data = data, .size = size};
	uda_capability_set_list *list;
	uda_result result = capability_set_list_read(ctx, &r, &list);
	if (result != UDA_SUCCESS)
		return result;
	if (r.offset != size) {
		uda_capability_set_list_destroy(list);
		return INVALID("capability-set list: %zu bytes after the list", size - r.offset);
	}
	*out_list = list;
	return UDA_SUCCESS;
}
