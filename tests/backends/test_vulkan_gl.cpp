// Zero-copy between real drivers: lavapipe (Vulkan) and llvmpipe (GL) share
// one allocation through an opaque fd; system memory reaches Vulkan as a
// host pointer. Every pixel is compared, and every validation message of
// the Vulkan backend fails the test.
#include <drm_fourcc.h>
#include <unistd.h>

#include "fd_count.hpp"
#include "gpu_fixture.hpp"

#include <GLES2/gl2ext.h> /* after gl3.h, which it extends */

using namespace uda_test;

namespace
{

constexpr uint32_t kWidth = 256, kHeight = 192;

std::vector<uint8_t> serialized(uda_allocation *allocation, uda_handle_type type)
{
	size_t size = 0;
	EXPECT_EQ(uda_allocation_serialize_metadata(allocation, type, nullptr, 0, &size), UDA_SUCCESS);
	std::vector<uint8_t> bytes(size);
	EXPECT_EQ(uda_allocation_serialize_metadata(allocation, type, bytes.data(), size, &size), UDA_SUCCESS);
	return bytes;
}

class VulkanGl : public GpuTest
{
protected:
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, kWidth, kHeight, DRM_FORMAT_ABGR8888, 0};
	const uda_usage_atom vulkan_atoms[3] = {atom(UDA_USAGE_RENDER_TARGET), atom(UDA_USAGE_TRANSFER_SRC),
	                                        atom(UDA_USAGE_TRANSFER_DST)};
	const uda_usage vulkan_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 3, vulkan_atoms};
	const uda_usage_atom gl_atoms[2] = {atom(UDA_USAGE_SAMPLED), atom(UDA_USAGE_RENDER_TARGET)};
	const uda_usage gl_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 2, gl_atoms};

	// Negotiated between Vulkan and GL, allocated by Vulkan.
	AllocationPtr allocate_shared()
	{
		const uda_device_usage devices[] = {{vulkan, &vulkan_usage}, {gl, &gl_usage}};
		const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 2, devices};
		uda_allocation *allocation = nullptr;
		EXPECT_EQ(uda_negotiate_allocate(ctx.get(), &info, &allocation, nullptr, nullptr), UDA_SUCCESS)
			<< uda_context_get_error(ctx.get());
		return AllocationPtr(allocation);
	}

	AllocationPtr import_into(uda_device *device, uda_allocation *source, uda_handle_type type)
	{
		return import_through_fd(ctx.get(), device, source, type);
	}

	static uda_vulkan_native vulkan_native(uda_allocation *allocation)
	{
		return vulkan_native_of(allocation);
	}

	static uda_gl_native gl_native(uda_allocation *allocation)
	{
		return gl_native_of(allocation);
	}

	static void vulkan_write_pattern(const uda_vulkan_native &native)
	{
		vulkan_upload_pattern(native, native.image, kWidth, kHeight);
	}

	static std::vector<uint32_t> vulkan_read_image(const uda_vulkan_native &native)
	{
		return vulkan_read_pixels(native, native.image, kWidth, kHeight);
	}
};

TEST_F(VulkanGl, EnumerationFindsOneHardwareThroughTwoApis)
{
	uda_device_info vi = {}, gi = {};
	vi.type = gi.type = UDA_STRUCTURE_TYPE_DEVICE_INFO;
	ASSERT_EQ(uda_device_get_info(vulkan, &vi), UDA_SUCCESS);
	ASSERT_EQ(uda_device_get_info(gl, &gi), UDA_SUCCESS);
	EXPECT_STREQ(vi.backend_name, "vulkan");
	EXPECT_STREQ(gi.backend_name, "gl");
	EXPECT_EQ(std::memcmp(vi.device_uuid, gi.device_uuid, UDA_UUID_SIZE), 0);
	EXPECT_EQ(std::memcmp(vi.driver_uuid, gi.driver_uuid, UDA_UUID_SIZE), 0);
	EXPECT_TRUE(uda_device_same_hardware(vulkan, gl));
	EXPECT_FALSE(uda_device_same_hardware(vulkan, system));
	// llvmpipe's are fixed strings: "mesa" and the Mesa version
	// ("mesa22.3.6" on Debian 12), and "llvmpipeUUID".
	if (std::strstr(vi.name, "llvmpipe")) {
		EXPECT_EQ(std::memcmp(vi.device_uuid, "mesa", 4), 0);
		EXPECT_EQ(std::memcmp(vi.driver_uuid, "llvmpipeUUID", 12), 0);
	}

	uda_device *found = nullptr;
	ASSERT_EQ(uda_context_find_device(ctx.get(), vi.device_uuid, UDA_DEVICE_API_VULKAN, &found), UDA_SUCCESS);
	EXPECT_EQ(found, vulkan);
	ASSERT_EQ(uda_context_find_device(ctx.get(), vi.device_uuid, UDA_DEVICE_API_GL, &found), UDA_SUCCESS);
	EXPECT_EQ(found, gl);
}

