/* Test devices: in-process uda devices that answer every request with a
 * copy of a list fixed by the test, and count how often they were asked. */
#ifndef UDA_TEST_DEVICE_H
#define UDA_TEST_DEVICE_H

#include <uda/uda_backend.h>

#ifdef __cplusplus
extern "C" {
#endif

struct test_device {
	/* The list every query answers with; owned by the test device. */
	uda_capability_set_list *sets;
	/* When set, the device refuses every query with this result. */
	uda_result fail_with;
	uint8_t uuid_tail;
	unsigned query_count;
	unsigned *destroyed; /* incremented when the context destroys it */

	/* Devices made by test_device_add_with_memory only. */
	/* A LOCAL capability (vendor TEST_VENDOR) standing for a compression
	 * only this device understands: its transition entry point resolves
	 * it (RELEASE) before others use the memory, restores it (ACQUIRE)
	 * when they stop, and cannot serve UDA_USAGE_STORAGE at all. 0: the
	 * device has none. */
	uint16_t compression_name;
	unsigned transition_count;
};

#define TEST_VENDOR 0x1234u

/* Registers a device with UUID {0, ..., 0, uuid_tail} that answers with
 * `sets` (ownership of `sets` passes to the device). */
uda_result test_device_add(uda_context *ctx, const char *name, uint8_t uuid_tail, uda_capability_set_list *sets,
                           uda_device **out_device, struct test_device **out_test);

/* Where a test device says its hardware is: a DRM node and an API. */
struct test_device_node {
	uda_device_api api;
	uint32_t major, minor;
	/* Takes DMA-BUF imports (a memfd stands in for one). */
	bool imports_dma_buf;
};

/* As test_device_add, with a DRM primary node and an API of its own (a
 * compositor's GPU or display, found by dev_t). */
uda_result test_device_add_on_node(uda_context *ctx, const char *name, uint8_t uuid_tail,
                                   uda_capability_set_list *sets, const struct test_device_node *node,
                                   uda_device **out_device);

/* As test_device_add, plus host memory: allocations are sealed memfds in
 * the set's linear layout, exported and imported as MEMFD, mappable. */
uda_result test_device_add_with_memory(uda_context *ctx, const char *name, uint8_t uuid_tail,
                                       uda_capability_set_list *sets, uda_device **out_device,
                                       struct test_device **out_test);

#ifdef __cplusplus
}
#endif

#endif
