/* libFuzzer target: allocation metadata deserialization. Accepted metadata
 * must serialize again (the same consistency check runs on both sides). */
#include <stdlib.h>

#include "fuzz_context.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uda_context *ctx = fuzz_context_create();
	uda_allocation_metadata metadata;
	uda_capability_set_list *set = NULL;
	uda_result r = uda_allocation_metadata_deserialize(ctx, data, size, &metadata, &set);
	if (r != UDA_SUCCESS) {
		if (r != UDA_ERROR_INVALID_DATA || set)
			abort();
		uda_context_destroy(ctx);
		return 0;
	}
	size_t out_size = 0;
	if (uda_allocation_metadata_serialize(ctx, &metadata, set, 0, NULL, 0, &out_size) != UDA_SUCCESS)
		abort();
	uda_capability_set_list_destroy(set);
	uda_context_destroy(ctx);
	return 0;
}