// The harness can fail: an invalid call on the backend's device reaches
// the log through the validation layer.
TEST_F(VulkanGl, ValidationLayerReportsIntoTheLog)
{
	AllocationPtr allocation = allocate_shared();
	ASSERT_TRUE(allocation);
	const uda_vulkan_native native = vulkan_native(allocation.get());
	VkBufferCreateInfo info = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
	info.size = 0; // VUID-VkBufferCreateInfo-size-00912
	info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
	VkBuffer buffer = VK_NULL_HANDLE;
	vkCreateBuffer(native.device, &info, nullptr, &buffer);
	if (buffer != VK_NULL_HANDLE)
		vkDestroyBuffer(native.device, buffer, nullptr);
	std::lock_guard<std::mutex> guard(validation.lock);
	ASSERT_FALSE(validation.problems.empty());
	EXPECT_NE(validation.problems[0].find("size-00912"), std::string::npos) << validation.problems[0];
	validation.problems.clear();
}

bool has_layout(uda_device *device, const uda_usage &usage, uint64_t modifier)
{
	const uda_assertion probe = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, kWidth, kHeight, DRM_FORMAT_ABGR8888, 0};
	return offers_layout(device, probe, usage, [modifier](const uda_capability &layout) {
		if (layout.name != UDA_CAPABILITY_LAYOUT || layout.length != 8)
			return false;
		const auto *bytes = static_cast<const uint8_t *>(layout.payload);
		uint64_t value = 0;
		for (int b = 0; b < 8; b++)
			value |= static_cast<uint64_t>(bytes[b]) << (8 * b);
		return value == modifier;
	});
}

TEST_F(VulkanGl, NegotiatesTheOpaqueOptimalLayoutFirst)
{
	const uda_device_usage devices[] = {{vulkan, &vulkan_usage}, {gl, &gl_usage}};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 2, devices};
	uda_capability_set_list *list = nullptr;
	ASSERT_EQ(uda_negotiate(ctx.get(), &info, &list), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	ListPtr owned(list);
	uda_capability layout = {};
	ASSERT_EQ(uda_capability_set_list_get_layout(list, 0, &layout), UDA_SUCCESS);
	EXPECT_EQ(layout.name, UDA_CAPABILITY_LAYOUT_OPAQUE);
	EXPECT_TRUE(uda_backend_set_has_u32(list, 0, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_OPAQUE_FD));
	// The linear fallback carries Vulkan's pinned pitch, where GL imports
	// linear memory at all (NVIDIA's does not: GL_TILING_TYPES_EXT).
	uint32_t count = 0;
	ASSERT_EQ(uda_capability_set_list_get_count(list, &count), UDA_SUCCESS);
	if (!has_layout(gl, gl_usage, DRM_FORMAT_MOD_LINEAR)) {
		EXPECT_EQ(count, 1u);
		return;
	}
	ASSERT_GE(count, 2u);
	bool present = false;
	uint64_t pitch = 0;
	ASSERT_EQ(uda_capability_set_list_get_constraint(list, 1, UDA_CONSTRAINT_MIN_PITCH, &present, &pitch),
	          UDA_SUCCESS);
	EXPECT_TRUE(present);
	EXPECT_GE(pitch, kWidth * 4u);
}

TEST_F(VulkanGl, VulkanWritesGlReadsEveryPixel)
{
	const int fds_before = open_fd_count();
	{
		AllocationPtr allocation = allocate_shared();
		ASSERT_TRUE(allocation);
		uda_device *owner = nullptr;
		ASSERT_EQ(uda_allocation_get_device(allocation.get(), &owner), UDA_SUCCESS);
		EXPECT_EQ(owner, vulkan);
		const uda_vulkan_native vk = vulkan_native(allocation.get());
		ASSERT_NE(vk.image, VK_NULL_HANDLE);
		EXPECT_EQ(vk.tiling, VK_IMAGE_TILING_OPTIMAL);
		vulkan_write_pattern(vk);

		AllocationPtr imported = import_into(gl, allocation.get(), UDA_HANDLE_TYPE_OPAQUE_FD);
		ASSERT_TRUE(imported);
		const uda_gl_native native = gl_native(imported.get());
		ASSERT_NE(native.texture, 0u);
		ASSERT_NE(native.memory_object, 0u);
		EXPECT_EQ(gl_count_wrong_pixels(native, kWidth, kHeight), 0u);
	}
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
}

