// The drm backend's devices over a recorded kernel (struct drm_io with a
// display of one primary and one cursor plane, dumb buffers in memfds),
// and over the real one where /dev/dri has a node (skipped here, with the
// reason): identity shared with the GPU on the same node, scanout and
// dumb-buffer sets, allocation, PRIME export and import, CPU access
// bracketed by DMA_BUF_IOCTL_SYNC, and a KMS test-only commit.
#include <cstring>
#include <drm_fourcc.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <map>
#include <vector>

extern "C" {
#include "drm_device.h"
#include "drm_replay.h"
}
#include <uda/uda_drm.h>

#include "fd_count.hpp"
#include "set_spec.hpp"

using namespace uda_test;

namespace
{

// A kernel that records what it is asked: one device, card0/renderD128.
struct FakeKernel {
	bool primary_opens = true;
	bool imports_fail = false;
	uint32_t next_handle = 1;
	std::map<uint32_t, int> buffers; // GEM handle -> memfd
	unsigned syncs_started = 0, syncs_ended = 0;
	unsigned open_fds = 0;

	static FakeKernel *of(void *data) { return static_cast<FakeKernel *>(data); }

	static uint32_t list(void *, drm_node_record *out, uint32_t capacity)
	{
		if (!capacity)
			return 0;
		*out = {};
		std::strcpy(out->primary_path, "/dev/dri/card0");
		std::strcpy(out->render_path, "/dev/dri/renderD128");
		out->primary = {true, 226, 0};
		out->render = {true, 226, 128};
		std::strcpy(out->bus, "pci:0000:03:00.0");
		return 1;
	}
	static int open(void *data, const char *path)
	{
		if (std::strstr(path, "card") && !of(data)->primary_opens)
			return -EACCES;
		of(data)->open_fds++;
		return ::open("/dev/null", O_RDWR | O_CLOEXEC);
	}
	static void close(void *data, int fd)
	{
		of(data)->open_fds--;
		::close(fd);
	}
	static int driver_name(void *, int, char *out, uint32_t capacity)
	{
		std::snprintf(out, capacity, "fakegpu");
		return 0;
	}
	static drm_format_pair *pairs(std::vector<drm_format_pair> list)
	{
		auto *out = static_cast<drm_format_pair *>(malloc(list.size() * sizeof(drm_format_pair)));
		std::copy(list.begin(), list.end(), out);
		return out;
	}
	static int read_display(void *, int, drm_display_record *out)
	{
		*out = {};
		out->max_width = 4096;
		out->max_height = 4096;
		out->cursor_width = out->cursor_height = 64;
		out->pitch_alignment = 64;
		out->plane_count = 2;
		out->planes = static_cast<drm_plane_record *>(calloc(2, sizeof(drm_plane_record)));
		out->planes[0].type = DRM_PLANE_TYPE_PRIMARY;
		out->planes[0].formats = {pairs({{DRM_FORMAT_XRGB8888, I915_FORMAT_MOD_X_TILED},
		                                 {DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_LINEAR},
		                                 {DRM_FORMAT_NV12, I915_FORMAT_MOD_Y_TILED}}),
		                          3};
		out->planes[1].type = DRM_PLANE_TYPE_CURSOR;
		out->planes[1].formats = {pairs({{DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_LINEAR}}), 1};
		return 0;
	}
	// Pitches in 256-byte steps, as several kernels' dumb buffers have.
	static int create_dumb(void *data, int, uint32_t width, uint32_t height, uint32_t bpp, drm_dumb_buffer *out)
	{
		const uint32_t pitch = (width * bpp / 8 + 255) / 256 * 256;
		const int fd = memfd_create("fake-dumb", MFD_CLOEXEC);
		if (ftruncate(fd, static_cast<off_t>(pitch) * height) != 0)
			return -ENOMEM;
		*out = {of(data)->next_handle++, pitch, static_cast<uint64_t>(pitch) * height};
		of(data)->buffers[out->handle] = fd;
		return 0;
	}
	static void close_handle(void *data, int, uint32_t handle)
	{
		auto &buffers = of(data)->buffers;
		auto it = buffers.find(handle);
		ASSERT_NE(it, buffers.end()) << "handle " << handle << " closed twice";
		::close(it->second);
		buffers.erase(it);
	}
	static int export_handle(void *data, int, uint32_t handle)
	{
		auto &buffers = of(data)->buffers;
		return buffers.count(handle) ? fcntl(buffers[handle], F_DUPFD_CLOEXEC, 0) : -ENOENT;
	}
	static int import_dma_buf(void *data, int, int dma_buf, uint32_t *out_handle)
	{
		if (of(data)->imports_fail)
			return -EINVAL;
		*out_handle = of(data)->next_handle++;
		of(data)->buffers[*out_handle] = fcntl(dma_buf, F_DUPFD_CLOEXEC, 0);
		return 0;
	}
	static int sync(void *data, int, bool start, bool, bool)
	{
		(start ? of(data)->syncs_started : of(data)->syncs_ended)++;
		return 0;
	}

