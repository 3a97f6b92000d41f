/*
 * DMA-BUF heaps as memory sources. A heap allocates for a set only when
 * the set is pitch linear (a heap hands out bytes, not tiles), travels as
 * a DMA-BUF, and either requires this heap's placement or requires none
 * (then only a system heap: contiguous memory is scarce and kept for the
 * devices that need it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "heap_device.h"

static const uint8_t heap_driver_uuid[UDA_UUID_SIZE] = "uda-dma-heap";

struct heap_device {
	char name[DMA_HEAP_NAME_MAX];
	uint32_t placement;
	const struct dma_heap_io *io;
	uint64_t page_size;
};

struct heap_allocation {
	int fd;
	uint64_t size;
};

uint32_t dma_heap_placement(const char *name)
{
	if (strcmp(name, "system") == 0 || strcmp(name, "system-uncached") == 0)
		return UDA_PLACEMENT_SYSTEM;
	if (strstr(name, "secure") || strstr(name, "protected"))
		return UDA_PLACEMENT_PROTECTED;
	if (strstr(name, "cma") || strstr(name, "reserved"))
		return UDA_PLACEMENT_CONTIGUOUS;
	return 0;
}

static uda_result heap_get_capability_sets(void *data, uda_context *ctx, const uda_assertion *assertion,
                                           const uda_usage *usage, uda_capability_set_list *out_list)
{
	struct heap_device *heap = data;
	for (uint32_t i = 0; i < usage->atom_count; i++) {
		const uda_usage_atom *atom = &usage->atoms[i];
		if (atom->vendor != UDA_VENDOR_NONE ||
		    (atom->name != UDA_USAGE_CPU_READ && atom->name != UDA_USAGE_CPU_WRITE))
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
			                             "heap %s: a memory source has no usage of its own beyond CPU access",
			                             heap->name);
	}
	uda_format_info format;
	if (uda_format_get_info(assertion->format, &format) != UDA_SUCCESS)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "heap %s: unknown format", heap->name);
	uda_capability_set_builder *builder;
	uda_result result = uda_capability_set_builder_create(ctx, &builder);
	if (result != UDA_SUCCESS)
		return result;
	result = uda_capability_set_builder_add_layout(builder, DRM_FORMAT_MOD_LINEAR, 0);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_add_u32(builder, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF,
		                                            UDA_CAPABILITY_FLAG_REQUIRED);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_add_u32(builder, UDA_CAPABILITY_PLACEMENT, heap->placement, 0);
	/* Mappable, not coherent: CPU access is bracketed by DMA_BUF_IOCTL_SYNC. */
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_add_u32(builder, UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE,
		                                            0);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_ADDRESS_ALIGNMENT,
		                                                   heap->page_size);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_SIZE_ALIGNMENT, heap->page_size);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_list_append_set(out_list, builder);
	uda_capability_set_builder_destroy(builder);
	return result;
}

static uda_result heap_allocate(void *data, uda_context *ctx, const uda_assertion *assertion,
                                const uda_capability_set_list *set, uint32_t set_index, uda_backend_allocation *out)
{
	struct heap_device *heap = data;
	if (!uda_backend_set_is_linear(set, set_index))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "heap %s: a heap gives bytes, so pitch-linear layouts only", heap->name);
	if (!uda_backend_set_has_u32(set, set_index, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "heap %s: the set does not travel as a DMA-BUF",
		                             heap->name);
	const uint32_t required = uda_backend_set_required_placement(set, set_index);
	if (required ? required != heap->placement : heap->placement != UDA_PLACEMENT_SYSTEM)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "heap %s gives %s memory, the set requires %s",
		                             heap->name, uda_placement_to_string(heap->placement),
		                             required ? uda_placement_to_string(required) : "none (left to a system heap)");

	uda_result result = uda_backend_linear_layout(assertion, set, set_index, &out->metadata);
	if (result != UDA_SUCCESS)
		return result;
	/* Heaps hand out whole pages. */
	const uint64_t size = out->metadata.size;
	if (size > UINT64_MAX - heap->page_size)
		return uda_context_set_error(ctx, UDA_ERROR_OVERFLOW, "heap %s: %llu bytes", heap->name,
		                             (unsigned long long)size);
	const uint64_t rounded = (size + heap->page_size - 1) / heap->page_size * heap->page_size;

	struct heap_allocation *allocation = calloc(1, sizeof(*allocation));
	if (!allocation)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	int fd = heap->io->allocate(heap->io->data, heap->name, rounded);
	if (fd < 0) {
		free(allocation);
		return uda_context_set_error(ctx, fd == -ENOMEM ? UDA_ERROR_OUT_OF_MEMORY : UDA_ERROR_BACKEND,
		                             "heap %s: allocating %llu bytes: %s", heap->name, (unsigned long long)rounded,
		                             strerror(-fd));
	}
	allocation->fd = fd;
	allocation->size = rounded;
	out->metadata.size = rounded;
	out->data = allocation;
	return UDA_SUCCESS;
}

static void heap_free(void *data, void *allocation_data)
{
	(void)data;
	struct heap_allocation *allocation = allocation_data;
	close(allocation->fd);
	free(allocation);
}

