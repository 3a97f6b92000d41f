// DMA-BUF heaps as memory sources: the selection and sizing logic of the
// dma-heap backend on recorded heap sets (a desktop with only "system", a
// Raspberry-Pi-like board with "linux,cma" too), with memfds standing in
// for the dma-bufs the kernel would hand out, and the kernel's heaps
// themselves where the machine has /dev/dma_heap.
#include <cerrno>
#include <cstring>
#include <drm_fourcc.h>
#include <gtest/gtest.h>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

#include "fd_count.hpp"
#include "heap_device.h"
#include "set_spec.hpp"
#include "test_device.h"

using namespace uda_test;

namespace
{

// A recorded heap set: what /dev/dma_heap listed, and what was asked of it.
struct RecordedHeaps {
	std::vector<std::string> names;
	int fail_with = 0; // -errno for every allocation, 0 to succeed
	std::vector<std::pair<std::string, uint64_t>> allocations;
	std::vector<std::string> syncs;
};

uint32_t recorded_list(void *data, char names[][DMA_HEAP_NAME_MAX])
{
	auto *heaps = static_cast<RecordedHeaps *>(data);
	uint32_t count = 0;
	for (const std::string &name : heaps->names) {
		if (count == DMA_HEAP_MAX)
			break;
		std::snprintf(names[count++], DMA_HEAP_NAME_MAX, "%s", name.c_str());
	}
	return count;
}

int recorded_allocate(void *data, const char *heap, uint64_t size)
{
	auto *heaps = static_cast<RecordedHeaps *>(data);
	heaps->allocations.emplace_back(heap, size);
	if (heaps->fail_with)
		return heaps->fail_with;
	int fd = memfd_create("uda-test-dma-buf", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, static_cast<off_t>(size)) != 0)
		return -errno;
	return fd;
}

int recorded_sync(void *data, int fd, bool start, bool read, bool write)
{
	auto *heaps = static_cast<RecordedHeaps *>(data);
	heaps->syncs.push_back(std::string(start ? "start" : "end") + (read ? " read" : "") + (write ? " write" : ""));
	return 0;
}

constexpr uint32_t kWidth = 100, kHeight = 30;

// The heap's allocation of a pitch-linear, mappable DMA-BUF set.
uda_allocation *allocate_mappable(uda_context *ctx, uda_device *heap, const uda_assertion &assertion)
{
	ListPtr list = make_list(ctx, {{{layout(DRM_FORMAT_MOD_LINEAR),
	                                 common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF),
	                                 common(UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE)},
	                                {}}});
	uda_allocation_create_info info = {UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO, nullptr, heap, &assertion,
	                                   list.get(), 0};
	uda_allocation *allocation = nullptr;
	EXPECT_EQ(uda_allocate(&info, &allocation), UDA_SUCCESS) << uda_context_get_error(ctx);
	return allocation;
}

class DmaHeap : public ::testing::Test
{
protected:
	RecordedHeaps heaps;
	dma_heap_io io = {recorded_list, recorded_allocate, recorded_sync, &heaps};
	ContextPtr ctx = make_context();
	uda_device *display = nullptr, *gpu = nullptr;
	int fds_before = -1;
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, kWidth, kHeight, DRM_FORMAT_XRGB8888, 0};
	const uda_usage_atom scanout_atom = {UDA_VENDOR_NONE, UDA_USAGE_SCANOUT, 0, nullptr};
	const uda_usage_atom render_atom = {UDA_VENDOR_NONE, UDA_USAGE_RENDER_TARGET, 0, nullptr};
	const uda_usage scanout = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &scanout_atom};
	const uda_usage render = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &render_atom};

	void SetUp() override { fds_before = open_fd_count(); }
	void TearDown() override
	{
		ctx.reset();
		EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
	}

	void add_heaps(std::vector<std::string> names)
	{
		heaps.names = std::move(names);
		dma_heap_devices_add_all(ctx.get(), &io);
	}

	// A display controller that scans out linear DMA-BUFs with 64-byte
	// pitches, from contiguous memory when `contiguous` (vc4-like), and a
	// GPU that imports linear DMA-BUFs of any placement at 256-byte
	// pitches but allocates none (or none of those placements) itself.
	void add_display_and_gpu(bool contiguous)
	{
		SetSpec display_set{{layout(DRM_FORMAT_MOD_LINEAR),
		                     common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF, UDA_CAPABILITY_FLAG_REQUIRED)},
		                    {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 64}}};
		if (contiguous)
			display_set.caps.push_back(
				common(UDA_CAPABILITY_PLACEMENT, UDA_PLACEMENT_CONTIGUOUS, UDA_CAPABILITY_FLAG_REQUIRED));
		SetSpec gpu_set{{layout(DRM_FORMAT_MOD_LINEAR), common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF),
		                 common(UDA_CAPABILITY_PLACEMENT, UDA_PLACEMENT_SYSTEM),
		                 common(UDA_CAPABILITY_PLACEMENT, UDA_PLACEMENT_CONTIGUOUS),
		                 common(UDA_CAPABILITY_PLACEMENT, UDA_PLACEMENT_DEVICE_LOCAL)},
		                {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 256}}};
		ASSERT_EQ(test_device_add(ctx.get(), "display", 1, make_list(ctx.get(), {display_set}).release(), &display,
		                          nullptr),
		          UDA_SUCCESS);
		ASSERT_EQ(test_device_add(ctx.get(), "gpu", 2, make_list(ctx.get(), {gpu_set}).release(), &gpu, nullptr),
		          UDA_SUCCESS);
	}

	uda_result negotiate_allocate(uda_allocation **out)
	{
		const uda_device_usage devices[] = {{display, &scanout}, {gpu, &render}};
		const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 2, devices};
		return uda_negotiate_allocate(ctx.get(), &info, out, nullptr, nullptr);
	}
};

