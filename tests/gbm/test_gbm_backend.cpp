// uda_gbm.so through the system's libgbm, as any GBM program reaches it:
// GBM_BACKEND=uda and GBM_BACKENDS_PATH pointing at the build tree (set by
// ctest), and uda's own backends from the build tree. This machine has no
// DRM node, so devices are made from /dev/null: Mesa's own backend gives
// such an fd a software device, and uda gives it the GPUs without a
// display.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <drm_fourcc.h>
#include <fcntl.h>
#include <gbm.h>
#include <functional>
#include <gtest/gtest.h>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <uda/uda_gbm.h>
#include <uda/uda_vulkan.h>

#include "backend_env.hpp"
#include "fd_count.hpp"

using namespace uda_test;

namespace
{

constexpr uint64_t kForeignModifier = fourcc_mod_code(NVIDIA, 0x10);

template <typename F> F uda_gbm_symbol(const char *name)
{
	// libgbm dlopened uda_gbm.so: its symbols are found through it.
	void *handle = dlopen(UDA_TEST_GBM_MODULE, RTLD_NOW | RTLD_NOLOAD);
	if (!handle)
		return nullptr;
	F symbol = reinterpret_cast<F>(dlsym(handle, name));
	dlclose(handle);
	return symbol;
}

// What a GBM program's environment says: use uda, found in the build tree.
void use_uda_gbm()
{
	use_build_tree_backends();
	std::string module = UDA_TEST_GBM_MODULE;
	setenv("GBM_BACKEND", "uda", 1);
	setenv("GBM_BACKENDS_PATH", module.substr(0, module.rfind('/')).c_str(), 1);
}

// What gbm_bo_import(GBM_BO_IMPORT_FD_MODIFIER) needs to import `bo`
// back from `fd`, one plane.
gbm_import_fd_modifier_data import_data_of(gbm_bo *bo, int fd)
{
	gbm_import_fd_modifier_data data = {};
	data.width = gbm_bo_get_width(bo);
	data.height = gbm_bo_get_height(bo);
	data.format = gbm_bo_get_format(bo);
	data.num_fds = 1;
	data.fds[0] = fd;
	data.strides[0] = static_cast<int>(gbm_bo_get_stride(bo));
	data.modifier = gbm_bo_get_modifier(bo);
	return data;
}

std::string fd_target(int fd)
{
	char path[64], target[256] = {};
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return readlink(path, target, sizeof(target) - 1) > 0 ? target : "";
}

class Gbm : public ::testing::Test
{
protected:
	int fds_before = -1;
	int node = -1;
	gbm_device *gbm = nullptr;

	void SetUp() override
	{
		use_uda_gbm();
		setenv("UDA_VULKAN_VALIDATION", "1", 1);
		fds_before = open_fd_count();
		node = open("/dev/null", O_RDWR | O_CLOEXEC);
		ASSERT_GE(node, 0);
		gbm = gbm_create_device(node);
		ASSERT_NE(gbm, nullptr) << "is GBM_BACKEND=uda with GBM_BACKENDS_PATH set? errno " << errno;
		ASSERT_STREQ(gbm_device_get_backend_name(gbm), UDA_GBM_BACKEND_NAME);
	}
	void TearDown() override
	{
		if (gbm)
			gbm_device_destroy(gbm);
		if (node >= 0)
			close(node);
		EXPECT_EQ(open_fd_count(), fds_before) << "a descriptor leaked:\n" << describe_open_fds();
	}

	// Whether GBM has linear buffers of the format: where the GPU's GL
	// takes the format, only if it imports pitch-linear memory (NVIDIA's
	// GL_TILING_TYPES_EXT lacks LINEAR, seen on 580.159, and the backend
	// then refuses LINEAR, WRITE and CURSOR buffers as it should); where
	// GL takes no memory of the format at all (Mesa 22.3's GLES and
	// BGRA-ordered formats), GL sits the buffer out and Vulkan decides.
	bool gl_imports_linear(uint32_t format = GBM_FORMAT_XRGB8888)
	{
		auto get_context =
		        uda_gbm_symbol<uda_result (*)(gbm_device *, uda_context **)>("uda_gbm_device_get_context");
		uda_context *ctx = nullptr;
		if (!get_context || get_context(gbm, &ctx) != UDA_SUCCESS)
			return false;
		uint32_t count = 8;
		uda_device *devices[8];
		if (uda_context_enumerate_devices(ctx, &count, devices) != UDA_SUCCESS)
			return false;
		const uda_assertion probe = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 64, 64, format, 0};
		const uda_usage_atom sampled = {UDA_VENDOR_NONE, UDA_USAGE_SAMPLED, 0, nullptr};
		const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &sampled};
		bool linear = false, gl_takes_format = false;
		for (uint32_t d = 0; d < count; d++) {
			uda_device_info info = {};
			info.type = UDA_STRUCTURE_TYPE_DEVICE_INFO;
			uda_capability_set_list *sets = nullptr;
			if (uda_device_get_info(devices[d], &info) != UDA_SUCCESS || info.api != UDA_DEVICE_API_GL ||
			    uda_device_get_capability_sets(devices[d], &probe, &usage, &sets) != UDA_SUCCESS)
				continue;
			gl_takes_format = true;
			uint32_t set_count = 0;
			uda_capability_set_list_get_count(sets, &set_count);
			for (uint32_t i = 0; i < set_count && !linear; i++) {
				uda_capability layout = {};
				linear = uda_capability_set_list_get_layout(sets, i, &layout) == UDA_SUCCESS &&
				         layout.name == UDA_CAPABILITY_LAYOUT && layout.length == 8 &&
				         std::all_of(static_cast<const uint8_t *>(layout.payload),
				                     static_cast<const uint8_t *>(layout.payload) + 8,
				                     [](uint8_t b) { return b == 0; });
			}
			uda_capability_set_list_destroy(sets);
		}
		return linear || !gl_takes_format;
	}

	// Writes a pattern through a full map; false if it cannot map.
	static void fill(gbm_bo *bo, uint32_t seed)
	{
		uint32_t stride = 0;
		void *data = nullptr;
		auto *pixels = static_cast<uint8_t *>(gbm_bo_map(bo, 0, 0, gbm_bo_get_width(bo), gbm_bo_get_height(bo),
		                                                 GBM_BO_TRANSFER_WRITE, &stride, &data));
		ASSERT_NE(pixels, nullptr) << strerror(errno);
		for (uint32_t y = 0; y < gbm_bo_get_height(bo); y++) {
			auto *row = reinterpret_cast<uint32_t *>(pixels + y * stride);
			for (uint32_t x = 0; x < gbm_bo_get_width(bo); x++)
				row[x] = seed ^ (y << 16 | x);
		}
		gbm_bo_unmap(bo, data);
	}
	static void expect_pattern(gbm_bo *bo, uint32_t seed)
	{
		uint32_t stride = 0;
		void *data = nullptr;
		auto *pixels = static_cast<uint8_t *>(gbm_bo_map(bo, 0, 0, gbm_bo_get_width(bo), gbm_bo_get_height(bo),
		                                                 GBM_BO_TRANSFER_READ, &stride, &data));
		ASSERT_NE(pixels, nullptr) << strerror(errno);
		uint32_t wrong = 0;
		for (uint32_t y = 0; y < gbm_bo_get_height(bo); y++) {
			auto *row = reinterpret_cast<uint32_t *>(pixels + y * stride);
			for (uint32_t x = 0; x < gbm_bo_get_width(bo); x++)
				wrong += row[x] != (seed ^ (y << 16 | x));
		}
		gbm_bo_unmap(bo, data);
		EXPECT_EQ(wrong, 0u) << "pixels differ";
	}
	// What a producer writes for expect_pattern, through the uda side.
	static bool write_pattern(uda_allocation *allocation, uint32_t width, uint32_t height, uint32_t seed)
	{
		void *pixels = nullptr;
		if (uda_allocation_map(allocation, UDA_ACCESS_WRITE, &pixels) != UDA_SUCCESS)
			return false;
		uda_allocation_metadata metadata = {};
		metadata.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA;
		bool described = uda_allocation_get_metadata(allocation, &metadata) == UDA_SUCCESS;
		for (uint32_t y = 0; described && y < height; y++) {
			auto *row = reinterpret_cast<uint32_t *>(static_cast<uint8_t *>(pixels) + metadata.planes[0].offset +
			                                         y * metadata.planes[0].pitch);
			for (uint32_t x = 0; x < width; x++)
				row[x] = seed ^ (y << 16 | x);
		}
		return uda_allocation_unmap(allocation) == UDA_SUCCESS && described;
	}
	// An 80x60 linear XRGB8888 gbm_surface and the uda_surface behind it.
	gbm_surface *create_linear_surface(uda_surface **out_queue)
	{
		gbm_surface *surface =
		    gbm_surface_create(gbm, 80, 60, GBM_FORMAT_XRGB8888, GBM_BO_USE_RENDERING | GBM_BO_USE_LINEAR);
		EXPECT_NE(surface, nullptr) << strerror(errno);
		auto get_surface =
		    uda_gbm_symbol<uda_result (*)(gbm_surface *, uda_surface **)>("uda_gbm_surface_get_surface");
		EXPECT_NE(get_surface, nullptr);
		if (surface && get_surface) {
			EXPECT_EQ(get_surface(surface, out_queue), UDA_SUCCESS);
		}
		return surface;
	}
};

