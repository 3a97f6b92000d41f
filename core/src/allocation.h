/* Private view of uda_allocation, shared by the core's source files. */
#ifndef UDA_ALLOCATION_PRIVATE_H
#define UDA_ALLOCATION_PRIVATE_H

#include <uda/uda_backend.h>

struct uda_allocation {
	uda_context *ctx;
	/* ctx->allocations */
	struct uda_allocation *registry_prev, *registry_next;
	uda_device *device;
	uda_capability_set_list *set; /* one set, owned */
	uda_backend_allocation backend;
	bool imported;
	bool read_only; /* UDA_IMPORT_READ_ONLY */
	bool has_color;
	uda_color_info color;
	void *mapping;
};

/* The assertion the allocation was made (or imported) for. */
static inline uda_assertion allocation_assertion(const struct uda_allocation *allocation)
{
	const uda_allocation_metadata *m = &allocation->backend.metadata;
	return (uda_assertion){
		.type = UDA_STRUCTURE_TYPE_ASSERTION,
		.width = m->width,
		.height = m->height,
		.format = m->format,
	};
}

#endif
