// The compositor side (uda_wayland_server.h): linux-dmabuf feedback from
// negotiation between a render device and display devices, found by
// their DRM nodes (test devices standing for a GPU and two displays).
#include <gtest/gtest.h>

#include <drm_fourcc.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <vector>

#include <uda/uda_wayland_server.h>

#include "compositor_devices.hpp"
#include "fd_count.hpp"

using namespace uda_test;

namespace
{

constexpr uint64_t CCS = GPU_CCS, TILED = GPU_TILED, LINEAR = DRM_FORMAT_MOD_LINEAR;

class CompositorFeedback : public ::testing::Test
{
      protected:
	void SetUp() override
	{
		const uda_context_create_info info = {UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO, nullptr,
		                                      UDA_CONTEXT_CREATE_NO_BACKENDS};
		ASSERT_EQ(uda_context_create(&info, &ctx), UDA_SUCCESS);
		CompositorDevices devices;
		add_compositor_devices(ctx, devices);
		gpu = devices.gpu;
		display = devices.display;
		stranger = devices.stranger;
	}
	void TearDown() override
	{
		uda_wayland_feedback_destroy(feedback);
		uda_context_destroy(ctx);
	}

	uda_result create(std::vector<uda_device *> displays = {})
	{
		displays_ = displays;
		const uda_wayland_feedback_create_info info = {UDA_STRUCTURE_TYPE_WAYLAND_FEEDBACK_CREATE_INFO,
		                                               nullptr,
		                                               gpu,
		                                               2,
		                                               formats,
		                                               0,
		                                               0,
		                                               static_cast<uint32_t>(displays_.size()),
		                                               displays_.data()};
		return uda_wayland_feedback_create(ctx, &info, &feedback);
	}

	std::vector<uda_wayland_tranche> tranches(uint32_t display_index)
	{
		uint32_t count = 0;
		EXPECT_EQ(uda_wayland_feedback_get_tranches(feedback, display_index, &count, nullptr), UDA_SUCCESS);
		std::vector<uda_wayland_tranche> out(count);
		EXPECT_EQ(uda_wayland_feedback_get_tranches(feedback, display_index, &count, out.data()), UDA_SUCCESS);
		return out;
	}

	// A tranche as the (format, modifier) pairs its indices name.
	std::vector<std::pair<uint32_t, uint64_t>> pairs(const uda_wayland_tranche &tranche)
	{
		std::vector<std::pair<uint32_t, uint64_t>> out;
		for (uint32_t i = 0; i < tranche.index_count; i++) {
			uint32_t format = 0;
			uint64_t modifier = 0;
			EXPECT_EQ(uda_wayland_feedback_get_table_entry(feedback, tranche.indices[i], &format, &modifier),
			          UDA_SUCCESS);
			out.emplace_back(format, modifier);
		}
		return out;
	}

