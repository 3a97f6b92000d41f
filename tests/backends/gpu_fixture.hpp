// Shared by the tests that drive real drivers (lavapipe, llvmpipe): a
// context over the build tree's backends with the Vulkan backend under the
// Khronos validation layer, whose every message fails the test, plus small
// Vulkan and EGL helpers that work on the objects uda hands out.
#pragma once

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#include <cstring>
#include <gtest/gtest.h>
#include <mutex>
#include <unistd.h>
#include <string>
#include <vector>

#include <uda/uda_gl.h>
#include <uda/uda_vulkan.h>

#include "backend_env.hpp"
#include "set_spec.hpp"
#include "validation_log.hpp"

namespace uda_test
{

inline uda_usage_atom atom(uda_usage_name name)
{
	return {UDA_VENDOR_NONE, static_cast<uint16_t>(name), 0, nullptr};
}

inline const uint8_t cpu_often[4] = {UDA_CPU_ACCESS_OFTEN, 0, 0, 0};

inline uda_usage_atom cpu_atom(uda_usage_name name)
{
	return {UDA_VENDOR_NONE, static_cast<uint16_t>(name), 4, cpu_often};
}

class GpuTest : public ::testing::Test
{
protected:
	ValidationLog validation;
	ContextPtr ctx;
	uda_device *vulkan = nullptr;
	uda_device *gl = nullptr;
	uda_device *system = nullptr;

	void SetUp() override
	{
		use_build_tree_backends();
		ctx = create_validated_context(validation);
		uda_context *raw = ctx.get();
		ASSERT_NE(raw, nullptr);
		uint32_t count = 0;
		ASSERT_EQ(uda_context_enumerate_devices(raw, &count, nullptr), UDA_SUCCESS);
		std::vector<uda_device *> devices(count);
		ASSERT_EQ(uda_context_enumerate_devices(raw, &count, devices.data()), UDA_SUCCESS);
		for (uda_device *d : devices) {
			uda_device_info di = {};
			di.type = UDA_STRUCTURE_TYPE_DEVICE_INFO;
			ASSERT_EQ(uda_device_get_info(d, &di), UDA_SUCCESS);
			if (di.api == UDA_DEVICE_API_VULKAN && !vulkan)
				vulkan = d;
			else if (di.api == UDA_DEVICE_API_GL && !gl)
				gl = d;
			else if (di.api == UDA_DEVICE_API_CPU)
				system = d;
		}
		ASSERT_NE(vulkan, nullptr) << "no Vulkan device: is mesa-vulkan-drivers installed?";
		ASSERT_NE(gl, nullptr) << "no GL device with GL_EXT_memory_object";
		ASSERT_NE(system, nullptr);
	}

	void TearDown() override
	{
		ctx.reset();
		for (const std::string &problem : validation.problems)
			ADD_FAILURE() << problem;
	}
};

// One-shot command submission on the backend's own VkDevice and queue.
class VulkanCommands
{
public:
	explicit VulkanCommands(const uda_vulkan_native &native) : device_(native.device), physical_(native.physical_device)
	{
		vkGetDeviceQueue(device_, native.queue_family_index, 0, &queue_);
		VkCommandPoolCreateInfo pool_info = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
		pool_info.queueFamilyIndex = native.queue_family_index;
		EXPECT_EQ(vkCreateCommandPool(device_, &pool_info, nullptr, &pool_), VK_SUCCESS);
		VkCommandBufferAllocateInfo alloc = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
		alloc.commandPool = pool_;
		alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
		alloc.commandBufferCount = 1;
		EXPECT_EQ(vkAllocateCommandBuffers(device_, &alloc, &cmd_), VK_SUCCESS);
		VkCommandBufferBeginInfo begin = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
		begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
		vkBeginCommandBuffer(cmd_, &begin);
	}
	~VulkanCommands()
	{
		for (auto &[buffer, memory] : buffers_) {
			vkDestroyBuffer(device_, buffer, nullptr);
			vkFreeMemory(device_, memory, nullptr);
		}
		vkDestroyCommandPool(device_, pool_, nullptr);
	}
	VkCommandBuffer cmd() const { return cmd_; }

	// Ends, submits, waits: the producer finishes before the hand-off,
	// as uda's fallback synchronization says (no shared sync here).
	void submit_and_wait()
	{
		ASSERT_EQ(vkEndCommandBuffer(cmd_), VK_SUCCESS);
		VkSubmitInfo submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
		submit.commandBufferCount = 1;
		submit.pCommandBuffers = &cmd_;
		ASSERT_EQ(vkQueueSubmit(queue_, 1, &submit, VK_NULL_HANDLE), VK_SUCCESS);
		ASSERT_EQ(vkQueueWaitIdle(queue_), VK_SUCCESS);
	}

