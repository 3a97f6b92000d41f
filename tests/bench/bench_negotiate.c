/*
 * uda-bench-negotiate: how fast uda_capability_set_list_intersect is
 * against a naive intersection in the style of the original
 * cubanismo/allocator prototype.
 *
 * For each list size |A| x |B| the benchmark generates two capability-set
 * lists from a fixed-seed PRNG (so every run sees the same data):
 *
 * - every set holds 6 capabilities: one REQUIRED LAYOUT with a modifier of
 *   its own, HANDLE, PLACEMENT and CPU_ACCESS (4-byte payloads) and two
 *   NVIDIA (0x10de) vendor capabilities with 8-16 byte payloads, drawn from
 *   small pools so that some are shared between the sides and some are not;
 *   HANDLE and one vendor capability are sometimes REQUIRED;
 * - every set holds 2-4 constraints: address and pitch alignment, and
 *   sometimes a max and/or a min pitch;
 * - min(|A|, |B|) / 2 sets of A share their layout with one set of B, the
 *   other layouts appear on one side only.
 *
 * The same generated sets feed both contenders: uda gets them through the
 * public builder API, the naive baseline keeps them as plain C structs and
 * compares every capability of every pair of sets (O(|A|·|B|·k²)),
 * deduplicating by a linear scan over the results so far. Both must
 * produce the same result sets (checked once per size, outside the timed
 * loops); if they do not, the benchmark reports an error and exits 1.
 * Timing targets are reported as PASS/MISS only: timing is noisy, so a
 * MISS never changes the exit status.
 *
 * Not a ctest test; run it by hand (see --help).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <drm_fourcc.h>
#include <uda/uda.h>

#include "bench_timing.h"

#define CAPS_PER_SET            6u
#define MAX_CONSTRAINTS_PER_SET 4u
#define MAX_BENCH_PAYLOAD       16u

#define VENDOR_NVIDIA 0x10deu
/* Vendor-private capability names; the core never interprets them. */
#define NV_CAP_PAGE_KIND   0x0001u /* 8-byte payload */
#define NV_CAP_COMPRESSION 0x0002u /* 8-16 byte payload */

#define BENCH_SEED 0x7564616265636821ull

/* Timing: batches of about BATCH_NS, until TARGET_NS have been spent and at
 * least MIN_BATCHES batches ran; the median batch gives the time per
 * negotiation. */
#define BATCH_NS      10000000ull  /* 10 ms */
#define CALIBRATE_NS  1000000ull   /* 1 ms */
#define TARGET_NS     200000000ull /* 200 ms per contender and size */
#define MIN_BATCHES   3u
#define MAX_BATCHES   1024u
#define QUICK_BATCHES 3u

/* ------------------------------------------------------------------------ */
/* PRNG: splitmix64, fixed seed                                              */

struct prng {
	uint64_t state;
};