	drm_io io()
	{
		return {list, open, close, driver_name, read_display, create_dumb, close_handle, export_handle,
		        import_dma_buf, sync, this};
	}
};

uda_result refuse(void *, uda_context *ctx, const uda_assertion *, const uda_usage *, uda_capability_set_list *)
{
	return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "a GPU stand-in");
}
const uda_device_interface gpu_interface = {UDA_DEVICE_INTERFACE_VERSION_1, refuse};

class DrmBackend : public ::testing::Test
{
protected:
	FakeKernel kernel;
	drm_io io = kernel.io();
	ContextPtr ctx = make_context();
	const uint8_t cpu_often[4] = {UDA_CPU_ACCESS_OFTEN, 0, 0, 0};
	uda_usage_atom scanout_atom = {UDA_VENDOR_NONE, UDA_USAGE_SCANOUT, 0, nullptr};
	uda_usage_atom cursor_atom = {UDA_VENDOR_NONE, UDA_USAGE_SCANOUT_CURSOR, 0, nullptr};
	uda_usage_atom write_atom = {UDA_VENDOR_NONE, UDA_USAGE_CPU_WRITE, 4, cpu_often};
	uda_usage_atom render_atom = {UDA_VENDOR_NONE, UDA_USAGE_RENDER_TARGET, 0, nullptr};
	uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 1000, 600, DRM_FORMAT_XRGB8888, 0};

	void TearDown() override
	{
		ctx.reset();
		EXPECT_EQ(kernel.open_fds, 0u) << "device fds outlive the context";
		EXPECT_TRUE(kernel.buffers.empty()) << kernel.buffers.size() << " GEM handles never closed";
	}

	uda_device *add_drm()
	{
		EXPECT_EQ(drm_devices_add_all(ctx.get(), &io), 1u) << uda_context_get_error(ctx.get());
		uda_device *device = nullptr;
		uint32_t count = 0;
		uda_context_enumerate_devices(ctx.get(), &count, nullptr);
		std::vector<uda_device *> devices(count);
		uda_context_enumerate_devices(ctx.get(), &count, devices.data());
		for (uda_device *d : devices) {
			uda_device_info info = {UDA_STRUCTURE_TYPE_DEVICE_INFO};
			uda_device_get_info(d, &info);
			if (info.api == UDA_DEVICE_API_DRM)
				device = d;
		}
		return device;
	}

	uda_device *add_gpu(uint8_t id, uda_drm_node render)
	{
		uda_device_create_info info = {UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
		info.device_uuid[0] = id;
		info.name = "gpu";
		info.backend_name = "test";
		info.api = UDA_DEVICE_API_VULKAN;
		info.drm_render = render;
		info.interface = &gpu_interface;
		uda_device *device = nullptr;
		EXPECT_EQ(uda_context_add_device(ctx.get(), &info, &device), UDA_SUCCESS);
		return device;
	}

	ListPtr sets(uda_device *device, std::vector<uda_usage_atom> atoms, uda_result expect = UDA_SUCCESS)
	{
		uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, static_cast<uint32_t>(atoms.size()), atoms.data()};
		uda_capability_set_list *list = nullptr;
		EXPECT_EQ(uda_device_get_capability_sets(device, &assertion, &usage, &list), expect)
			<< uda_context_get_error(ctx.get());
		return ListPtr(list);
	}

	static uint64_t constraint(const uda_capability_set_list *list, uint32_t set, uda_constraint name)
	{
		bool present = false;
		uint64_t value = 0;
		EXPECT_EQ(uda_capability_set_list_get_constraint(list, set, name, &present, &value), UDA_SUCCESS);
		return present ? value : 0;
	}
};

TEST_F(DrmBackend, ADeviceForEachNodeWithItsDriverAndNodes)
{
	uda_device *drm = add_drm();
	ASSERT_NE(drm, nullptr);
	uda_device_info info = {UDA_STRUCTURE_TYPE_DEVICE_INFO};
	ASSERT_EQ(uda_device_get_info(drm, &info), UDA_SUCCESS);
	EXPECT_STREQ(info.name, "fakegpu display (/dev/dri/card0)");
	EXPECT_STREQ(info.backend_name, "drm");
	EXPECT_TRUE(info.drm_primary.present);
	EXPECT_EQ(info.drm_render.minor, 128u);
	// No GPU API names it: its bus does, alike in every process.
	uint8_t expected[UDA_UUID_SIZE];
	uda_backend_uuid_from_name("pci:0000:03:00.0", expected);
	EXPECT_EQ(std::memcmp(info.device_uuid, expected, UDA_UUID_SIZE), 0);
}

