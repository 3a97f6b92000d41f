#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

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

static const uda_device_interface node_interface;

static const uda_device_interface test_interface = {
    .version = UDA_DEVICE_INTERFACE_VERSION_1,
    .get_capability_sets = test_get_capability_sets,
    .destroy = test_destroy,
};

static uda_result add_device(uda_context *ctx, const char *name, uint8_t uuid_tail, uda_capability_set_list *sets,
                             const uda_device_interface *interface, uda_device **out_device,
                             struct test_device **out_test, const struct test_device_node *node)
{
	struct test_device *test = calloc(1, sizeof(*test));
	if (!test) {
		uda_capability_set_list_destroy(sets);
		return UDA_ERROR_OUT_OF_MEMORY;
	}
	test->sets = sets;
	test->uuid_tail = uuid_tail;
	uda_device_create_info info = {
	    .type = UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	    .name = name,
	    .backend_name = "test",
	    .api = node ? node->api : UDA_DEVICE_API_OTHER,
	    .interface = interface,
	    .device_data = test,
	};
	if (node)
		info.drm_primary = (uda_drm_node){true, node->major, node->minor};
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

uda_result test_device_add_on_node(uda_context *ctx, const char *name, uint8_t uuid_tail,
                                   uda_capability_set_list *sets, const struct test_device_node *node,
                                   uda_device **out_device)
{
	return add_device(ctx, name, uuid_tail, sets, node && node->imports_dma_buf ? &node_interface : &test_interface,
	                  out_device, NULL, node);
}

uda_result test_device_add(uda_context *ctx, const char *name, uint8_t uuid_tail, uda_capability_set_list *sets,
                           uda_device **out_device, struct test_device **out_test)
{
	return add_device(ctx, name, uuid_tail, sets, &test_interface, out_device, out_test, NULL);
}

/* ---- devices with memory ---- */

struct test_memory {
	int fd;
	size_t size;
	void *mapping;
};

static uda_result memory_allocate(void *data, uda_context *ctx, const uda_assertion *assertion,
                                  const uda_capability_set_list *sets, uint32_t set_index, uda_backend_allocation *out)
{
	uda_result result = uda_backend_linear_layout(assertion, sets, set_index, &out->metadata);
	if (result != UDA_SUCCESS)
		return result;
	struct test_memory *memory = calloc(1, sizeof(*memory));
	if (!memory)
		return UDA_ERROR_OUT_OF_MEMORY;
	memory->size = out->metadata.size;
	memory->fd = memfd_create("uda-test-device", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (memory->fd < 0 || ftruncate(memory->fd, (off_t)memory->size) != 0 ||
	    fcntl(memory->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0) {
		if (memory->fd >= 0)
			close(memory->fd);
		free(memory);
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "test device: memfd failed");
	}
	out->data = memory;
	return UDA_SUCCESS;
}

static uda_result memory_import(void *data, uda_context *ctx, int fd, bool take_fd,
                                const uda_allocation_metadata *metadata, const uda_capability_set_list *sets,
                                const void *next, uda_backend_allocation *out)
{
	if (next || metadata->handle_type != UDA_HANDLE_TYPE_MEMFD)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "test device imports MEMFDs only");
	struct test_memory *memory = calloc(1, sizeof(*memory));
	if (!memory)
		return UDA_ERROR_OUT_OF_MEMORY;
	memory->fd = take_fd ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 0);
	memory->size = metadata->size;
	out->took_fd = take_fd;
	out->data = memory;
	out->metadata = *metadata;
	return UDA_SUCCESS;
}

static void memory_free(void *data, void *allocation)
{
	struct test_memory *memory = allocation;
	close(memory->fd);
	free(memory);
}

static uda_result memory_export(void *data, uda_context *ctx, void *allocation, uda_handle_type type, int *out_fd)
{
	struct test_memory *memory = allocation;
	if (type != UDA_HANDLE_TYPE_MEMFD)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "test device exports MEMFDs only");
	*out_fd = fcntl(memory->fd, F_DUPFD_CLOEXEC, 0);
	return *out_fd >= 0 ? UDA_SUCCESS : UDA_ERROR_BACKEND;
}