static uint64_t prng_next(struct prng *p)
{
	uint64_t z = (p->state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform enough for the tiny ranges used here. */
static uint32_t prng_below(struct prng *p, uint32_t n)
{
	return (uint32_t)(prng_next(p) % n);
}

static void shuffle_u32(struct prng *p, uint32_t *v, uint32_t n)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = prng_below(p, i);
		uint32_t t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

/* ------------------------------------------------------------------------ */
/* Generated data, as plain C structs (the naive baseline's input)           */

struct bench_cap {
	uint16_t vendor;
	uint16_t name;
	uint32_t flags;
	uint32_t length;
	uint8_t payload[MAX_BENCH_PAYLOAD];
};

struct bench_constraint {
	uint32_t type; /* uda_constraint */
	uint64_t value;
};

struct bench_set {
	uint32_t cap_count;
	struct bench_cap caps[CAPS_PER_SET];
	uint32_t constraint_count;
	struct bench_constraint constraints[MAX_CONSTRAINTS_PER_SET];
};

struct payload_entry {
	uint32_t length;
	uint8_t bytes[MAX_BENCH_PAYLOAD];
};

/* Vendor payloads both sides draw from, so that some coincide. */
static struct payload_entry page_kind_pool[3];
static struct payload_entry compression_pool[5];

static void init_payload_pools(void)
{
	struct prng p = {BENCH_SEED ^ 0x706f6f6cull};
	static const uint32_t compression_lengths[5] = {8, 12, 16, 12, 16};
	for (uint32_t i = 0; i < 3; i++) {
		page_kind_pool[i].length = 8;
		for (uint32_t k = 0; k < 8; k++)
			page_kind_pool[i].bytes[k] = (uint8_t)prng_next(&p);
	}
	for (uint32_t i = 0; i < 5; i++) {
		compression_pool[i].length = compression_lengths[i];
		for (uint32_t k = 0; k < compression_lengths[i]; k++)
			compression_pool[i].bytes[k] = (uint8_t)prng_next(&p);
	}
}

static void put_le(uint8_t *out, uint64_t value, uint32_t bytes)
{
	for (uint32_t i = 0; i < bytes; i++)
		out[i] = (uint8_t)(value >> (8 * i));
}

static uint64_t get_le(const uint8_t *in, uint32_t bytes)
{
	uint64_t value = 0;
	for (uint32_t i = 0; i < bytes; i++)
		value |= (uint64_t)in[i] << (8 * i);
	return value;
}

static void cap_common(struct bench_cap *cap, uint16_t name, uint64_t value, uint32_t length, uint32_t flags)
{
	memset(cap, 0, sizeof(*cap));
	cap->vendor = UDA_VENDOR_NONE;
	cap->name = name;
	cap->flags = flags;
	cap->length = length;
	put_le(cap->payload, value, length);
}

static void cap_vendor(struct bench_cap *cap, uint16_t name, const struct payload_entry *entry, uint32_t flags)
{
	memset(cap, 0, sizeof(*cap));
	cap->vendor = VENDOR_NVIDIA;
	cap->name = name;
	cap->flags = flags;
	cap->length = entry->length;
	memcpy(cap->payload, entry->bytes, entry->length);
}

static bool is_layout_cap(const struct bench_cap *cap)
{
	return cap->vendor == UDA_VENDOR_NONE &&
	       (cap->name == UDA_CAPABILITY_LAYOUT || cap->name == UDA_CAPABILITY_LAYOUT_OPAQUE);
}

/* A distinct NVIDIA-vendor modifier per layout id. */
static uint64_t layout_modifier(uint32_t id)
{
	return fourcc_mod_code(NVIDIA, (1ull << 40) | (uint32_t)(id * 0x9e3779b1u));
}

/* ------------------------------------------------------------------------ */
/* Constraint rules, as documented in uda.h                                  */

enum merge_rule {
	MERGE_LCM,
	MERGE_MIN,
	MERGE_MAX,
};

static enum merge_rule merge_rule_of(uint32_t constraint)
{
	if (constraint <= UDA_CONSTRAINT_PLANE_ALIGNMENT)
		return MERGE_LCM;
	if (constraint <= UDA_CONSTRAINT_MAX_PLANES)
		return MERGE_MIN;
	return MERGE_MAX;
}

static bool find_constraint(const struct bench_constraint *cs, uint32_t count, uint32_t type, uint64_t *value)
{
	for (uint32_t i = 0; i < count; i++) {
		if (cs[i].type == type) {
			*value = cs[i].value;
			return true;
		}
	}
	return false;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static bool lcm_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	return !__builtin_mul_overflow(a / gcd_u64(a, b), b, out);
}

static bool align_up_u64(uint64_t value, uint64_t alignment, uint64_t *out)
{
	uint64_t rem = value % alignment;
	if (rem == 0) {
		*out = value;
		return true;
	}
	return !__builtin_add_overflow(value, alignment - rem, out);
}

/* Some pitch lies within min pitch, max pitch and the pitch alignment; the
 * size alignment does not exceed the max size. */
static bool constraints_consistent(const struct bench_constraint *cs, uint32_t count)
{
	uint64_t min_pitch = 1, max_pitch, alignment, max_size, size_alignment;
	find_constraint(cs, count, UDA_CONSTRAINT_MIN_PITCH, &min_pitch);
	if (find_constraint(cs, count, UDA_CONSTRAINT_MAX_PITCH, &max_pitch)) {
		uint64_t lowest = min_pitch;
		if (find_constraint(cs, count, UDA_CONSTRAINT_PITCH_ALIGNMENT, &alignment) &&
		    !align_up_u64(min_pitch, alignment, &lowest))
			return false;
		if (lowest > max_pitch)
			return false;
	}
	if (find_constraint(cs, count, UDA_CONSTRAINT_MAX_SIZE, &max_size) &&
	    find_constraint(cs, count, UDA_CONSTRAINT_SIZE_ALIGNMENT, &size_alignment) && size_alignment > max_size)
		return false;
	return true;
}

/* ------------------------------------------------------------------------ */
/* Generation                                                                */

static void generate_set(struct prng *p, uint64_t modifier, struct bench_set *set)
{
	static const uint64_t address_alignments[] = {256, 4096, 65536};
	static const uint64_t pitch_alignments[] = {64, 96, 128, 192, 256};
	static const uint64_t max_pitches[] = {8192, 16384, 65536, 262144};
	static const uint64_t min_pitches[] = {256, 4096, 32768};

	memset(set, 0, sizeof(*set));
	struct bench_cap *caps = set->caps;
	uint32_t n = 0;
	cap_common(&caps[n++], UDA_CAPABILITY_LAYOUT, modifier, 8, UDA_CAPABILITY_FLAG_REQUIRED);
	cap_common(&caps[n++], UDA_CAPABILITY_HANDLE,
	           prng_below(p, 5) == 0 ? UDA_HANDLE_TYPE_OPAQUE_FD : UDA_HANDLE_TYPE_DMA_BUF, 4,
	           prng_below(p, 4) == 0 ? UDA_CAPABILITY_FLAG_REQUIRED : 0);
	cap_common(&caps[n++], UDA_CAPABILITY_PLACEMENT,
	           prng_below(p, 2) ? UDA_PLACEMENT_SYSTEM : UDA_PLACEMENT_DEVICE_LOCAL, 4, 0);
	cap_common(&caps[n++], UDA_CAPABILITY_CPU_ACCESS,
	           prng_below(p, 2) ? UDA_CPU_ACCESS_MAPPABLE : UDA_CPU_ACCESS_COHERENT, 4, 0);
	cap_vendor(&caps[n++], NV_CAP_PAGE_KIND, &page_kind_pool[prng_below(p, 3)],
	           prng_below(p, 4) == 0 ? UDA_CAPABILITY_FLAG_REQUIRED : 0);
	cap_vendor(&caps[n++], NV_CAP_COMPRESSION, &compression_pool[prng_below(p, 5)], 0);
	set->cap_count = n;
	/* Devices list capabilities in no particular order. */
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = prng_below(p, i);
		struct bench_cap t = caps[i - 1];
		caps[i - 1] = caps[j];
		caps[j] = t;
	}

	struct bench_constraint *cs = set->constraints;
	uint32_t c = 0;
	cs[c++] = (struct bench_constraint){UDA_CONSTRAINT_ADDRESS_ALIGNMENT, address_alignments[prng_below(p, 3)]};
	cs[c++] = (struct bench_constraint){UDA_CONSTRAINT_PITCH_ALIGNMENT, pitch_alignments[prng_below(p, 5)]};
	if (prng_below(p, 2))
		cs[c++] = (struct bench_constraint){UDA_CONSTRAINT_MAX_PITCH, max_pitches[prng_below(p, 4)]};
	if (prng_below(p, 10) < 3) {
		cs[c++] = (struct bench_constraint){UDA_CONSTRAINT_MIN_PITCH, min_pitches[prng_below(p, 3)]};
		if (!constraints_consistent(cs, c))
			c--; /* a device would not report an impossible set */
	}
	set->constraint_count = c;
}

struct bench_case {
	uint32_t a_count, b_count;
	struct bench_set *a_sets, *b_sets;
	uda_capability_set_list *a, *b;
};

static bool list_from_sets(uda_context *ctx, uda_capability_set_builder *builder, const struct bench_set *sets,
                           uint32_t count, uda_capability_set_list **out_list)
{
	uda_capability_set_list *list = NULL;
	uda_result r = uda_capability_set_list_create(ctx, &list);
	for (uint32_t s = 0; r == UDA_SUCCESS && s < count; s++) {
		const struct bench_set *set = &sets[s];
		r = uda_capability_set_builder_reset(builder);
		for (uint32_t i = 0; r == UDA_SUCCESS && i < set->cap_count; i++) {
			const struct bench_cap *cap = &set->caps[i];
			if (cap->vendor == UDA_VENDOR_NONE && cap->name == UDA_CAPABILITY_LAYOUT) {
				r = uda_capability_set_builder_add_layout(builder, get_le(cap->payload, 8), cap->flags);
			} else if (cap->vendor == UDA_VENDOR_NONE) {
				r = uda_capability_set_builder_add_u32(builder, (uda_capability_name)cap->name,
				                                       (uint32_t)get_le(cap->payload, 4), cap->flags);
			} else {
				uda_capability public_cap = {
				    .vendor = cap->vendor,
				    .name = cap->name,
				    .flags = cap->flags,
				    .length = cap->length,
				    .payload = cap->payload,
				};
				r = uda_capability_set_builder_add_capability(builder, &public_cap);
			}
		}
		for (uint32_t i = 0; r == UDA_SUCCESS && i < set->constraint_count; i++)
			r = uda_capability_set_builder_set_constraint(builder, (uda_constraint)set->constraints[i].type,
			                                              set->constraints[i].value);
		if (r == UDA_SUCCESS)
			r = uda_capability_set_list_append_set(list, builder);
	}
	if (r != UDA_SUCCESS) {
		fprintf(stderr, "uda-bench-negotiate: building a list failed: %s: %s\n", uda_result_to_string(r),
		        uda_context_get_error(ctx));
		uda_capability_set_list_destroy(list);
		return false;
	}
	*out_list = list;
	return true;
}

static void case_free(struct bench_case *bc)
{
	uda_capability_set_list_destroy(bc->a);
	uda_capability_set_list_destroy(bc->b);
	free(bc->a_sets);
	free(bc->b_sets);
	memset(bc, 0, sizeof(*bc));
}

static bool case_build(uda_context *ctx, uda_capability_set_builder *builder, uint32_t a_count, uint32_t b_count,
                       struct bench_case *bc)
{
	memset(bc, 0, sizeof(*bc));
	bc->a_count = a_count;
	bc->b_count = b_count;
	struct prng p = {BENCH_SEED ^ ((uint64_t)a_count << 32) ^ b_count};
	uint32_t shared = (a_count < b_count ? a_count : b_count) / 2;

	bc->a_sets = calloc(a_count, sizeof(*bc->a_sets));
	bc->b_sets = calloc(b_count, sizeof(*bc->b_sets));
	uint32_t *perm_a = malloc(sizeof(uint32_t) * a_count);
	uint32_t *perm_b = malloc(sizeof(uint32_t) * b_count);
	uint32_t *id_a = malloc(sizeof(uint32_t) * a_count);
	uint32_t *id_b = malloc(sizeof(uint32_t) * b_count);
	bool ok = bc->a_sets && bc->b_sets && perm_a && perm_b && id_a && id_b;
	if (ok) {
		for (uint32_t i = 0; i < a_count; i++)
			perm_a[i] = i;
		for (uint32_t j = 0; j < b_count; j++)
			perm_b[j] = j;
		shuffle_u32(&p, perm_a, a_count);
		shuffle_u32(&p, perm_b, b_count);
		/* Layout ids: 0..shared-1 on both sides (random positions, random
		 * pairing), then ids of one side only. */
		for (uint32_t k = 0; k < shared; k++)
			id_a[perm_a[k]] = id_b[perm_b[k]] = k;
		for (uint32_t k = shared; k < a_count; k++)
			id_a[perm_a[k]] = k;
		for (uint32_t k = shared; k < b_count; k++)
			id_b[perm_b[k]] = a_count + k;
		for (uint32_t i = 0; i < a_count; i++)
			generate_set(&p, layout_modifier(id_a[i]), &bc->a_sets[i]);
		for (uint32_t j = 0; j < b_count; j++)
			generate_set(&p, layout_modifier(id_b[j]), &bc->b_sets[j]);
	} else {
		fprintf(stderr, "uda-bench-negotiate: out of memory\n");
	}
	free(perm_a);
	free(perm_b);
	free(id_a);
	free(id_b);
	ok = ok && list_from_sets(ctx, builder, bc->a_sets, a_count, &bc->a) &&
	     list_from_sets(ctx, builder, bc->b_sets, b_count, &bc->b);
	if (!ok)
		case_free(bc);
	return ok;
}

/* ------------------------------------------------------------------------ */
/* Naive baseline                                                            */

struct naive_set {
	uint32_t cap_count;
	struct bench_cap *caps; /* malloc'ed, one array per result set */
	uint32_t constraint_count;
	struct bench_constraint constraints[UDA_CONSTRAINT_COUNT];
};

struct naive_list {
	uint32_t count, capacity;
	struct naive_set *sets;
};

static void naive_list_free(struct naive_list *list)
{
	for (uint32_t i = 0; i < list->count; i++)
		free(list->sets[i].caps);
	free(list->sets);
	memset(list, 0, sizeof(*list));
}

static bool naive_cap_same(const struct bench_cap *x, const struct bench_cap *y)
{
	return memcmp(&x->vendor, &y->vendor, sizeof(x->vendor)) == 0 &&
	       memcmp(&x->name, &y->name, sizeof(x->name)) == 0 &&
	       memcmp(&x->length, &y->length, sizeof(x->length)) == 0 && memcmp(x->payload, y->payload, x->length) == 0;
}

/* Constraints: a's, then b's merged in one by one (linear lookups). */
static bool naive_merge_constraints(const struct bench_set *a, const struct bench_set *b, struct naive_set *out)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < a->constraint_count; i++)
		out->constraints[n++] = a->constraints[i];
	for (uint32_t j = 0; j < b->constraint_count; j++) {
		const struct bench_constraint *bc = &b->constraints[j];
		uint32_t i = 0;
		while (i < n && out->constraints[i].type != bc->type)
			i++;
		if (i == n) {
			out->constraints[n++] = *bc;
			continue;
		}
		uint64_t *value = &out->constraints[i].value;
		switch (merge_rule_of(bc->type)) {
		case MERGE_LCM:
			if (!lcm_u64(*value, bc->value, value))
				return false;
			break;
		case MERGE_MIN:
			if (bc->value < *value)
				*value = bc->value;
			break;
		case MERGE_MAX:
			if (bc->value > *value)
				*value = bc->value;
			break;
		}
	}
	out->constraint_count = n;
	return constraints_consistent(out->constraints, n);
}