// A compositor imports into the context it renders with: no switch, the
// texture is its own.
TEST_F(VulkanGl, ImportsIntoTheApplicationsCurrentContext)
{
	AllocationPtr allocation = allocate_shared();
	ASSERT_TRUE(allocation);
	vulkan_write_pattern(vulkan_native(allocation.get()));
	std::vector<uint8_t> metadata = serialized(allocation.get(), UDA_HANDLE_TYPE_OPAQUE_FD);
	int fd = -1;
	ASSERT_EQ(uda_allocation_export(allocation.get(), UDA_HANDLE_TYPE_OPAQUE_FD, &fd), UDA_SUCCESS);
	uda_allocation_metadata m = {};
	uda_capability_set_list *set = nullptr;
	ASSERT_EQ(uda_allocation_metadata_deserialize(ctx.get(), metadata.data(), metadata.size(), &m, &set),
	          UDA_SUCCESS);
	ListPtr owned_set(set);
	uda_gl_import_info gl_info = {UDA_STRUCTURE_TYPE_GL_IMPORT_INFO, nullptr, UDA_GL_IMPORT_CURRENT_CONTEXT};
	uda_import_info info = {UDA_STRUCTURE_TYPE_IMPORT_INFO, &gl_info, gl, fd, &m, set, 0};
	uda_allocation *imported = nullptr;
	// Without a current context the flag cannot be honoured.
	EXPECT_EQ(uda_import(&info, &imported), UDA_ERROR_INVALID_ARGUMENT);
	// A struct of a type no backend defines, and one of the core's range.
	uda_gl_import_info stranger = {static_cast<uda_structure_type>(150), nullptr, 0};
	info.next = &stranger;
	EXPECT_EQ(uda_import(&info, &imported), UDA_ERROR_UNSUPPORTED);
	uda_gl_import_info core_type = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 0};
	info.next = &core_type;
	EXPECT_EQ(uda_import(&info, &imported), UDA_ERROR_INVALID_ARGUMENT);
	info.next = &gl_info;

	// Any allocation's native struct names the backend's display.
	AllocationPtr probe = import_into(gl, allocation.get(), UDA_HANDLE_TYPE_OPAQUE_FD);
	ASSERT_TRUE(probe);
	const uda_gl_native backend_native = gl_native(probe.get());
	{
		SharedGlContext context(backend_native);
		ASSERT_EQ(uda_import(&info, &imported), UDA_SUCCESS) << uda_context_get_error(ctx.get());
		AllocationPtr owned(imported);
		const uda_gl_native native = gl_native(imported);
		EXPECT_EQ(native.egl_context, eglGetCurrentContext());
		EXPECT_NE(native.egl_context, backend_native.egl_context);
		GLuint fbo = context.framebuffer_for(native.texture);
		std::vector<uint32_t> pixels(kWidth * kHeight);
		glReadPixels(0, 0, kWidth, kHeight, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
		size_t wrong = 0;
		for (uint32_t y = 0; y < kHeight; y++)
			for (uint32_t x = 0; x < kWidth; x++)
				wrong += pixels[y * kWidth + x] != pattern(x, y);
		EXPECT_EQ(wrong, 0u);
		glDeleteFramebuffers(1, &fbo);
		// Destroyed while its context is current, as documented.
	}
	close(fd);
}