	const uint32_t formats[2] = {DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888};
	uda_context *ctx = nullptr;
	uda_device *gpu = nullptr, *display = nullptr, *stranger = nullptr;
	std::vector<uda_device *> displays_;
	uda_wayland_feedback *feedback = nullptr;
};

using Pairs = std::vector<std::pair<uint32_t, uint64_t>>;

// The main device is the GPU's node; its tranche lists every DMA-BUF
// layout it imports, in its order, and not the layout of its own.
TEST_F(CompositorFeedback, TheRenderTrancheIsWhatTheGpuImports)
{
	ASSERT_EQ(create(), UDA_SUCCESS) << uda_context_get_error(ctx);
	dev_t main_device = 0;
	ASSERT_EQ(uda_wayland_feedback_get_main_device(feedback, &main_device), UDA_SUCCESS);
	EXPECT_EQ(main_device, makedev(226, 128));
	std::vector<uda_wayland_tranche> list = tranches(UDA_WAYLAND_NO_SCANOUT);
	ASSERT_EQ(list.size(), 1u);
	EXPECT_EQ(list[0].target_device, makedev(226, 128));
	EXPECT_EQ(list[0].flags, 0u);
	EXPECT_EQ(pairs(list[0]), (Pairs{{DRM_FORMAT_XRGB8888, CCS},
	                                 {DRM_FORMAT_XRGB8888, TILED},
	                                 {DRM_FORMAT_XRGB8888, LINEAR},
	                                 {DRM_FORMAT_ARGB8888, CCS},
	                                 {DRM_FORMAT_ARGB8888, TILED},
	                                 {DRM_FORMAT_ARGB8888, LINEAR}}));
}

// A surface that can go on the display's plane gets the display's scanout
// tranche first (what both share), the render tranche after; one that
// cannot (back to compositing) gets the render tranche alone. A display
// that shares nothing with the GPU has no scanout tranche.
TEST_F(CompositorFeedback, AScanoutTrancheAppearsForASurfaceOnAPlaneAndGoes)
{
	ASSERT_EQ(create({display, stranger}), UDA_SUCCESS) << uda_context_get_error(ctx);
	std::vector<uda_wayland_tranche> on_plane = tranches(0);
	ASSERT_EQ(on_plane.size(), 2u);
	EXPECT_EQ(on_plane[0].flags, UDA_WAYLAND_TRANCHE_SCANOUT);
	EXPECT_EQ(on_plane[0].target_device, makedev(226, 0));
	EXPECT_EQ(pairs(on_plane[0]), (Pairs{{DRM_FORMAT_XRGB8888, TILED},
	                                     {DRM_FORMAT_XRGB8888, LINEAR},
	                                     {DRM_FORMAT_ARGB8888, TILED},
	                                     {DRM_FORMAT_ARGB8888, LINEAR}}));
	EXPECT_EQ(on_plane[1].flags, 0u);
	EXPECT_EQ(on_plane[1].index_count, 6u);

	std::vector<uda_wayland_tranche> composited = tranches(UDA_WAYLAND_NO_SCANOUT);
	ASSERT_EQ(composited.size(), 1u);
	EXPECT_EQ(composited[0].flags, 0u);

	std::vector<uda_wayland_tranche> on_stranger = tranches(1);
	ASSERT_EQ(on_stranger.size(), 1u);
	EXPECT_EQ(on_stranger[0].flags, 0u);
}

// The table travels as it is: a sealed memfd of 16-byte entries.
TEST_F(CompositorFeedback, TheFormatTableIsASealedMemfdOfSixteenByteEntries)
{
	ASSERT_EQ(create({display}), UDA_SUCCESS);
	int fd = -1;
	uint32_t size = 0;
	ASSERT_EQ(uda_wayland_feedback_get_format_table(feedback, &fd, &size), UDA_SUCCESS);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(size, 6u * 16u);
	EXPECT_EQ(lseek(fd, 0, SEEK_END), static_cast<off_t>(size));
	const int seals = fcntl(fd, F_GET_SEALS);
	EXPECT_EQ(seals & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE), F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE);
	void *map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(map, MAP_FAILED);
	for (uint32_t i = 0; i < size / 16; i++) {
		uint32_t format = 0, stored_format = 0;
		uint64_t modifier = 0, stored_modifier = 0;
		ASSERT_EQ(uda_wayland_feedback_get_table_entry(feedback, i, &format, &modifier), UDA_SUCCESS);
		memcpy(&stored_format, static_cast<const uint8_t *>(map) + i * 16, 4);
		memcpy(&stored_modifier, static_cast<const uint8_t *>(map) + i * 16 + 8, 8);
		EXPECT_EQ(stored_format, format);
		EXPECT_EQ(stored_modifier, modifier);
	}
	munmap(map, size);
	close(fd);
}

TEST_F(CompositorFeedback, ARenderDeviceThatImportsNothingIsIncompatible)
{
	const uda_wayland_feedback_create_info info = {UDA_STRUCTURE_TYPE_WAYLAND_FEEDBACK_CREATE_INFO,
	                                               nullptr,
	                                               stranger,
	                                               1,
	                                               formats,
	                                               0,
	                                               0,
	                                               0,
	                                               nullptr};
	// The stranger's one layout is a DMA-BUF: it does import that; a GPU
	// whose every set is opaque does not.
	uda_device *opaque_only = nullptr;
	const Cap opaque{UDA_VENDOR_NONE, UDA_CAPABILITY_LAYOUT_OPAQUE, UDA_CAPABILITY_FLAG_REQUIRED,
	                 std::vector<uint8_t>(17, 0x11)};
	const test_device_node node = {UDA_DEVICE_API_VULKAN, 226, 129};
	ASSERT_EQ(test_device_add_on_node(
	                  ctx, "opaque", 4,
	                  make_list(ctx, {{{opaque, common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_OPAQUE_FD)}}}).release(),
	                  &node, &opaque_only),
	          UDA_SUCCESS);
	uda_wayland_feedback_create_info opaque_info = info;
	opaque_info.render_device = opaque_only;
	EXPECT_EQ(uda_wayland_feedback_create(ctx, &opaque_info, &feedback), UDA_ERROR_INCOMPATIBLE);
	EXPECT_EQ(feedback, nullptr);
	EXPECT_NE(std::string(uda_context_get_error(ctx)).find("imports none"), std::string::npos);
}