TEST_F(DrmBackend, TheDisplayTakesTheIdentityOfTheGpuOnItsNode)
{
	uda_device *drm = add_drm();
	uda_device *gpu = add_gpu(0x42, {true, 226, 128});
	uda_device *stranger = add_gpu(0x43, {true, 226, 129});
	uda_device_info d = {UDA_STRUCTURE_TYPE_DEVICE_INFO}, g = {UDA_STRUCTURE_TYPE_DEVICE_INFO};
	uda_device_get_info(drm, &d);
	uda_device_get_info(gpu, &g);
	EXPECT_EQ(std::memcmp(d.device_uuid, g.device_uuid, UDA_UUID_SIZE), 0);
	// One identity, not one driver: opaque handles do not cross.
	EXPECT_FALSE(uda_device_same_hardware(drm, gpu));
	uda_device *found = nullptr;
	ASSERT_EQ(uda_context_find_device(ctx.get(), g.device_uuid, UDA_DEVICE_API_DRM, &found), UDA_SUCCESS);
	EXPECT_EQ(found, drm);
	(void)stranger;

	// The other order: the GPU first.
	ctx = make_context();
	gpu = add_gpu(0x44, {true, 226, 128});
	drm = add_drm();
	uda_device_get_info(drm, &d);
	uda_device_get_info(gpu, &g);
	EXPECT_EQ(std::memcmp(d.device_uuid, g.device_uuid, UDA_UUID_SIZE), 0);
}

TEST_F(DrmBackend, ScanoutSetsComeFromThePlanes)
{
	uda_device *drm = add_drm();
	ListPtr primary = sets(drm, {scanout_atom});
	EXPECT_EQ(modifiers_of(primary.get()), (std::vector<uint64_t>{I915_FORMAT_MOD_X_TILED, DRM_FORMAT_MOD_LINEAR}));
	EXPECT_EQ(constraint(primary.get(), 0, UDA_CONSTRAINT_MAX_WIDTH), 4096u);
	assertion.format = DRM_FORMAT_ARGB8888;
	assertion.width = assertion.height = 64;
	ListPtr cursor = sets(drm, {cursor_atom});
	EXPECT_EQ(modifiers_of(cursor.get()), std::vector<uint64_t>{DRM_FORMAT_MOD_LINEAR});
	EXPECT_EQ(constraint(cursor.get(), 0, UDA_CONSTRAINT_MAX_WIDTH), 64u);
	sets(drm, {render_atom}, UDA_ERROR_UNSUPPORTED);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("not scanout or CPU"), std::string::npos);
}

TEST_F(DrmBackend, CpuDrawnFramesAreDumbBuffersAtTheKernelsPitch)
{
	uda_device *drm = add_drm();
	ListPtr list = sets(drm, {scanout_atom, write_atom});
	ASSERT_EQ(count_of(list.get()), 1u);
	EXPECT_EQ(modifiers_of(list.get()), std::vector<uint64_t>{DRM_FORMAT_MOD_LINEAR});
	// 1000 pixels * 4 bytes, in the fake kernel's 256-byte steps.
	EXPECT_EQ(constraint(list.get(), 0, UDA_CONSTRAINT_MIN_PITCH), 4096u);
	EXPECT_EQ(constraint(list.get(), 0, UDA_CONSTRAINT_MAX_PITCH), 4096u);
	EXPECT_TRUE(uda_backend_set_has_u32(list.get(), 0, UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE));
	EXPECT_TRUE(kernel.buffers.empty()) << "the pitch probe leaves no buffer behind";

	// Tiled-only scanout cannot be drawn by the CPU.
	assertion.format = DRM_FORMAT_NV12;
	sets(drm, {scanout_atom, write_atom}, UDA_ERROR_UNSUPPORTED);
}

