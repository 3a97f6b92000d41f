/* A process's CPU time, for benchmarks that compare compositors. */
#ifndef UDA_TEST_PROCESS_CPU_H
#define UDA_TEST_PROCESS_CPU_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* User + system time of `pid` so far (all its threads), in nanoseconds;
 * 0 if unknown. */
unsigned long long process_cpu_ns(pid_t pid);

#ifdef __cplusplus
}
#endif

#endif