TEST_F(CompositorFeedback, BadArgumentsAreRefused)
{
	uda_wayland_feedback_create_info info = {UDA_STRUCTURE_TYPE_WAYLAND_FEEDBACK_CREATE_INFO,
	                                         nullptr,
	                                         gpu,
	                                         2,
	                                         formats,
	                                         0,
	                                         0,
	                                         0,
	                                         nullptr};
	EXPECT_EQ(uda_wayland_feedback_create(ctx, nullptr, &feedback), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_wayland_feedback_create(ctx, &info, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	uda_wayland_feedback_create_info bad = info;
	bad.type = UDA_STRUCTURE_TYPE_ASSERTION;
	EXPECT_EQ(uda_wayland_feedback_create(ctx, &bad, &feedback), UDA_ERROR_INVALID_ARGUMENT);
	bad = info;
	bad.render_device = nullptr;
	EXPECT_EQ(uda_wayland_feedback_create(ctx, &bad, &feedback), UDA_ERROR_INVALID_ARGUMENT);
	bad = info;
	bad.formats = nullptr;
	EXPECT_EQ(uda_wayland_feedback_create(ctx, &bad, &feedback), UDA_ERROR_INVALID_ARGUMENT);
	bad = info;
	bad.display_count = 1;
	EXPECT_EQ(uda_wayland_feedback_create(ctx, &bad, &feedback), UDA_ERROR_INVALID_ARGUMENT);
	uda_device *null_display = nullptr;
	bad.displays = &null_display;
	EXPECT_EQ(uda_wayland_feedback_create(ctx, &bad, &feedback), UDA_ERROR_INVALID_ARGUMENT);
	bad = info;
	bad.width = 640; /* a width without a height */
	EXPECT_EQ(uda_wayland_feedback_create(ctx, &bad, &feedback), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(feedback, nullptr);

	ASSERT_EQ(create({display}), UDA_SUCCESS);
	uda_wayland_tranche one;
	uint32_t count = 1;
	EXPECT_EQ(uda_wayland_feedback_get_tranches(feedback, 0, &count, &one), UDA_ERROR_BUFFER_TOO_SMALL);
	EXPECT_EQ(one.flags, UDA_WAYLAND_TRANCHE_SCANOUT);
	EXPECT_EQ(uda_wayland_feedback_get_tranches(feedback, 5, &count, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	uint32_t format = 0;
	uint64_t modifier = 0;
	EXPECT_EQ(uda_wayland_feedback_get_table_entry(feedback, 6, &format, &modifier), UDA_ERROR_INVALID_ARGUMENT);
	uda_wayland_feedback_destroy(nullptr);
}

// ---- Client buffers ---------------------------------------------------

// A client's buffer: a memfd standing in for its DMA-BUF.
struct ClientBuffer {
	explicit ClientBuffer(size_t size)
	{
		fd = memfd_create("client-dmabuf", MFD_CLOEXEC);
		EXPECT_EQ(ftruncate(fd, static_cast<off_t>(size)), 0);
	}
	~ClientBuffer() { close(fd); }
	int fd = -1;
};

uda_wayland_dmabuf_attributes linear_xrgb(int fd, int32_t width = 64, int32_t height = 32)
{
	uda_wayland_dmabuf_attributes a = {UDA_STRUCTURE_TYPE_WAYLAND_DMABUF_ATTRIBUTES, nullptr, width, height,
	                                   DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_LINEAR, 1, {}};
	a.planes[0] = {fd, 0, static_cast<uint32_t>(width) * 4};
	return a;
}

TEST_F(CompositorFeedback, AClientBufferOfAnOfferedLayoutImports)
{
	ASSERT_EQ(create(), UDA_SUCCESS);
	ClientBuffer buffer(64 * 4 * 32);
	const int fds_before = open_fd_count();
	uda_wayland_dmabuf_attributes a = linear_xrgb(buffer.fd);
	uda_allocation *allocation = nullptr;
	uint32_t error = 0;
	ASSERT_EQ(uda_wayland_feedback_import_dmabuf(feedback, &a, &allocation, &error), UDA_SUCCESS)
	        << uda_context_get_error(ctx);
	uda_allocation_metadata metadata = {UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	ASSERT_EQ(uda_allocation_get_metadata(allocation, &metadata), UDA_SUCCESS);
	EXPECT_EQ(metadata.width, 64u);
	EXPECT_EQ(metadata.height, 32u);
	EXPECT_EQ(metadata.planes[0].pitch, 256u);
	uda_device *device = nullptr;
	EXPECT_EQ(uda_allocation_get_device(allocation, &device), UDA_SUCCESS);
	EXPECT_EQ(device, gpu);
	uda_allocation_destroy(allocation);
	EXPECT_EQ(open_fd_count(), fds_before);
}

// Each way a client gets a buffer wrong is the error linux-dmabuf defines
// for it; a buffer the protocol allows but uda cannot describe (planes in
// two buffers) is a `failed`, not an error. No descriptor stays behind.
TEST_F(CompositorFeedback, BadClientBuffersAreTheProtocolsErrors)
{
	ASSERT_EQ(create(), UDA_SUCCESS);
	ClientBuffer buffer(64 * 4 * 32), small(64 * 4 * 8), other(64 * 4 * 32);
	const int fds_before = open_fd_count();
	struct Case {
		const char *what;
		uda_wayland_dmabuf_attributes attributes;
		uda_result result;
		uint32_t error;
	};
	std::vector<Case> cases;
	auto with = [&](const char *what, auto change, uda_result result, uint32_t error) {
		uda_wayland_dmabuf_attributes a = linear_xrgb(buffer.fd);
		change(a);
		cases.push_back({what, a, result, error});
	};
	with("a modifier the feedback did not offer", [](auto &a) { a.modifier = I915_FORMAT_MOD_X_TILED; },
	     UDA_ERROR_INVALID_DATA, UDA_WAYLAND_DMABUF_ERROR_INVALID_FORMAT);
	with("a format the feedback did not offer", [](auto &a) { a.format = DRM_FORMAT_NV12; }, UDA_ERROR_INVALID_DATA,
	     UDA_WAYLAND_DMABUF_ERROR_INVALID_FORMAT);
	with("no width", [](auto &a) { a.width = 0; }, UDA_ERROR_INVALID_DATA,
	     UDA_WAYLAND_DMABUF_ERROR_INVALID_DIMENSIONS);
	with("a negative height", [](auto &a) { a.height = -4; }, UDA_ERROR_INVALID_DATA,
	     UDA_WAYLAND_DMABUF_ERROR_INVALID_DIMENSIONS);
	with("no plane", [](auto &a) { a.plane_count = 0; }, UDA_ERROR_INVALID_DATA,
	     UDA_WAYLAND_DMABUF_ERROR_INCOMPLETE);
	with("a plane without a file", [](auto &a) { a.planes[0].fd = -1; }, UDA_ERROR_INVALID_DATA,
	     UDA_WAYLAND_DMABUF_ERROR_INCOMPLETE);
	with("a buffer shorter than its rows", [&](auto &a) { a.planes[0].fd = small.fd; }, UDA_ERROR_INVALID_DATA,
	     UDA_WAYLAND_DMABUF_ERROR_OUT_OF_BOUNDS);
	with("an offset past the buffer", [](auto &a) { a.planes[0].offset = 64 * 4 * 32; }, UDA_ERROR_INVALID_DATA,
	     UDA_WAYLAND_DMABUF_ERROR_OUT_OF_BOUNDS);
	with("a stride that overruns", [](auto &a) { a.planes[0].stride = 4096; }, UDA_ERROR_INVALID_DATA,
	     UDA_WAYLAND_DMABUF_ERROR_OUT_OF_BOUNDS);
	with("planes in two buffers",
	     [&](auto &a) {
		     a.plane_count = 2;
		     a.planes[1] = {other.fd, 0, 256};
	     },
	     UDA_ERROR_UNSUPPORTED, 0);
	for (const Case &c : cases) {
		SCOPED_TRACE(c.what);
		uda_allocation *allocation = nullptr;
		uint32_t error = 0;
		EXPECT_EQ(uda_wayland_feedback_import_dmabuf(feedback, &c.attributes, &allocation, &error), c.result);
		EXPECT_EQ(error, c.error);
		EXPECT_EQ(allocation, nullptr);
	}
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
}

} // namespace