/* 1: the pair intersects into *out (caps malloc'ed); 0: it fails; -1: out
 * of memory. The generated data has no LOCAL capabilities, so the baseline
 * ignores that flag. */
static int naive_intersect_pair(const struct bench_set *a, const struct bench_set *b, struct naive_set *out)
{
	struct bench_cap caps[2 * CAPS_PER_SET];
	uint32_t n = 0, layouts = 0;
	for (uint32_t i = 0; i < a->cap_count; i++) {
		const struct bench_cap *match = NULL;
		for (uint32_t j = 0; j < b->cap_count && !match; j++) {
			if (naive_cap_same(&a->caps[i], &b->caps[j]))
				match = &b->caps[j];
		}
		if (match) {
			caps[n] = a->caps[i];
			caps[n].flags |= match->flags;
			layouts += is_layout_cap(&caps[n]);
			n++;
		} else if (a->caps[i].flags & UDA_CAPABILITY_FLAG_REQUIRED) {
			return 0;
		}
	}
	for (uint32_t j = 0; j < b->cap_count; j++) {
		bool found = false;
		for (uint32_t i = 0; i < a->cap_count && !found; i++)
			found = naive_cap_same(&a->caps[i], &b->caps[j]);
		if (!found && (b->caps[j].flags & UDA_CAPABILITY_FLAG_REQUIRED))
			return 0;
	}
	if (layouts != 1)
		return 0;
	if (!naive_merge_constraints(a, b, out))
		return 0;
	out->caps = malloc(sizeof(*out->caps) * n);
	if (!out->caps)
		return -1;
	memcpy(out->caps, caps, sizeof(*out->caps) * n);
	out->cap_count = n;
	return 1;
}

