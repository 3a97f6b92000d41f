/* Clock and medians shared by the benchmarks. */
#ifndef UDA_BENCH_TIMING_H
#define UDA_BENCH_TIMING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline int bench_compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Sorts `values` in place. */
static inline uint64_t bench_median(uint64_t *values, unsigned count)
{
	qsort(values, count, sizeof(*values), bench_compare_u64);
	return values[count / 2];
}

/* The line scripts/bench.sh collects, one per measure that has a target
 * (or none: target 0):
 *   bench-result: BENCHMARK | MEASURE | VALUE | TARGET | PASS, MISS or -
 * `unit` follows the numbers ("x" for ratios, " us"); `at_most`: the
 * target is an upper bound, else a lower one. Timing is never a test's
 * verdict: PASS and MISS are for the record. */
static inline void bench_result(const char *benchmark, const char *measure, double value, const char *unit,
                                bool at_most, double target)
{
	if (target > 0)
		printf("bench-result: %s | %s | %.3f%s | %s %.2f%s | %s\n", benchmark, measure, value, unit,
		       at_most ? "<=" : ">=", target, unit, (at_most ? value <= target : value >= target) ? "PASS" : "MISS");
	else
		printf("bench-result: %s | %s | %.3f%s | - | -\n", benchmark, measure, value, unit);
}

#endif
