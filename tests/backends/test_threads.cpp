// Threads: the contract in uda.h, stressed. Eight threads negotiate,
// allocate, export, import, map and free concurrently on the devices of
// one context; every result is checked, nothing leaks (fd count, ASan),
// and TSan (scripts/tsan.sh) finds no race.
#include <atomic>
#include <cstring>
#include <drm_fourcc.h>
#include <thread>
#include <unistd.h>

#include "fd_count.hpp"
#include "gpu_fixture.hpp"

using namespace uda_test;

namespace
{

constexpr int kThreads = 8;

class Threads : public GpuTest
{
};

// System memory: every thread its own allocations, all on one device.
void system_round(uda_context *ctx, uda_device *system, uint32_t seed, std::atomic<int> *failures)
{
	const uda_usage_atom atoms[] = {cpu_atom(UDA_USAGE_CPU_WRITE), cpu_atom(UDA_USAGE_CPU_READ)};
	const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 2, atoms};
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 64 + seed % 64, 32, DRM_FORMAT_XRGB8888,
	                                 0};
	const uda_device_usage devices[] = {{system, &usage}};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 1, devices};
	uda_allocation *allocation = nullptr;
	if (uda_negotiate_allocate(ctx, &info, &allocation, nullptr, nullptr) != UDA_SUCCESS) {
		++*failures;
		return;
	}
	void *pointer = nullptr;
	uda_allocation_metadata m = {};
	uda_allocation_get_metadata(allocation, &m);
	if (uda_allocation_map(allocation, UDA_ACCESS_WRITE, &pointer) == UDA_SUCCESS) {
		std::memset(pointer, static_cast<int>(seed & 0xff), m.size);
		uda_allocation_unmap(allocation);
	} else {
		++*failures;
	}
	uint8_t metadata[1024];
	size_t size = 0;
	int fd = -1;
	uda_allocation *imported = nullptr;
	if (uda_allocation_serialize_metadata(allocation, UDA_HANDLE_TYPE_MEMFD, metadata, sizeof(metadata), &size) !=
	            UDA_SUCCESS ||
	    uda_allocation_export(allocation, UDA_HANDLE_TYPE_MEMFD, &fd) != UDA_SUCCESS ||
	    uda_import_serialized(system, fd, metadata, size, &imported) != UDA_SUCCESS) {
		++*failures;
	} else if (uda_allocation_map(imported, UDA_ACCESS_READ, &pointer) == UDA_SUCCESS) {
		if (static_cast<uint8_t *>(pointer)[m.size - 1] != (seed & 0xff))
			++*failures;
		uda_allocation_unmap(imported);
	}
	if (fd >= 0)
		close(fd);
	uda_allocation_destroy(imported);
	uda_allocation_destroy(allocation);
}

// Vulkan allocates, GL imports: both backends' locks and the core's.
void gpu_round(uda_context *ctx, uda_device *vulkan, uda_device *gl, std::atomic<int> *failures)
{
	const uda_usage_atom vk_atoms[] = {atom(UDA_USAGE_RENDER_TARGET), atom(UDA_USAGE_TRANSFER_DST)};
	const uda_usage vk_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 2, vk_atoms};
	const uda_usage_atom gl_atoms[] = {atom(UDA_USAGE_SAMPLED)};
	const uda_usage gl_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, gl_atoms};
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 64, 64, DRM_FORMAT_ABGR8888, 0};
	const uda_device_usage devices[] = {{vulkan, &vk_usage}, {gl, &gl_usage}};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 2, devices};
	uda_allocation *allocation = nullptr;
	if (uda_negotiate_allocate(ctx, &info, &allocation, nullptr, nullptr) != UDA_SUCCESS) {
		++*failures;
		return;
	}
	uint8_t metadata[1024];
	size_t size = 0;
	int fd = -1;
	uda_allocation *imported = nullptr;
	if (uda_allocation_serialize_metadata(allocation, UDA_HANDLE_TYPE_OPAQUE_FD, metadata, sizeof(metadata),
	                                      &size) != UDA_SUCCESS ||
	    uda_allocation_export(allocation, UDA_HANDLE_TYPE_OPAQUE_FD, &fd) != UDA_SUCCESS ||
	    uda_import_serialized(gl, fd, metadata, size, &imported) != UDA_SUCCESS)
		++*failures;
	if (fd >= 0)
		close(fd);
	uda_allocation_destroy(imported);
	uda_allocation_destroy(allocation);
}

TEST_F(Threads, EightThreadsShareTheDevicesOfOneContext)
{
	const int iterations = std::getenv("UDA_TEST_THREAD_ITERATIONS")
	                               ? std::atoi(std::getenv("UDA_TEST_THREAD_ITERATIONS"))
	                               : 40;
	const int fds_before = open_fd_count();
	std::atomic<int> failures{0};
	std::vector<std::thread> threads;
	for (int t = 0; t < kThreads; t++) {
		threads.emplace_back([&, t] {
			for (int i = 0; i < iterations; i++) {
				if (t % 2 == 0)
					system_round(ctx.get(), system, static_cast<uint32_t>(t * 1000 + i), &failures);
				else
					gpu_round(ctx.get(), vulkan, gl, &failures);
				// A failing call's message stays with its thread.
				uda_capability_set_builder *b = nullptr;
				uda_capability_set_builder_create(ctx.get(), &b);
				if (uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_ADDRESS_ALIGNMENT, 3) !=
				            UDA_ERROR_INVALID_ARGUMENT ||
				    !std::strstr(uda_context_get_error(ctx.get()), "power of two"))
					++failures;
				uda_capability_set_builder_destroy(b);
			}
		});
	}
	for (std::thread &thread : threads)
		thread.join();
	EXPECT_EQ(failures.load(), 0);
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
}

} // namespace
