// Imports into the Vulkan and GL devices that must fail: each with its own
// result and message, none leaving a descriptor open, none reaching the
// driver with a layout that does not fit the memory.
#include <drm_fourcc.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fd_count.hpp"
#include "gpu_fixture.hpp"

using namespace uda_test;

namespace
{

class BadGpuImport : public GpuTest
{
protected:
	AllocationPtr allocation;
	uda_allocation_metadata metadata = {};
	const uda_capability_set_list *set = nullptr;
	int fd = -1;

	void SetUp() override
	{
		GpuTest::SetUp();
		if (HasFatalFailure())
			return;
		const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 128, 64, DRM_FORMAT_ABGR8888, 0};
		const uda_usage_atom vk_atoms[] = {atom(UDA_USAGE_TRANSFER_DST)};
		const uda_usage vk_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, vk_atoms};
		const uda_usage_atom gl_atoms[] = {atom(UDA_USAGE_SAMPLED)};
		const uda_usage gl_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, gl_atoms};
		const uda_device_usage devices[] = {{vulkan, &vk_usage}, {gl, &gl_usage}};
		const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 2, devices};
		uda_allocation *raw = nullptr;
		ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &raw, nullptr, nullptr), UDA_SUCCESS)
			<< uda_context_get_error(ctx.get());
		allocation.reset(raw);
		ASSERT_EQ(uda_allocation_get_metadata(raw, &metadata), UDA_SUCCESS);
		metadata.handle_type = UDA_HANDLE_TYPE_OPAQUE_FD;
		ASSERT_EQ(uda_allocation_get_capability_set(raw, &set), UDA_SUCCESS);
		ASSERT_EQ(uda_allocation_export(raw, UDA_HANDLE_TYPE_OPAQUE_FD, &fd), UDA_SUCCESS);
	}
	void TearDown() override
	{
		if (fd >= 0)
			close(fd);
		allocation.reset();
		GpuTest::TearDown();
	}

	void expect_refused(uda_device *device, int import_fd, const uda_allocation_metadata &m, uda_result expected,
	                    const char *message)
	{
		const int before = open_fd_count();
		const uda_import_info info = {UDA_STRUCTURE_TYPE_IMPORT_INFO, nullptr, device, import_fd, &m, set, 0};
		uda_allocation *imported = nullptr;
		EXPECT_EQ(uda_import(&info, &imported), expected) << uda_context_get_error(ctx.get());
		EXPECT_EQ(imported, nullptr);
		EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find(message), std::string::npos)
			<< uda_context_get_error(ctx.get());
		EXPECT_EQ(open_fd_count(), before);
	}
};

TEST_F(BadGpuImport, TheGoodImportsWork)
{
	const int before = open_fd_count();
	for (uda_device *device : {vulkan, gl}) {
		const uda_import_info info = {UDA_STRUCTURE_TYPE_IMPORT_INFO, nullptr, device, fd, &metadata, set, 0};
		uda_allocation *imported = nullptr;
		ASSERT_EQ(uda_import(&info, &imported), UDA_SUCCESS) << uda_context_get_error(ctx.get());
		uda_allocation_destroy(imported);
	}
	EXPECT_EQ(open_fd_count(), before);
}

TEST_F(BadGpuImport, OpaqueFdFromAnotherDeviceOrDriver)
{
	for (uda_device *device : {vulkan, gl}) {
		uda_allocation_metadata m = metadata;
		m.device_uuid[0] ^= 1;
		expect_refused(device, fd, m, UDA_ERROR_INCOMPATIBLE, "UUIDs differ");
		m = metadata;
		m.driver_uuid[15] ^= 0x80;
		expect_refused(device, fd, m, UDA_ERROR_INCOMPATIBLE, "UUIDs differ");
	}
}