static bool naive_sets_equal(const struct naive_set *x, const struct naive_set *y)
{
	if (x->cap_count != y->cap_count || x->constraint_count != y->constraint_count)
		return false;
	for (uint32_t i = 0; i < x->constraint_count; i++) {
		uint64_t value;
		if (!find_constraint(y->constraints, y->constraint_count, x->constraints[i].type, &value) ||
		    value != x->constraints[i].value)
			return false;
	}
	/* Capabilities of a set are distinct, so containment with equal
	 * counts is equality. */
	for (uint32_t i = 0; i < x->cap_count; i++) {
		bool found = false;
		for (uint32_t j = 0; j < y->cap_count && !found; j++)
			found = x->caps[i].flags == y->caps[j].flags && naive_cap_same(&x->caps[i], &y->caps[j]);
		if (!found)
			return false;
	}
	return true;
}

static bool naive_intersect(const struct bench_set *a, uint32_t a_count, const struct bench_set *b, uint32_t b_count,
                            struct naive_list *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < a_count; i++) {
		for (uint32_t j = 0; j < b_count; j++) {
			struct naive_set result;
			int rc = naive_intersect_pair(&a[i], &b[j], &result);
			if (rc < 0)
				goto out_of_memory;
			if (rc == 0)
				continue;
			bool duplicate = false;
			for (uint32_t k = 0; k < out->count && !duplicate; k++)
				duplicate = naive_sets_equal(&out->sets[k], &result);
			if (duplicate) {
				free(result.caps);
				continue;
			}
			if (out->count == out->capacity) {
				uint32_t capacity = out->capacity ? out->capacity * 2 : 16;
				struct naive_set *sets = realloc(out->sets, sizeof(*sets) * capacity);
				if (!sets) {
					free(result.caps);
					goto out_of_memory;
				}
				out->sets = sets;
				out->capacity = capacity;
			}
			out->sets[out->count++] = result;
		}
	}
	return true;