// A compositor with both APIs in one process shares an allocation with one
// call: what Vulkan wrote, GL reads, colour information and all; the
// handle travels as an fd and none is left behind.
TEST_F(VulkanGl, ImportAllocationSharesWithinTheProcess)
{
	const int fds_before = open_fd_count();
	{
		AllocationPtr allocation = allocate_shared();
		ASSERT_TRUE(allocation);
		vulkan_write_pattern(vulkan_native(allocation.get()));
		uda_color_info color = {};
		color.type = UDA_STRUCTURE_TYPE_COLOR_INFO;
		color.primaries = UDA_COLOR_PRIMARIES_BT2020;
		color.transfer = UDA_TRANSFER_FUNCTION_PQ;
		color.max_content_light_level = 1000;
		ASSERT_EQ(uda_allocation_set_color_info(allocation.get(), &color), UDA_SUCCESS);

		uda_allocation_import_info info = {};
		info.type = UDA_STRUCTURE_TYPE_ALLOCATION_IMPORT_INFO;
		info.allocation = allocation.get();
		info.device = gl;
		uda_allocation *raw = nullptr;
		ASSERT_EQ(uda_import_allocation(&info, &raw), UDA_SUCCESS) << uda_context_get_error(ctx.get());
		AllocationPtr imported(raw);
		uda_device *owner = nullptr;
		ASSERT_EQ(uda_allocation_get_device(imported.get(), &owner), UDA_SUCCESS);
		EXPECT_EQ(owner, gl);
		EXPECT_EQ(gl_count_wrong_pixels(gl_native(imported.get()), kWidth, kHeight), 0u);
		uda_color_info carried = {};
		carried.type = UDA_STRUCTURE_TYPE_COLOR_INFO;
		ASSERT_EQ(uda_allocation_get_color_info(imported.get(), &carried), UDA_SUCCESS);
		EXPECT_EQ(carried.primaries, UDA_COLOR_PRIMARIES_BT2020);
		EXPECT_EQ(carried.transfer, UDA_TRANSFER_FUNCTION_PQ);
		EXPECT_EQ(carried.max_content_light_level, 1000u);

		// Backend structs reach the importer: the application's context.
		const uda_gl_native backend_native = gl_native(imported.get());
		{
			SharedGlContext context(backend_native);
			const uda_gl_import_info gl_info = {UDA_STRUCTURE_TYPE_GL_IMPORT_INFO, nullptr,
			                                    UDA_GL_IMPORT_CURRENT_CONTEXT};
			info.next = &gl_info;
			ASSERT_EQ(uda_import_allocation(&info, &raw), UDA_SUCCESS) << uda_context_get_error(ctx.get());
			AllocationPtr in_current(raw);
			EXPECT_EQ(gl_native(in_current.get()).egl_context, eglGetCurrentContext());
			info.next = nullptr;
		}

		// Read-only imports refuse CPU writes, as uda_import's do.
		info.flags = UDA_IMPORT_READ_ONLY;
		info.device = vulkan;
		ASSERT_EQ(uda_import_allocation(&info, &raw), UDA_SUCCESS) << uda_context_get_error(ctx.get());
		AllocationPtr read_only(raw);
		void *pointer = nullptr;
		EXPECT_EQ(uda_allocation_map(read_only.get(), UDA_ACCESS_WRITE, &pointer), UDA_ERROR_INVALID_ARGUMENT);
		info.flags = 0;
		// and so do its own imports, whatever the caller asks.
		uda_allocation_import_info again = info;
		again.allocation = read_only.get();
		ASSERT_EQ(uda_import_allocation(&again, &raw), UDA_SUCCESS) << uda_context_get_error(ctx.get());
		AllocationPtr still_read_only(raw);
		EXPECT_EQ(uda_allocation_map(still_read_only.get(), UDA_ACCESS_WRITE, &pointer), UDA_ERROR_INVALID_ARGUMENT);

		// One handle type asked for: that one or nothing.
		info.device = gl;
		info.handle_type = UDA_HANDLE_TYPE_OPAQUE_FD;
		ASSERT_EQ(uda_import_allocation(&info, &raw), UDA_SUCCESS) << uda_context_get_error(ctx.get());
		uda_allocation_destroy(raw);
		info.handle_type = UDA_HANDLE_TYPE_MEMFD;
		raw = reinterpret_cast<uda_allocation *>(1);
		EXPECT_EQ(uda_import_allocation(&info, &raw), UDA_ERROR_UNSUPPORTED);
		EXPECT_EQ(raw, nullptr);
		EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("not in the allocation's set"),
		          std::string::npos)
			<< uda_context_get_error(ctx.get());
		info.handle_type = UDA_HANDLE_TYPE_NONE;

		// Bad input, each refused with a message.
		EXPECT_EQ(uda_import_allocation(nullptr, &raw), UDA_ERROR_INVALID_ARGUMENT);
		EXPECT_EQ(uda_import_allocation(&info, nullptr), UDA_ERROR_INVALID_ARGUMENT);
		struct Case {
			const char *what;
			void (*spoil)(uda_allocation_import_info &);
			uda_result expected;
			const char *message; // a part of the context's error
		} cases[] = {
			{"wrong type", [](uda_allocation_import_info &i) { i.type = UDA_STRUCTURE_TYPE_IMPORT_INFO; },
			 UDA_ERROR_INVALID_ARGUMENT, "ALLOCATION_IMPORT_INFO"},
			{"no device", [](uda_allocation_import_info &i) { i.device = nullptr; }, UDA_ERROR_INVALID_ARGUMENT,
			 "info->device"},
			{"fd taking is not the caller's", [](uda_allocation_import_info &i) { i.flags = UDA_IMPORT_TAKE_FD; },
			 UDA_ERROR_INVALID_ARGUMENT, "flags"},
			{"unknown flag", [](uda_allocation_import_info &i) { i.flags = 0x80; }, UDA_ERROR_INVALID_ARGUMENT,
			 "flags"},
			{"unknown handle type",
			 [](uda_allocation_import_info &i) { i.handle_type = static_cast<uda_handle_type>(77); },
			 UDA_ERROR_INVALID_ARGUMENT, "handle_type"},
		};
		for (const Case &c : cases) {
			uda_allocation_import_info spoiled = info;
			c.spoil(spoiled);
			raw = reinterpret_cast<uda_allocation *>(1);
			EXPECT_EQ(uda_import_allocation(&spoiled, &raw), c.expected) << c.what;
			EXPECT_EQ(raw, nullptr) << c.what;
			EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find(c.message), std::string::npos)
				<< c.what << ": " << uda_context_get_error(ctx.get());
		}
		// A device of another context.
		uda_context *other = nullptr;
		ASSERT_EQ(uda_context_create(nullptr, &other), UDA_SUCCESS);
		ContextPtr owned_other(other);
		uint32_t count = 1;
		uda_device *stranger = nullptr;
		uda_context_enumerate_devices(other, &count, &stranger);
		ASSERT_NE(stranger, nullptr);
		info.device = stranger;
		EXPECT_EQ(uda_import_allocation(&info, &raw), UDA_ERROR_INVALID_ARGUMENT);
		EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("another context"), std::string::npos)
			<< uda_context_get_error(ctx.get());
	}
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
}