TEST_F(DmaHeap, HeapNamesSayTheirPlacement)
{
	EXPECT_EQ(dma_heap_placement("system"), UDA_PLACEMENT_SYSTEM);
	EXPECT_EQ(dma_heap_placement("system-uncached"), UDA_PLACEMENT_SYSTEM);
	EXPECT_EQ(dma_heap_placement("linux,cma"), UDA_PLACEMENT_CONTIGUOUS);
	EXPECT_EQ(dma_heap_placement("reserved"), UDA_PLACEMENT_CONTIGUOUS);
	EXPECT_EQ(dma_heap_placement("secure_video"), UDA_PLACEMENT_PROTECTED);
	EXPECT_EQ(dma_heap_placement("vendor-mystery"), 0u);
}

TEST_F(DmaHeap, RecordedHeapSetsBecomeMemorySources)
{
	add_heaps({"linux,cma", "system", "vendor-mystery"});
	uint32_t count = 8;
	uda_device *devices[8];
	ASSERT_EQ(uda_context_enumerate_devices(ctx.get(), &count, devices), UDA_SUCCESS);
	ASSERT_EQ(count, 2u) << "the heap whose name says nothing is skipped";
	for (uint32_t i = 0; i < count; i++) {
		uda_device_info info = {};
		info.type = UDA_STRUCTURE_TYPE_DEVICE_INFO;
		ASSERT_EQ(uda_device_get_info(devices[i], &info), UDA_SUCCESS);
		EXPECT_EQ(info.api, UDA_DEVICE_API_DMA_HEAP);
		EXPECT_STREQ(info.backend_name, DMA_HEAP_BACKEND_NAME);
	}
	// Its own sets: linear DMA-BUFs of its placement, CPU access only.
	static const uint8_t often[4] = {UDA_CPU_ACCESS_OFTEN, 0, 0, 0};
	const uda_usage_atom cpu = {UDA_VENDOR_NONE, UDA_USAGE_CPU_WRITE, 4, often};
	const uda_usage cpu_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &cpu};
	uda_capability_set_list *sets = nullptr;
	ASSERT_EQ(uda_device_get_capability_sets(devices[0], &assertion, &cpu_usage, &sets), UDA_SUCCESS);
	EXPECT_TRUE(uda_backend_set_has_u32(sets, 0, UDA_CAPABILITY_PLACEMENT, UDA_PLACEMENT_CONTIGUOUS));
	EXPECT_TRUE(uda_backend_set_has_u32(sets, 0, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF));
	uda_capability_set_list_destroy(sets);
	EXPECT_EQ(uda_device_get_capability_sets(devices[0], &assertion, &render, &sets), UDA_ERROR_UNSUPPORTED);
}

