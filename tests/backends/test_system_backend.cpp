// The system backend: sealed memfd allocations, CPU maps, export and import
// across a process boundary, and every malformed import refused without
// leaking a descriptor.
#include <cstring>
#include <drm_fourcc.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "backend_env.hpp"
#include "fd_count.hpp"
#include "set_spec.hpp"

using namespace uda_test;

namespace
{

// Any backend-range extension struct: the system backend knows none.
struct uda_gl_import_info_stub {
	uda_structure_type type;
	const void *next;
};

const uint8_t often[4] = {UDA_CPU_ACCESS_OFTEN, 0, 0, 0}; // little-endian u32
const uda_usage_atom cpu_atoms[] = {
	{UDA_VENDOR_NONE, UDA_USAGE_CPU_WRITE, 4, often},
	{UDA_VENDOR_NONE, UDA_USAGE_CPU_READ, 4, often},
};
const uda_usage cpu_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 2, cpu_atoms};

uda_device *find_system_device(uda_context *ctx)
{
	uint32_t count = 0;
	EXPECT_EQ(uda_context_enumerate_devices(ctx, &count, nullptr), UDA_SUCCESS);
	std::vector<uda_device *> devices(count);
	EXPECT_EQ(uda_context_enumerate_devices(ctx, &count, devices.data()), UDA_SUCCESS);
	for (uda_device *device : devices) {
		uda_device_info info = {};
		info.type = UDA_STRUCTURE_TYPE_DEVICE_INFO;
		EXPECT_EQ(uda_device_get_info(device, &info), UDA_SUCCESS);
		if (std::string(info.backend_name) == "system")
			return device;
	}
	return nullptr;
}

// A child process after fork() must not start GPU drivers (the parent's
// driver threads did not come along): it loads the system backend only,
// from a folder holding just its manifest.
uda_context *child_system_context()
{
	static char folder[] = "/tmp/uda-system-only-XXXXXX";
	static bool made = false;
	if (!made) {
		if (!mkdtemp(folder))
			return nullptr;
		std::string command = std::string("cp ") + UDA_TEST_BACKEND_MANIFEST_DIR + "/system.json " + folder;
		if (system(command.c_str()) != 0)
			return nullptr;
		made = true;
		// Children leave through _exit, so only the test process cleans up.
		atexit([] { std::system((std::string("rm -rf ") + folder).c_str()); });
	}
	setenv("UDA_BACKEND_PATH", folder, 1);
	uda_context *ctx = nullptr;
	return uda_context_create(nullptr, &ctx) == UDA_SUCCESS ? ctx : nullptr;
}

ContextPtr make_backend_context()
{
	use_build_tree_backends();
	uda_context *ctx = nullptr;
	EXPECT_EQ(uda_context_create(nullptr, &ctx), UDA_SUCCESS);
	return ContextPtr(ctx);
}

class SystemBackend : public ::testing::Test
{
protected:
	ContextPtr ctx;
	uda_device *device = nullptr;

	void SetUp() override
	{
		// Made before any fork, so children only read it.
		uda_context_destroy(child_system_context());
		ctx = make_backend_context();
		device = find_system_device(ctx.get());
		ASSERT_NE(device, nullptr) << "the system backend did not load";
	}

	AllocationPtr allocate(uint32_t width, uint32_t height, uint32_t format)
	{
		uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, width, height, format, 0};
		uda_device_usage device_usage = {device, &cpu_usage};
		uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 1, &device_usage};
		uda_allocation *allocation = nullptr;
		EXPECT_EQ(uda_negotiate_allocate(ctx.get(), &info, &allocation, nullptr, nullptr), UDA_SUCCESS)
			<< uda_context_get_error(ctx.get());
		return AllocationPtr(allocation);
	}

	std::vector<uint8_t> serialized_metadata(uda_allocation *allocation)
	{
		size_t size = 0;
		EXPECT_EQ(uda_allocation_serialize_metadata(allocation, UDA_HANDLE_TYPE_MEMFD, nullptr, 0, &size),
		          UDA_SUCCESS);
		std::vector<uint8_t> bytes(size);
		EXPECT_EQ(uda_allocation_serialize_metadata(allocation, UDA_HANDLE_TYPE_MEMFD, bytes.data(), size, &size),
		          UDA_SUCCESS);
		return bytes;
	}
};

