/* Test-only fault injection: UDA_FAULT_INJECT="allocate=N,import=N,export=N,map=N"
 * makes the N-th call of each backend operation on a context fail with
 * UDA_ERROR_BACKEND, as a driver might, so tests can prove every failure
 * path falls back and releases what it took. Read once per context with
 * secure_getenv (never in setuid programs). */
#ifndef UDA_FAULT_INJECTION_H
#define UDA_FAULT_INJECTION_H

#include <stdatomic.h>
#include <stdbool.h>

#include <uda/uda.h>

enum fault_operation {
	FAULT_ALLOCATE,
	FAULT_IMPORT,
	FAULT_EXPORT,
	FAULT_MAP,
	FAULT_OPERATION_COUNT,
};

struct fault_injection {
	unsigned long fail_at[FAULT_OPERATION_COUNT]; /* 0: never */
	atomic_ulong calls[FAULT_OPERATION_COUNT];
};

void fault_injection_init(struct fault_injection *faults);
/* Counts a call; true (and an error message on ctx) when it is the one
 * to fail. */
bool fault_injection_fires(struct fault_injection *faults, const uda_context *ctx, enum fault_operation operation);

#endif