TEST_F(DrmBackend, DumbBuffersAllocateExportImportAndMapWithSync)
{
	const int fds_before = open_fd_count();
	{
		uda_device *drm = add_drm();
		uda_usage_atom atoms[] = {scanout_atom, write_atom};
		uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 2, atoms};
		uda_device_usage devices[] = {{drm, &usage}};
		uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 1, devices};
		uda_allocation *raw = nullptr;
		ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &raw, nullptr, nullptr), UDA_SUCCESS)
			<< uda_context_get_error(ctx.get());
		AllocationPtr allocation(raw);
		uda_allocation_metadata m;
		ASSERT_EQ(uda_allocation_get_metadata(allocation.get(), &m), UDA_SUCCESS);
		EXPECT_EQ(m.planes[0].pitch, 4096u);
		EXPECT_EQ(m.size, 4096u * 600);

		void *pointer = nullptr;
		ASSERT_EQ(uda_allocation_map(allocation.get(), UDA_ACCESS_WRITE, &pointer), UDA_SUCCESS);
		ASSERT_EQ(uda_allocation_begin_cpu_access(allocation.get(), UDA_ACCESS_WRITE), UDA_SUCCESS);
		std::memset(pointer, 0x5a, m.size);
		ASSERT_EQ(uda_allocation_end_cpu_access(allocation.get(), UDA_ACCESS_WRITE), UDA_SUCCESS);
		EXPECT_EQ(kernel.syncs_started, 1u);
		EXPECT_EQ(kernel.syncs_ended, 1u);
		ASSERT_EQ(uda_allocation_unmap(allocation.get()), UDA_SUCCESS);

		// PRIME round trip: what another process's display gets.
		size_t size = 0;
		ASSERT_EQ(uda_allocation_serialize_metadata(allocation.get(), UDA_HANDLE_TYPE_DMA_BUF, nullptr, 0, &size),
		          UDA_SUCCESS);
		std::vector<uint8_t> bytes(size);
		ASSERT_EQ(uda_allocation_serialize_metadata(allocation.get(), UDA_HANDLE_TYPE_DMA_BUF, bytes.data(), size,
		                                            &size),
		          UDA_SUCCESS);
		int fd = -1;
		ASSERT_EQ(uda_allocation_export(allocation.get(), UDA_HANDLE_TYPE_DMA_BUF, &fd), UDA_SUCCESS);
		uda_allocation *imported = nullptr;
		ASSERT_EQ(uda_import_serialized(drm, fd, bytes.data(), bytes.size(), &imported), UDA_SUCCESS)
			<< uda_context_get_error(ctx.get());
		close(fd);
		AllocationPtr in_display(imported);
		uda_drm_native native = {UDA_STRUCTURE_TYPE_DRM_NATIVE};
		ASSERT_EQ(uda_allocation_get_native(in_display.get(), &native), UDA_SUCCESS);
		EXPECT_GE(native.drm_fd, 0);
		EXPECT_EQ(kernel.buffers.count(native.gem_handle), 1u);
		ASSERT_EQ(uda_allocation_map(in_display.get(), UDA_ACCESS_READ, &pointer), UDA_SUCCESS);
		EXPECT_EQ(static_cast<const uint8_t *>(pointer)[m.size - 1], 0x5a);
		ASSERT_EQ(uda_allocation_unmap(in_display.get()), UDA_SUCCESS);

		int wrong = -1;
		EXPECT_EQ(uda_allocation_export(allocation.get(), UDA_HANDLE_TYPE_OPAQUE_FD, &wrong),
		          UDA_ERROR_UNSUPPORTED);
		EXPECT_EQ(wrong, -1);
	}
	ctx.reset();
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
}

TEST_F(DrmBackend, AFailedPrimeImportLeaksNoDescriptor)
{
	const int fds_before = open_fd_count();
	{
		uda_device *drm = add_drm();
		uda_usage_atom atoms[] = {write_atom};
		uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, atoms};
		uda_device_usage devices[] = {{drm, &usage}};
		uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 1, devices};
		uda_allocation *raw = nullptr;
		ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &raw, nullptr, nullptr), UDA_SUCCESS);
		AllocationPtr allocation(raw);
		uda_allocation_metadata m;
		ASSERT_EQ(uda_allocation_get_metadata(allocation.get(), &m), UDA_SUCCESS);
		m.handle_type = UDA_HANDLE_TYPE_DMA_BUF;
		const uda_capability_set_list *set = nullptr;
		ASSERT_EQ(uda_allocation_get_capability_set(allocation.get(), &set), UDA_SUCCESS);
		kernel.imports_fail = true;
		for (uint32_t flags : {0u, static_cast<uint32_t>(UDA_IMPORT_TAKE_FD)}) {
			int fd = -1;
			ASSERT_EQ(uda_allocation_export(allocation.get(), UDA_HANDLE_TYPE_DMA_BUF, &fd), UDA_SUCCESS);
			uda_import_info import = {UDA_STRUCTURE_TYPE_IMPORT_INFO, nullptr, drm, fd, &m, set, 0, flags};
			uda_allocation *imported = nullptr;
			EXPECT_EQ(uda_import(&import, &imported), UDA_ERROR_BACKEND);
			EXPECT_EQ(imported, nullptr);
			if (!flags)
				close(fd);
		}
	}
	ctx.reset();
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
}