TEST_F(SystemBackend, DescribesItself)
{
	uda_device_info info = {};
	info.type = UDA_STRUCTURE_TYPE_DEVICE_INFO;
	ASSERT_EQ(uda_device_get_info(device, &info), UDA_SUCCESS);
	EXPECT_STREQ(info.name, "System memory (memfd)");
	EXPECT_EQ(std::memcmp(info.device_uuid, "uda-system-cpu", 14), 0);

	uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 64, 64, DRM_FORMAT_XRGB8888, 0};
	uda_capability_set_list *list = nullptr;
	ASSERT_EQ(uda_device_get_capability_sets(device, &assertion, &cpu_usage, &list), UDA_SUCCESS);
	ListPtr owned(list);
	EXPECT_TRUE(uda_backend_set_has_u32(list, 0, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_MEMFD));
	EXPECT_TRUE(uda_backend_set_has_u32(list, 0, UDA_CAPABILITY_PLACEMENT, UDA_PLACEMENT_SYSTEM));
	uda_capability layout = {};
	ASSERT_EQ(uda_capability_set_list_get_layout(list, 0, &layout), UDA_SUCCESS);
	uint64_t modifier = 1;
	std::memcpy(&modifier, layout.payload, 8);
	EXPECT_EQ(modifier, DRM_FORMAT_MOD_LINEAR);

	// The CPU does not sample textures.
	uda_usage_atom sampled = {UDA_VENDOR_NONE, UDA_USAGE_SAMPLED, 0, nullptr};
	uda_usage gpu_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &sampled};
	EXPECT_EQ(uda_device_get_capability_sets(device, &assertion, &gpu_usage, &list), UDA_ERROR_UNSUPPORTED);
}

