// Faults: with UDA_FAULT_INJECT a backend operation fails as a driver's
// might; negotiation falls back to the next set, and every failure path
// releases what it took (fd counts, ASan).
#include <cstring>
#include <drm_fourcc.h>
#include <unistd.h>

#include "fd_count.hpp"
#include "gpu_fixture.hpp"

using namespace uda_test;

namespace
{

class Faults : public GpuTest
{
protected:
	void SetUp() override {}
	void start(const char *spec)
	{
		setenv("UDA_FAULT_INJECT", spec, 1);
		GpuTest::SetUp();
		unsetenv("UDA_FAULT_INJECT");
	}
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 64, 64, DRM_FORMAT_ABGR8888, 0};
};

TEST_F(Faults, AFailedAllocationFallsBackToTheNextSet)
{
	start("allocate=1");
	ASSERT_FALSE(HasFatalFailure());
	const int fds_before = open_fd_count();
	// Vulkan alone: its sets (opaque optimal, then linear) are the same
	// on every driver, where a GL consumer may take no linear memory
	// (NVIDIA's) and leave one set only.
	const uda_usage_atom vk_atoms[] = {atom(UDA_USAGE_TRANSFER_DST)};
	const uda_usage vk_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, vk_atoms};
	const uda_device_usage devices[] = {{vulkan, &vk_usage}};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 1, devices};
	uda_allocation *allocation = nullptr;
	uda_capability_set_list *sets = nullptr;
	uint32_t index = 0;
	ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &allocation, &sets, &index), UDA_SUCCESS)
		<< uda_context_get_error(ctx.get());
	// Set 0 (opaque optimal) hit the fault: set 1 (linear) came back.
	EXPECT_EQ(index, 1u);
	uda_capability layout = {};
	ASSERT_EQ(uda_capability_set_list_get_layout(sets, index, &layout), UDA_SUCCESS);
	EXPECT_EQ(layout.name, UDA_CAPABILITY_LAYOUT);
	uda_allocation_destroy(allocation);
	uda_capability_set_list_destroy(sets);
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
}

TEST_F(Faults, WhenEveryAttemptFailsTheLastErrorIsReturned)
{
	start("allocate=1");
	ASSERT_FALSE(HasFatalFailure());
	const uda_usage_atom cpu[] = {cpu_atom(UDA_USAGE_CPU_WRITE)};
	const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, cpu};
	const uda_device_usage devices[] = {{system, &usage}};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 1, devices};
	uda_allocation *allocation = nullptr;
	EXPECT_EQ(uda_negotiate_allocate(ctx.get(), &info, &allocation, nullptr, nullptr), UDA_ERROR_BACKEND);
	EXPECT_EQ(allocation, nullptr);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("injected fault"), std::string::npos);
	// The second call is not the injected one.
	ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &allocation, nullptr, nullptr), UDA_SUCCESS);
	uda_allocation_destroy(allocation);
}

TEST_F(Faults, FailedExportImportAndMapLeakNothing)
{
	start("export=1,import=1,map=1");
	ASSERT_FALSE(HasFatalFailure());
	const int fds_before = open_fd_count();
	const uda_usage_atom cpu[] = {cpu_atom(UDA_USAGE_CPU_WRITE)};
	const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, cpu};
	const uda_device_usage devices[] = {{system, &usage}};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 1, devices};
	uda_allocation *raw = nullptr;
	ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &raw, nullptr, nullptr), UDA_SUCCESS);
	AllocationPtr allocation(raw);
	int fd = -1;
	EXPECT_EQ(uda_allocation_export(raw, UDA_HANDLE_TYPE_MEMFD, &fd), UDA_ERROR_BACKEND);
	EXPECT_EQ(fd, -1);
	ASSERT_EQ(uda_allocation_export(raw, UDA_HANDLE_TYPE_MEMFD, &fd), UDA_SUCCESS);
	void *pointer = nullptr;
	EXPECT_EQ(uda_allocation_map(raw, UDA_ACCESS_WRITE, &pointer), UDA_ERROR_BACKEND);
	EXPECT_EQ(uda_allocation_map(raw, UDA_ACCESS_WRITE, &pointer), UDA_SUCCESS);
	EXPECT_EQ(uda_allocation_unmap(raw), UDA_SUCCESS);

	uda_allocation_metadata m = {};
	const uda_capability_set_list *set = nullptr;
	ASSERT_EQ(uda_allocation_get_metadata(raw, &m), UDA_SUCCESS);
	ASSERT_EQ(uda_allocation_get_capability_set(raw, &set), UDA_SUCCESS);
	m.handle_type = UDA_HANDLE_TYPE_MEMFD;
	// A taken fd is closed by the failed import too.
	uda_import_info import = {UDA_STRUCTURE_TYPE_IMPORT_INFO, nullptr, system, dup(fd), &m, set, 0,
	                          UDA_IMPORT_TAKE_FD};
	uda_allocation *imported = nullptr;
	EXPECT_EQ(uda_import(&import, &imported), UDA_ERROR_BACKEND);
	EXPECT_EQ(imported, nullptr);
	import.fd = fd;
	import.flags = 0;
	ASSERT_EQ(uda_import(&import, &imported), UDA_SUCCESS);
	uda_allocation_destroy(imported);
	close(fd);
	allocation.reset();
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
}

} // namespace
