/*
 * The system backend: host memory in sealed memfds.
 *
 * One device, the CPU. Its memory is pitch linear, mappable and coherent,
 * and travels as a MEMFD sealed against shrinking and growing, so an
 * importer that has checked the size can map it without fearing SIGBUS.
 * Sizes are rounded to whole pages: a Vulkan driver imports host memory
 * only in units of minImportedHostPointerAlignment, a page on Mesa.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include <uda/uda_backend.h>

#include "udmabuf.h"

#define SYSTEM_BACKEND_NAME "system"

/* Fixed identifiers: the CPU has no Vulkan or GL UUID, and these can never
 * be mistaken for one (drivers use random or hashed bytes). */
static const uint8_t system_device_uuid[UDA_UUID_SIZE] = "uda-system-cpu";
static const uint8_t system_driver_uuid[UDA_UUID_SIZE] = "uda-memfd";

struct system_device {
	uint64_t page_size;
	/* /dev/udmabuf is there: allocations also travel as DMA-BUFs. */
	bool udmabuf;
};

struct system_allocation {
	int fd;
	uint64_t size;
};

static bool usage_atom_supported(const uda_usage_atom *atom)
{
	if (atom->vendor != UDA_VENDOR_NONE)
		return false;
	switch (atom->name) {
	case UDA_USAGE_CPU_READ:
	case UDA_USAGE_CPU_WRITE:
	case UDA_USAGE_TRANSFER_SRC:
	case UDA_USAGE_TRANSFER_DST:
		return true;
	default:
		return false;
	}
}

/* One set: linear pages travelling as `handle` (REQUIRED: nothing else
 * reaches this memory); placement and CPU access are facts others may
 * ignore. */
static uda_result append_set(uda_context *ctx, const struct system_device *device, const uda_format_info *format,
                             uda_handle_type handle, uda_capability_set_list *out_list)
{
	uda_capability_set_builder *builder;
	uda_result result = uda_capability_set_builder_create(ctx, &builder);
	if (result != UDA_SUCCESS)
		return result;
	result = uda_capability_set_builder_add_layout(builder, DRM_FORMAT_MOD_LINEAR, 0);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_add_u32(builder, UDA_CAPABILITY_HANDLE, handle,
		                                            UDA_CAPABILITY_FLAG_REQUIRED);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_add_u32(builder, UDA_CAPABILITY_PLACEMENT, UDA_PLACEMENT_SYSTEM, 0);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_add_u32(builder, UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE,
		                                            0);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_add_u32(builder, UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_COHERENT,
		                                            0);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_ADDRESS_ALIGNMENT,
		                                                   device->page_size);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_SIZE_ALIGNMENT,
		                                                   device->page_size);
	/* Rows at whole pixels (blocks) so CPU code can index them. */
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_PITCH_ALIGNMENT,
		                                                   format->planes[0].bytes_per_block);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_list_append_set(out_list, builder);
	uda_capability_set_builder_destroy(builder);
	return result;
}

static uda_result system_get_capability_sets(void *device_data, uda_context *ctx, const uda_assertion *assertion,
                                             const uda_usage *usage, uda_capability_set_list *out_list)
{
	struct system_device *device = device_data;
	for (uint32_t i = 0; i < usage->atom_count; i++) {
		if (!usage_atom_supported(&usage->atoms[i]))
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
			                             "system memory serves CPU and transfer usage only (atom %u:%u)",
			                             usage->atoms[i].vendor, usage->atoms[i].name);
	}
	uda_format_info format;
	if (uda_format_get_info(assertion->format, &format) != UDA_SUCCESS)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "unknown format");

	uda_result result = append_set(ctx, device, &format, UDA_HANDLE_TYPE_MEMFD, out_list);
	/* The same pages as a udmabuf, for consumers that import DMA-BUFs
	 * only (a display, a codec); second, since a memfd costs nothing. */
	if (result == UDA_SUCCESS && device->udmabuf)
		result = append_set(ctx, device, &format, UDA_HANDLE_TYPE_DMA_BUF, out_list);
	return result;
}

static uda_result system_allocate(void *device_data, uda_context *ctx, const uda_assertion *assertion,
                                  const uda_capability_set_list *set_list, uint32_t set_index,
                                  uda_backend_allocation *out)
{
	if (!uda_backend_set_is_linear(set_list, set_index))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "system memory is pitch linear only");
	struct system_device *device = device_data;
	if (!uda_backend_set_has_u32(set_list, set_index, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_MEMFD) &&
	    !(device->udmabuf && uda_backend_set_has_u32(set_list, set_index, UDA_CAPABILITY_HANDLE,
	                                                 UDA_HANDLE_TYPE_DMA_BUF)))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "the set carries neither MEMFD nor (udmabuf) "
		                                                         "DMA-BUF handles");
	const uint32_t placement = uda_backend_set_required_placement(set_list, set_index);
	if (placement && placement != UDA_PLACEMENT_SYSTEM)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "the set requires placement %u; a memfd is ordinary system memory", placement);

	uda_result result = uda_backend_linear_layout(assertion, set_list, set_index, &out->metadata);
	if (result != UDA_SUCCESS)
		return result;
	const uint64_t size = out->metadata.size;
	if (size > (uint64_t)INT64_MAX)
		return uda_context_set_error(ctx, UDA_ERROR_OVERFLOW, "size %llu does not fit a file",
		                             (unsigned long long)size);

	struct system_allocation *allocation = calloc(1, sizeof(*allocation));
	if (!allocation)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	allocation->fd = memfd_create("uda-system", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (allocation->fd < 0) {
		free(allocation);
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "memfd_create: %s", strerror(errno));
	}
	/* F_SEAL_SEAL too: an importer must not add F_SEAL_WRITE under the
	 * writable mappings of everyone else. */
	if (ftruncate(allocation->fd, (off_t)size) != 0 ||
	    fcntl(allocation->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
		int error = errno;
		close(allocation->fd);
		free(allocation);
		return uda_context_set_error(ctx, error == ENOSPC ? UDA_ERROR_OUT_OF_MEMORY : UDA_ERROR_BACKEND,
		                             "memfd of %llu bytes: %s", (unsigned long long)size, strerror(error));
	}
	allocation->size = size;
	out->data = allocation;
	return UDA_SUCCESS;
}