TEST_F(DrmBackend, WithoutThePrimaryNodeOnlyPrimeRemains)
{
	kernel.primary_opens = false;
	uda_device *drm = add_drm();
	ASSERT_NE(drm, nullptr);
	uda_device_info info = {UDA_STRUCTURE_TYPE_DEVICE_INFO};
	uda_device_get_info(drm, &info);
	EXPECT_STREQ(info.name, "fakegpu display (/dev/dri/renderD128)");
	sets(drm, {scanout_atom}, UDA_ERROR_UNSUPPORTED);
	sets(drm, {write_atom}, UDA_ERROR_UNSUPPORTED);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("primary node"), std::string::npos);
}

// ---- the real kernel, where a node exists -------------------------------

class DrmKernel : public ::testing::Test
{
protected:
	void SetUp() override
	{
		drmDevicePtr devices[8];
		const int count = drmGetDevices2(0, devices, 8);
		if (count <= 0)
			GTEST_SKIP() << "no DRM device on this machine (no /dev/dri): the real-device tests need one";
		drmFreeDevices(devices, count);
	}
};

TEST_F(DrmKernel, EveryNodeIsADeviceAndDumbBuffersShareAsDmaBufs)
{
	ContextPtr ctx = make_context();
	const uint32_t added = drm_devices_add_all(ctx.get(), &drm_io_kernel);
	if (!added)
		GTEST_SKIP() << "no DRM node opens for this user";
	uint32_t count = 0;
	ASSERT_EQ(uda_context_enumerate_devices(ctx.get(), &count, nullptr), UDA_SUCCESS);
	std::vector<uda_device *> devices(count);
	ASSERT_EQ(uda_context_enumerate_devices(ctx.get(), &count, devices.data()), UDA_SUCCESS);
	const uint8_t often[4] = {UDA_CPU_ACCESS_OFTEN, 0, 0, 0};
	uda_usage_atom write = {UDA_VENDOR_NONE, UDA_USAGE_CPU_WRITE, 4, often};
	uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &write};
	uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 256, 256, DRM_FORMAT_XRGB8888, 0};
	unsigned allocated = 0;
	for (uda_device *device : devices) {
		uda_device_usage entry = {device, &usage};
		uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 1, &entry};
		uda_allocation *raw = nullptr;
		if (uda_negotiate_allocate(ctx.get(), &info, &raw, nullptr, nullptr) != UDA_SUCCESS)
			continue; // a render-only node
		AllocationPtr allocation(raw);
		int fd = -1;
		ASSERT_EQ(uda_allocation_export(allocation.get(), UDA_HANDLE_TYPE_DMA_BUF, &fd), UDA_SUCCESS);
		EXPECT_GE(fd, 0);
		close(fd);
		allocated++;
	}
	if (!allocated)
		GTEST_SKIP() << "no device makes dumb buffers for this user";
}