TEST_F(VulkanGl, GlWritesVulkanReadsEveryPixel)
{
	const int fds_before = open_fd_count();
	{
		AllocationPtr allocation = allocate_shared();
		ASSERT_TRUE(allocation);
		AllocationPtr in_gl = import_into(gl, allocation.get(), UDA_HANDLE_TYPE_OPAQUE_FD);
		ASSERT_TRUE(in_gl);
		// A second Vulkan view of the same memory, through uda_import.
		AllocationPtr in_vulkan = import_into(vulkan, allocation.get(), UDA_HANDLE_TYPE_OPAQUE_FD);
		ASSERT_TRUE(in_vulkan);

		const uda_gl_native native = gl_native(in_gl.get());
		{
			SharedGlContext context(native);
			GLuint fbo = context.framebuffer_for(native.texture);
			// Rows of distinct colours through scissored clears: GL
			// writes, no shader needed.
			glEnable(GL_SCISSOR_TEST);
			for (uint32_t y = 0; y < kHeight; y++) {
				glScissor(0, static_cast<GLint>(y), kWidth, 1);
				// Multiples of 1/255 convert to exact bytes.
				glClearColor(static_cast<float>((y % 5) * 51) / 255.0f, static_cast<float>((y % 3) * 102) / 255.0f,
				             static_cast<float>((y & 1) * 255) / 255.0f, 1.0f);
				glClear(GL_COLOR_BUFFER_BIT);
			}
			glDisable(GL_SCISSOR_TEST);
			glFinish();
			ASSERT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
			glDeleteFramebuffers(1, &fbo);
		}
		for (uda_allocation *reader : {allocation.get(), in_vulkan.get()}) {
			std::vector<uint32_t> pixels = vulkan_read_image(vulkan_native(reader));
			size_t wrong = 0;
			for (uint32_t y = 0; y < kHeight; y++) {
				const uint32_t r = (y % 5) * 51, g = (y % 3) * 102, b = (y & 1) * 255;
				const uint32_t expected = r | g << 8 | b << 16 | 0xffu << 24;
				for (uint32_t x = 0; x < kWidth; x++)
					wrong += pixels[y * kWidth + x] != expected;
			}
			EXPECT_EQ(wrong, 0u) << "row 1 reads " << std::hex << pixels[kWidth];
		}
	}
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
}

// Vulkan memory the CPU writes through uda_allocation_map and a Vulkan
// copy reads: the linear, host-visible set.
// Writes pattern() through a map, bracketed for non-coherent memory.
void cpu_write_pattern(uda_allocation *allocation, const uda_allocation_metadata &m)
{
	void *pointer = nullptr;
	ASSERT_EQ(uda_allocation_map(allocation, UDA_ACCESS_WRITE, &pointer), UDA_SUCCESS);
	ASSERT_EQ(uda_allocation_begin_cpu_access(allocation, UDA_ACCESS_WRITE), UDA_SUCCESS);
	for (uint32_t y = 0; y < kHeight; y++) {
		for (uint32_t x = 0; x < kWidth; x++) {
			const uint32_t value = pattern(x, y);
			std::memcpy(static_cast<uint8_t *>(pointer) + m.planes[0].offset + y * m.planes[0].pitch + x * 4,
			            &value, 4);
		}
	}
	ASSERT_EQ(uda_allocation_end_cpu_access(allocation, UDA_ACCESS_WRITE), UDA_SUCCESS);
	ASSERT_EQ(uda_allocation_unmap(allocation), UDA_SUCCESS);
}