	// A host-visible, coherent buffer; *mapped points at its bytes.
	VkBuffer host_buffer(VkDeviceSize size, VkBufferUsageFlags usage, void **mapped)
	{
		VkBufferCreateInfo info = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
		info.size = size;
		info.usage = usage;
		VkBuffer buffer;
		EXPECT_EQ(vkCreateBuffer(device_, &info, nullptr, &buffer), VK_SUCCESS);
		VkMemoryRequirements req;
		vkGetBufferMemoryRequirements(device_, buffer, &req);
		VkPhysicalDeviceMemoryProperties props;
		vkGetPhysicalDeviceMemoryProperties(physical_, &props);
		uint32_t type = 0;
		const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
		for (uint32_t i = 0; i < props.memoryTypeCount; i++) {
			if ((req.memoryTypeBits & (1u << i)) && (props.memoryTypes[i].propertyFlags & want) == want) {
				type = i;
				break;
			}
		}
		VkMemoryAllocateInfo alloc = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
		alloc.allocationSize = req.size;
		alloc.memoryTypeIndex = type;
		VkDeviceMemory memory;
		EXPECT_EQ(vkAllocateMemory(device_, &alloc, nullptr, &memory), VK_SUCCESS);
		EXPECT_EQ(vkBindBufferMemory(device_, buffer, memory, 0), VK_SUCCESS);
		EXPECT_EQ(vkMapMemory(device_, memory, 0, VK_WHOLE_SIZE, 0, mapped), VK_SUCCESS);
		buffers_.emplace_back(buffer, memory);
		return buffer;
	}

	void image_barrier(VkImage image, VkImageLayout from, VkImageLayout to, VkAccessFlags src_access,
	                   VkAccessFlags dst_access, uint32_t src_family = VK_QUEUE_FAMILY_IGNORED,
	                   uint32_t dst_family = VK_QUEUE_FAMILY_IGNORED)
	{
		VkImageMemoryBarrier barrier = {VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
		barrier.srcAccessMask = src_access;
		barrier.dstAccessMask = dst_access;
		barrier.oldLayout = from;
		barrier.newLayout = to;
		barrier.srcQueueFamilyIndex = src_family;
		barrier.dstQueueFamilyIndex = dst_family;
		barrier.image = image;
		barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
		vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0,
		                     nullptr, 0, nullptr, 1, &barrier);
	}

private:
	VkDevice device_;
	VkPhysicalDevice physical_;
	VkQueue queue_ = VK_NULL_HANDLE;
	VkCommandPool pool_ = VK_NULL_HANDLE;
	VkCommandBuffer cmd_ = VK_NULL_HANDLE;
	std::vector<std::pair<VkBuffer, VkDeviceMemory>> buffers_;
};

// A GLES context of the test's own, in the share group of the gl backend's
// context, current on the calling thread while it lives.
class SharedGlContext
{
public:
	explicit SharedGlContext(const uda_gl_native &native) : display_(static_cast<EGLDisplay>(native.egl_display))
	{
		eglBindAPI(EGL_OPENGL_ES_API);
		const EGLint attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
		context_ = eglCreateContext(display_, EGL_NO_CONFIG_KHR, static_cast<EGLContext>(native.egl_context),
		                            attributes);
		EXPECT_NE(context_, EGL_NO_CONTEXT);
		EXPECT_TRUE(eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_));
	}
	~SharedGlContext()
	{
		eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
		eglDestroyContext(display_, context_);
	}

	// A framebuffer with the texture as its colour attachment.
	GLuint framebuffer_for(GLuint texture)
	{
		GLuint fbo = 0;
		glGenFramebuffers(1, &fbo);
		glBindFramebuffer(GL_FRAMEBUFFER, fbo);
		glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
		EXPECT_EQ(glCheckFramebufferStatus(GL_FRAMEBUFFER), static_cast<GLenum>(GL_FRAMEBUFFER_COMPLETE));
		return fbo;
	}

private:
	EGLDisplay display_;
	EGLContext context_ = EGL_NO_CONTEXT;
};

// The pixel every test writes at (x, y): distinct in every channel.
inline uint32_t pattern(uint32_t x, uint32_t y)
{
	return (x & 0xff) | (y & 0xff) << 8 | ((x * 7 + y * 13) & 0xff) << 16 | 0xffu << 24;
}