out_of_memory:
	naive_list_free(out);
	return false;
}

/* ------------------------------------------------------------------------ */
/* One negotiation of each contender                                         */

typedef bool (*negotiate_fn)(const struct bench_case *bc, uint32_t *out_count);

static bool negotiate_uda(const struct bench_case *bc, uint32_t *out_count)
{
	uda_capability_set_list *result = NULL;
	if (uda_capability_set_list_intersect(bc->a, bc->b, &result) != UDA_SUCCESS)
		return false;
	uda_result r = uda_capability_set_list_get_count(result, out_count);
	uda_capability_set_list_destroy(result);
	return r == UDA_SUCCESS;
}

static bool negotiate_naive(const struct bench_case *bc, uint32_t *out_count)
{
	struct naive_list result;
	if (!naive_intersect(bc->a_sets, bc->a_count, bc->b_sets, bc->b_count, &result))
		return false;
	*out_count = result.count;
	naive_list_free(&result);
	return true;
}

/* ------------------------------------------------------------------------ */
/* Checking that both agree, set by set                                      */

static bool results_match(const uda_capability_set_list *got, const struct naive_list *want, char *why, size_t why_size)
{
	uint32_t count = 0;
	if (uda_capability_set_list_get_count(got, &count) != UDA_SUCCESS) {
		snprintf(why, why_size, "cannot read the uda result count");
		return false;
	}
	if (count != want->count) {
		snprintf(why, why_size, "uda found %u result sets, the naive baseline %u", count, want->count);
		return false;
	}
	for (uint32_t s = 0; s < count; s++) {
		const struct naive_set *ns = &want->sets[s];
		uint32_t cap_count = 0;
		if (uda_capability_set_list_get_capability_count(got, s, &cap_count) != UDA_SUCCESS ||
		    cap_count != ns->cap_count) {
			snprintf(why, why_size, "result set %u: uda has %u capabilities, naive %u", s, cap_count,
			         ns->cap_count);
			return false;
		}
		for (uint32_t i = 0; i < cap_count; i++) {
			uda_capability cap;
			if (uda_capability_set_list_get_capability(got, s, i, &cap) != UDA_SUCCESS ||
			    cap.length > MAX_BENCH_PAYLOAD) {
				snprintf(why, why_size, "result set %u: cannot read capability %u", s, i);
				return false;
			}
			struct bench_cap bcap = {
			    .vendor = cap.vendor, .name = cap.name, .flags = cap.flags, .length = cap.length};
			if (cap.length)
				memcpy(bcap.payload, cap.payload, cap.length);
			bool found = false;
			for (uint32_t j = 0; j < ns->cap_count && !found; j++)
				found = ns->caps[j].flags == bcap.flags && naive_cap_same(&ns->caps[j], &bcap);
			if (!found) {
				snprintf(why, why_size,
				         "result set %u: uda capability vendor 0x%04x name %u flags 0x%x is not in the "
				         "naive result",
				         s, cap.vendor, cap.name, cap.flags);
				return false;
			}
		}
		for (uint32_t c = 0; c < UDA_CONSTRAINT_COUNT; c++) {
			bool present = false;
			uint64_t value = 0, naive_value = 0;
			if (uda_capability_set_list_get_constraint(got, s, (uda_constraint)c, &present, &value) !=
			    UDA_SUCCESS) {
				snprintf(why, why_size, "result set %u: cannot read constraint %u", s, c);
				return false;
			}
			bool naive_present = find_constraint(ns->constraints, ns->constraint_count, c, &naive_value);
			if (present != naive_present || (present && value != naive_value)) {
				snprintf(why, why_size,
				         "result set %u: constraint %s differs (uda %s%llu, naive %s%llu)", s,
				         uda_constraint_to_string((uda_constraint)c), present ? "" : "absent ",
				         (unsigned long long)value, naive_present ? "" : "absent ",
				         (unsigned long long)naive_value);
				return false;
			}
		}
	}
	return true;
}