TEST_F(SystemBackend, AllocatesSealedPageRoundedLinearMemory)
{
	AllocationPtr allocation = allocate(100, 50, DRM_FORMAT_ARGB8888);
	ASSERT_TRUE(allocation);
	uda_allocation_metadata m = {};
	ASSERT_EQ(uda_allocation_get_metadata(allocation.get(), &m), UDA_SUCCESS);
	const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
	EXPECT_EQ(m.plane_count, 1u);
	EXPECT_EQ(m.planes[0].offset, 0u);
	EXPECT_EQ(m.planes[0].pitch, 400u);
	EXPECT_EQ(m.size, (400u * 50 + page - 1) / page * page);
	EXPECT_EQ(m.handle_type, UDA_HANDLE_TYPE_NONE);

	int fd = -1;
	ASSERT_EQ(uda_allocation_export(allocation.get(), UDA_HANDLE_TYPE_MEMFD, &fd), UDA_SUCCESS);
	EXPECT_EQ(fcntl(fd, F_GET_SEALS), F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	struct stat st;
	ASSERT_EQ(fstat(fd, &st), 0);
	EXPECT_EQ(static_cast<uint64_t>(st.st_size), m.size);
	EXPECT_NE(ftruncate(fd, 1), 0); // sealed
	close(fd);

	EXPECT_EQ(uda_allocation_export(allocation.get(), UDA_HANDLE_TYPE_DMA_BUF, &fd), UDA_ERROR_UNSUPPORTED);
	EXPECT_EQ(uda_allocation_export(allocation.get(), UDA_HANDLE_TYPE_OPAQUE_FD, &fd), UDA_ERROR_UNSUPPORTED);
}

// Where /dev/udmabuf is, system memory also travels as a DMA-BUF (a second
// set, DMA_BUF required) for consumers that import nothing else; where it
// is not, that set is absent and a DMA-BUF export is refused.
TEST_F(SystemBackend, DmaBufsOfSystemMemoryWhereUdmabufIs)
{
	const bool udmabuf = access("/dev/udmabuf", R_OK | W_OK) == 0;
	uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 64, 64, DRM_FORMAT_XRGB8888, 0};
	uda_capability_set_list *list = nullptr;
	ASSERT_EQ(uda_device_get_capability_sets(device, &assertion, &cpu_usage, &list), UDA_SUCCESS);
	ListPtr owned(list);
	uint32_t count = 0;
	ASSERT_EQ(uda_capability_set_list_get_count(list, &count), UDA_SUCCESS);
	ASSERT_EQ(count, udmabuf ? 2u : 1u);
	if (!udmabuf) {
		AllocationPtr allocation = allocate(64, 64, DRM_FORMAT_XRGB8888);
		ASSERT_TRUE(allocation);
		int fd = -1;
		EXPECT_EQ(uda_allocation_export(allocation.get(), UDA_HANDLE_TYPE_DMA_BUF, &fd), UDA_ERROR_UNSUPPORTED);
		GTEST_SKIP() << "no /dev/udmabuf on this machine: the DMA-BUF set is absent, as it should be";
	}
	EXPECT_TRUE(uda_backend_set_has_u32(list, 1, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF));
	uda_allocation_create_info info = {UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO, nullptr, device, &assertion, list, 1};
	uda_allocation *raw = nullptr;
	ASSERT_EQ(uda_allocate(&info, &raw), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	AllocationPtr allocation(raw);
	void *pointer = nullptr;
	ASSERT_EQ(uda_allocation_map(raw, UDA_ACCESS_WRITE, &pointer), UDA_SUCCESS);
	static_cast<uint8_t *>(pointer)[100] = 0x77;
	ASSERT_EQ(uda_allocation_unmap(raw), UDA_SUCCESS);
	int fd = -1;
	ASSERT_EQ(uda_allocation_export(raw, UDA_HANDLE_TYPE_DMA_BUF, &fd), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	uda_allocation_metadata m = {};
	ASSERT_EQ(uda_allocation_get_metadata(raw, &m), UDA_SUCCESS);
	void *dma_buf = mmap(nullptr, m.size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(dma_buf, MAP_FAILED);
	EXPECT_EQ(static_cast<const uint8_t *>(dma_buf)[100], 0x77) << "the same pages";
	munmap(dma_buf, m.size);
	close(fd);
}

TEST_F(SystemBackend, LaysOutEveryPlaneOfNv12)
{
	AllocationPtr allocation = allocate(64, 33, DRM_FORMAT_NV12);
	ASSERT_TRUE(allocation);
	uda_allocation_metadata m = {};
	ASSERT_EQ(uda_allocation_get_metadata(allocation.get(), &m), UDA_SUCCESS);
	ASSERT_EQ(m.plane_count, 2u);
	EXPECT_EQ(m.planes[0].pitch, 64u);
	EXPECT_EQ(m.planes[1].offset, 64u * 33);
	EXPECT_EQ(m.planes[1].pitch, 64u);
	EXPECT_GE(m.size, 64u * 33 + 64u * 17);
}

TEST_F(SystemBackend, MapsForReadAndWrite)
{
	AllocationPtr allocation = allocate(16, 16, DRM_FORMAT_ABGR8888);
	ASSERT_TRUE(allocation);
	void *pointer = nullptr;
	EXPECT_EQ(uda_allocation_unmap(allocation.get()), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_allocation_map(allocation.get(), 0, &pointer), UDA_ERROR_INVALID_ARGUMENT);
	ASSERT_EQ(uda_allocation_map(allocation.get(), UDA_ACCESS_READ | UDA_ACCESS_WRITE, &pointer), UDA_SUCCESS);
	EXPECT_EQ(uda_allocation_map(allocation.get(), UDA_ACCESS_READ, &pointer), UDA_ERROR_INVALID_ARGUMENT);
	ASSERT_EQ(uda_allocation_begin_cpu_access(allocation.get(), UDA_ACCESS_WRITE), UDA_SUCCESS);
	std::memset(pointer, 0x5a, 16 * 16 * 4);
	ASSERT_EQ(uda_allocation_end_cpu_access(allocation.get(), UDA_ACCESS_WRITE), UDA_SUCCESS);
	ASSERT_EQ(uda_allocation_unmap(allocation.get()), UDA_SUCCESS);
	// Destroying a mapped allocation unmaps it.
	ASSERT_EQ(uda_allocation_map(allocation.get(), UDA_ACCESS_READ, &pointer), UDA_SUCCESS);
	EXPECT_EQ(static_cast<uint8_t *>(pointer)[1023], 0x5a);
}

// A child process with its own context imports the exported memfd from the
// serialized metadata, checks what the parent wrote and answers in place.
TEST_F(SystemBackend, SharesMemoryWithAnotherProcess)
{
	const uint32_t width = 37, height = 21;
	AllocationPtr allocation = allocate(width, height, DRM_FORMAT_XRGB8888);
	ASSERT_TRUE(allocation);
	uda_allocation_metadata m = {};
	ASSERT_EQ(uda_allocation_get_metadata(allocation.get(), &m), UDA_SUCCESS);
	void *pointer = nullptr;
	ASSERT_EQ(uda_allocation_map(allocation.get(), UDA_ACCESS_READ | UDA_ACCESS_WRITE, &pointer), UDA_SUCCESS);
	auto *pixels = static_cast<uint8_t *>(pointer);
	for (uint32_t y = 0; y < height; y++) {
		for (uint32_t x = 0; x < width; x++) {
			uint32_t value = y << 16 | x;
			std::memcpy(pixels + y * m.planes[0].pitch + x * 4, &value, 4);
		}
	}
	std::vector<uint8_t> metadata = serialized_metadata(allocation.get());
	int fd = -1;
	ASSERT_EQ(uda_allocation_export(allocation.get(), UDA_HANDLE_TYPE_MEMFD, &fd), UDA_SUCCESS);

	pid_t child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		int status = 1;
		uda_context *child_ctx = child_system_context();
		if (child_ctx) {
			uda_device *child_device = find_system_device(child_ctx);
			uda_allocation *imported = nullptr;
			void *view = nullptr;
			if (child_device &&
			    uda_import_serialized(child_device, fd, metadata.data(), metadata.size(), &imported) ==
			            UDA_SUCCESS &&
			    uda_allocation_map(imported, UDA_ACCESS_READ | UDA_ACCESS_WRITE, &view) == UDA_SUCCESS) {
				uda_allocation_metadata im = {};
				uda_allocation_get_metadata(imported, &im);
				auto *bytes = static_cast<uint8_t *>(view);
				status = im.planes[0].pitch == m.planes[0].pitch ? 0 : 2;
				for (uint32_t y = 0; y < height && status == 0; y++) {
					for (uint32_t x = 0; x < width; x++) {
						uint32_t value;
						std::memcpy(&value, bytes + y * im.planes[0].pitch + x * 4, 4);
						if (value != (y << 16 | x))
							status = 3;
						value = ~value;
						std::memcpy(bytes + y * im.planes[0].pitch + x * 4, &value, 4);
					}
				}
			}
			uda_allocation_destroy(imported);
			uda_context_destroy(child_ctx);
		}
		_exit(status);
	}
	close(fd);
	int status = 0;
	ASSERT_EQ(waitpid(child, &status, 0), child);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
	for (uint32_t y = 0; y < height; y++) {
		for (uint32_t x = 0; x < width; x++) {
			uint32_t value;
			std::memcpy(&value, pixels + y * m.planes[0].pitch + x * 4, 4);
			ASSERT_EQ(value, ~(y << 16 | x)) << x << "," << y;
		}
	}
}

// Sends bytes and one fd over a Unix socket, as a client would hand a
// buffer to a compositor.
bool send_buffer(int socket, const std::vector<uint8_t> &bytes, int fd)
{
	iovec iov = {const_cast<uint8_t *>(bytes.data()), bytes.size()};
	alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
	msghdr message = {};
	message.msg_iov = &iov;
	message.msg_iovlen = 1;
	message.msg_control = control;
	message.msg_controllen = sizeof(control);
	cmsghdr *header = CMSG_FIRSTHDR(&message);
	header->cmsg_level = SOL_SOCKET;
	header->cmsg_type = SCM_RIGHTS;
	header->cmsg_len = CMSG_LEN(sizeof(int));
	std::memcpy(CMSG_DATA(header), &fd, sizeof(int));
	return sendmsg(socket, &message, 0) == static_cast<ssize_t>(bytes.size());
}

bool receive_buffer(int socket, std::vector<uint8_t> *bytes, int *fd)
{
	bytes->resize(4096);
	iovec iov = {bytes->data(), bytes->size()};
	alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
	msghdr message = {};
	message.msg_iov = &iov;
	message.msg_iovlen = 1;
	message.msg_control = control;
	message.msg_controllen = sizeof(control);
	ssize_t n = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
	cmsghdr *header = CMSG_FIRSTHDR(&message);
	if (n <= 0 || !header || header->cmsg_type != SCM_RIGHTS)
		return false;
	std::memcpy(fd, CMSG_DATA(header), sizeof(int));
	bytes->resize(static_cast<size_t>(n));
	return true;
}

// The producer process hands over a buffer and exits; what the consumer
// imports afterwards still holds the producer's pixels.
TEST_F(SystemBackend, ABufferOutlivesTheProcessThatMadeIt)
{
	int sockets[2];
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets), 0);
	pid_t producer = fork();
	ASSERT_GE(producer, 0);
	if (producer == 0) {
		close(sockets[0]);
		int status = 1;
		uda_context *child_ctx = child_system_context();
		if (child_ctx) {
			uda_device *child_system = find_system_device(child_ctx);
			const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 32, 32, DRM_FORMAT_XRGB8888, 0};
			const uda_device_usage devices[] = {{child_system, &cpu_usage}};
			const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 1,
			                                   devices};
			uda_allocation *allocation = nullptr;
			void *pointer = nullptr;
			uint8_t metadata[1024];
			size_t size = 0;
			int fd = -1;
			if (child_system &&
			    uda_negotiate_allocate(child_ctx, &info, &allocation, nullptr, nullptr) == UDA_SUCCESS &&
			    uda_allocation_map(allocation, UDA_ACCESS_WRITE, &pointer) == UDA_SUCCESS) {
				std::memset(pointer, 0xc3, 32 * 32 * 4);
				uda_allocation_unmap(allocation);
				if (uda_allocation_serialize_metadata(allocation, UDA_HANDLE_TYPE_MEMFD, metadata, sizeof(metadata),
				                                      &size) == UDA_SUCCESS &&
				    uda_allocation_export(allocation, UDA_HANDLE_TYPE_MEMFD, &fd) == UDA_SUCCESS &&
				    send_buffer(sockets[1], std::vector<uint8_t>(metadata, metadata + size), fd))
					status = 0;
			}
			if (fd >= 0)
				close(fd);
			uda_allocation_destroy(allocation);
			uda_context_destroy(child_ctx);
		}
		_exit(status);
	}
	close(sockets[1]);
	int status = 0;
	ASSERT_EQ(waitpid(producer, &status, 0), producer); // the producer is gone
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	std::vector<uint8_t> metadata;
	int fd = -1;
	ASSERT_TRUE(receive_buffer(sockets[0], &metadata, &fd));
	close(sockets[0]);
	uda_allocation *imported = nullptr;
	ASSERT_EQ(uda_import_serialized(device, fd, metadata.data(), metadata.size(), &imported), UDA_SUCCESS)
		<< uda_context_get_error(ctx.get());
	close(fd);
	AllocationPtr owned(imported);
	void *pointer = nullptr;
	ASSERT_EQ(uda_allocation_map(imported, UDA_ACCESS_READ, &pointer), UDA_SUCCESS);
	EXPECT_EQ(static_cast<uint8_t *>(pointer)[0], 0xc3);
	EXPECT_EQ(static_cast<uint8_t *>(pointer)[32 * 32 * 4 - 1], 0xc3);
}

