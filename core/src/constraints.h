/* The core's constraint table: how each constraint is validated and
 * merged. Adding a constraint is one enum value in uda.h and one row in
 * constraints.c. */
#ifndef UDA_CONSTRAINTS_H
#define UDA_CONSTRAINTS_H

#include <uda/uda.h>

typedef uint32_t uda_constraint_mask;

struct uda_constraint_values {
	uda_constraint_mask present; /* bit c set: value[c] is meaningful */
	uint64_t value[UDA_CONSTRAINT_COUNT];
};

/* Whether `value` is acceptable for `constraint` on its own; *why gets a
 * static reason on failure. */
bool uda_constraint_value_valid(uda_constraint constraint, uint64_t value, const char **why);

/* Merges b into a (a = merge(a, b), constraint by constraint). Returns
 * false if a merge is impossible (an alignment LCM that overflows). The
 * merged values may still contradict each other: callers check with
 * uda_constraint_values_consistent (capability_set_finish does). */
bool uda_constraint_values_merge(struct uda_constraint_values *a, const struct uda_constraint_values *b);

/* Whether the constraints can all hold at once; *why gets a static reason
 * on failure. */
bool uda_constraint_values_consistent(const struct uda_constraint_values *values, const char **why);

/* Least common multiple of two non-zero values; false on overflow. */
bool uda_lcm_u64(uint64_t a, uint64_t b, uint64_t *out);

/* Smallest multiple of `alignment` that is >= value; false on overflow. */
bool uda_align_up_u64(uint64_t value, uint64_t alignment, uint64_t *out);

#endif