/* Runs both once and compares their results. *uda_count and *naive_count
 * are written whenever both ran. Returns false on mismatch or failure. */
static bool verify_case(const struct bench_case *bc, uda_context *ctx, uint32_t *uda_count, uint32_t *naive_count)
{
	uda_capability_set_list *got = NULL;
	uda_result r = uda_capability_set_list_intersect(bc->a, bc->b, &got);
	if (r != UDA_SUCCESS) {
		fprintf(stderr, "uda-bench-negotiate: error: %ux%u: uda_capability_set_list_intersect: %s: %s\n",
		        bc->a_count, bc->b_count, uda_result_to_string(r), uda_context_get_error(ctx));
		return false;
	}
	struct naive_list want;
	if (!naive_intersect(bc->a_sets, bc->a_count, bc->b_sets, bc->b_count, &want)) {
		fprintf(stderr, "uda-bench-negotiate: error: %ux%u: naive baseline out of memory\n", bc->a_count,
		        bc->b_count);
		uda_capability_set_list_destroy(got);
		return false;
	}
	uda_capability_set_list_get_count(got, uda_count);
	*naive_count = want.count;
	char why[256];
	bool ok = results_match(got, &want, why, sizeof(why));
	if (!ok)
		fprintf(stderr, "uda-bench-negotiate: error: %ux%u: results differ: %s\n", bc->a_count, bc->b_count,
		        why);
	naive_list_free(&want);
	uda_capability_set_list_destroy(got);
	return ok;
}