// A buffer uda allocated for the primary plane passes an atomic test-only
// commit on a connected CRTC. Needs a node nobody else is master of.
TEST_F(DrmKernel, AnAllocatedBufferPassesATestOnlyCommit)
{
	ContextPtr ctx = make_context();
	if (!drm_devices_add_all(ctx.get(), &drm_io_kernel))
		GTEST_SKIP() << "no DRM node opens for this user";
	uint32_t count = 0;
	uda_context_enumerate_devices(ctx.get(), &count, nullptr);
	std::vector<uda_device *> devices(count);
	uda_context_enumerate_devices(ctx.get(), &count, devices.data());
	for (uda_device *device : devices) {
		uda_device_info info = {UDA_STRUCTURE_TYPE_DEVICE_INFO};
		uda_device_get_info(device, &info);
		if (!info.drm_primary.present)
			continue;
		const uint8_t often[4] = {UDA_CPU_ACCESS_OFTEN, 0, 0, 0};
		uda_usage_atom atoms[] = {{UDA_VENDOR_NONE, UDA_USAGE_SCANOUT, 0, nullptr},
		                          {UDA_VENDOR_NONE, UDA_USAGE_CPU_WRITE, 4, often}};
		uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 2, atoms};
		uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 0, 0, DRM_FORMAT_XRGB8888, 0};
		// The device's own fd, through a dumb buffer's native objects.
		assertion.width = assertion.height = 64;
		uda_device_usage entry = {device, &usage};
		uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 1, &entry};
		uda_allocation *probe = nullptr;
		if (uda_negotiate_allocate(ctx.get(), &negotiation, &probe, nullptr, nullptr) != UDA_SUCCESS)
			continue;
		uda_drm_native native = {UDA_STRUCTURE_TYPE_DRM_NATIVE};
		uda_allocation_get_native(probe, &native);
		const int fd = native.drm_fd;
		uda_allocation_destroy(probe);
		if (drmSetMaster(fd) != 0)
			GTEST_SKIP() << "another process is DRM master of " << info.name;
		drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 1);
		drmModeResPtr resources = drmModeGetResources(fd);
		drmModeConnectorPtr connector = nullptr;
		for (int i = 0; resources && i < resources->count_connectors && !connector; i++) {
			connector = drmModeGetConnector(fd, resources->connectors[i]);
			if (connector && (connector->connection != DRM_MODE_CONNECTED || !connector->count_modes)) {
				drmModeFreeConnector(connector);
				connector = nullptr;
			}
		}
		if (!connector) {
			drmModeFreeResources(resources);
			drmDropMaster(fd);
			continue;
		}
		const drmModeModeInfo mode = connector->modes[0];
		assertion.width = mode.hdisplay;
		assertion.height = mode.vdisplay;
		uda_allocation *raw = nullptr;
		ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &negotiation, &raw, nullptr, nullptr), UDA_SUCCESS)
			<< uda_context_get_error(ctx.get());
		AllocationPtr frame(raw);
		uda_allocation_get_native(frame.get(), &native);
		uda_allocation_metadata m;
		uda_allocation_get_metadata(frame.get(), &m);
		uint32_t handles[4] = {native.gem_handle}, pitches[4] = {static_cast<uint32_t>(m.planes[0].pitch)},
		         offsets[4] = {0}, fb = 0;
		ASSERT_EQ(drmModeAddFB2(fd, m.width, m.height, m.format, handles, pitches, offsets, &fb, 0), 0);
		// The first CRTC the connector's encoders reach, and its primary plane.
		uint32_t crtc = 0, crtc_index = 0;
		for (int e = 0; e < connector->count_encoders && !crtc; e++) {
			drmModeEncoderPtr encoder = drmModeGetEncoder(fd, connector->encoders[e]);
			for (int c = 0; encoder && c < resources->count_crtcs && !crtc; c++) {
				if (encoder->possible_crtcs & (1u << c)) {
					crtc = resources->crtcs[c];
					crtc_index = static_cast<uint32_t>(c);
				}
			}
			drmModeFreeEncoder(encoder);
		}
		auto property = [&](uint32_t object, uint32_t type, const char *name) {
			drmModeObjectPropertiesPtr props = drmModeObjectGetProperties(fd, object, type);
			uint32_t id = 0;
			for (uint32_t i = 0; props && i < props->count_props && !id; i++) {
				drmModePropertyPtr p = drmModeGetProperty(fd, props->props[i]);
				if (p && std::strcmp(p->name, name) == 0)
					id = p->prop_id;
				drmModeFreeProperty(p);
			}
			drmModeFreeObjectProperties(props);
			return id;
		};
		uint32_t plane = 0;
		drmModePlaneResPtr planes = drmModeGetPlaneResources(fd);
		for (uint32_t i = 0; planes && i < planes->count_planes && !plane; i++) {
			drmModePlanePtr p = drmModeGetPlane(fd, planes->planes[i]);
			drmModeObjectPropertiesPtr props = drmModeObjectGetProperties(fd, planes->planes[i], DRM_MODE_OBJECT_PLANE);
			for (uint32_t k = 0; p && props && k < props->count_props; k++) {
				drmModePropertyPtr prop = drmModeGetProperty(fd, props->props[k]);
				if (prop && std::strcmp(prop->name, "type") == 0 && props->prop_values[k] == DRM_PLANE_TYPE_PRIMARY &&
				    (p->possible_crtcs & (1u << crtc_index)))
					plane = p->plane_id;
				drmModeFreeProperty(prop);
			}
			drmModeFreeObjectProperties(props);
			drmModeFreePlane(p);
		}
		drmModeFreePlaneResources(planes);
		uint32_t mode_blob = 0;
		drmModeCreatePropertyBlob(fd, &mode, sizeof(mode), &mode_blob);
		drmModeAtomicReqPtr request = drmModeAtomicAlloc();
		drmModeAtomicAddProperty(request, connector->connector_id,
		                         property(connector->connector_id, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID"), crtc);
		drmModeAtomicAddProperty(request, crtc, property(crtc, DRM_MODE_OBJECT_CRTC, "MODE_ID"), mode_blob);
		drmModeAtomicAddProperty(request, crtc, property(crtc, DRM_MODE_OBJECT_CRTC, "ACTIVE"), 1);
		const std::pair<const char *, uint64_t> plane_props[] = {
			{"FB_ID", fb},          {"CRTC_ID", crtc},          {"SRC_X", 0},
			{"SRC_Y", 0},           {"SRC_W", uint64_t(m.width) << 16}, {"SRC_H", uint64_t(m.height) << 16},
			{"CRTC_X", 0},          {"CRTC_Y", 0},              {"CRTC_W", m.width},
			{"CRTC_H", m.height},
		};
		for (const auto &[name, value] : plane_props)
			drmModeAtomicAddProperty(request, plane, property(plane, DRM_MODE_OBJECT_PLANE, name), value);
		const int committed =
			drmModeAtomicCommit(fd, request, DRM_MODE_ATOMIC_TEST_ONLY | DRM_MODE_ATOMIC_ALLOW_MODESET, nullptr);
		drmModeAtomicFree(request);
		drmModeDestroyPropertyBlob(fd, mode_blob);
		drmModeRmFB(fd, fb);
		drmModeFreeConnector(connector);
		drmModeFreeResources(resources);
		drmDropMaster(fd);
		EXPECT_EQ(committed, 0) << "test-only commit on " << info.name << ": " << std::strerror(-committed);
		return;
	}
	GTEST_SKIP() << "no connected display on a primary node";
}

} // namespace

