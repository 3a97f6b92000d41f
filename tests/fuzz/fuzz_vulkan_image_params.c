/* libFuzzer target: the vulkan backend's reading of sets and metadata that
 * crossed a process boundary, on uda-mock-vulkan (a GPU with video decode
 * and DRM modifiers, so the IMAGE_PARAMS with a video profile, the
 * modifier path and multi-planar layouts all run). The input is a mode
 * byte, a u32 memfd size and serialized allocation metadata with its set:
 * mode 0 allocates the set on the GPU at the metadata's size and format,
 * mode 1 imports a memfd of that size with the metadata. Nothing may
 * crash, and no descriptor may stay open.
 *
 * The seeds (corpus/vulkan_image_params) are the metadata of real
 * allocations on the mock: an H.264 decode output block-linear and linear,
 * an H.265 Main 10 P010 one, the opaque one, and an RGBA render target;
 * and the H.264 ones with their profile made an H.264 encode input's, an
 * AV1 decode output's and a VP9 decode output's. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <uda/uda.h>

#include "fuzz_context.h"
#include "fuzz_mock_gpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uda_context *ctx;
static uda_device *gpu;
/* A context with the vulkan backend alone (a folder holding only its
 * manifest), the mock the only driver; made once, for every input. */
static void open_gpu(void)
{
	fuzz_use_mock_gpu();
	if (uda_context_create(NULL, &ctx) != UDA_SUCCESS)
		abort();
	uint32_t count = 1;
	if (uda_context_enumerate_devices(ctx, &count, &gpu) != UDA_SUCCESS || count != 1)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 5)
		return 0;
	if (!ctx)
		open_gpu();
	const bool import = data[0] & 1;
	/* memfds are sparse: 64 MiB costs nothing until written. */
	const uint32_t memfd_size = (uint32_t)(data[1] | data[2] << 8 | data[3] << 16 | (uint32_t)data[4] << 24) % (1u << 26);
	data += 5;
	size -= 5;

	const int fds_before = fuzz_open_fds();
	uda_allocation_metadata m;
	uda_capability_set_list *set = NULL;
	if (uda_allocation_metadata_deserialize(ctx, data, size, &m, &set) == UDA_SUCCESS) {
		uda_allocation *allocation = NULL;
		if (!import) {
			const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, m.width, m.height, m.format, 0};
			const uda_allocation_create_info info = {UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO, NULL, gpu,
			                                         &assertion, set, 0};
			uda_allocate(&info, &allocation);
		} else {
			const int fd = memfd_create("uda-fuzz-vulkan", MFD_CLOEXEC);
			if (fd < 0 || ftruncate(fd, memfd_size) != 0)
				abort();
			const uda_import_info info = {
				.type = UDA_STRUCTURE_TYPE_IMPORT_INFO,
				.device = gpu,
				.fd = fd,
				.metadata = &m,
				.set_list = set,
			};
			uda_import(&info, &allocation);
			close(fd);
		}
		uda_allocation_destroy(allocation);
		uda_capability_set_list_destroy(set);
	}
	if (fuzz_open_fds() != fds_before)
		abort();
	return 0;
}