TEST_F(VulkanGl, CpuWritesVulkanMemoryThroughAMap)
{
	const uda_usage_atom atoms[] = {cpu_atom(UDA_USAGE_CPU_WRITE), atom(UDA_USAGE_TRANSFER_SRC)};
	const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 2, atoms};
	const uda_device_usage devices[] = {{vulkan, &usage}};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 1, devices};
	uda_allocation *raw = nullptr;
	ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &raw, nullptr, nullptr), UDA_SUCCESS)
		<< uda_context_get_error(ctx.get());
	AllocationPtr allocation(raw);
	const uda_vulkan_native native = vulkan_native(raw);
	EXPECT_EQ(native.tiling, VK_IMAGE_TILING_LINEAR);
	uda_allocation_metadata m = {};
	ASSERT_EQ(uda_allocation_get_metadata(raw, &m), UDA_SUCCESS);
	ASSERT_GE(m.planes[0].pitch, kWidth * 4u);

	cpu_write_pattern(raw, m);
	ASSERT_FALSE(HasFatalFailure()) << uda_context_get_error(ctx.get());

	// The CPU wrote outside Vulkan: acquire from "external" in GENERAL.
	VulkanCommands commands(native);
	void *mapped = nullptr;
	VkBuffer readback = commands.host_buffer(kWidth * kHeight * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &mapped);
	commands.image_barrier(native.image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 0,
	                       VK_ACCESS_TRANSFER_READ_BIT, VK_QUEUE_FAMILY_EXTERNAL, native.queue_family_index);
	VkBufferImageCopy region = {};
	region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
	region.imageExtent = {kWidth, kHeight, 1};
	vkCmdCopyImageToBuffer(commands.cmd(), native.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback, 1, &region);
	commands.submit_and_wait();
	const auto *pixels = static_cast<const uint32_t *>(mapped);
	size_t wrong = 0;
	for (uint32_t y = 0; y < kHeight; y++)
		for (uint32_t x = 0; x < kWidth; x++)
			wrong += pixels[y * kWidth + x] != pattern(x, y);
	EXPECT_EQ(wrong, 0u);
}

// Memory the CPU fills and GL samples: GL states it imports whatever the
// CPU can do with the memory, so the allocator's CPU access survives the
// intersection and the shared buffer is still mappable.
TEST_F(VulkanGl, CpuWrittenMemoryIsSharedWithGl)
{
	const uda_usage_atom writer_atoms[] = {cpu_atom(UDA_USAGE_CPU_WRITE), atom(UDA_USAGE_SAMPLED)};
	const uda_usage cpu_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 2, writer_atoms};
	const uda_device_usage devices[] = {{vulkan, &cpu_usage}, {gl, &gl_usage}};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 2, devices};
	// CPU-written memory is linear; a GL that imports no linear memory
	// (GL_TILING_TYPES_EXT without GL_LINEAR_TILING_EXT) cannot share it,
	// and the negotiation must say so rather than hand out a set.
	if (!has_layout(gl, gl_usage, DRM_FORMAT_MOD_LINEAR)) {
		uda_capability_set_list *sets = nullptr;
		EXPECT_EQ(uda_negotiate(ctx.get(), &info, &sets), UDA_ERROR_INCOMPATIBLE);
		uda_capability_set_list_destroy(sets);
		GTEST_SKIP() << "this GL imports no linear memory";
	}
	uda_allocation *raw = nullptr;
	ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &raw, nullptr, nullptr), UDA_SUCCESS)
		<< uda_context_get_error(ctx.get());
	AllocationPtr allocation(raw);
	uda_allocation_metadata m = {};
	m.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA;
	ASSERT_EQ(uda_allocation_get_metadata(raw, &m), UDA_SUCCESS);
	cpu_write_pattern(raw, m);
	ASSERT_FALSE(HasFatalFailure()) << uda_context_get_error(ctx.get());
	AllocationPtr imported = import_into(gl, raw, UDA_HANDLE_TYPE_OPAQUE_FD);
	ASSERT_TRUE(imported);
	EXPECT_EQ(gl_count_wrong_pixels(gl_native(imported.get()), kWidth, kHeight), 0u);
}

std::vector<uda_format_support> formats_of(uda_device *device, const uda_usage &usage)
{
	uint32_t count = 0;
	EXPECT_EQ(uda_device_get_formats(device, &usage, &count, nullptr), UDA_SUCCESS);
	std::vector<uda_format_support> formats(count);
	EXPECT_EQ(uda_device_get_formats(device, &usage, &count, formats.data()), UDA_SUCCESS);
	formats.resize(count);
	return formats;
}

const uda_format_support *find_format(const std::vector<uda_format_support> &formats, uint32_t fourcc)
{
	for (const uda_format_support &f : formats)
		if (f.fourcc == fourcc)
			return &f;
	return nullptr;
}