// And the producer survives its consumer dying with the buffer imported.
TEST_F(SystemBackend, AProducerSurvivesItsConsumer)
{
	AllocationPtr allocation = allocate(32, 32, DRM_FORMAT_XRGB8888);
	ASSERT_TRUE(allocation);
	std::vector<uint8_t> metadata = serialized_metadata(allocation.get());
	int fd = -1;
	ASSERT_EQ(uda_allocation_export(allocation.get(), UDA_HANDLE_TYPE_MEMFD, &fd), UDA_SUCCESS);
	pid_t consumer = fork();
	ASSERT_GE(consumer, 0);
	if (consumer == 0) {
		uda_context *child_ctx = child_system_context();
		uda_allocation *imported = nullptr;
		void *pointer = nullptr;
		if (child_ctx &&
		    uda_import_serialized(find_system_device(child_ctx), fd, metadata.data(), metadata.size(), &imported) ==
		            UDA_SUCCESS &&
		    uda_allocation_map(imported, UDA_ACCESS_WRITE, &pointer) == UDA_SUCCESS)
			std::memset(pointer, 0x5e, 16);
		// Dies holding the mapping and the import: no cleanup at all.
		_exit(pointer ? 0 : 1);
	}
	close(fd);
	int status = 0;
	ASSERT_EQ(waitpid(consumer, &status, 0), consumer);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	void *pointer = nullptr;
	ASSERT_EQ(uda_allocation_map(allocation.get(), UDA_ACCESS_READ | UDA_ACCESS_WRITE, &pointer), UDA_SUCCESS);
	EXPECT_EQ(static_cast<uint8_t *>(pointer)[15], 0x5e);
	std::memset(pointer, 0, 64);
	EXPECT_EQ(uda_allocation_unmap(allocation.get()), UDA_SUCCESS);
}