/* ------------------------------------------------------------------------ */
/* Timing                                                                    */

static int compare_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* Runs fn `iterations` times; false if a run fails or its count is not
 * `expected`. */
static bool run_batch(negotiate_fn fn, const struct bench_case *bc, uint64_t iterations, uint32_t expected,
                      uint64_t *out_ns)
{
	uint64_t start = bench_now_ns();
	for (uint64_t i = 0; i < iterations; i++) {
		uint32_t count;
		if (!fn(bc, &count) || count != expected)
			return false;
	}
	*out_ns = bench_now_ns() - start;
	return true;
}

/* Median time per negotiation, in microseconds. */
static bool measure(negotiate_fn fn, const struct bench_case *bc, uint32_t expected, bool quick, double *out_us)
{
	static double samples[MAX_BATCHES];
	uint64_t elapsed;
	/* Warm-up, then calibration: double the iterations until a batch
	 * takes CALIBRATE_NS, and size batches from that. */
	uint64_t iterations = 1;
	if (!run_batch(fn, bc, iterations, expected, &elapsed))
		return false;
	while (!quick && elapsed < CALIBRATE_NS) {
		iterations *= 2;
		if (!run_batch(fn, bc, iterations, expected, &elapsed))
			return false;
	}
	uint64_t batch_iterations = 1;
	if (!quick && elapsed > 0)
		batch_iterations = iterations * BATCH_NS / elapsed;
	if (batch_iterations < 1)
		batch_iterations = 1;

	uint32_t batches = 0;
	uint64_t total = 0;
	while (batches < MAX_BATCHES) {
		if (!run_batch(fn, bc, batch_iterations, expected, &elapsed))
			return false;
		samples[batches++] = (double)elapsed / (double)batch_iterations / 1000.0;
		total += elapsed;
		if (quick ? batches >= QUICK_BATCHES : batches >= MIN_BATCHES && total >= TARGET_NS)
			break;
	}
	qsort(samples, batches, sizeof(samples[0]), compare_double);
	*out_us = batches % 2 ? samples[batches / 2] : (samples[batches / 2 - 1] + samples[batches / 2]) / 2.0;
	return true;
}

/* ------------------------------------------------------------------------ */

static void usage(FILE *out)
{
	fprintf(out, "usage: uda-bench-negotiate [--quick] [--help]\n"
	             "\n"
	             "Times uda_capability_set_list_intersect (result list created and destroyed\n"
	             "included) against a naive O(|A|*|B|*k^2) intersection on the same generated\n"
	             "lists (fixed seed), for 16x8, 64x64, 256x256 and 1024x1024 sets of 6\n"
	             "capabilities each, and prints one table row per size: the median time per\n"
	             "negotiation of each, their ratio, the result set counts, and whether the\n"
	             "targets are met (16x8: uda under 2 us; 1024x1024: uda under 1 ms and at\n"
	             "least 100x faster than naive).\n"
	             "\n"
	             "  --quick  a few iterations per size only (smoke run; timings meaningless)\n"
	             "  --help   this text\n"
	             "\n"
	             "Exit status: 0 when both find the same result sets, whatever the timings\n"
	             "(a missed target prints MISS); 1 when the results differ or a run fails;\n"
	             "2 on a bad argument.\n");
}

struct bench_size {
	uint32_t a, b;
};