TEST_F(VulkanGl, EnumeratesTheFormatsEachDeviceTakes)
{
	const auto vk = formats_of(vulkan, vulkan_usage);
	const auto in_gl = formats_of(gl, gl_usage);
	const uda_usage_atom cpu[] = {cpu_atom(UDA_USAGE_CPU_WRITE)};
	const auto cpu_formats = formats_of(system, {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, cpu});
	for (uint32_t fourcc : {DRM_FORMAT_ABGR8888, DRM_FORMAT_ABGR2101010, DRM_FORMAT_ABGR16161616F}) {
		const uda_format_support *v = find_format(vk, fourcc);
		ASSERT_NE(v, nullptr) << std::hex << fourcc;
		EXPECT_TRUE(v->opaque_layout);
		ASSERT_GE(v->modifier_count, 1u);
		EXPECT_EQ(v->modifiers[0], DRM_FORMAT_MOD_LINEAR);
		EXPECT_NE(find_format(in_gl, fourcc), nullptr) << std::hex << fourcc;
	}
	// Multi-planar YUV: system memory lays it out, Vulkan and GL say no.
	EXPECT_EQ(find_format(vk, DRM_FORMAT_NV12), nullptr);
	EXPECT_EQ(find_format(in_gl, DRM_FORMAT_NV12), nullptr);
	ASSERT_NE(find_format(cpu_formats, DRM_FORMAT_NV12), nullptr);
	EXPECT_FALSE(find_format(cpu_formats, DRM_FORMAT_NV12)->opaque_layout);

	uint32_t count = 1;
	uda_format_support one[1];
	EXPECT_EQ(uda_device_get_formats(vulkan, &vulkan_usage, &count, one), UDA_ERROR_BUFFER_TOO_SMALL);
	EXPECT_EQ(count, 1u);
	EXPECT_EQ(uda_device_get_formats(vulkan, nullptr, &count, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_device_get_formats(nullptr, &vulkan_usage, &count, nullptr), UDA_ERROR_INVALID_ARGUMENT);
}

// GL is offered BGRA-ordered memory (ARGB8888) only where its context makes
// textures of it that keep that order: Mesa 22.3's GLES refuses
// GL_BGRA8_EXT storage, Mesa 25.0's keeps it red first. An import there is
// refused with the reason instead of promised and failed or read with red
// and blue swapped; where it is offered, every pixel Vulkan wrote reads
// back right in GL.
TEST_F(VulkanGl, BgraMemoryIsOfferedToGlOnlyWhereGlKeepsItsOrder)
{
	uda_gl_device_native device_native = {};
	device_native.type = UDA_STRUCTURE_TYPE_GL_DEVICE_NATIVE;
	ASSERT_EQ(uda_device_get_native(gl, &device_native), UDA_SUCCESS);
	uda_gl_native share = {};
	share.egl_display = device_native.egl_display;
	share.egl_context = device_native.egl_context;
	bool storage = false;
	{
		SharedGlContext context(share);
		GLuint texture = 0;
		glGenTextures(1, &texture);
		glBindTexture(GL_TEXTURE_2D, texture);
		glTexStorage2D(GL_TEXTURE_2D, 1, GL_BGRA8_EXT, 1, 1);
		storage = glGetError() == GL_NO_ERROR;
		glDeleteTextures(1, &texture);
	}
	const uda_assertion bgra = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, kWidth, kHeight, DRM_FORMAT_ARGB8888, 0};
	// Offered for Vulkan's memory: an opaque set (DMA-BUF sets, which
	// Mesa 25.0's EGL lists for ARGB8888, are another import's).
	const bool offered = offers_opaque_layout(gl, bgra, gl_usage);
	// Storage alone is not enough: the driver may keep GL_BGRA8_EXT red
	// first (Mesa 25.0), and then the memory's pixels would read swapped.
	if (!storage) {
		EXPECT_FALSE(offered) << "GL_BGRA8_EXT storage is refused";
	}

	// Vulkan alone takes it; GL's import follows GL's answer.
	const uda_device_usage vulkan_only[] = {{vulkan, &vulkan_usage}};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &bgra, 1, vulkan_only};
	uda_capability_set_list *negotiated = nullptr;
	uint32_t index = 0;
	uda_allocation *raw = nullptr;
	ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &raw, &negotiated, &index), UDA_SUCCESS)
		<< uda_context_get_error(ctx.get());
	AllocationPtr allocation(raw);
	ListPtr owned(negotiated);
	const int fds_before = open_fd_count();
	std::vector<uint8_t> metadata = serialized(raw, UDA_HANDLE_TYPE_OPAQUE_FD);
	int fd = -1;
	ASSERT_EQ(uda_allocation_export(raw, UDA_HANDLE_TYPE_OPAQUE_FD, &fd), UDA_SUCCESS);
	uda_allocation *imported = nullptr;
	const uda_result result = uda_import_serialized(gl, fd, metadata.data(), metadata.size(), &imported);
	close(fd);
	AllocationPtr owned_import(imported);
	if (offered) {
		ASSERT_EQ(result, UDA_SUCCESS) << uda_context_get_error(ctx.get());
		// The memory lies B first: what Vulkan writes as B8G8R8A8 words,
		// GL reads back as RGBA with red and blue trading places.
		vulkan_write_pattern(vulkan_native(raw));
		const auto red_and_blue_traded = [](uint32_t x, uint32_t y) {
			const uint32_t written = pattern(x, y);
			return (written & 0xff00ff00u) | (written & 0xffu) << 16 | (written >> 16 & 0xffu);
		};
		EXPECT_EQ(gl_count_wrong_pixels(gl_native(imported), kWidth, kHeight, red_and_blue_traded), 0u);
	} else {
		EXPECT_EQ(result, UDA_ERROR_UNSUPPORTED);
		EXPECT_EQ(imported, nullptr);
	}
	owned_import.reset();
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
}