static uda_result memory_map(void *data, uda_context *ctx, void *allocation, uint32_t access, void **out)
{
	struct test_memory *memory = allocation;
	const int prot = ((access & UDA_ACCESS_READ) ? PROT_READ : 0) | ((access & UDA_ACCESS_WRITE) ? PROT_WRITE : 0);
	void *pointer = mmap(NULL, memory->size, prot, MAP_SHARED, memory->fd, 0);
	if (pointer == MAP_FAILED)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "test device: mmap failed");
	*out = pointer;
	memory->mapping = pointer;
	return UDA_SUCCESS;
}

static void memory_unmap(void *data, void *allocation, void *pointer)
{
	struct test_memory *memory = allocation;
	munmap(pointer, memory->size);
	memory->mapping = NULL;
}

static bool asks_storage(const uda_usage *usage)
{
	for (uint32_t i = 0; usage && i < usage->atom_count; i++) {
		if (usage->atoms[i].vendor == UDA_VENDOR_NONE && usage->atoms[i].name == UDA_USAGE_STORAGE)
			return true;
	}
	return false;
}

static uda_result memory_transition(void *data, uda_context *ctx, void *allocation,
                                    const uda_capability_set_list *sets, const uda_backend_transition *change,
                                    uda_transition *out)
{
	struct test_device *test = data;
	test->transition_count++;
	if (out->next)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "test device fills no output structs");
	uint8_t owner[UDA_UUID_SIZE] = {0};
	owner[15] = test->uuid_tail;
	uda_capability compression;
	if (!test->compression_name ||
	    !uda_backend_find_capability(sets, 0, TEST_VENDOR, test->compression_name, owner, &compression))
		return UDA_SUCCESS;
	if (asks_storage(change->own_to))
		uda_backend_transition_reallocate(out, "the compressed layout cannot be written as storage");
	const bool others_after = change->shared_after || out->kind == UDA_TRANSITION_REALLOCATE;
	if (!change->shared_before && others_after)
		return uda_backend_transition_add_op(out, UDA_TRANSITION_OP_RELEASE, TEST_VENDOR, test->compression_name);
	if (change->shared_before && !others_after && change->own_to)
		return uda_backend_transition_add_op(out, UDA_TRANSITION_OP_ACQUIRE, TEST_VENDOR, test->compression_name);
	return UDA_SUCCESS;
}

static const uda_device_interface memory_interface = {
    .version = UDA_DEVICE_INTERFACE_VERSION_3,
    .get_capability_sets = test_get_capability_sets,
    .destroy = test_destroy,
    .allocate = memory_allocate,
    .import = memory_import,
    .free = memory_free,
    .export_fd = memory_export,
    .map = memory_map,
    .unmap = memory_unmap,
    .transition = memory_transition,
};

/* A compositor's GPU in the tests: takes DMA-BUF imports (any file
 * stands in for one, a memfd mostly) after the core's checks. */
static uda_result node_import(void *data, uda_context *ctx, int fd, bool take_fd,
                              const uda_allocation_metadata *metadata, const uda_capability_set_list *sets,
                              const void *next, uda_backend_allocation *out)
{
	if (next || metadata->handle_type != UDA_HANDLE_TYPE_DMA_BUF)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "this test device imports DMA-BUFs only");
	uda_allocation_metadata as_memfd = *metadata;
	as_memfd.handle_type = UDA_HANDLE_TYPE_MEMFD;
	uda_result result = memory_import(data, ctx, fd, take_fd, &as_memfd, sets, next, out);
	if (result == UDA_SUCCESS)
		out->metadata.handle_type = UDA_HANDLE_TYPE_DMA_BUF;
	return result;
}

static const uda_device_interface node_interface = {
    .version = UDA_DEVICE_INTERFACE_VERSION_3,
    .get_capability_sets = test_get_capability_sets,
    .destroy = test_destroy,
    .import = node_import,
    .free = memory_free,
};

uda_result test_device_add_with_memory(uda_context *ctx, const char *name, uint8_t uuid_tail,
                                       uda_capability_set_list *sets, uda_device **out_device,
                                       struct test_device **out_test)
{
	return add_device(ctx, name, uuid_tail, sets, &memory_interface, out_device, out_test, NULL);
}
