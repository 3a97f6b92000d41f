#include <stdlib.h>

#include "test_device.h"

static uda_result test_get_capability_sets(void *data, uda_context *ctx, const uda_assertion *assertion,
                                           const uda_usage *usage, uda_capability_set_list *out)
{
	struct test_device *test = data;
	test->query_count++;
	if (test->fail_with != UDA_SUCCESS)
		return uda_context_set_error(ctx, test->fail_with, "test device told to fail");
	uint32_t count = 0;
	uda_result result = uda_capability_set_list_get_count(test->sets, &count);
	for (uint32_t i = 0; result == UDA_SUCCESS && i < count; i++)
		result = uda_capability_set_list_append_copy(out, test->sets, i);
	return result;
}

static void test_destroy(void *data)
{
	struct test_device *test = data;
	if (test->destroyed)
		(*test->destroyed)++;
	uda_capability_set_list_destroy(test->sets);
	free(test);
}

static const uda_device_interface test_interface = {
    .version = UDA_DEVICE_INTERFACE_VERSION_1,
    .get_capability_sets = test_get_capability_sets,
    .destroy = test_destroy,
};

uda_result test_device_add(uda_context *ctx, const char *name, uint8_t uuid_tail, uda_capability_set_list *sets,
                           uda_device **out_device, struct test_device **out_test)
{
	struct test_device *test = calloc(1, sizeof(*test));
	if (!test) {
		uda_capability_set_list_destroy(sets);
		return UDA_ERROR_OUT_OF_MEMORY;
	}
	test->sets = sets;
	uda_device_create_info info = {
	    .type = UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	    .name = name,
	    .backend_name = "test",
	    .api = UDA_DEVICE_API_OTHER,
	    .interface = &test_interface,
	    .device_data = test,
	};
	info.device_uuid[15] = uuid_tail;
	info.driver_uuid[0] = 0xd0;
	uda_result result = uda_context_add_device(ctx, &info, out_device);
	if (result != UDA_SUCCESS) {
		test_destroy(test);
		return result;
	}
	if (out_test)
		*out_test = test;
	return UDA_SUCCESS;
}