// 10-bit and half-float RGB go from Vulkan to GL like 8-bit does.
TEST_F(VulkanGl, HdrFormatsNegotiateAllocateAndImport)
{
	for (uint32_t fourcc : {DRM_FORMAT_ABGR2101010, DRM_FORMAT_ABGR16161616F}) {
		const uda_assertion hdr = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, kWidth, kHeight, fourcc, 0};
		const uda_device_usage devices[] = {{vulkan, &vulkan_usage}, {gl, &gl_usage}};
		const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &hdr, 2, devices};
		uda_allocation *raw = nullptr;
		ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &raw, nullptr, nullptr), UDA_SUCCESS)
			<< std::hex << fourcc << ": " << uda_context_get_error(ctx.get());
		AllocationPtr allocation(raw);
		AllocationPtr in_gl = import_into(gl, raw, UDA_HANDLE_TYPE_OPAQUE_FD);
		ASSERT_TRUE(in_gl);
		uda_format_info format = {};
		ASSERT_EQ(uda_format_get_info(fourcc, &format), UDA_SUCCESS);
		EXPECT_EQ(gl_native(in_gl.get()).internal_format, format.gl_internal_format);
	}
}

TEST_F(VulkanGl, SystemMemoryReachesVulkanAsAHostPointer)
{
	const uda_usage_atom cpu[] = {cpu_atom(UDA_USAGE_CPU_WRITE)};
	const uda_usage cpu_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, cpu};
	const uda_usage_atom copy[] = {atom(UDA_USAGE_TRANSFER_SRC)};
	const uda_usage copy_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, copy};
	// Vulkan first: it cannot allocate host memory itself, so the
	// fallback has to reach the system device.
	const uda_device_usage devices[] = {{vulkan, &copy_usage}, {system, &cpu_usage}};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 2, devices};
	uda_allocation *raw = nullptr;
	uda_capability_set_list *sets = nullptr;
	uint32_t set_index = 0;
	ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &raw, &sets, &set_index), UDA_SUCCESS)
		<< uda_context_get_error(ctx.get());
	AllocationPtr allocation(raw);
	ListPtr owned_sets(sets);
	uda_device *owner = nullptr;
	ASSERT_EQ(uda_allocation_get_device(raw, &owner), UDA_SUCCESS);
	EXPECT_EQ(owner, system);
	EXPECT_TRUE(uda_backend_set_has_u32(sets, set_index, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_MEMFD));

	uda_allocation_metadata m = {};
	ASSERT_EQ(uda_allocation_get_metadata(raw, &m), UDA_SUCCESS);
	void *pointer = nullptr;
	ASSERT_EQ(uda_allocation_map(raw, UDA_ACCESS_WRITE, &pointer), UDA_SUCCESS);
	ASSERT_EQ(uda_allocation_begin_cpu_access(raw, UDA_ACCESS_WRITE), UDA_SUCCESS);
	for (uint32_t y = 0; y < kHeight; y++)
		for (uint32_t x = 0; x < kWidth; x++) {
			const uint32_t value = pattern(x, y);
			std::memcpy(static_cast<uint8_t *>(pointer) + y * m.planes[0].pitch + x * 4, &value, 4);
		}
	ASSERT_EQ(uda_allocation_end_cpu_access(raw, UDA_ACCESS_WRITE), UDA_SUCCESS);
	ASSERT_EQ(uda_allocation_unmap(raw), UDA_SUCCESS);

	AllocationPtr imported = import_into(vulkan, raw, UDA_HANDLE_TYPE_MEMFD);
	ASSERT_TRUE(imported);
	const uda_vulkan_native native = vulkan_native(imported.get());
	ASSERT_NE(native.buffer, VK_NULL_HANDLE);
	EXPECT_EQ(native.memory_size, m.size);

	VulkanCommands commands(native);
	void *mapped = nullptr;
	VkBuffer readback = commands.host_buffer(m.size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &mapped);
	const VkBufferCopy region = {0, 0, m.size};
	vkCmdCopyBuffer(commands.cmd(), native.buffer, readback, 1, &region);
	commands.submit_and_wait();
	size_t wrong = 0;
	for (uint32_t y = 0; y < kHeight; y++) {
		for (uint32_t x = 0; x < kWidth; x++) {
			uint32_t value;
			std::memcpy(&value, static_cast<uint8_t *>(mapped) + y * m.planes[0].pitch + x * 4, 4);
			wrong += value != pattern(x, y);
		}
	}
	EXPECT_EQ(wrong, 0u);
}

} // namespace