int main(int argc, char **argv)
{
	bool quick = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			quick = true;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "uda-bench-negotiate: unknown argument '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}

	static const struct bench_size sizes[] = {{16, 8}, {64, 64}, {256, 256}, {1024, 1024}};
	init_payload_pools();

	uda_context *ctx = NULL;
	uda_capability_set_builder *builder = NULL;
	/* Only the in-process devices this program registers. */
	const uda_context_create_info context_info = {
		.type = UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO,
		.flags = UDA_CONTEXT_CREATE_NO_BACKENDS,
	};
	uda_result r = uda_context_create(&context_info, &ctx);
	if (r == UDA_SUCCESS)
		r = uda_capability_set_builder_create(ctx, &builder);
	if (r != UDA_SUCCESS) {
		fprintf(stderr, "uda-bench-negotiate: setup failed: %s\n", uda_result_to_string(r));
		uda_context_destroy(ctx);
		return 1;
	}

	printf("uda-bench-negotiate: uda_capability_set_list_intersect vs naive pairwise baseline\n");
	printf(
	    "sets of %u capabilities (1 layout) and 2-4 constraints, min(|A|,|B|)/2 shared layouts, seed 0x%016llx\n",
	    CAPS_PER_SET, (unsigned long long)BENCH_SEED);
	printf("time: median per negotiation over %s, in microseconds%s\n",
	       quick ? "3 single-run batches" : "~10 ms batches (>= 200 ms per cell)",
	       quick ? " (--quick: not meaningful)" : "");
	printf("\n");
	printf("%-10s %12s %14s %11s %9s %11s  %s\n", "size", "uda us", "naive us", "naive/uda", "sets uda",
	       "sets naive", "target");

	bool failed = false;
	uint32_t missed = 0;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct bench_case bc;
		if (!case_build(ctx, builder, sizes[s].a, sizes[s].b, &bc)) {
			failed = true;
			break;
		}
		char label[32];
		snprintf(label, sizeof(label), "%ux%u", sizes[s].a, sizes[s].b);

		uint32_t uda_count = 0, naive_count = 0;
		if (!verify_case(&bc, ctx, &uda_count, &naive_count)) {
			printf("%-10s %12s %14s %11s %9u %11u  ERROR: results differ\n", label, "-", "-", "-",
			       uda_count, naive_count);
			failed = true;
			case_free(&bc);
			continue;
		}

		double uda_us = 0, naive_us = 0;
		if (!measure(negotiate_uda, &bc, uda_count, quick, &uda_us) ||
		    !measure(negotiate_naive, &bc, naive_count, quick, &naive_us)) {
			fprintf(stderr,
			        "uda-bench-negotiate: error: %s: a timed negotiation failed or changed its result\n",
			        label);
			printf("%-10s %12s %14s %11s %9u %11u  ERROR: timed run failed\n", label, "-", "-", "-",
			       uda_count, naive_count);
			failed = true;
			case_free(&bc);
			continue;
		}
		double ratio = uda_us > 0 ? naive_us / uda_us : 0;

		char target[96];
		if (sizes[s].a == 16 && sizes[s].b == 8) {
			bool met = uda_us < 2.0;
			missed += !met;
			snprintf(target, sizeof(target), "%s (uda < 2 us)", met ? "PASS" : "MISS");
		} else if (sizes[s].a == 1024 && sizes[s].b == 1024) {
			bool met = uda_us < 1000.0 && ratio >= 100.0;
			missed += !met;
			snprintf(target, sizeof(target), "%s (uda < 1000 us, >= 100x)", met ? "PASS" : "MISS");
		} else {
			snprintf(target, sizeof(target), "-");
		}
		printf("%-10s %12.3f %14.3f %10.1fx %9u %11u  %s\n", label, uda_us, naive_us, ratio, uda_count,
		       naive_count, target);
		if (sizes[s].a == 16 && sizes[s].b == 8)
			bench_result("uda-bench-negotiate", "16x8 sets, uda's time", uda_us, " us", true, 2.0);
		else if (sizes[s].a == 1024 && sizes[s].b == 1024) {
			bench_result("uda-bench-negotiate", "1024x1024 sets, uda's time", uda_us, " us", true, 1000.0);
			bench_result("uda-bench-negotiate", "1024x1024 sets, naive / uda", ratio, "x", false, 100.0);
		}
		fflush(stdout);
		case_free(&bc);
	}

	printf("\n");
	if (failed)
		printf("result: ERROR (see stderr)\n");
	else if (missed)
		printf("result: results agree; %u timing target%s missed (timing is noisy: not a failure)\n", missed,
		       missed == 1 ? "" : "s");
	else
		printf("result: results agree; all timing targets met\n");

	uda_capability_set_builder_destroy(builder);
	uda_context_destroy(ctx);
	return failed ? 1 : 0;
}
