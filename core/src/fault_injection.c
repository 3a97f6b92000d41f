#include <stdlib.h>
#include <string.h>

#include <uda/uda_backend.h>

#include "fault_injection.h"

static const char *const operation_names[FAULT_OPERATION_COUNT] = {"allocate", "import", "export", "map"};

void fault_injection_init(struct fault_injection *faults)
{
	for (int i = 0; i < FAULT_OPERATION_COUNT; i++) {
		faults->fail_at[i] = 0;
		atomic_init(&faults->calls[i], 0);
	}
	const char *spec = secure_getenv("UDA_FAULT_INJECT");
	if (!spec)
		return;
	/* "op=N" items, comma-separated; anything else is ignored. */
	for (const char *p = spec; *p;) {
		const char *end = strchr(p, ',');
		size_t length = end ? (size_t)(end - p) : strlen(p);
		for (int i = 0; i < FAULT_OPERATION_COUNT; i++) {
			size_t name_length = strlen(operation_names[i]);
			if (length > name_length + 1 && strncmp(p, operation_names[i], name_length) == 0 &&
			    p[name_length] == '=')
				faults->fail_at[i] = strtoul(p + name_length + 1, NULL, 10);
		}
		p += length;
		if (*p == ',')
			p++;
	}
}

bool fault_injection_fires(struct fault_injection *faults, const uda_context *ctx, enum fault_operation operation)
{
	if (!faults->fail_at[operation])
		return false;
	unsigned long call = atomic_fetch_add(&faults->calls[operation], 1) + 1;
	if (call != faults->fail_at[operation])
		return false;
	uda_context_set_error(ctx, UDA_ERROR_BACKEND, "injected fault: %s call %lu (UDA_FAULT_INJECT)",
	                      operation_names[operation], call);
	return true;
}
