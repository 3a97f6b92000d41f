/* Private layout of capability sets and lists.
 *
 * A list keeps its sets, their capabilities and all payload bytes in three
 * flat arrays, so that intersecting two lists touches contiguous memory and
 * allocates only when an array has to grow. Capabilities of a set are kept
 * sorted by capability_key_compare (non-LOCAL first), which makes pair
 * intersection a linear merge and set equality a linear scan. */
#ifndef UDA_CAPABILITY_SET_LIST_PRIVATE_H
#define UDA_CAPABILITY_SET_LIST_PRIVATE_H

#include "constraints.h"
#include "context.h"

struct uda_capability_record {
	uint64_t hash; /* of vendor, name, length, payload */
	uint16_t vendor;
	uint16_t name;
	uint32_t flags;
	uint32_t length;
	uint32_t payload_offset; /* into the owning list's payload pool */
	uint8_t owner_uuid[UDA_UUID_SIZE];
};

struct uda_capability_set_record {
	uint32_t cap_first; /* index of the first capability in list->caps */
	uint32_t cap_count;
	uint32_t local_first;   /* index within the set of the first LOCAL cap */
	uint32_t layout_index;  /* index within the set of the layout cap */
	uint32_t payload_bytes; /* sum of the set's payload lengths */
	uint64_t hash;          /* of everything sets_equal compares */
	struct uda_constraint_values constraints;
};

struct uda_capability_set_list {
	uda_context *ctx;
	/* The arrays live in the list's own block (capability_set_list_new_sized)
	 * until one must grow. */
	bool arrays_inline;
	struct uda_capability_set_record *sets;
	uint32_t set_count, set_capacity;
	struct uda_capability_record *caps;
	uint32_t cap_count, cap_capacity;
	uint8_t *payload;
	uint32_t payload_size, payload_capacity;
};

/* The builder holds capabilities in the same record form, payloads in a
 * pool of its own. */
struct uda_capability_set_builder {
	uda_context *ctx;
	struct uda_constraint_values constraints;
	struct uda_capability_record *caps;
	uint32_t cap_count, cap_capacity;
	uint8_t *payload;
	uint32_t payload_size, payload_capacity;
};

/* Frees what a builder holds, not the builder: for one on the stack,
 * {.ctx = ctx}, which the core's own readers use. */
void capability_set_builder_release(uda_capability_set_builder *builder);

/* NULL for an empty payload: the pool itself may not exist yet, and
 * offsetting a NULL pool is undefined behaviour. */
static inline const uint8_t *capability_payload(const struct uda_capability_set_list *list,
                                                const struct uda_capability_record *cap)
{
	return cap->length ? list->payload + cap->payload_offset : NULL;
}

static inline bool capability_is_layout(uint16_t vendor, uint16_t name)
{
	return vendor == UDA_VENDOR_NONE && (name == UDA_CAPABILITY_LAYOUT || name == UDA_CAPABILITY_LAYOUT_OPAQUE);
}

/* Total order of capabilities: non-LOCAL before LOCAL, then vendor, name,
 * length, hash, payload bytes, and for LOCAL ones the owner. Equal means
 * the same capability (flags other than LOCAL are not part of it). */
int capability_key_compare(const uint8_t *payload_a, const struct uda_capability_record *a, const uint8_t *payload_b,
                           const struct uda_capability_record *b);

/* Fills a record (hash included) from a public capability after checking
 * it; *why gets a static reason on failure. Does not copy the payload. */
bool capability_record_from_public(const uda_capability *cap, struct uda_capability_record *out, const char **why);

/* Growth helpers: make room for `extra` more elements. */
bool list_reserve(struct uda_capability_set_list *list, uint32_t extra_sets, uint32_t extra_caps,
                  uint32_t extra_payload);

/* Computes set->hash from its capabilities and constraints. */
uint64_t capability_set_hash(const struct uda_capability_set_list *list, const struct uda_capability_set_record *set);

bool capability_sets_equal(const struct uda_capability_set_list *la, const struct uda_capability_set_record *a,
                           const struct uda_capability_set_list *lb, const struct uda_capability_set_record *b);

/* Validates a set's shape (exactly one layout, consistent constraints) and
 * sets its local_first, layout_index and hash. *why on failure. */
bool capability_set_finish(const struct uda_capability_set_list *list, struct uda_capability_set_record *set,
                           const char **why);

/* The DRM modifier of a set's LAYOUT capability; false for LAYOUT_OPAQUE. */
bool capability_set_layout_modifier(const struct uda_capability_set_list *list,
                                    const struct uda_capability_set_record *set, uint64_t *out_modifier);

/* Whether the set's layout is LAYOUT with DRM_FORMAT_MOD_LINEAR. */
bool capability_set_is_linear(const struct uda_capability_set_list *list,
                              const struct uda_capability_set_record *set);

/* Whether the set carries a (non-LOCAL) HANDLE capability: memory of it
 * can reach another device. */
bool capability_set_names_a_handle(const struct uda_capability_set_list *list,
                                   const struct uda_capability_set_record *set);

uda_result capability_set_list_new(uda_context *ctx, uda_capability_set_list **out);

/* A list made as one block with room for `sets` sets, `caps`
 * capabilities and `payload` payload bytes: what a list whose size is
 * known when it is made (a copy, an allocation's one set) needs, in one
 * malloc instead of four. Appending past the room moves the arrays out. */
uda_result capability_set_list_new_sized(uda_context *ctx, uint32_t sets, uint32_t caps, uint32_t payload,
                                         uda_capability_set_list **out);

/* A new one-block list holding a copy of set `set_index` of `list`. */
uda_result capability_set_list_copy_set(const uda_capability_set_list *list, uint32_t set_index,
                                       uda_capability_set_list **out);

/* Makes `owner_uuid` the owner of every LOCAL capability of the list: a
 * device owns the LOCAL capabilities it reports, whatever they said. */
void capability_set_list_tag_local(uda_capability_set_list *list, const uint8_t owner_uuid[UDA_UUID_SIZE]);

/* Removes, in place, every LOCAL capability whose owner is not
 * `owner_uuid`. */
void capability_set_list_keep_local_of(uda_capability_set_list *list, const uint8_t owner_uuid[UDA_UUID_SIZE]);

/* Whether two sets of the list are equal; if so, sets an error with
 * result `fail` naming the later set and the earlier one it repeats.
 * Expected linear time: a hash table of set hashes, every match confirmed
 * by a full comparison. */
uda_result capability_set_list_check_unique(const uda_capability_set_list *list, uda_result fail);

/* Removes, in place, every set equal to an earlier one (the first of
 * equal sets stays, in its place in the order). Fails only for memory. */
uda_result capability_set_list_remove_duplicates(uda_capability_set_list *list);

/* Removes, in place, the sets for which keep() is false. */
void capability_set_list_filter(uda_capability_set_list *list,
                                bool (*keep)(const struct uda_capability_set_record *set, const void *data),
                                const void *data);

#endif