TEST_F(Gbm, DeviceIsUdasThroughTheRealLoader)
{
	EXPECT_EQ(gbm_device_get_fd(gbm), node);
	auto get_context = uda_gbm_symbol<uda_result (*)(gbm_device *, uda_context **)>("uda_gbm_device_get_context");
	ASSERT_NE(get_context, nullptr);
	uda_context *ctx = nullptr;
	ASSERT_EQ(get_context(gbm, &ctx), UDA_SUCCESS);
	uint32_t count = 0;
	ASSERT_EQ(uda_context_enumerate_devices(ctx, &count, nullptr), UDA_SUCCESS);
	EXPECT_GE(count, 2u) << "the build tree's Vulkan and GL devices";
	EXPECT_EQ(get_context(nullptr, &ctx), UDA_ERROR_INVALID_ARGUMENT);
}

TEST_F(Gbm, FormatSupportFollowsUsage)
{
	for (uint32_t format : {GBM_FORMAT_XRGB8888, GBM_FORMAT_ARGB8888, GBM_FORMAT_ABGR8888, GBM_FORMAT_XBGR8888}) {
		EXPECT_EQ(gbm_device_is_format_supported(gbm, format, GBM_BO_USE_RENDERING), 1) << format;
		const int linear = gl_imports_linear(format) ? 1 : 0;
		EXPECT_EQ(gbm_device_is_format_supported(gbm, format, GBM_BO_USE_RENDERING | GBM_BO_USE_LINEAR), linear);
		EXPECT_EQ(gbm_device_is_format_supported(gbm, format, GBM_BO_USE_WRITE), linear);
		// No display behind /dev/null: scanout is a hint, as on Mesa's
		// backend with a render node (cursors are CPU-written).
		EXPECT_EQ(gbm_device_is_format_supported(gbm, format, GBM_BO_USE_SCANOUT), 1);
		EXPECT_EQ(gbm_device_is_format_supported(gbm, format, GBM_BO_USE_CURSOR), linear);
	}
	// GBM's legacy format names are canonicalized by the loader's core.
	EXPECT_EQ(gbm_device_is_format_supported(gbm, GBM_BO_FORMAT_XRGB8888, GBM_BO_USE_RENDERING), 1);
	EXPECT_EQ(gbm_device_is_format_supported(gbm, fourcc_code('N', 'O', 'P', 'E'), GBM_BO_USE_RENDERING), 0);
	EXPECT_EQ(gbm_device_is_format_supported(gbm, GBM_FORMAT_XRGB8888, 1u << 20), 0);

	EXPECT_EQ(gbm_device_get_format_modifier_plane_count(gbm, GBM_FORMAT_XRGB8888, DRM_FORMAT_MOD_LINEAR),
	          gl_imports_linear(GBM_FORMAT_XRGB8888) ? 1 : -1);
	// A pair no buffer can be made of has no plane count (Mesa's answer
	// too): the Vulkan backend makes no multi-planar YUV yet.
	EXPECT_EQ(gbm_bo_create(gbm, 64, 64, GBM_FORMAT_NV12, GBM_BO_USE_LINEAR), nullptr);
	EXPECT_EQ(gbm_device_get_format_modifier_plane_count(gbm, GBM_FORMAT_NV12, DRM_FORMAT_MOD_LINEAR), -1);
	EXPECT_EQ(gbm_device_get_format_modifier_plane_count(gbm, GBM_FORMAT_XRGB8888, kForeignModifier), -1);
	EXPECT_EQ(gbm_device_get_format_modifier_plane_count(gbm, GBM_FORMAT_XRGB8888, DRM_FORMAT_MOD_INVALID), -1);
	EXPECT_EQ(gbm_device_get_format_modifier_plane_count(gbm, fourcc_code('N', 'O', 'P', 'E'), 0), -1);
}