// UDA_DRM_REPLAY's displays: a recorded display (drm-fixtures) answers as
// its kernel would, scanout sets and dumb buffers included, and leaves no
// handle or descriptor behind.
TEST(DrmReplay, ARecordedDisplayIsADeviceWithItsPlanesAndDumbBuffers)
{
	const int fds_before = open_fd_count();
	{
		char why[256] = "";
		drm_replay *replay = drm_replay_create(UDA_TEST_DRM_FIXTURE_DIR "/intel-gen9.txt:" UDA_TEST_DRM_FIXTURE_DIR
		                                       "/linear-only.txt",
		                                       why, sizeof(why));
		ASSERT_NE(replay, nullptr) << why;
		{
			ContextPtr ctx = make_context();
			ASSERT_EQ(drm_devices_add_all(ctx.get(), drm_replay_io(replay)), 2u);
			uda_device *devices[2];
			uint32_t count = 2;
			ASSERT_EQ(uda_context_enumerate_devices(ctx.get(), &count, devices), UDA_SUCCESS);
			uda_device_info info = {UDA_STRUCTURE_TYPE_DEVICE_INFO};
			ASSERT_EQ(uda_device_get_info(devices[0], &info), UDA_SUCCESS);
			EXPECT_STREQ(info.name, "intel-gen9 display (replay:intel-gen9.txt)");
			EXPECT_EQ(info.api, UDA_DEVICE_API_DRM);
			EXPECT_EQ(info.drm_primary.major, 0u) << "never a real DRM node's number";

			uda_usage_atom scanout = {UDA_VENDOR_NONE, UDA_USAGE_SCANOUT, 0, nullptr};
			uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &scanout};
			uda_assertion nv12 = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 1920, 1080, DRM_FORMAT_NV12, 0};
			uda_capability_set_list *sets = nullptr;
			ASSERT_EQ(uda_device_get_capability_sets(devices[0], &nv12, &usage, &sets), UDA_SUCCESS)
			        << uda_context_get_error(ctx.get());
			EXPECT_EQ(count_of(sets), 3u) << "X-tiled, Y-tiled, linear";
			uda_capability_set_list_destroy(sets);
			EXPECT_EQ(uda_device_get_capability_sets(devices[1], &nv12, &usage, &sets), UDA_ERROR_UNSUPPORTED)
			        << "the linear-only controller scans out no NV12";

			const uint8_t often[4] = {UDA_CPU_ACCESS_OFTEN, 0, 0, 0};
			uda_usage_atom write = {UDA_VENDOR_NONE, UDA_USAGE_CPU_WRITE, 4, often};
			uda_usage cpu = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &write};
			uda_assertion xrgb = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 1000, 100, DRM_FORMAT_XRGB8888, 0};
			uda_device_usage entry = {devices[1], &cpu};
			uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &xrgb, 1, &entry};
			uda_allocation *raw = nullptr;
			ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &negotiation, &raw, nullptr, nullptr), UDA_SUCCESS)
			        << uda_context_get_error(ctx.get());
			AllocationPtr dumb(raw);
			uda_allocation_metadata m = {UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
			ASSERT_EQ(uda_allocation_get_metadata(dumb.get(), &m), UDA_SUCCESS);
			EXPECT_EQ(m.planes[0].pitch, 4096u) << "4000 bytes of row at the controller's 256-byte stride";
			int fd = -1;
			ASSERT_EQ(uda_allocation_export(dumb.get(), UDA_HANDLE_TYPE_DMA_BUF, &fd), UDA_SUCCESS);
			close(fd);
			EXPECT_EQ(drm_replay_live_handles(replay), 1u);
		}
		EXPECT_EQ(drm_replay_live_handles(replay), 0u);
		drm_replay_destroy(replay);
	}
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
}

