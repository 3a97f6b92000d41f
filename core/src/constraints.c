#include "constraints.h"

enum constraint_merge {
	MERGE_LCM,
	MERGE_MIN,
	MERGE_MAX,
};

struct constraint_rule {
	const char *name;
	enum constraint_merge merge;
	/* LCM-merged values that must stay a power of two (memory address
	 * alignments); the LCM of powers of two is their maximum. */
	bool power_of_two;
};

static const struct constraint_rule rules[UDA_CONSTRAINT_COUNT] = {
    [UDA_CONSTRAINT_ADDRESS_ALIGNMENT] = {"ADDRESS_ALIGNMENT", MERGE_LCM, true},
    [UDA_CONSTRAINT_PITCH_ALIGNMENT] = {"PITCH_ALIGNMENT", MERGE_LCM, false},
    [UDA_CONSTRAINT_OFFSET_ALIGNMENT] = {"OFFSET_ALIGNMENT", MERGE_LCM, false},
    [UDA_CONSTRAINT_SIZE_ALIGNMENT] = {"SIZE_ALIGNMENT", MERGE_LCM, true},
    [UDA_CONSTRAINT_PLANE_ALIGNMENT] = {"PLANE_ALIGNMENT", MERGE_LCM, true},
    [UDA_CONSTRAINT_MAX_PITCH] = {"MAX_PITCH", MERGE_MIN, false},
    [UDA_CONSTRAINT_MAX_WIDTH] = {"MAX_WIDTH", MERGE_MIN, false},
    [UDA_CONSTRAINT_MAX_HEIGHT] = {"MAX_HEIGHT", MERGE_MIN, false},
    [UDA_CONSTRAINT_MAX_SIZE] = {"MAX_SIZE", MERGE_MIN, false},
    [UDA_CONSTRAINT_MAX_PLANES] = {"MAX_PLANES", MERGE_MIN, false},
    [UDA_CONSTRAINT_MIN_PITCH] = {"MIN_PITCH", MERGE_MAX, false},
    [UDA_CONSTRAINT_MIN_SIZE] = {"MIN_SIZE", MERGE_MAX, false},
};

const char *uda_constraint_to_string(uda_constraint constraint)
{
	if ((unsigned)constraint >= UDA_CONSTRAINT_COUNT)
		return NULL;
	return rules[constraint].name;
}

static bool is_power_of_two(uint64_t v)
{
	return v && !(v & (v - 1));
}

bool uda_constraint_value_valid(uda_constraint constraint, uint64_t value, const char **why)
{
	if ((unsigned)constraint >= UDA_CONSTRAINT_COUNT) {
		*why = "unknown constraint";
		return false;
	}
	const struct constraint_rule *rule = &rules[constraint];
	switch (rule->merge) {
	case MERGE_LCM:
		if (value == 0) {
			*why = "an alignment of 0";
			return false;
		}
		if (rule->power_of_two && !is_power_of_two(value)) {
			*why = "an alignment that must be a power of two is not";
			return false;
		}
		return true;
	case MERGE_MIN:
		if (value == 0) {
			*why = "a maximum of 0";
			return false;
		}
		if (constraint == UDA_CONSTRAINT_MAX_PLANES && value > UDA_MAX_PLANES) {
			*why = "more planes than UDA_MAX_PLANES";
			return false;
		}
		return true;
	case MERGE_MAX:
		return true;
	}
	*why = "unknown merge rule";
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

bool uda_lcm_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	if (a == b) {
		*out = a;
		return true;
	}
	return !__builtin_mul_overflow(a / gcd_u64(a, b), b, out);
}

static bool merge_one(const struct constraint_rule *rule, uint64_t a, uint64_t b, uint64_t *out)
{
	switch (rule->merge) {
	case MERGE_LCM:
		return uda_lcm_u64(a, b, out);
	case MERGE_MIN:
		*out = a < b ? a : b;
		return true;
	case MERGE_MAX:
		*out = a > b ? a : b;
		return true;
	}
	return false;
}

bool uda_align_up_u64(uint64_t value, uint64_t alignment, uint64_t *out)
{
	uint64_t rem = value % alignment;
	if (rem == 0) {
		*out = value;
		return true;
	}
	return !__builtin_add_overflow(value, alignment - rem, out);
}

bool uda_constraint_values_consistent(const struct uda_constraint_values *v, const char **why)
{
#define HAS(c) (v->present & (1u << (c)))
	uint64_t min_pitch = HAS(UDA_CONSTRAINT_MIN_PITCH) ? v->value[UDA_CONSTRAINT_MIN_PITCH] : 1;
	if (HAS(UDA_CONSTRAINT_MAX_PITCH)) {
		uint64_t max_pitch = v->value[UDA_CONSTRAINT_MAX_PITCH];
		uint64_t lowest = min_pitch;
		if (HAS(UDA_CONSTRAINT_PITCH_ALIGNMENT) &&
		    !uda_align_up_u64(min_pitch, v->value[UDA_CONSTRAINT_PITCH_ALIGNMENT], &lowest)) {
			*why = "no pitch satisfies the pitch alignment";
			return false;
		}
		if (lowest > max_pitch) {
			*why = "no pitch lies within min pitch, max pitch and pitch alignment";
			return false;
		}
	}
	if (HAS(UDA_CONSTRAINT_MAX_SIZE) && HAS(UDA_CONSTRAINT_SIZE_ALIGNMENT) &&
	    v->value[UDA_CONSTRAINT_SIZE_ALIGNMENT] > v->value[UDA_CONSTRAINT_MAX_SIZE]) {
		*why = "the size alignment exceeds the max size";
		return false;
	}
	if (HAS(UDA_CONSTRAINT_MIN_SIZE) && HAS(UDA_CONSTRAINT_MAX_SIZE)) {
		uint64_t lowest = v->value[UDA_CONSTRAINT_MIN_SIZE];
		if ((HAS(UDA_CONSTRAINT_SIZE_ALIGNMENT) &&
		     !uda_align_up_u64(lowest, v->value[UDA_CONSTRAINT_SIZE_ALIGNMENT], &lowest)) ||
		    lowest > v->value[UDA_CONSTRAINT_MAX_SIZE]) {
			*why = "no size lies within min size, max size and size alignment";
			return false;
		}
	}
#undef HAS
	return true;
}

bool uda_constraint_values_merge(struct uda_constraint_values *a, const struct uda_constraint_values *b)
{
	uda_constraint_mask both = a->present & b->present;
	uda_constraint_mask only_b = b->present & ~a->present;
	for (uda_constraint_mask m = both; m; m &= m - 1) {
		int c = __builtin_ctz(m);
		if (!merge_one(&rules[c], a->value[c], b->value[c], &a->value[c]))
			return false;
	}
	for (uda_constraint_mask m = only_b; m; m &= m - 1) {
		int c = __builtin_ctz(m);
		a->value[c] = b->value[c];
	}
	a->present |= b->present;
	return true;
}