TEST_F(Gbm, BuffersOfSeveralFormatsAndUsages)
{
	const uint32_t usages[] = {0, GBM_BO_USE_RENDERING, GBM_BO_USE_LINEAR, GBM_BO_USE_WRITE,
	                           GBM_BO_USE_RENDERING | GBM_BO_USE_LINEAR};
	const std::pair<uint32_t, uint32_t> formats[] = {
	    {GBM_FORMAT_XRGB8888, 4}, {GBM_FORMAT_ARGB8888, 4}, {GBM_FORMAT_ABGR8888, 4}, {GBM_FORMAT_XBGR8888, 4}};
	for (auto [format, bpp] : formats) {
		const bool linear_ok = gl_imports_linear(format);
		for (uint32_t usage : usages) {
			SCOPED_TRACE(testing::Message() << "format " << format << " usage 0x" << std::hex << usage);
			gbm_bo *bo = gbm_bo_create(gbm, 200, 120, format, usage);
			if (!linear_ok && (usage & (GBM_BO_USE_LINEAR | GBM_BO_USE_WRITE))) {
				// Refused cleanly, or made in a layout the GPU can use.
				if (!bo) {
					EXPECT_EQ(errno, EINVAL);
					continue;
				}
			}
			ASSERT_NE(bo, nullptr) << strerror(errno);
			EXPECT_EQ(gbm_bo_get_width(bo), 200u);
			EXPECT_EQ(gbm_bo_get_height(bo), 120u);
			EXPECT_EQ(gbm_bo_get_format(bo), format);
			EXPECT_EQ(gbm_bo_get_bpp(bo), bpp * 8);
			EXPECT_EQ(gbm_bo_get_device(bo), gbm);
			EXPECT_GE(gbm_bo_get_stride(bo), 200u * bpp);
			EXPECT_EQ(gbm_bo_get_stride_for_plane(bo, 0), gbm_bo_get_stride(bo));
			EXPECT_EQ(gbm_bo_get_plane_count(bo), 1);
			EXPECT_EQ(gbm_bo_get_offset(bo, 0), 0u);
			const bool linear = usage & (GBM_BO_USE_LINEAR | GBM_BO_USE_WRITE);
			if (linear) {
				EXPECT_EQ(gbm_bo_get_modifier(bo), DRM_FORMAT_MOD_LINEAR);
			}
			// No DRM fd, no GEM handle.
			EXPECT_EQ(gbm_bo_get_handle(bo).s32, -1);
			int fd = gbm_bo_get_fd(bo);
			ASSERT_GE(fd, 0) << strerror(errno);
			EXPECT_NE(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
			// Memfds and DMA-BUFs tell their size; NVIDIA's opaque fds
			// cannot be seeked (lseek fails, measured on 580.159).
			const off_t end = lseek(fd, 0, SEEK_END);
			if (end >= 0) {
				EXPECT_GE(end, static_cast<off_t>(gbm_bo_get_stride(bo)) * 120);
			}
			close(fd);
			if (linear) {
				fill(bo, format);
				expect_pattern(bo, format);
			}
			gbm_bo_destroy(bo);
		}
	}
}

TEST_F(Gbm, ModifierListsIntersectWithTheNegotiatedSets)
{
	if (!gl_imports_linear())
		GTEST_SKIP() << "this GPU's GL imports no linear memory: no linear GBM buffers";
	const uint64_t linear[] = {DRM_FORMAT_MOD_LINEAR};
	gbm_bo *bo = gbm_bo_create_with_modifiers2(gbm, 64, 64, GBM_FORMAT_XRGB8888, linear, 1, GBM_BO_USE_RENDERING);
	ASSERT_NE(bo, nullptr) << strerror(errno);
	EXPECT_EQ(gbm_bo_get_modifier(bo), DRM_FORMAT_MOD_LINEAR);
	gbm_bo_destroy(bo);

	// A modifier no device has is skipped; one they share is taken.
	const uint64_t mixed[] = {kForeignModifier, DRM_FORMAT_MOD_LINEAR};
	bo = gbm_bo_create_with_modifiers2(gbm, 64, 64, GBM_FORMAT_XRGB8888, mixed, 2, GBM_BO_USE_RENDERING);
	ASSERT_NE(bo, nullptr) << strerror(errno);
	EXPECT_EQ(gbm_bo_get_modifier(bo), DRM_FORMAT_MOD_LINEAR);
	gbm_bo_destroy(bo);

	errno = 0;
	const uint64_t foreign[] = {kForeignModifier};
	EXPECT_EQ(gbm_bo_create_with_modifiers2(gbm, 64, 64, GBM_FORMAT_XRGB8888, foreign, 1, GBM_BO_USE_RENDERING),
	          nullptr);
	EXPECT_EQ(errno, EINVAL);
	// A surface of buffers nothing can allocate is refused when it is
	// created, not when its first frame is drawn.
	errno = 0;
	EXPECT_EQ(gbm_surface_create_with_modifiers2(gbm, 64, 64, GBM_FORMAT_XRGB8888, foreign, 1, GBM_BO_USE_RENDERING),
	          nullptr);
	EXPECT_EQ(errno, EINVAL);

	// INVALID alone is refused, as Mesa refuses it: wlroots falls back
	// to gbm_bo_create on that failure. Beside others it means "implicit
	// is fine too" and is skipped.
	const uint64_t implicit[] = {DRM_FORMAT_MOD_INVALID};
	errno = 0;
	EXPECT_EQ(gbm_bo_create_with_modifiers2(gbm, 64, 64, GBM_FORMAT_XRGB8888, implicit, 1, GBM_BO_USE_RENDERING),
	          nullptr);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(gbm_surface_create_with_modifiers2(gbm, 64, 64, GBM_FORMAT_XRGB8888, implicit, 1,
	                                             GBM_BO_USE_RENDERING),
	          nullptr);
	EXPECT_EQ(errno, EINVAL);
	const uint64_t implicit_or_linear[] = {DRM_FORMAT_MOD_INVALID, DRM_FORMAT_MOD_LINEAR};
	bo = gbm_bo_create_with_modifiers2(gbm, 64, 64, GBM_FORMAT_XRGB8888, implicit_or_linear, 2,
	                                   GBM_BO_USE_RENDERING);
	ASSERT_NE(bo, nullptr) << strerror(errno);
	EXPECT_EQ(gbm_bo_get_modifier(bo), DRM_FORMAT_MOD_LINEAR);
	gbm_bo_destroy(bo);
}

// libgbm's older gbm_bo_create_with_modifiers asks the backend for SCANOUT
// alone, and compositors (wlroots, Xwayland's glamor) render into what it
// gives them: as on Mesa's backend, the buffer is one the GPU renders to.
// Without a display, scanout is a hint.
TEST_F(Gbm, BuffersOfTheOlderModifierCallAreRenderTargets)
{
	if (!gl_imports_linear())
		GTEST_SKIP() << "this GPU's GL imports no linear memory: no linear GBM buffers";
	const uint64_t linear[] = {DRM_FORMAT_MOD_LINEAR};
	gbm_bo *bo = gbm_bo_create_with_modifiers(gbm, 64, 64, GBM_FORMAT_XBGR8888, linear, 1);
	ASSERT_NE(bo, nullptr) << strerror(errno);
	EXPECT_EQ(gbm_bo_get_modifier(bo), DRM_FORMAT_MOD_LINEAR);
	auto get_allocation = uda_gbm_symbol<uda_result (*)(gbm_bo *, uda_allocation **)>("uda_gbm_bo_get_allocation");
	uda_allocation *allocation = nullptr;
	ASSERT_EQ(get_allocation(bo, &allocation), UDA_SUCCESS);
	uda_vulkan_native native = {};
	native.type = UDA_STRUCTURE_TYPE_VULKAN_NATIVE;
	ASSERT_EQ(uda_allocation_get_native(allocation, &native), UDA_SUCCESS) << "the Vulkan device allocates";
	EXPECT_TRUE(native.usage & VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT) << std::hex << native.usage;
	EXPECT_TRUE(native.usage & VK_IMAGE_USAGE_SAMPLED_BIT) << std::hex << native.usage;
	gbm_bo_destroy(bo);

	// wlroots' fallback for the same buffer.
	bo = gbm_bo_create(gbm, 64, 64, GBM_FORMAT_XBGR8888, GBM_BO_USE_SCANOUT | GBM_BO_USE_RENDERING);
	ASSERT_NE(bo, nullptr) << strerror(errno);
	gbm_bo_destroy(bo);
	// Without a display the cursor plane is left out, not the CPU writes
	// a cursor gets: still linear memory gbm_bo_write can fill.
	bo = gbm_bo_create(gbm, 64, 64, GBM_FORMAT_ARGB8888, GBM_BO_USE_CURSOR);
	ASSERT_NE(bo, nullptr) << strerror(errno);
	EXPECT_EQ(gbm_bo_get_modifier(bo), DRM_FORMAT_MOD_LINEAR);
	std::vector<uint32_t> cursor(64 * 64, 0xff00ff00u);
	EXPECT_EQ(gbm_bo_write(bo, cursor.data(), cursor.size() * 4), 0) << strerror(errno);
	gbm_bo_destroy(bo);
}

// The fd of a BO comes back through gbm_bo_import as the same memory:
// what one side writes the other reads.
TEST_F(Gbm, ExportedFdsImportAsTheSameMemory)
{
	if (!gl_imports_linear())
		GTEST_SKIP() << "this GPU's GL imports no linear memory: no linear GBM buffers";
	for (uint32_t usage : {uint32_t(GBM_BO_USE_LINEAR), uint32_t(GBM_BO_USE_WRITE | GBM_BO_USE_RENDERING)}) {
		SCOPED_TRACE(testing::Message() << "usage 0x" << std::hex << usage);
		gbm_bo *bo = gbm_bo_create(gbm, 96, 40, GBM_FORMAT_ARGB8888, usage);
		ASSERT_NE(bo, nullptr) << strerror(errno);
		fill(bo, 0x11000000);
		int fd = gbm_bo_get_fd(bo);
		ASSERT_GE(fd, 0);

		gbm_import_fd_data plain = {fd, 96, 40, gbm_bo_get_stride(bo), GBM_FORMAT_ARGB8888};
		gbm_bo *again = gbm_bo_import(gbm, GBM_BO_IMPORT_FD, &plain, GBM_BO_USE_RENDERING);
		ASSERT_NE(again, nullptr) << strerror(errno);
		EXPECT_EQ(gbm_bo_get_stride(again), gbm_bo_get_stride(bo));
		EXPECT_EQ(gbm_bo_get_modifier(again), DRM_FORMAT_MOD_LINEAR);
		expect_pattern(again, 0x11000000);

		gbm_import_fd_modifier_data with_modifier = import_data_of(bo, fd);
		gbm_bo *third = gbm_bo_import(gbm, GBM_BO_IMPORT_FD_MODIFIER, &with_modifier, 0);
		ASSERT_NE(third, nullptr) << strerror(errno);
		// Written through an import, read through the original.
		fill(third, 0x22000000);
		expect_pattern(bo, 0x22000000);
		expect_pattern(again, 0x22000000);

		// The importer keeps its own reference: closing the fd and
		// destroying the exporter leave the import's memory alive.
		close(fd);
		gbm_bo_destroy(bo);
		expect_pattern(third, 0x22000000);
		gbm_bo_destroy(again);
		gbm_bo_destroy(third);
	}
}

// The fd of a rendering BO in the driver's own layout (lavapipe exports an
// OPAQUE_FD) re-imports too: the device remembers what it exported.
TEST_F(Gbm, DriverPrivateBuffersReimportWhileTheExporterLives)
{
	gbm_bo *bo = gbm_bo_create(gbm, 128, 64, GBM_FORMAT_XRGB8888, GBM_BO_USE_RENDERING);
	ASSERT_NE(bo, nullptr) << strerror(errno);
	int fd = gbm_bo_get_fd(bo);
	ASSERT_GE(fd, 0);
	// Described otherwise than it was exported (another size, a format
	// of other pixels, a plane elsewhere, a layout it is not in, planes
	// it has not): refused, since uda makes no views of memory.
	const auto otherwise = [&](const char *what, const std::function<void(gbm_import_fd_modifier_data &)> &change) {
		SCOPED_TRACE(what);
		gbm_import_fd_modifier_data data = import_data_of(bo, fd);
		change(data);
		errno = 0;
		EXPECT_EQ(gbm_bo_import(gbm, GBM_BO_IMPORT_FD_MODIFIER, &data, 0), nullptr);
		EXPECT_EQ(errno, EINVAL);
	};
	otherwise("height", [](gbm_import_fd_modifier_data &d) { d.height = 32; });
	otherwise("format", [](gbm_import_fd_modifier_data &d) { d.format = GBM_FORMAT_RGB565; });
	otherwise("channel order", [](gbm_import_fd_modifier_data &d) { d.format = GBM_FORMAT_XBGR8888; });
	otherwise("depth", [](gbm_import_fd_modifier_data &d) { d.format = GBM_FORMAT_XRGB2101010; });
	otherwise("offset", [](gbm_import_fd_modifier_data &d) { d.offsets[0] = 64; });
	otherwise("modifier", [](gbm_import_fd_modifier_data &d) { d.modifier = DRM_FORMAT_MOD_LINEAR; });
	otherwise("planes", [fd](gbm_import_fd_modifier_data &d) {
		d.num_fds = 2;
		d.fds[1] = fd;
		d.strides[1] = d.strides[0];
	});
	// The same pixels without alpha are the same memory.
	gbm_import_fd_modifier_data data = import_data_of(bo, fd);
	data.format = GBM_FORMAT_ARGB8888;
	gbm_bo *opaque_view = gbm_bo_import(gbm, GBM_BO_IMPORT_FD_MODIFIER, &data, GBM_BO_USE_RENDERING);
	ASSERT_NE(opaque_view, nullptr) << strerror(errno);
	EXPECT_EQ(gbm_bo_get_format(opaque_view), GBM_FORMAT_ARGB8888);
	gbm_bo_destroy(opaque_view);
	data = import_data_of(bo, fd);
	gbm_bo *again = gbm_bo_import(gbm, GBM_BO_IMPORT_FD_MODIFIER, &data, GBM_BO_USE_RENDERING);
	ASSERT_NE(again, nullptr) << strerror(errno);
	EXPECT_EQ(gbm_bo_get_modifier(again), gbm_bo_get_modifier(bo));
	auto get_allocation = uda_gbm_symbol<uda_result (*)(gbm_bo *, uda_allocation **)>("uda_gbm_bo_get_allocation");
	ASSERT_NE(get_allocation, nullptr);
	uda_allocation *a = nullptr, *b = nullptr;
	ASSERT_EQ(get_allocation(bo, &a), UDA_SUCCESS);
	ASSERT_EQ(get_allocation(again, &b), UDA_SUCCESS);
	uda_allocation_metadata ma = {}, mb = {};
	ma.type = mb.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA;
	ASSERT_EQ(uda_allocation_get_metadata(a, &ma), UDA_SUCCESS);
	ASSERT_EQ(uda_allocation_get_metadata(b, &mb), UDA_SUCCESS);
	EXPECT_EQ(ma.size, mb.size);
	EXPECT_EQ(memcmp(ma.device_uuid, mb.device_uuid, UDA_UUID_SIZE), 0);
	gbm_bo_destroy(again);
	gbm_bo_destroy(bo);
	close(fd);
}

// A sealed memfd from somewhere else (a wl_shm-like client) imports with
// its stride and offset.
TEST_F(Gbm, ForeignMemfdsImportWithTheirLayout)
{
	const uint32_t width = 50, height = 20, stride = 256, offset = 4096;
	const size_t size = offset + stride * height;
	int fd = memfd_create("foreign", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ftruncate(fd, static_cast<off_t>(size)), 0);
	auto *bytes = static_cast<uint8_t *>(mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
	ASSERT_NE(bytes, MAP_FAILED);
	for (uint32_t y = 0; y < height; y++) {
		auto *row = reinterpret_cast<uint32_t *>(bytes + offset + y * stride);
		for (uint32_t x = 0; x < width; x++)
			row[x] = 0x33000000u ^ (y << 16 | x);
	}
	munmap(bytes, size);

	gbm_import_fd_modifier_data data = {};
	data.width = width;
	data.height = height;
	data.format = GBM_FORMAT_XRGB8888;
	data.num_fds = 1;
	data.fds[0] = fd;
	data.strides[0] = stride;
	data.offsets[0] = offset;
	data.modifier = DRM_FORMAT_MOD_LINEAR;
	// uda maps only memfds sealed against resizing.
	errno = 0;
	EXPECT_EQ(gbm_bo_import(gbm, GBM_BO_IMPORT_FD_MODIFIER, &data, 0), nullptr);
	EXPECT_EQ(errno, EINVAL);
	ASSERT_EQ(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
	gbm_bo *bo = gbm_bo_import(gbm, GBM_BO_IMPORT_FD_MODIFIER, &data, 0);
	ASSERT_NE(bo, nullptr) << strerror(errno);
	EXPECT_EQ(gbm_bo_get_stride(bo), stride);
	EXPECT_EQ(gbm_bo_get_offset(bo, 0), offset);
	expect_pattern(bo, 0x33000000u);
	// Its fd goes out as what it is.
	int out = gbm_bo_get_fd(bo);
	ASSERT_GE(out, 0);
	EXPECT_NE(fd_target(out).find("memfd:"), std::string::npos) << fd_target(out);
	close(out);
	gbm_bo_destroy(bo);
	close(fd);
}

TEST_F(Gbm, MapsRectanglesNestAndWrite)
{
	if (!gl_imports_linear())
		GTEST_SKIP() << "this GPU's GL imports no linear memory: no linear GBM buffers";
	gbm_bo *bo = gbm_bo_create(gbm, 64, 32, GBM_FORMAT_ARGB8888, GBM_BO_USE_WRITE);
	ASSERT_NE(bo, nullptr) << strerror(errno);
	fill(bo, 0);
	uint32_t stride = 0, inner_stride = 0;
	void *outer_data = nullptr, *inner_data = nullptr;
	auto *whole = static_cast<uint8_t *>(gbm_bo_map(bo, 0, 0, 64, 32, GBM_BO_TRANSFER_READ_WRITE, &stride, &outer_data));
	ASSERT_NE(whole, nullptr);
	// A rectangle's pointer is its top-left pixel, in the same mapping.
	auto *corner = static_cast<uint8_t *>(gbm_bo_map(bo, 16, 8, 8, 8, GBM_BO_TRANSFER_WRITE, &inner_stride, &inner_data));
	ASSERT_NE(corner, nullptr);
	EXPECT_EQ(inner_stride, stride);
	EXPECT_EQ(corner, whole + 8 * stride + 16 * 4);
	*reinterpret_cast<uint32_t *>(corner) = 0xdeadbeef;
	gbm_bo_unmap(bo, inner_data);
	EXPECT_EQ(*reinterpret_cast<uint32_t *>(whole + 8 * stride + 64), 0xdeadbeefu);
	gbm_bo_unmap(bo, outer_data);

	// gbm_bo_write fills from the start (cursor images).
	std::vector<uint32_t> image(64 * 4, 0xabcdef01u);
	ASSERT_EQ(gbm_bo_write(bo, image.data(), image.size() * 4), 0);
	whole = static_cast<uint8_t *>(gbm_bo_map(bo, 0, 0, 64, 32, GBM_BO_TRANSFER_READ, &stride, &outer_data));
	ASSERT_NE(whole, nullptr);
	EXPECT_EQ(*reinterpret_cast<uint32_t *>(whole), 0xabcdef01u);
	gbm_bo_unmap(bo, outer_data);

	// Out of the buffer, or no access asked: refused.
	errno = 0;
	EXPECT_EQ(gbm_bo_map(bo, 60, 0, 8, 1, GBM_BO_TRANSFER_READ, &stride, &outer_data), nullptr);
	EXPECT_EQ(errno, EINVAL);
	// No transfer flags maps for reading and writing, as on Mesa.
	void *none_data = nullptr;
	auto *unflagged = static_cast<uint8_t *>(gbm_bo_map(bo, 0, 0, 1, 1, 0, &stride, &none_data));
	ASSERT_NE(unflagged, nullptr) << strerror(errno);
	unflagged[0] = 0x5a;
	gbm_bo_unmap(bo, none_data);
	EXPECT_EQ(gbm_bo_map(bo, 0, 0, 1, 1, 1u << 7, &stride, &outer_data), nullptr) << "an unknown flag";
	EXPECT_EQ(gbm_bo_write(bo, image.data(), 1u << 30), -1);
	gbm_bo_destroy(bo);

	// A driver-private layout is not mapped byte for byte.
	bo = gbm_bo_create(gbm, 64, 32, GBM_FORMAT_ARGB8888, GBM_BO_USE_RENDERING);
	ASSERT_NE(bo, nullptr);
	if (gbm_bo_get_modifier(bo) != DRM_FORMAT_MOD_LINEAR) {
		errno = 0;
		EXPECT_EQ(gbm_bo_map(bo, 0, 0, 64, 32, GBM_BO_TRANSFER_READ, &stride, &outer_data), nullptr);
		EXPECT_EQ(errno, ENOTSUP);
	}
	gbm_bo_destroy(bo);
}

struct UserData {
	int destroyed = 0;
};

void count_destroy(gbm_bo *, void *data)
{
	static_cast<UserData *>(data)->destroyed++;
}

// gbm_surface over a uda_surface: a producer queues through uda, the GBM
// user locks and releases, and every buffer keeps its user data.
TEST_F(Gbm, SurfaceBuffersCycleBetweenProducerAndGbmUser)
{
	if (!gl_imports_linear())
		GTEST_SKIP() << "this GPU's GL imports no linear memory: no linear GBM buffers";
	uda_surface *queue = nullptr;
	gbm_surface *surface = create_linear_surface(&queue);
	ASSERT_TRUE(surface && queue);
	uint32_t w = 0, h = 0, format = 0;
	ASSERT_EQ(uda_surface_get_size(queue, &w, &h), UDA_SUCCESS);
	ASSERT_EQ(uda_surface_get_format(queue, &format), UDA_SUCCESS);
	EXPECT_EQ(w, 80u);
	EXPECT_EQ(h, 60u);
	EXPECT_EQ(format, GBM_FORMAT_XRGB8888);

	// Nothing queued yet: nothing to lock.
	EXPECT_EQ(gbm_surface_lock_front_buffer(surface), nullptr);
	EXPECT_EQ(gbm_surface_has_free_buffers(surface), 1);

	UserData data[16];
	std::vector<gbm_bo *> seen;
	for (uint32_t frame = 0; frame < 12; frame++) {
		uda_surface_buffer buffer;
		ASSERT_EQ(uda_surface_dequeue(queue, 0, &buffer), UDA_SUCCESS) << frame;
		ASSERT_TRUE(write_pattern(buffer.allocation, 80, 60, frame << 24));
		ASSERT_EQ(uda_surface_queue(queue, buffer.buffer_id, nullptr, 0), UDA_SUCCESS);

		gbm_bo *bo = gbm_surface_lock_front_buffer(surface);
		ASSERT_NE(bo, nullptr) << frame;
		EXPECT_EQ(gbm_bo_get_width(bo), 80u);
		expect_pattern(bo, frame << 24);
		// The same buffer comes back as the same BO, user data intact.
		bool known = false;
		for (gbm_bo *old : seen)
			known = known || old == bo;
		if (!known) {
			ASSERT_LT(seen.size(), 16u);
			gbm_bo_set_user_data(bo, &data[seen.size()], count_destroy);
			seen.push_back(bo);
		} else {
			EXPECT_NE(gbm_bo_get_user_data(bo), nullptr);
		}
		gbm_surface_release_buffer(surface, bo);
	}
	EXPECT_LE(seen.size(), 4u) << "buffers are reused";

	// Locking every buffer leaves none free.
	std::vector<gbm_bo *> locked;
	for (uint32_t i = 0; i < 4; i++) {
		uda_surface_buffer buffer;
		ASSERT_EQ(uda_surface_dequeue(queue, 0, &buffer), UDA_SUCCESS);
		ASSERT_EQ(uda_surface_queue(queue, buffer.buffer_id, nullptr, 0), UDA_SUCCESS);
		locked.push_back(gbm_surface_lock_front_buffer(surface));
		ASSERT_NE(locked.back(), nullptr);
	}
	EXPECT_EQ(gbm_surface_has_free_buffers(surface), 0);
	uda_surface_buffer none;
	EXPECT_EQ(uda_surface_dequeue(queue, 0, &none), UDA_ERROR_TIMEOUT);
	gbm_surface_release_buffer(surface, locked[0]);
	EXPECT_EQ(gbm_surface_has_free_buffers(surface), 1);

	gbm_surface_destroy(surface);
	for (size_t i = 0; i < seen.size(); i++)
		EXPECT_EQ(data[i].destroyed, 1) << "user data of buffer " << i;
}

// A producer of its own may resize the uda_surface under a GBM surface.
// The old buffers' BOs then go, user data and all, as the GBM user lets go
// of them: a KMS framebuffer kept in user data must not hold memory the
// surface retired (until the surface's end, as it did).
TEST_F(Gbm, BuffersOfAnOldSizeGoWithTheirUserDataOnceReleased)
{
	if (!gl_imports_linear())
		GTEST_SKIP() << "this GPU's GL imports no linear memory: no linear GBM buffers";
	uda_surface *queue = nullptr;
	gbm_surface *surface = create_linear_surface(&queue);
	ASSERT_TRUE(surface && queue);
	// Two buffers queued, both locked: each its own BO with user data.
	for (int i = 0; i < 2; i++) {
		uda_surface_buffer buffer;
		ASSERT_EQ(uda_surface_dequeue(queue, 0, &buffer), UDA_SUCCESS);
		ASSERT_EQ(uda_surface_queue(queue, buffer.buffer_id, nullptr, 0), UDA_SUCCESS);
	}
	gbm_bo *released_before = gbm_surface_lock_front_buffer(surface);
	gbm_bo *held = gbm_surface_lock_front_buffer(surface);
	ASSERT_TRUE(released_before && held);
	ASSERT_NE(released_before, held);
	UserData data[2];
	gbm_bo_set_user_data(released_before, &data[0], count_destroy);
	gbm_bo_set_user_data(held, &data[1], count_destroy);
	gbm_surface_release_buffer(surface, released_before);
	EXPECT_EQ(data[0].destroyed, 0) << "a released buffer of the surface's size keeps its BO";

	ASSERT_EQ(uda_surface_resize(queue, 64, 48), UDA_SUCCESS);
	// The one held across the resize: its BO goes as it is released, and
	// with it every released one of the old size.
	gbm_surface_release_buffer(surface, held);
	EXPECT_EQ(data[1].destroyed, 1);
	EXPECT_EQ(data[0].destroyed, 1);
	uda_surface_buffer buffer;
	ASSERT_EQ(uda_surface_dequeue(queue, 0, &buffer), UDA_SUCCESS);
	ASSERT_EQ(uda_surface_queue(queue, buffer.buffer_id, nullptr, 0), UDA_SUCCESS);
	gbm_bo *resized = gbm_surface_lock_front_buffer(surface);
	ASSERT_NE(resized, nullptr);
	EXPECT_EQ(gbm_bo_get_width(resized), 64u);
	EXPECT_EQ(gbm_bo_get_height(resized), 48u);
	UserData resized_data;
	gbm_bo_set_user_data(resized, &resized_data, count_destroy);
	gbm_surface_release_buffer(surface, resized);
	EXPECT_EQ(resized_data.destroyed, 0);

	// With nothing held across a resize, the next lock lets them go.
	ASSERT_EQ(uda_surface_resize(queue, 80, 60), UDA_SUCCESS);
	ASSERT_EQ(uda_surface_dequeue(queue, 0, &buffer), UDA_SUCCESS);
	ASSERT_EQ(uda_surface_queue(queue, buffer.buffer_id, nullptr, 0), UDA_SUCCESS);
	gbm_bo *back = gbm_surface_lock_front_buffer(surface);
	ASSERT_NE(back, nullptr);
	EXPECT_EQ(gbm_bo_get_width(back), 80u);
	EXPECT_EQ(resized_data.destroyed, 1);
	gbm_surface_release_buffer(surface, back);

	gbm_surface_destroy(surface);
	EXPECT_EQ(data[0].destroyed, 1) << "user data destroyed once";
	EXPECT_EQ(data[1].destroyed, 1) << "user data destroyed once";
	EXPECT_EQ(resized_data.destroyed, 1) << "user data destroyed once";
}

// A producer that queues with a fence (the EGL platform with native
// fences) may queue before the frame is done; GBM callers lock right after
// the swap and have no fence to wait for, so the lock waits for it.
TEST_F(Gbm, LockingAFrameStillBeingWrittenWaitsForIt)
{
	if (!gl_imports_linear())
		GTEST_SKIP() << "this GPU's GL imports no linear memory: no linear GBM buffers";
	uda_surface *queue = nullptr;
	gbm_surface *surface = create_linear_surface(&queue);
	ASSERT_TRUE(surface && queue);

	uda_surface_buffer buffer;
	ASSERT_EQ(uda_surface_dequeue(queue, 0, &buffer), UDA_SUCCESS);
	// A lock that closed the fence unwaited must fail the checks, not
	// kill the suite on the writer's signal.
	std::signal(SIGPIPE, SIG_IGN);
	int fence[2];
	ASSERT_EQ(pipe2(fence, O_CLOEXEC), 0);
	ASSERT_EQ(uda_surface_queue_fenced(queue, buffer.buffer_id, nullptr, 0, fence[0]), UDA_SUCCESS);
	std::atomic<bool> written{false};
	std::thread writer([&] {
		std::this_thread::sleep_for(std::chrono::milliseconds(50));
		EXPECT_TRUE(write_pattern(buffer.allocation, 80, 60, 7u << 24));
		written = true;
		const char tag = 'W';
		EXPECT_EQ(write(fence[1], &tag, 1), 1);
	});
	gbm_bo *bo = gbm_surface_lock_front_buffer(surface);
	const bool was_written = written;
	writer.join();
	close(fence[1]);
	ASSERT_NE(bo, nullptr) << "a frame whose fence is pending must be waited for, not refused: " << strerror(errno);
	EXPECT_TRUE(was_written) << "the lock returned before the frame's fence signalled";
	expect_pattern(bo, 7u << 24);
	gbm_surface_release_buffer(surface, bo);
	gbm_surface_destroy(surface);
}

TEST_F(Gbm, BadArgumentsGiveNullAndErrno)
{
	errno = 0;
	EXPECT_EQ(gbm_bo_create(gbm, 0, 64, GBM_FORMAT_XRGB8888, 0), nullptr);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(gbm_bo_create(gbm, 64, 64, fourcc_code('N', 'O', 'P', 'E'), 0), nullptr);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(gbm_bo_create(gbm, 64, 64, GBM_FORMAT_XRGB8888, 1u << 20), nullptr);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(gbm_bo_create(gbm, 1u << 20, 64, GBM_FORMAT_XRGB8888, 0), nullptr);
	EXPECT_NE(errno, 0);
	errno = 0;
	EXPECT_EQ(gbm_surface_create(gbm, 64, 64, fourcc_code('N', 'O', 'P', 'E'), GBM_BO_USE_RENDERING), nullptr);
	EXPECT_EQ(errno, EINVAL);

	// Imports: a bad fd, a pipe, a plain file, no planes, unknown kinds.
	gbm_import_fd_data plain = {-1, 64, 64, 256, GBM_FORMAT_XRGB8888};
	errno = 0;
	EXPECT_EQ(gbm_bo_import(gbm, GBM_BO_IMPORT_FD, &plain, 0), nullptr);
	EXPECT_EQ(errno, EBADF);
	int pipe_fds[2];
	ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);
	plain.fd = pipe_fds[0];
	errno = 0;
	EXPECT_EQ(gbm_bo_import(gbm, GBM_BO_IMPORT_FD, &plain, 0), nullptr);
	EXPECT_EQ(errno, EINVAL);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	plain.fd = node;
	EXPECT_EQ(gbm_bo_import(gbm, GBM_BO_IMPORT_FD, &plain, 0), nullptr);
	gbm_import_fd_modifier_data no_planes = {};
	no_planes.width = no_planes.height = 64;
	no_planes.format = GBM_FORMAT_XRGB8888;
	errno = 0;
	EXPECT_EQ(gbm_bo_import(gbm, GBM_BO_IMPORT_FD_MODIFIER, &no_planes, 0), nullptr);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(gbm_bo_import(gbm, GBM_BO_IMPORT_WL_BUFFER, &no_planes, 0), nullptr);
	EXPECT_EQ(errno, ENOSYS);
	errno = 0;
	EXPECT_EQ(gbm_bo_import(gbm, 0x1234, &no_planes, 0), nullptr);
	EXPECT_EQ(errno, EINVAL);

	// Per-plane queries past the planes.
	gbm_bo *bo = gbm_bo_create(gbm, 16, 16, GBM_FORMAT_XRGB8888,
	                           gl_imports_linear() ? GBM_BO_USE_LINEAR : GBM_BO_USE_RENDERING);
	ASSERT_NE(bo, nullptr);
	EXPECT_EQ(gbm_bo_get_fd_for_plane(bo, 1), -1);
	EXPECT_EQ(gbm_bo_get_fd_for_plane(bo, -1), -1);
	EXPECT_EQ(gbm_bo_get_handle_for_plane(bo, 3).s32, -1);
	EXPECT_EQ(gbm_bo_get_stride_for_plane(bo, 2), 0u);
	EXPECT_EQ(gbm_bo_get_offset(bo, 2), 0u);
	gbm_bo_destroy(bo);
}

// The loader's own checks come first; the backend sees only character
// devices.
TEST(GbmDevice, NonDeviceFdsAreRefused)
{
	use_uda_gbm();
	const int before = open_fd_count();
	errno = 0;
	EXPECT_EQ(gbm_create_device(-1), nullptr);
	int memfd = memfd_create("not-a-device", MFD_CLOEXEC);
	ASSERT_GE(memfd, 0);
	errno = 0;
	EXPECT_EQ(gbm_create_device(memfd), nullptr);
	EXPECT_EQ(errno, EINVAL);
	close(memfd);
	EXPECT_EQ(open_fd_count(), before);
}

// Mesa's EGL renders to GBM surfaces only through Mesa's own backend; it
// refuses a uda device cleanly (EGL_NOT_INITIALIZED), it does not crash.
TEST_F(Gbm, MesasEglPlatformRefusesTheDeviceCleanly)
{
	EGLDisplay display = eglGetPlatformDisplay(EGL_PLATFORM_GBM_KHR, gbm, nullptr);
	if (display == EGL_NO_DISPLAY)
		GTEST_SKIP() << "this libEGL has no GBM platform";
	EGLint major = 0, minor = 0;
	EXPECT_EQ(eglInitialize(display, &major, &minor), EGL_FALSE);
	EXPECT_EQ(eglGetError(), EGL_NOT_INITIALIZED);
	eglTerminate(display);
	eglReleaseThread();
}

// Whether a plane of the device lists format+modifier in IN_FORMATS.
bool plane_lists(int fd, uint32_t format, uint64_t modifier)
{
	drmSetClientCap(fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1);
	drmModePlaneRes *planes = drmModeGetPlaneResources(fd);
	bool found = false;
	for (uint32_t p = 0; planes && p < planes->count_planes && !found; p++) {
		drmModeObjectProperties *props = drmModeObjectGetProperties(fd, planes->planes[p], DRM_MODE_OBJECT_PLANE);
		for (uint32_t i = 0; props && i < props->count_props && !found; i++) {
			drmModePropertyRes *prop = drmModeGetProperty(fd, props->props[i]);
			if (prop && strcmp(prop->name, "IN_FORMATS") == 0) {
				drmModePropertyBlobRes *blob = drmModeGetPropertyBlob(fd, static_cast<uint32_t>(props->prop_values[i]));
				drmModeFormatModifierIterator iter = {};
				while (blob && drmModeFormatModifierBlobIterNext(blob, &iter))
					found = found || (iter.fmt == format && iter.mod == modifier);
				drmModeFreePropertyBlob(blob);
			}
			drmModeFreeProperty(prop);
		}
		drmModeFreeObjectProperties(props);
	}
	drmModeFreePlaneResources(planes);
	return found;
}

// Where a KMS device exists: a SCANOUT buffer negotiated with the display
// carries a format and modifier one of its planes lists.
TEST(GbmDisplay, ScanoutBuffersMatchAPlanesInFormats)
{
	use_uda_gbm();
	drmDevicePtr devices[16];
	int count = drmGetDevices2(0, devices, 16);
	int fd = -1;
	for (int i = 0; i < count && fd < 0; i++) {
		if (devices[i]->available_nodes & (1 << DRM_NODE_PRIMARY))
			fd = open(devices[i]->nodes[DRM_NODE_PRIMARY], O_RDWR | O_CLOEXEC);
	}
	if (count > 0)
		drmFreeDevices(devices, count);
	if (fd < 0)
		GTEST_SKIP() << "no DRM primary node on this machine";
	gbm_device *gbm = gbm_create_device(fd);
	ASSERT_NE(gbm, nullptr) << strerror(errno);
	if (!gbm_device_is_format_supported(gbm, GBM_FORMAT_XRGB8888, GBM_BO_USE_SCANOUT)) {
		gbm_device_destroy(gbm);
		close(fd);
		GTEST_SKIP() << "no uda backend drives this DRM node's display (the DRM backend, issue 9)";
	}
	gbm_bo *bo = gbm_bo_create(gbm, 256, 256, GBM_FORMAT_XRGB8888, GBM_BO_USE_SCANOUT | GBM_BO_USE_RENDERING);
	ASSERT_NE(bo, nullptr) << strerror(errno);
	EXPECT_TRUE(plane_lists(fd, GBM_FORMAT_XRGB8888, gbm_bo_get_modifier(bo)))
	    << "modifier 0x" << std::hex << gbm_bo_get_modifier(bo);
	EXPECT_NE(gbm_bo_get_handle(bo).s32, -1) << "a GEM handle for drmModeAddFB2";
	gbm_bo_destroy(bo);
	gbm_device_destroy(gbm);
	close(fd);
}

} // namespace