static uda_result system_import(void *device_data, uda_context *ctx, int fd, bool take_fd,
                                const uda_allocation_metadata *metadata, const uda_capability_set_list *set_list,
                                const void *next, uda_backend_allocation *out)
{
	(void)device_data;
	(void)set_list;
	/* The core checked the seals and the size; only the memfd itself can
	 * come here, other handle types have no CPU path in this backend. */
	struct system_allocation *allocation = NULL;
	const char *problem = next                                            ? "system: no import extension structs"
	                      : metadata->handle_type != UDA_HANDLE_TYPE_MEMFD ? "system memory imports MEMFD handles only"
	                      : !(allocation = calloc(1, sizeof(*allocation))) ? "out of memory"
	                                                                       : NULL;
	if (problem)
		return uda_context_set_error(ctx, allocation || next || metadata->handle_type != UDA_HANDLE_TYPE_MEMFD
		                                      ? UDA_ERROR_UNSUPPORTED
		                                      : UDA_ERROR_OUT_OF_MEMORY,
		                             "%s", problem);
	allocation->fd = take_fd ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (allocation->fd < 0) {
		free(allocation);
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "dup: %s", strerror(errno));
	}
	allocation->size = metadata->size;
	out->data = allocation;
	out->took_fd = take_fd;
	return UDA_SUCCESS;
}

static void system_free(void *device_data, void *allocation_data)
{
	(void)device_data;
	struct system_allocation *allocation = allocation_data;
	close(allocation->fd);
	free(allocation);
}

static uda_result system_export_fd(void *device_data, uda_context *ctx, void *allocation_data,
                                   uda_handle_type handle_type, int *out_fd)
{
	const struct system_device *device = device_data;
	struct system_allocation *allocation = allocation_data;
	if (handle_type == UDA_HANDLE_TYPE_DMA_BUF && device->udmabuf) {
		/* Sealed against shrinking and page-sized: what udmabuf asks. */
		int fd = udmabuf_create(allocation->fd, allocation->size);
		if (fd < 0)
			return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "UDMABUF_CREATE: %s", strerror(-fd));
		*out_fd = fd;
		return UDA_SUCCESS;
	}
	if (handle_type != UDA_HANDLE_TYPE_MEMFD)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "system memory exports MEMFD handles, and DMA-BUFs where /dev/udmabuf is");
	int fd = fcntl(allocation->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "dup: %s", strerror(errno));
	*out_fd = fd;
	return UDA_SUCCESS;
}

static uda_result system_map(void *device_data, uda_context *ctx, void *allocation_data, uint32_t access,
                             void **out_pointer)
{
	(void)device_data;
	struct system_allocation *allocation = allocation_data;
	int protection = 0;
	if (access & UDA_ACCESS_READ)
		protection |= PROT_READ;
	if (access & UDA_ACCESS_WRITE)
		protection |= PROT_WRITE;
	void *pointer = mmap(NULL, allocation->size, protection, MAP_SHARED, allocation->fd, 0);
	if (pointer == MAP_FAILED)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "mmap of %llu bytes: %s",
		                             (unsigned long long)allocation->size, strerror(errno));
	*out_pointer = pointer;
	return UDA_SUCCESS;
}

static void system_unmap(void *device_data, void *allocation_data, void *pointer)
{
	(void)device_data;
	struct system_allocation *allocation = allocation_data;
	munmap(pointer, allocation->size);
}

static void system_destroy(void *device_data)
{
	free(device_data);
}

/* Map, unmap and the shared page cache make memfd memory coherent: no
 * begin/end hooks. */
static const uda_device_interface system_device_interface = {
	.version = UDA_DEVICE_INTERFACE_VERSION_1,
	.get_capability_sets = system_get_capability_sets,
	.destroy = system_destroy,
	.allocate = system_allocate,
	.import = system_import,
	.free = system_free,
	.export_fd = system_export_fd,
	.map = system_map,
	.unmap = system_unmap,
};

static uda_result system_load(uda_context *ctx, void **out_backend_data)
{
	*out_backend_data = NULL;
	long page_size = sysconf(_SC_PAGESIZE);
	struct system_device *device = calloc(1, sizeof(*device));
	if (!device)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	device->page_size = page_size > 0 ? (uint64_t)page_size : 4096;
	device->udmabuf = udmabuf_available();

	uda_device_create_info info = {
		.type = UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.name = "System memory (memfd)",
		.backend_name = SYSTEM_BACKEND_NAME,
		.api = UDA_DEVICE_API_CPU,
		.interface = &system_device_interface,
		.device_data = device,
	};
	memcpy(info.device_uuid, system_device_uuid, UDA_UUID_SIZE);
	memcpy(info.driver_uuid, system_driver_uuid, UDA_UUID_SIZE);
	uda_result result = uda_context_add_device(ctx, &info, NULL);
	if (result != UDA_SUCCESS)
		free(device);
	return result;
}

static const uda_backend_interface system_backend_interface = {
	.version = UDA_BACKEND_INTERFACE_VERSION_1,
	.name = SYSTEM_BACKEND_NAME,
	.load = system_load,
};

UDA_BACKEND_DEFINE_ENTRY_POINT(system_backend_interface)
