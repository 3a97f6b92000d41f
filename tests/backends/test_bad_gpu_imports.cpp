// Imports into the Vulkan and GL devices that must fail: each with its own
// result and message, none leaving a descriptor open, none reaching the
// driver with a layout that does not fit the memory.
#include <drm_fourcc.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

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

// lavapipe's and llvmpipe's opaque fds are memfds headed by {size_t size,
// size_t offset}, which their import maps as told. A sender could shrink
// the file or lie in the header, and the importing process (a compositor)
// would fault when the driver reads: the importer seals the file, and
// checks the header against it.
class OpaqueFile : public BadGpuImport
{
protected:
	// A copy of the export in a memfd of our own, its header patched.
	int copy_of_export(unsigned memfd_flags, size_t header_size_factor, size_t header_offset_add)
	{
		struct stat st;
		EXPECT_EQ(fstat(fd, &st), 0);
		std::vector<char> bytes(static_cast<size_t>(st.st_size));
		EXPECT_EQ(pread(fd, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
		size_t header[2];
		memcpy(header, bytes.data(), sizeof(header));
		header[0] *= header_size_factor;
		header[1] += header_offset_add;
		memcpy(bytes.data(), header, sizeof(header));
		const int copy = memfd_create("uda-test-opaque-copy", MFD_CLOEXEC | memfd_flags);
		EXPECT_GE(copy, 0);
		EXPECT_EQ(pwrite(copy, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
		return copy;
	}
};

TEST_F(OpaqueFile, AnImportSealsItAgainstShrinking)
{
	const int copy = copy_of_export(MFD_ALLOW_SEALING, 1, 0);
	for (uda_device *device : {vulkan, gl}) {
		const uda_import_info info = {UDA_STRUCTURE_TYPE_IMPORT_INFO, nullptr, device, copy, &metadata, set, 0};
		uda_allocation *imported = nullptr;
		ASSERT_EQ(uda_import(&info, &imported), UDA_SUCCESS) << uda_context_get_error(ctx.get());
		uda_allocation_destroy(imported);
	}
	EXPECT_EQ(ftruncate(copy, 0), -1) << "the sender can no longer shrink it";
	EXPECT_EQ(errno, EPERM);
	close(copy);
}

TEST_F(OpaqueFile, OneThatCannotBeSealedIsRefused)
{
	const int copy = copy_of_export(0, 1, 0);
	for (uda_device *device : {vulkan, gl})
		expect_refused(device, copy, metadata, UDA_ERROR_INVALID_ARGUMENT, "must take seals");
	close(copy);
}

TEST_F(OpaqueFile, AHeaderThatSaysMoreThanTheFileHoldsIsRefused)
{
	const struct {
		size_t size_factor, offset_add;
	} lies[] = {{4, 0}, {1, 1u << 30}};
	for (const auto &lie : lies) {
		const int copy = copy_of_export(MFD_ALLOW_SEALING, lie.size_factor, lie.offset_add);
		for (uda_device *device : {vulkan, gl})
			expect_refused(device, copy, metadata, UDA_ERROR_INVALID_ARGUMENT, "says it maps");
		close(copy);
	}
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

namespace
{

// Found in review: sets that reach the Vulkan backend from outside its own
// answers are checked like any other.
class VulkanSetChecks : public GpuTest
{
};

TEST_F(VulkanSetChecks, HandlelessSetIsCheckedAgainstTheDriversLimits)
{
	// No HANDLE capability: the image never leaves the device, and is
	// still held to vkGetPhysicalDeviceImageFormatProperties2's limits.
	ListPtr list = make_list(ctx.get(), {SetSpec{{layout(DRM_FORMAT_MOD_LINEAR)}, {}}});
	// One pixel wider than the driver's own sets allow (16384 on lavapipe,
	// 32768 on NVIDIA's driver).
	const uda_assertion probe = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 64, 16, DRM_FORMAT_ABGR8888, 0};
	const uda_usage_atom atoms[] = {atom(UDA_USAGE_SAMPLED)};
	const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, atoms};
	uda_capability_set_list *own = nullptr;
	ASSERT_EQ(uda_device_get_capability_sets(vulkan, &probe, &usage, &own), UDA_SUCCESS);
	bool present = false;
	uint64_t max_width = 0;
	ASSERT_EQ(uda_capability_set_list_get_constraint(own, 0, UDA_CONSTRAINT_MAX_WIDTH, &present, &max_width),
	          UDA_SUCCESS);
	uda_capability_set_list_destroy(own);
	ASSERT_TRUE(present);
	const uda_assertion too_wide = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, static_cast<uint32_t>(max_width + 1), 16,
	                                DRM_FORMAT_ABGR8888, 0};
	uda_allocation_create_info info = {UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO, nullptr, vulkan, &too_wide,
	                                   list.get(), 0};
	uda_allocation *allocation = nullptr;
	EXPECT_EQ(uda_allocate(&info, &allocation), UDA_ERROR_UNSUPPORTED);
	EXPECT_EQ(allocation, nullptr);
	uda_allocation_destroy(allocation);
	allocation = nullptr;
	// Within the limits it allocates (and validation, watching, is quiet).
	const uda_assertion fits = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 64, 16, DRM_FORMAT_ABGR8888, 0};
	info.assertion = &fits;
	ASSERT_EQ(uda_allocate(&info, &allocation), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	uda_allocation_destroy(allocation);
}

TEST_F(VulkanSetChecks, MapNeedsAMappableSet)
{
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 64, 64, DRM_FORMAT_ABGR8888, 0};
	const uda_usage_atom atoms[] = {atom(UDA_USAGE_SAMPLED)};
	const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, atoms};
	const uda_device_usage devices[] = {{vulkan, &usage}};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 1, devices};
	uda_allocation *raw = nullptr;
	ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &raw, nullptr, nullptr), UDA_SUCCESS);
	AllocationPtr allocation(raw);
	const uda_capability_set_list *set = nullptr;
	ASSERT_EQ(uda_allocation_get_capability_set(raw, &set), UDA_SUCCESS);
	ASSERT_FALSE(uda_backend_set_has_u32(set, 0, UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE));
	void *pointer = nullptr;
	EXPECT_EQ(uda_allocation_map(raw, UDA_ACCESS_READ, &pointer), UDA_ERROR_UNSUPPORTED);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("mappable"), std::string::npos);
}

// Creating a context must leave the calling thread's EGL state as it was.
TEST(GlBackendManners, ContextCreationKeepsTheBoundApi)
{
	use_build_tree_backends();
	if (!eglBindAPI(EGL_OPENGL_API))
		GTEST_SKIP() << "no desktop GL API to bind";
	uda_context *ctx = nullptr;
	ASSERT_EQ(uda_context_create(nullptr, &ctx), UDA_SUCCESS);
	const EGLenum after = eglQueryAPI();
	uda_context_destroy(ctx);
	EXPECT_EQ(after, static_cast<EGLenum>(EGL_OPENGL_API)) << std::hex << after;
	eglBindAPI(EGL_OPENGL_ES_API);
}

} // namespace