// Display requires contiguous, the GPU takes any placement and allocates
// none: the CMA heap gives the memory, sized by the merged pitch.
TEST_F(DmaHeap, ContiguousDisplayGetsTheCmaHeap)
{
	add_heaps({"system", "linux,cma"});
	add_display_and_gpu(true);
	uda_allocation *allocation = nullptr;
	ASSERT_EQ(negotiate_allocate(&allocation), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	ASSERT_EQ(heaps.allocations.size(), 1u);
	EXPECT_EQ(heaps.allocations[0].first, "linux,cma");
	uda_allocation_metadata m = {};
	m.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA;
	ASSERT_EQ(uda_allocation_get_metadata(allocation, &m), UDA_SUCCESS);
	EXPECT_EQ(m.planes[0].pitch, 512u) << "100 XRGB8888 pixels at the GPU's 256-byte pitch alignment";
	EXPECT_GE(m.size, 512u * kHeight);
	EXPECT_EQ(heaps.allocations[0].second, m.size);
	EXPECT_EQ(m.size % static_cast<uint64_t>(sysconf(_SC_PAGESIZE)), 0u);
	uda_device *owner = nullptr;
	ASSERT_EQ(uda_allocation_get_device(allocation, &owner), UDA_SUCCESS);
	uda_device_info info = {};
	info.type = UDA_STRUCTURE_TYPE_DEVICE_INFO;
	ASSERT_EQ(uda_device_get_info(owner, &info), UDA_SUCCESS);
	EXPECT_NE(std::string(info.name).find("linux,cma"), std::string::npos);

	// The devices import it as a DMA-BUF; the CPU maps it between syncs.
	int fd = -1;
	ASSERT_EQ(uda_allocation_export(allocation, UDA_HANDLE_TYPE_DMA_BUF, &fd), UDA_SUCCESS);
	close(fd);
	EXPECT_EQ(uda_allocation_export(allocation, UDA_HANDLE_TYPE_MEMFD, &fd), UDA_ERROR_UNSUPPORTED);
	void *pointer = nullptr;
	EXPECT_EQ(uda_allocation_map(allocation, UDA_ACCESS_WRITE, &pointer), UDA_ERROR_UNSUPPORTED)
		<< "only a set that says so is mappable";
	uda_allocation_destroy(allocation);
}

TEST_F(DmaHeap, NoContiguousSourceIsAClearError)
{
	add_heaps({"system"});
	add_display_and_gpu(true);
	uda_allocation *allocation = nullptr;
	EXPECT_EQ(negotiate_allocate(&allocation), UDA_ERROR_UNSUPPORTED);
	EXPECT_EQ(allocation, nullptr);
	const std::string error = uda_context_get_error(ctx.get());
	EXPECT_NE(error.find("contiguous"), std::string::npos) << error;
	EXPECT_TRUE(heaps.allocations.empty()) << "the system heap is never asked for contiguous memory";
}

// No placement required and no negotiating device allocates: a system
// heap, never the scarce contiguous one.
TEST_F(DmaHeap, WithoutAPlacementOnlyASystemHeapAllocates)
{
	add_heaps({"linux,cma", "system"});
	add_display_and_gpu(false);
	uda_allocation *allocation = nullptr;
	ASSERT_EQ(negotiate_allocate(&allocation), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	ASSERT_EQ(heaps.allocations.size(), 1u);
	EXPECT_EQ(heaps.allocations[0].first, "system");
	uda_allocation_destroy(allocation);
}

TEST_F(DmaHeap, HeapsRefuseTiledAndNonDmaBufSets)
{
	add_heaps({"system"});
	uint32_t count = 1;
	uda_device *heap = nullptr;
	ASSERT_EQ(uda_context_enumerate_devices(ctx.get(), &count, &heap), UDA_SUCCESS);
	const uint64_t y_tiled = I915_FORMAT_MOD_Y_TILED;
	const std::vector<SetSpec> refused = {
		{{layout(y_tiled), common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF)}, {}},
		{{layout(DRM_FORMAT_MOD_LINEAR), common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_MEMFD)}, {}},
		{{layout(DRM_FORMAT_MOD_LINEAR), common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF),
		  common(UDA_CAPABILITY_PLACEMENT, UDA_PLACEMENT_PROTECTED, UDA_CAPABILITY_FLAG_REQUIRED)},
		 {}},
	};
	for (const SetSpec &spec : refused) {
		ListPtr list = make_list(ctx.get(), {spec});
		uda_allocation_create_info info = {UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO, nullptr, heap, &assertion,
		                                   list.get(), 0};
		uda_allocation *allocation = nullptr;
		EXPECT_EQ(uda_allocate(&info, &allocation), UDA_ERROR_UNSUPPORTED) << uda_context_get_error(ctx.get());
		EXPECT_EQ(allocation, nullptr);
	}
	EXPECT_TRUE(heaps.allocations.empty());
}