// The kernel gives one GEM handle for every import of the same DMA-BUF
// on an fd (and a dumb buffer's own when its export comes back): freeing
// one of them must not close the handle the others still use.
TEST(DrmReplay, ImportsOfOneBufferShareItsHandleUntilTheLastGoes)
{
	char why[256] = "";
	drm_replay *replay = drm_replay_create(UDA_TEST_DRM_FIXTURE_DIR "/linear-only.txt", why, sizeof(why));
	ASSERT_NE(replay, nullptr) << why;
	{
		ContextPtr ctx = make_context();
		ASSERT_EQ(drm_devices_add_all(ctx.get(), drm_replay_io(replay)), 1u);
		uda_device *display = nullptr;
		uint32_t count = 1;
		ASSERT_EQ(uda_context_enumerate_devices(ctx.get(), &count, &display), UDA_SUCCESS);
		const uint8_t often[4] = {UDA_CPU_ACCESS_OFTEN, 0, 0, 0};
		uda_usage_atom write = {UDA_VENDOR_NONE, UDA_USAGE_CPU_WRITE, 4, often};
		uda_usage cpu = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &write};
		uda_assertion xrgb = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 256, 64, DRM_FORMAT_XRGB8888, 0};
		uda_device_usage entry = {display, &cpu};
		uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &xrgb, 1, &entry};
		uda_allocation *raw = nullptr;
		ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &negotiation, &raw, nullptr, nullptr), UDA_SUCCESS);
		AllocationPtr dumb(raw);
		uda_allocation *imports[2] = {};
		for (uda_allocation *&import : imports) {
			const uda_allocation_import_info info = {UDA_STRUCTURE_TYPE_ALLOCATION_IMPORT_INFO, nullptr, dumb.get(),
			                                         display, UDA_HANDLE_TYPE_DMA_BUF, 0};
			ASSERT_EQ(uda_import_allocation(&info, &import), UDA_SUCCESS) << uda_context_get_error(ctx.get());
		}
		uda_drm_native natives[3] = {{UDA_STRUCTURE_TYPE_DRM_NATIVE}, {UDA_STRUCTURE_TYPE_DRM_NATIVE},
		                             {UDA_STRUCTURE_TYPE_DRM_NATIVE}};
		ASSERT_EQ(uda_allocation_get_native(dumb.get(), &natives[0]), UDA_SUCCESS);
		ASSERT_EQ(uda_allocation_get_native(imports[0], &natives[1]), UDA_SUCCESS);
		ASSERT_EQ(uda_allocation_get_native(imports[1], &natives[2]), UDA_SUCCESS);
		EXPECT_EQ(natives[1].gem_handle, natives[0].gem_handle) << "the dumb buffer's own, as the kernel answers";
		EXPECT_EQ(natives[2].gem_handle, natives[0].gem_handle);
		uda_allocation_destroy(imports[0]);
		EXPECT_EQ(drm_replay_live_handles(replay), 1u) << "still held by the buffer and the other import";
		dumb.reset();
		EXPECT_EQ(drm_replay_live_handles(replay), 1u) << "still held by the other import";
		uda_allocation_destroy(imports[1]);
		EXPECT_EQ(drm_replay_live_handles(replay), 0u);
	}
	drm_replay_destroy(replay);
}

TEST(DrmReplay, ARecordingThatDoesNotParseIsRefusedWithItsLine)
{
	char path[] = "/tmp/uda-drm-bad-XXXXXX";
	const int fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	const std::string text = "display max 1920 1080\nplane primary\nformats XR24\nmodifier NOT_A_MODIFIER XR24\n";
	ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
	close(fd);
	char why[256] = "";
	EXPECT_EQ(drm_replay_create(path, why, sizeof(why)), nullptr);
	EXPECT_NE(std::string(why).find(":4: not understood"), std::string::npos) << why;
	unlink(path);
}