TEST_F(BadGpuImport, HandleTypeTheSetDoesNotCarry)
{
	for (uda_device *device : {vulkan, gl}) {
		uda_allocation_metadata m = metadata;
		m.handle_type = UDA_HANDLE_TYPE_DMA_BUF;
		expect_refused(device, fd, m, UDA_ERROR_UNSUPPORTED, "not in the allocation's capability set");
		m.handle_type = UDA_HANDLE_TYPE_MEMFD;
		expect_refused(device, fd, m, UDA_ERROR_UNSUPPORTED, "not in the allocation's capability set");
	}
}

TEST_F(BadGpuImport, MetadataClaimsMoreThanTheFdHolds)
{
	// A memfd of half the size, posing as the opaque fd.
	int small = memfd_create("uda-test-small", MFD_CLOEXEC);
	ASSERT_GE(small, 0);
	ASSERT_EQ(ftruncate(small, static_cast<off_t>(metadata.size / 2)), 0);
	for (uda_device *device : {vulkan, gl})
		expect_refused(device, small, metadata, UDA_ERROR_INVALID_ARGUMENT, "metadata claims");
	close(small);
}

TEST_F(BadGpuImport, MemoryTooSmallForTheImage)
{
	// Consistent metadata whose size cannot hold the image Vulkan makes.
	uda_allocation_metadata m = metadata;
	m.size = 4096;
	m.planes[0].pitch = 128 * 4;
	expect_refused(vulkan, fd, m, UDA_ERROR_INVALID_ARGUMENT, "the image needs");
}

TEST_F(BadGpuImport, PlanesOutsideTheMemory)
{
	for (uda_device *device : {vulkan, gl}) {
		uda_allocation_metadata m = metadata;
		m.planes[0].offset = m.size;
		expect_refused(device, fd, m, UDA_ERROR_INVALID_ARGUMENT, "outside");
		m = metadata;
		m.plane_count = 0;
		expect_refused(device, fd, m, UDA_ERROR_INVALID_ARGUMENT, "planes");
	}
}

TEST_F(BadGpuImport, ClosedOrForeignFd)
{
	expect_refused(gl, -1, metadata, UDA_ERROR_INVALID_ARGUMENT, "is not open");
	int pipe_fds[2];
	ASSERT_EQ(pipe(pipe_fds), 0);
	// A pipe has no size: refused before any driver sees it.
	uda_allocation_metadata m = metadata;
	m.handle_type = UDA_HANDLE_TYPE_OPAQUE_FD;
	const int before = open_fd_count();
	const uda_import_info info = {UDA_STRUCTURE_TYPE_IMPORT_INFO, nullptr, vulkan, pipe_fds[0], &m, set, 0};
	uda_allocation *imported = nullptr;
	EXPECT_EQ(uda_import(&info, &imported), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("not memory"), std::string::npos);
	EXPECT_EQ(imported, nullptr);
	EXPECT_EQ(open_fd_count(), before);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
}

TEST_F(BadGpuImport, CorruptedSerializedMetadata)
{
	size_t size = 0;
	ASSERT_EQ(uda_allocation_serialize_metadata(allocation.get(), UDA_HANDLE_TYPE_OPAQUE_FD, nullptr, 0, &size),
	          UDA_SUCCESS);
	std::vector<uint8_t> good(size);
	ASSERT_EQ(uda_allocation_serialize_metadata(allocation.get(), UDA_HANDLE_TYPE_OPAQUE_FD, good.data(), size,
	                                            &size),
	          UDA_SUCCESS);
	const int before = open_fd_count();
	for (uda_device *device : {vulkan, gl}) {
		for (size_t i = 0; i < good.size(); i++) {
			std::vector<uint8_t> bad = good;
			bad[i] ^= 0x5a;
			uda_allocation *imported = nullptr;
			if (uda_import_serialized(device, fd, bad.data(), bad.size(), &imported) == UDA_SUCCESS) {
				uda_allocation_metadata im = {};
				ASSERT_EQ(uda_allocation_get_metadata(imported, &im), UDA_SUCCESS);
				EXPECT_LE(im.planes[0].offset, im.size) << "byte " << i;
				uda_allocation_destroy(imported);
			}
		}
	}
	EXPECT_EQ(open_fd_count(), before);
}

} // namespace