// Copies pattern() into `image` of `device` (native names the device and
// queue family) from a staging buffer, then releases the image to
// "external" in GENERAL layout and waits: the producer finishes before
// the hand-off. Without `release` the image stays the device's, in
// TRANSFER_DST_OPTIMAL layout.
inline void vulkan_upload_pattern(const uda_vulkan_native &native, VkImage image, uint32_t width, uint32_t height,
                                  bool release = true)
{
	VulkanCommands commands(native);
	void *mapped = nullptr;
	VkBuffer staging = commands.host_buffer(width * height * 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &mapped);
	auto *pixels = static_cast<uint32_t *>(mapped);
	for (uint32_t y = 0; y < height; y++)
		for (uint32_t x = 0; x < width; x++)
			pixels[y * width + x] = pattern(x, y);
	commands.image_barrier(image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
	                       VK_ACCESS_TRANSFER_WRITE_BIT);
	VkBufferImageCopy region = {};
	region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
	region.imageExtent = {width, height, 1};
	vkCmdCopyBufferToImage(commands.cmd(), staging, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
	if (release)
		commands.image_barrier(image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL,
		                       VK_ACCESS_TRANSFER_WRITE_BIT, 0, native.queue_family_index,
		                       VK_QUEUE_FAMILY_EXTERNAL);
	commands.submit_and_wait();
}

// Reads the GL texture of an imported allocation back as RGBA through a
// context that shares the backend's, and counts the pixels that are not
// expected(x, y) (pattern() unless said).
template <typename Expected = uint32_t (*)(uint32_t, uint32_t)>
inline size_t gl_count_wrong_pixels(const uda_gl_native &native, uint32_t width, uint32_t height,
                                    Expected expected = pattern)
{
	SharedGlContext context(native);
	GLuint fbo = context.framebuffer_for(native.texture);
	std::vector<uint32_t> pixels(width * height);
	glReadPixels(0, 0, static_cast<GLsizei>(width), static_cast<GLsizei>(height), GL_RGBA, GL_UNSIGNED_BYTE,
	             pixels.data());
	EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
	size_t wrong = 0;
	for (uint32_t y = 0; y < height; y++)
		for (uint32_t x = 0; x < width; x++)
			wrong += pixels[y * width + x] != expected(x, y);
	glDeleteFramebuffers(1, &fbo);
	return wrong;
}

// Copies `image` out into host memory after acquiring it from "external"
// in GENERAL layout (another API wrote it), and waits.
inline std::vector<uint32_t> vulkan_read_pixels(const uda_vulkan_native &native, VkImage image, uint32_t width,
                                                uint32_t height)
{
	VulkanCommands commands(native);
	void *mapped = nullptr;
	VkBuffer readback = commands.host_buffer(width * height * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &mapped);
	commands.image_barrier(image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 0,
	                       VK_ACCESS_TRANSFER_READ_BIT, VK_QUEUE_FAMILY_EXTERNAL, native.queue_family_index);
	VkBufferImageCopy region = {};
	region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
	region.imageExtent = {width, height, 1};
	vkCmdCopyImageToBuffer(commands.cmd(), image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback, 1, &region);
	commands.submit_and_wait();
	const auto *pixels = static_cast<const uint32_t *>(mapped);
	return std::vector<uint32_t>(pixels, pixels + width * height);
}

// What crosses a process boundary, done in one: export as `type`,
// serialize the metadata, import both on `device`.
inline AllocationPtr import_through_fd(uda_context *ctx, uda_device *device, uda_allocation *source,
                                       uda_handle_type type)
{
	size_t size = 0;
	EXPECT_EQ(uda_allocation_serialize_metadata(source, type, nullptr, 0, &size), UDA_SUCCESS);
	std::vector<uint8_t> metadata(size);
	EXPECT_EQ(uda_allocation_serialize_metadata(source, type, metadata.data(), size, &size), UDA_SUCCESS);
	int fd = -1;
	EXPECT_EQ(uda_allocation_export(source, type, &fd), UDA_SUCCESS) << uda_context_get_error(ctx);
	uda_allocation *imported = nullptr;
	EXPECT_EQ(uda_import_serialized(device, fd, metadata.data(), metadata.size(), &imported), UDA_SUCCESS)
		<< uda_context_get_error(ctx);
	if (fd >= 0)
		close(fd);
	return AllocationPtr(imported);
}

inline uda_vulkan_native vulkan_native_of(uda_allocation *allocation)
{
	uda_vulkan_native native = {};
	native.type = UDA_STRUCTURE_TYPE_VULKAN_NATIVE;
	EXPECT_EQ(uda_allocation_get_native(allocation, &native), UDA_SUCCESS);
	return native;
}

inline uda_gl_native gl_native_of(uda_allocation *allocation)
{
	uda_gl_native native = {};
	native.type = UDA_STRUCTURE_TYPE_GL_NATIVE;
	EXPECT_EQ(uda_allocation_get_native(allocation, &native), UDA_SUCCESS);
	return native;
}

// Whether one of the device's sets for the assertion has a LAYOUT
// capability `wanted` accepts.
template <typename Predicate>
inline bool offers_layout(uda_device *device, const uda_assertion &assertion, const uda_usage &usage,
                          Predicate wanted)
{
	uda_capability_set_list *sets = nullptr;
	if (uda_device_get_capability_sets(device, &assertion, &usage, &sets) != UDA_SUCCESS)
		return false;
	uint32_t count = 0;
	uda_capability_set_list_get_count(sets, &count);
	bool found = false;
	for (uint32_t i = 0; i < count && !found; i++) {
		uda_capability layout = {};
		found = uda_capability_set_list_get_layout(sets, i, &layout) == UDA_SUCCESS && wanted(layout);
	}
	uda_capability_set_list_destroy(sets);
	return found;
}

// A driver-private (LAYOUT_OPAQUE) set: what memory Vulkan shares as an
// opaque fd needs of GL.
inline bool offers_opaque_layout(uda_device *device, const uda_assertion &assertion, const uda_usage &usage)
{
	return offers_layout(device, assertion, usage,
	                     [](const uda_capability &layout) { return layout.name == UDA_CAPABILITY_LAYOUT_OPAQUE; });
}

} // namespace uda_test
