/* Private view of uda_context, shared by the core's source files. */
#ifndef UDA_CONTEXT_PRIVATE_H
#define UDA_CONTEXT_PRIVATE_H

#include <pthread.h>

#include <uda/uda_backend.h>

#include "fault_injection.h"

#define UDA_ERROR_MESSAGE_SIZE 512

/* One thread's last error message on one context. Only its own thread
 * writes it, so the pointer uda_context_get_error returns is never
 * rewritten behind the caller's back. Slots live until the context does.
 * They are found by thread ID, so a program that keeps starting threads
 * reuses the slots of exited ones instead of growing the list; `token`
 * tells the new thread from the exited one that had its ID (the system
 * reuses IDs), and a slot taken over that way starts empty. */
struct uda_error_slot {
	struct uda_error_slot *next;
	pthread_t thread;
	uint64_t token; /* of the thread that owns the slot; never reused */
	char message[UDA_ERROR_MESSAGE_SIZE];
};

struct uda_context {
	uda_log_level log_level;
	uda_log_callback log_callback;
	void *log_user_data;
	/* UDA_LOG=<level>: messages at or below it also go to stderr, and
	 * every error set is logged at UDA_LOG_DEBUG; 0: none. */
	uda_log_level stderr_level;

	/* Guards the error slots; only failing calls and
	 * uda_context_get_error take it. */
	pthread_mutex_t error_lock;
	struct uda_error_slot *error_slots;

	/* Guards the device array. */
	pthread_mutex_t device_lock;
	uda_device **devices;
	uint32_t device_count;
	uint32_t device_capacity;

	/* Guards the lists of live surfaces and allocations, which let an
	 * opaque pointer handed in from outside (an EGL native window or
	 * pixmap) be checked without reading it. */
	pthread_mutex_t object_lock;
	struct uda_surface *surfaces;
	struct uda_allocation *allocations;

	/* Backend modules in load order. */
	struct uda_backend_module *modules;

	/* UDA_FAULT_INJECT, for tests. */
	struct fault_injection faults;
};

/* Shorthand used on every entry point for a NULL argument. */
#define UDA_CHECK_ARG(ctx, cond)                                                                                       \
	do {                                                                                                           \
		if (!(cond))                                                                                           \
			return uda_context_set_error((ctx), UDA_ERROR_INVALID_ARGUMENT, "%s: invalid argument: %s",    \
			                             __func__, #cond);                                                 \
	} while (0)

void uda_device_destroy(uda_device *device);

#endif
