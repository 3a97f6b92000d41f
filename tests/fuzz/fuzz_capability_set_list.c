/* libFuzzer target: capability-set list deserialization. Anything the
 * deserializer accepts must serialize back to the same bytes and survive
 * intersection with itself. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_context.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uda_context *ctx = fuzz_context_create();
	uda_capability_set_list *list = NULL;
	uda_result r = uda_capability_set_list_deserialize(ctx, data, size, &list);
	if (r != UDA_SUCCESS) {
		if (r != UDA_ERROR_INVALID_DATA || list)
			abort();
		uda_context_destroy(ctx);
		return 0;
	}
	size_t out_size = 0;
	if (uda_capability_set_list_serialize(list, NULL, 0, &out_size) != UDA_SUCCESS)
		abort();
	uint8_t *out = malloc(out_size);
	if (!out || uda_capability_set_list_serialize(list, out, out_size, &out_size) != UDA_SUCCESS)
		abort();
	/* Canonical order may reorder capabilities, so compare a second
	 * round trip instead of the input bytes. */
	uda_capability_set_list *again = NULL;
	if (uda_capability_set_list_deserialize(ctx, out, out_size, &again) != UDA_SUCCESS)
		abort();
	uint32_t count = 0, again_count = 0;
	uda_capability_set_list_get_count(list, &count);
	uda_capability_set_list_get_count(again, &again_count);
	if (count != again_count)
		abort();
	for (uint32_t i = 0; i < count; i++) {
		bool equal = false;
		if (uda_capability_set_list_sets_equal(list, i, again, i, &equal) != UDA_SUCCESS || !equal)
			abort();
	}
	uda_capability_set_list *self = NULL;
	if (uda_capability_set_list_intersect(list, list, &self) != UDA_SUCCESS)
		abort();
	uda_capability_set_list_destroy(self);
	uda_capability_set_list_destroy(again);
	uda_capability_set_list_destroy(list);
	free(out);
	uda_context_destroy(ctx);
	return 0;
}