static uda_result heap_export_fd(void *data, uda_context *ctx, void *allocation_data, uda_handle_type handle_type,
                                 int *out_fd)
{
	struct heap_device *heap = data;
	struct heap_allocation *allocation = allocation_data;
	if (handle_type != UDA_HANDLE_TYPE_DMA_BUF)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "heap %s: DMA-BUF handles only", heap->name);
	*out_fd = fcntl(allocation->fd, F_DUPFD_CLOEXEC, 0);
	return *out_fd < 0 ? uda_context_set_error(ctx, UDA_ERROR_BACKEND, "dup: %s", strerror(errno)) : UDA_SUCCESS;
}

static uda_result heap_map(void *data, uda_context *ctx, void *allocation_data, uint32_t access, void **out_pointer)
{
	struct heap_allocation *allocation = allocation_data;
	const int protection = ((access & UDA_ACCESS_READ) ? PROT_READ : 0) | ((access & UDA_ACCESS_WRITE) ? PROT_WRITE : 0);
	void *pointer = mmap(NULL, allocation->size, protection, MAP_SHARED, allocation->fd, 0);
	if (pointer == MAP_FAILED)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "heap %s: mmap: %s",
		                             ((struct heap_device *)data)->name, strerror(errno));
	*out_pointer = pointer;
	return UDA_SUCCESS;
}

static void heap_unmap(void *data, void *allocation_data, void *pointer)
{
	(void)data;
	munmap(pointer, ((struct heap_allocation *)allocation_data)->size);
}

static uda_result heap_cpu_access(struct heap_device *heap, uda_context *ctx, struct heap_allocation *allocation,
                                  uint32_t access, bool start)
{
	int result = heap->io->sync(heap->io->data, allocation->fd, start, access & UDA_ACCESS_READ,
	                            access & UDA_ACCESS_WRITE);
	return result < 0 ? uda_context_set_error(ctx, UDA_ERROR_BACKEND, "heap %s: DMA_BUF_IOCTL_SYNC: %s",
	                                          heap->name, strerror(-result))
	                  : UDA_SUCCESS;
}

static uda_result heap_begin_cpu_access(void *data, uda_context *ctx, void *allocation, uint32_t access)
{
	return heap_cpu_access(data, ctx, allocation, access, true);
}

static uda_result heap_end_cpu_access(void *data, uda_context *ctx, void *allocation, uint32_t access)
{
	return heap_cpu_access(data, ctx, allocation, access, false);
}

static void heap_destroy(void *data)
{
	free(data);
}

static const uda_device_interface heap_device_interface = {
	.version = UDA_DEVICE_INTERFACE_VERSION_1,
	.get_capability_sets = heap_get_capability_sets,
	.destroy = heap_destroy,
	.allocate = heap_allocate,
	.free = heap_free,
	.export_fd = heap_export_fd,
	.map = heap_map,
	.unmap = heap_unmap,
	.begin_cpu_access = heap_begin_cpu_access,
	.end_cpu_access = heap_end_cpu_access,
};

uda_result dma_heap_device_add(uda_context *ctx, const char *name, const struct dma_heap_io *io,
                               uda_device **out_device)
{
	const uint32_t placement = dma_heap_placement(name);
	if (!placement)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "heap %s: its name says no placement", name);
	if (strlen(name) >= DMA_HEAP_NAME_MAX)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "heap name too long");
	struct heap_device *heap = calloc(1, sizeof(*heap));
	if (!heap)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	memcpy(heap->name, name, strlen(name) + 1);
	heap->placement = placement;
	heap->io = io;
	long page_size = sysconf(_SC_PAGESIZE);
	heap->page_size = page_size > 0 ? (uint64_t)page_size : 4096;
	char device_name[DMA_HEAP_NAME_MAX + 32];
	snprintf(device_name, sizeof(device_name), "DMA-BUF heap %s (%s)", name, uda_placement_to_string(placement));
	uda_device_create_info info = {
		.type = UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.name = device_name,
		.backend_name = DMA_HEAP_BACKEND_NAME,
		.api = UDA_DEVICE_API_DMA_HEAP,
		.interface = &heap_device_interface,
		.device_data = heap,
	};
	/* A heap has no UUID of its own: its name names it alike in every
	 * process. */
	uda_backend_uuid_from_name(name, info.device_uuid);
	memcpy(info.driver_uuid, heap_driver_uuid, UDA_UUID_SIZE);
	uda_result result = uda_context_add_device(ctx, &info, out_device);
	if (result != UDA_SUCCESS)
		free(heap);
	return result;
}

uint32_t dma_heap_devices_add_all(uda_context *ctx, const struct dma_heap_io *io)
{
	char names[DMA_HEAP_MAX][DMA_HEAP_NAME_MAX];
	const uint32_t count = io->list(io->data, names);
	uint32_t added = 0;
	for (uint32_t i = 0; i < count; i++) {
		if (dma_heap_device_add(ctx, names[i], io, NULL) == UDA_SUCCESS)
			added++;
		else
			uda_context_log(ctx, UDA_LOG_INFO, "dma-heap: skipping %s: %s", names[i], uda_context_get_error(ctx));
	}
	return added;
}