// Every malformed import is refused with its own message, and whatever the
// import opened is closed again.
class SystemBadImport : public SystemBackend
{
protected:
	AllocationPtr allocation;
	uda_allocation_metadata metadata = {};
	const uda_capability_set_list *set = nullptr;
	int fd = -1;

	void SetUp() override
	{
		SystemBackend::SetUp();
		allocation = allocate(64, 64, DRM_FORMAT_ARGB8888);
		ASSERT_TRUE(allocation);
		ASSERT_EQ(uda_allocation_get_metadata(allocation.get(), &metadata), UDA_SUCCESS);
		metadata.handle_type = UDA_HANDLE_TYPE_MEMFD;
		ASSERT_EQ(uda_allocation_get_capability_set(allocation.get(), &set), UDA_SUCCESS);
		ASSERT_EQ(uda_allocation_export(allocation.get(), UDA_HANDLE_TYPE_MEMFD, &fd), UDA_SUCCESS);
	}
	void TearDown() override { close(fd); }

	void expect_refused(int import_fd, const uda_allocation_metadata &m, uda_result expected, const char *message)
	{
		const int before = open_fd_count();
		uda_import_info info = {UDA_STRUCTURE_TYPE_IMPORT_INFO, nullptr, device, import_fd, &m, set, 0};
		uda_allocation *imported = nullptr;
		EXPECT_EQ(uda_import(&info, &imported), expected);
		EXPECT_EQ(imported, nullptr);
		EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find(message), std::string::npos)
			<< uda_context_get_error(ctx.get());
		EXPECT_EQ(open_fd_count(), before);
	}
};

