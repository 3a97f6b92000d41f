/* Clock and medians shared by the benchmarks. */
#ifndef UDA_BENCH_TIMING_H
#define UDA_BENCH_TIMING_H

#include <stdint.h>
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

#endif
