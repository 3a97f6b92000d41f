/* libFuzzer target: import validation. The input is a little header (the
 * memfd's size and seals) followed by serialized allocation metadata; the
 * target makes that memfd and imports it with the metadata into a device
 * that accepts whatever the core lets through. Whatever the core accepts
 * must describe memory inside the memfd, and no import, accepted or
 * refused, may leave a descriptor open. */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <uda/uda_backend.h>

#include "fuzz_context.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


static uda_result accept_sets(void *data, uda_context *ctx, const uda_assertion *assertion, const uda_usage *usage,
                              uda_capability_set_list *out)
{
	return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "the fuzz device only imports");
}

/* Keeps a dup of what it imports, so a leak of it would show. */
static uda_result accept_import(void *data, uda_context *ctx, int fd, bool take_fd,
                                const uda_allocation_metadata *m, const uda_capability_set_list *set,
                                const void *next, uda_backend_allocation *out)
{
	int *kept = malloc(sizeof(*kept));
	if (!kept)
		return UDA_ERROR_OUT_OF_MEMORY;
	*kept = take_fd ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 0);
	out->took_fd = take_fd;
	out->data = kept;
	return UDA_SUCCESS;
}

static void release(void *data, void *allocation)
{
	close(*(int *)allocation);
	free(allocation);
}

static const uda_device_interface fuzz_device_interface = {
	.version = UDA_DEVICE_INTERFACE_VERSION_1,
	.get_capability_sets = accept_sets,
	.import = accept_import,
	.free = release,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 6)
		return 0;
	/* Header: u32 memfd size (below 4 MiB; memfds are sparse), u8 seals
	 * (bit 0 shrink, bit 1 grow), u8 take-fd. */
	const uint32_t memfd_size = (uint32_t)(data[0] | data[1] << 8 | data[2] << 16 | (uint32_t)data[3] << 24) % (1u << 22);
	const uint8_t seals = data[4], take = data[5] & 1;
	data += 6;
	size -= 6;

	uda_context *ctx = fuzz_context_create();
	uda_device_create_info info = {
		.type = UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.name = "fuzz importer",
		.backend_name = "fuzz",
		.api = UDA_DEVICE_API_OTHER,
		.interface = &fuzz_device_interface,
	};
	/* The seeds' metadata names this device's UUIDs (see make_seeds.c). */
	info.device_uuid[0] = info.driver_uuid[0] = 0xa0;
	uda_device *device;
	if (uda_context_add_device(ctx, &info, &device) != UDA_SUCCESS)
		abort();

	const int fds_before = fuzz_open_fds();
	int fd = memfd_create("uda-fuzz", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, memfd_size) != 0)
		abort();
	int seal_flags = ((seals & 1) ? F_SEAL_SHRINK : 0) | ((seals & 2) ? F_SEAL_GROW : 0);
	if (seal_flags && fcntl(fd, F_ADD_SEALS, seal_flags) != 0)
		abort();

	uda_allocation_metadata m;
	uda_capability_set_list *set = NULL;
	if (uda_allocation_metadata_deserialize(ctx, data, size, &m, &set) == UDA_SUCCESS) {
		const uda_import_info import = {
			.type = UDA_STRUCTURE_TYPE_IMPORT_INFO,
			.device = device,
			.fd = take ? dup(fd) : fd,
			.metadata = &m,
			.set_list = set,
			.flags = take ? UDA_IMPORT_TAKE_FD : 0,
		};
		uda_allocation *allocation = NULL;
		if (uda_import(&import, &allocation) == UDA_SUCCESS) {
			uda_allocation_metadata got;
			uda_allocation_get_metadata(allocation, &got);
			/* Accepted: every plane starts inside the memory, and the
			 * memory fits in the memfd. */
			if (got.size > memfd_size)
				abort();
			for (uint32_t p = 0; p < got.plane_count; p++) {
				if (got.planes[p].offset >= got.size)
					abort();
			}
			uda_allocation_destroy(allocation);
		}
		uda_capability_set_list_destroy(set);
	}
	close(fd);
	if (fuzz_open_fds() != fds_before)
		abort();
	uda_context_destroy(ctx);
	return 0;
}