TEST_F(SystemBadImport, TheGoodImportWorks)
{
	const int before = open_fd_count();
	uda_import_info info = {UDA_STRUCTURE_TYPE_IMPORT_INFO, nullptr, device, fd, &metadata, set, 0};
	uda_allocation *imported = nullptr;
	ASSERT_EQ(uda_import(&info, &imported), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	uda_allocation_metadata im = {};
	EXPECT_EQ(uda_allocation_get_metadata(imported, &im), UDA_SUCCESS);
	EXPECT_EQ(im.handle_type, UDA_HANDLE_TYPE_MEMFD);
	EXPECT_EQ(im.size, metadata.size);
	uda_allocation_destroy(imported);
	EXPECT_EQ(open_fd_count(), before);
}

TEST_F(SystemBadImport, TakenFdsAreUdasWhateverHappens)
{
	const int before = open_fd_count();
	// Success: the allocation keeps the fd and closes it when destroyed.
	int taken = dup(fd);
	uda_import_info info = {UDA_STRUCTURE_TYPE_IMPORT_INFO, nullptr, device, taken, &metadata, set, 0,
	                        UDA_IMPORT_TAKE_FD};
	uda_allocation *imported = nullptr;
	ASSERT_EQ(uda_import(&info, &imported), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	EXPECT_EQ(open_fd_count(), before + 1);
	uda_allocation_destroy(imported);
	EXPECT_EQ(open_fd_count(), before);
	// Failure in the core's checks and in the backend: closed as well.
	uda_allocation_metadata bad = metadata;
	bad.planes[0].offset = bad.size;
	info.fd = dup(fd);
	info.metadata = &bad;
	EXPECT_EQ(uda_import(&info, &imported), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(open_fd_count(), before);
	uda_gl_import_info_stub stub = {static_cast<uda_structure_type>(UDA_STRUCTURE_TYPE_BACKEND_FIRST + 50), nullptr};
	info.fd = dup(fd);
	info.metadata = &metadata;
	info.next = &stub;
	EXPECT_EQ(uda_import(&info, &imported), UDA_ERROR_UNSUPPORTED);
	EXPECT_EQ(open_fd_count(), before);
	// Unknown flags are refused (and, being unreadable intent, nothing is
	// assumed taken: the flag set includes TAKE_FD, so it is closed).
	info.next = nullptr;
	info.fd = dup(fd);
	info.flags = UDA_IMPORT_TAKE_FD | 0x80;
	EXPECT_EQ(uda_import(&info, &imported), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(open_fd_count(), before);
}

// A consumer that only reads imports read-only: no CPU writes through
// uda, and the memfd is reopened O_RDONLY, so not even an fd exported
// again from the import can be mapped writable.
TEST_F(SystemBadImport, ReadOnlyImportsCannotWrite)
{
	void *pointer = nullptr;
	ASSERT_EQ(uda_allocation_map(allocation.get(), UDA_ACCESS_WRITE, &pointer), UDA_SUCCESS);
	static_cast<uint8_t *>(pointer)[7] = 0x42;
	ASSERT_EQ(uda_allocation_unmap(allocation.get()), UDA_SUCCESS);

	const int before = open_fd_count();
	for (uint32_t take : {0u, UDA_IMPORT_TAKE_FD}) {
		uda_import_info info = {UDA_STRUCTURE_TYPE_IMPORT_INFO, nullptr, device, take ? dup(fd) : fd, &metadata, set,
		                        0, UDA_IMPORT_READ_ONLY | take};
		uda_allocation *imported = nullptr;
		ASSERT_EQ(uda_import(&info, &imported), UDA_SUCCESS) << uda_context_get_error(ctx.get());
		AllocationPtr owned(imported);
		EXPECT_EQ(uda_allocation_map(imported, UDA_ACCESS_WRITE, &pointer), UDA_ERROR_INVALID_ARGUMENT);
		EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("read-only"), std::string::npos);
		EXPECT_EQ(uda_allocation_map(imported, UDA_ACCESS_READ | UDA_ACCESS_WRITE, &pointer),
		          UDA_ERROR_INVALID_ARGUMENT);
		ASSERT_EQ(uda_allocation_map(imported, UDA_ACCESS_READ, &pointer), UDA_SUCCESS)
			<< uda_context_get_error(ctx.get());
		EXPECT_EQ(static_cast<const uint8_t *>(pointer)[7], 0x42);
		EXPECT_EQ(uda_allocation_begin_cpu_access(imported, UDA_ACCESS_WRITE), UDA_ERROR_INVALID_ARGUMENT);
		EXPECT_EQ(uda_allocation_begin_cpu_access(imported, UDA_ACCESS_READ), UDA_SUCCESS);
		EXPECT_EQ(uda_allocation_end_cpu_access(imported, UDA_ACCESS_READ), UDA_SUCCESS);
		EXPECT_EQ(uda_allocation_unmap(imported), UDA_SUCCESS);

		int again = -1;
		ASSERT_EQ(uda_allocation_export(imported, UDA_HANDLE_TYPE_MEMFD, &again), UDA_SUCCESS);
		EXPECT_EQ(fcntl(again, F_GETFL) & O_ACCMODE, O_RDONLY);
		void *writable = mmap(nullptr, metadata.size, PROT_READ | PROT_WRITE, MAP_SHARED, again, 0);
		EXPECT_EQ(writable, MAP_FAILED);
		if (writable != MAP_FAILED)
			munmap(writable, metadata.size);
		close(again);
	}
	EXPECT_EQ(open_fd_count(), before);
}

// Colour information set on an allocation reaches its imports, through
// serialized metadata (another process) and through uda_import.
TEST_F(SystemBadImport, ColorInformationReachesTheImport)
{
	uda_color_info color = {};
	color.type = UDA_STRUCTURE_TYPE_COLOR_INFO;
	color.primaries = UDA_COLOR_PRIMARIES_BT2020;
	color.transfer = UDA_TRANSFER_FUNCTION_HLG;
	color.max_content_light_level = 1000;
	uda_color_info got = {};
	EXPECT_EQ(uda_allocation_get_color_info(allocation.get(), &got), UDA_ERROR_NOT_FOUND);
	ASSERT_EQ(uda_allocation_set_color_info(allocation.get(), &color), UDA_SUCCESS);

	size_t size = 0;
	ASSERT_EQ(uda_allocation_serialize_metadata(allocation.get(), UDA_HANDLE_TYPE_MEMFD, nullptr, 0, &size),
	          UDA_SUCCESS);
	std::vector<uint8_t> bytes(size);
	ASSERT_EQ(uda_allocation_serialize_metadata(allocation.get(), UDA_HANDLE_TYPE_MEMFD, bytes.data(), size, &size),
	          UDA_SUCCESS);
	uda_allocation *imported = nullptr;
	ASSERT_EQ(uda_import_serialized(device, fd, bytes.data(), size, &imported), UDA_SUCCESS)
		<< uda_context_get_error(ctx.get());
	ASSERT_EQ(uda_allocation_get_color_info(imported, &got), UDA_SUCCESS);
	EXPECT_EQ(0, std::memcmp(&got, &color, sizeof(color)));
	uda_allocation_destroy(imported);

	uda_allocation_metadata with_color = metadata;
	with_color.next = &color;
	uda_import_info info = {UDA_STRUCTURE_TYPE_IMPORT_INFO, nullptr, device, fd, &with_color, set, 0};
	ASSERT_EQ(uda_import(&info, &imported), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	got = {};
	ASSERT_EQ(uda_allocation_get_color_info(imported, &got), UDA_SUCCESS);
	EXPECT_EQ(got.transfer, UDA_TRANSFER_FUNCTION_HLG);
	uda_allocation_destroy(imported);

	// Cleared, and bad values refused.
	ASSERT_EQ(uda_allocation_set_color_info(allocation.get(), nullptr), UDA_SUCCESS);
	EXPECT_EQ(uda_allocation_get_color_info(allocation.get(), &got), UDA_ERROR_NOT_FOUND);
	color.primaries = static_cast<uda_color_primaries>(77);
	EXPECT_EQ(uda_allocation_set_color_info(allocation.get(), &color), UDA_ERROR_INVALID_ARGUMENT);
}

TEST_F(SystemBadImport, ClosedFd)
{
	expect_refused(-1, metadata, UDA_ERROR_INVALID_ARGUMENT, "is not open");
	int spare = dup(fd);
	close(spare);
	expect_refused(spare, metadata, UDA_ERROR_INVALID_ARGUMENT, "is not open");
}

TEST_F(SystemBadImport, TruncatedMemfd)
{
	int small = memfd_create("uda-test-small", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ASSERT_GE(small, 0);
	ASSERT_EQ(ftruncate(small, static_cast<off_t>(metadata.size / 2)), 0);
	ASSERT_EQ(fcntl(small, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
	expect_refused(small, metadata, UDA_ERROR_INVALID_ARGUMENT, "metadata claims");
	close(small);
}

TEST_F(SystemBadImport, UnsealedMemfd)
{
	int loose = memfd_create("uda-test-loose", MFD_CLOEXEC);
	ASSERT_GE(loose, 0);
	ASSERT_EQ(ftruncate(loose, static_cast<off_t>(metadata.size)), 0);
	expect_refused(loose, metadata, UDA_ERROR_INVALID_ARGUMENT, "not sealed");
	close(loose);
}

TEST_F(SystemBadImport, NotAMemfd)
{
	int pipe_fds[2];
	ASSERT_EQ(pipe(pipe_fds), 0);
	expect_refused(pipe_fds[0], metadata, UDA_ERROR_INVALID_ARGUMENT, "not memory");
	int tty = open("/dev/null", O_RDWR | O_CLOEXEC);
	ASSERT_GE(tty, 0);
	expect_refused(tty, metadata, UDA_ERROR_INVALID_ARGUMENT, "not a memfd");
	close(tty);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
}

TEST_F(SystemBadImport, HandleTypeTheSetDoesNotCarry)
{
	uda_allocation_metadata m = metadata;
	m.handle_type = UDA_HANDLE_TYPE_DMA_BUF;
	expect_refused(fd, m, UDA_ERROR_UNSUPPORTED, "not in the allocation's capability set");
	m.handle_type = static_cast<uda_handle_type>(77);
	expect_refused(fd, m, UDA_ERROR_INVALID_ARGUMENT, "unknown handle type");
}

TEST_F(SystemBadImport, PlanesOutsideTheMemory)
{
	uda_allocation_metadata m = metadata;
	m.planes[0].offset = m.size;
	expect_refused(fd, m, UDA_ERROR_INVALID_ARGUMENT, "outside");
	m = metadata;
	m.planes[0].offset = m.size - m.planes[0].pitch; // rows run past the end
	expect_refused(fd, m, UDA_ERROR_INVALID_ARGUMENT, "plane 0");
	m = metadata;
	m.planes[0].pitch = 64 * 4 - 4; // shorter than a row
	expect_refused(fd, m, UDA_ERROR_INVALID_ARGUMENT, "plane 0");
	m = metadata;
	m.size = 0;
	expect_refused(fd, m, UDA_ERROR_INVALID_ARGUMENT, "size 0");
}

TEST_F(SystemBadImport, CorruptedSerializedMetadata)
{
	std::vector<uint8_t> good = serialized_metadata(allocation.get());
	const int before = open_fd_count();
	uda_allocation *imported = nullptr;
	std::vector<uint8_t> bad = good;
	bad[0] ^= 0xff;
	EXPECT_EQ(uda_import_serialized(device, fd, bad.data(), bad.size(), &imported), UDA_ERROR_INVALID_DATA);
	EXPECT_EQ(uda_import_serialized(device, fd, good.data(), good.size() - 1, &imported), UDA_ERROR_INVALID_DATA);
	bad = good;
	bad.push_back(0);
	EXPECT_EQ(uda_import_serialized(device, fd, bad.data(), bad.size(), &imported), UDA_ERROR_INVALID_DATA);
	// Any single corrupted byte either fails to parse or fails the checks;
	// none reaches the backend with an inconsistent layout, none leaks.
	for (size_t i = 0; i < good.size(); i++) {
		bad = good;
		bad[i] ^= 0x41;
		uda_result r = uda_import_serialized(device, fd, bad.data(), bad.size(), &imported);
		if (r == UDA_SUCCESS) {
			uda_allocation_metadata im = {};
			ASSERT_EQ(uda_allocation_get_metadata(imported, &im), UDA_SUCCESS);
			EXPECT_LE(im.planes[0].offset + im.planes[0].pitch * im.height, im.size) << "byte " << i;
			uda_allocation_destroy(imported);
			imported = nullptr;
		}
	}
	EXPECT_EQ(imported, nullptr);
	EXPECT_EQ(open_fd_count(), before);
}

} // namespace
