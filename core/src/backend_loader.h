/* Finding backend manifests, loading their modules, unloading them. */
#ifndef UDA_BACKEND_LOADER_H
#define UDA_BACKEND_LOADER_H

#include "context.h"

struct uda_backend_module {
	struct uda_backend_module *next;
	char name[65];
	void *handle; /* dlopen */
	const uda_backend_interface *interface;
	void *data;
};

/* Loads every backend the manifest folders name; failures are logged and
 * skipped. Never fails the context. */
void backend_loader_load_all(uda_context *ctx);

/* Unloads modules in reverse load order; devices must be gone already. */
void backend_loader_unload_all(uda_context *ctx);

#endif