TEST_F(DmaHeap, MappableSetsAreSyncedAroundCpuAccess)
{
	add_heaps({"system"});
	uint32_t count = 1;
	uda_device *heap = nullptr;
	ASSERT_EQ(uda_context_enumerate_devices(ctx.get(), &count, &heap), UDA_SUCCESS);
	uda_allocation *allocation = allocate_mappable(ctx.get(), heap, assertion);
	ASSERT_NE(allocation, nullptr);
	void *pointer = nullptr;
	ASSERT_EQ(uda_allocation_map(allocation, UDA_ACCESS_READ | UDA_ACCESS_WRITE, &pointer), UDA_SUCCESS);
	ASSERT_EQ(uda_allocation_begin_cpu_access(allocation, UDA_ACCESS_WRITE), UDA_SUCCESS);
	std::memset(pointer, 0x5a, kWidth * 4);
	ASSERT_EQ(uda_allocation_end_cpu_access(allocation, UDA_ACCESS_WRITE), UDA_SUCCESS);
	ASSERT_EQ(uda_allocation_begin_cpu_access(allocation, UDA_ACCESS_READ), UDA_SUCCESS);
	EXPECT_EQ(static_cast<const uint8_t *>(pointer)[kWidth * 4 - 1], 0x5a);
	ASSERT_EQ(uda_allocation_end_cpu_access(allocation, UDA_ACCESS_READ), UDA_SUCCESS);
	EXPECT_EQ(heaps.syncs, (std::vector<std::string>{"start write", "end write", "start read", "end read"}));
	EXPECT_EQ(uda_allocation_unmap(allocation), UDA_SUCCESS);
	uda_allocation_destroy(allocation);
}

TEST_F(DmaHeap, AFailedHeapAllocationIsReportedAndLeaksNothing)
{
	add_heaps({"linux,cma"});
	heaps.fail_with = -ENOMEM;
	add_display_and_gpu(true);
	uda_allocation *allocation = nullptr;
	EXPECT_EQ(negotiate_allocate(&allocation), UDA_ERROR_OUT_OF_MEMORY);
	EXPECT_EQ(allocation, nullptr);
	EXPECT_EQ(heaps.allocations.size(), 1u);
}

// The kernel's heaps, where this machine has them.
TEST(DmaHeapKernel, TheSystemHeapAllocatesAndMaps)
{
	if (access("/dev/dma_heap/system", R_OK) != 0)
		GTEST_SKIP() << "no /dev/dma_heap/system on this machine (no DMA-BUF heap support, or no access)";
	ContextPtr ctx = make_context();
	const int fds_before = open_fd_count();
	ASSERT_GE(dma_heap_devices_add_all(ctx.get(), &dma_heap_io_kernel), 1u);
	uint32_t count = 16;
	uda_device *devices[16];
	ASSERT_EQ(uda_context_enumerate_devices(ctx.get(), &count, devices), UDA_SUCCESS);
	uda_device *heap = nullptr;
	for (uint32_t i = 0; i < count; i++) {
		uda_device_info info = {};
		info.type = UDA_STRUCTURE_TYPE_DEVICE_INFO;
		if (uda_device_get_info(devices[i], &info) == UDA_SUCCESS &&
		    std::string(info.name) == "DMA-BUF heap system (system)")
			heap = devices[i];
	}
	ASSERT_NE(heap, nullptr);
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 64, 64, DRM_FORMAT_XRGB8888, 0};
	uda_allocation *allocation = allocate_mappable(ctx.get(), heap, assertion);
	ASSERT_NE(allocation, nullptr);
	void *pointer = nullptr;
	ASSERT_EQ(uda_allocation_map(allocation, UDA_ACCESS_WRITE, &pointer), UDA_SUCCESS);
	ASSERT_EQ(uda_allocation_begin_cpu_access(allocation, UDA_ACCESS_WRITE), UDA_SUCCESS);
	std::memset(pointer, 0x11, 64 * 4);
	ASSERT_EQ(uda_allocation_end_cpu_access(allocation, UDA_ACCESS_WRITE), UDA_SUCCESS);
	EXPECT_EQ(uda_allocation_unmap(allocation), UDA_SUCCESS);
	uda_allocation_destroy(allocation);
	ctx.reset();
	EXPECT_EQ(open_fd_count(), fds_before);
}

} // namespace
