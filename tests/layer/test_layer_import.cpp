// VK_UDA_external_allocation, import half: an ordinary Vulkan application
// (its own instance and device, with the Khronos validation layer) makes
// an image of a uda allocation through the layer, writes it, and GL reads
// every pixel; bad structs give VkResult errors and leak nothing.
#include <drm_fourcc.h>
#include <unistd.h>
#include <vulkan/vk_uda.h>

#include "fd_count.hpp"
#include "gpu_fixture.hpp"

using namespace uda_test;

namespace
{

constexpr uint32_t kWidth = 128, kHeight = 96;

VKAPI_ATTR VkBool32 VKAPI_CALL record_validation(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                                 VkDebugUtilsMessageTypeFlagsEXT,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
	static_cast<std::vector<std::string> *>(user)->emplace_back(data->pMessage);
	return VK_FALSE;
}

class LayerImport : public GpuTest
{
protected:
	std::vector<std::string> app_messages;
	VkInstance instance = VK_NULL_HANDLE;
	VkPhysicalDevice physical = VK_NULL_HANDLE;
	VkDevice device = VK_NULL_HANDLE;
	VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
	AllocationPtr allocation;
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, kWidth, kHeight, DRM_FORMAT_ABGR8888, 0};
	static constexpr VkImageUsageFlags kUsage =
		VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;

	void SetUp() override
	{
		// The build tree's layer joins the loader's implicit layers
		// (UDA_TEST_LAYER_DATA_DIR: a tree built elsewhere).
		const char *moved = std::getenv("UDA_TEST_LAYER_DATA_DIR");
		std::string dirs = std::string(moved ? moved : UDA_TEST_DATA_DIR) + ":/usr/local/share:/usr/share";
		setenv("XDG_DATA_DIRS", dirs.c_str(), 1);
		GpuTest::SetUp();
		if (HasFatalFailure())
			return;
		create_application_device();
		const uda_usage_atom vk_atoms[] = {atom(UDA_USAGE_RENDER_TARGET), atom(UDA_USAGE_TRANSFER_SRC),
		                                   atom(UDA_USAGE_TRANSFER_DST)};
		const uda_usage vk_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 3, vk_atoms};
		const uda_usage_atom gl_atoms[] = {atom(UDA_USAGE_SAMPLED)};
		const uda_usage gl_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, gl_atoms};
		const uda_device_usage devices[] = {{vulkan, &vk_usage}, {gl, &gl_usage}};
		const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 2, devices};
		uda_allocation *raw = nullptr;
		ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &raw, nullptr, nullptr), UDA_SUCCESS)
			<< uda_context_get_error(ctx.get());
		allocation.reset(raw);
	}

	void TearDown() override
	{
		allocation.reset();
		if (device)
			vkDestroyDevice(device, nullptr);
		if (messenger) {
			auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
				vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
			destroy(instance, messenger, nullptr);
		}
		if (instance)
			vkDestroyInstance(instance, nullptr);
		for (const std::string &message : app_messages)
			ADD_FAILURE() << "application's validation: " << message;
		GpuTest::TearDown();
	}

	void create_application_device()
	{
		VkDebugUtilsMessengerCreateInfoEXT messenger_info = {VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
		messenger_info.messageSeverity =
			VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
		messenger_info.messageType =
			VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
		messenger_info.pfnUserCallback = record_validation;
		messenger_info.pUserData = &app_messages;
		const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
		const char *extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
		VkApplicationInfo application = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
		application.apiVersion = VK_API_VERSION_1_1;
		VkInstanceCreateInfo info = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
		info.pNext = &messenger_info;
		info.pApplicationInfo = &application;
		info.enabledLayerCount = 1;
		info.ppEnabledLayerNames = layers;
		info.enabledExtensionCount = 1;
		info.ppEnabledExtensionNames = extensions;
		ASSERT_EQ(vkCreateInstance(&info, nullptr, &instance), VK_SUCCESS);
		auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
			vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
		ASSERT_EQ(create(instance, &messenger_info, nullptr, &messenger), VK_SUCCESS);
		uint32_t count = 1;
		ASSERT_GE(vkEnumeratePhysicalDevices(instance, &count, &physical), 0);
		const float priority = 1.0f;
		VkDeviceQueueCreateInfo queue = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
		queue.queueCount = 1;
		queue.pQueuePriorities = &priority;
		const char *device_extensions[] = {VK_UDA_EXTERNAL_ALLOCATION_EXTENSION_NAME};
		VkDeviceCreateInfo device_info = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
		device_info.queueCreateInfoCount = 1;
		device_info.pQueueCreateInfos = &queue;
		device_info.enabledExtensionCount = 1;
		device_info.ppEnabledExtensionNames = device_extensions;
		ASSERT_EQ(vkCreateDevice(physical, &device_info, nullptr, &device), VK_SUCCESS)
			<< "is the layer on XDG_DATA_DIRS?";
	}

	VkImageCreateInfo image_info(const VkImageUdaAllocationCreateInfoUDA *uda) const
	{
		VkImageCreateInfo info = {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
		info.pNext = uda;
		info.imageType = VK_IMAGE_TYPE_2D;
		info.format = VK_FORMAT_R8G8B8A8_UNORM;
		info.extent = {kWidth, kHeight, 1};
		info.mipLevels = 1;
		info.arrayLayers = 1;
		info.samples = VK_SAMPLE_COUNT_1_BIT;
		info.tiling = VK_IMAGE_TILING_LINEAR; // the layer replaces it
		info.usage = kUsage;
		return info;
	}

	VkResult import_memory(VkImage image, uda_allocation *source, VkDeviceMemory *out, VkDeviceSize size_delta = 0,
	                       bool dedicated_struct = true)
	{
		VkMemoryRequirements requirements;
		vkGetImageMemoryRequirements(device, image, &requirements);
		VkMemoryDedicatedAllocateInfo dedicated = {VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
		dedicated.image = image;
		VkImportMemoryUdaAllocationInfoUDA import = {VK_STRUCTURE_TYPE_IMPORT_MEMORY_UDA_ALLOCATION_INFO_UDA,
		                                             dedicated_struct ? &dedicated : nullptr, source};
		VkMemoryAllocateInfo info = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
		info.pNext = &import;
		info.allocationSize = requirements.size + size_delta;
		info.memoryTypeIndex = static_cast<uint32_t>(__builtin_ctz(requirements.memoryTypeBits));
		return vkAllocateMemory(device, &info, nullptr, out);
	}
};

TEST_F(LayerImport, ApplicationWritesAUdaAllocationGlReadsEveryPixel)
{
	const int fds_before = open_fd_count();
	{
		const VkImageUdaAllocationCreateInfoUDA uda = {VK_STRUCTURE_TYPE_IMAGE_UDA_ALLOCATION_CREATE_INFO_UDA,
		                                               nullptr, allocation.get()};
		const VkImageCreateInfo info = image_info(&uda);
		VkImage image = VK_NULL_HANDLE;
		ASSERT_EQ(vkCreateImage(device, &info, nullptr, &image), VK_SUCCESS);
		VkDeviceMemory memory = VK_NULL_HANDLE;
		ASSERT_EQ(import_memory(image, allocation.get(), &memory), VK_SUCCESS);
		ASSERT_EQ(vkBindImageMemory(device, image, memory, 0), VK_SUCCESS);

		// The application's own device writes the pattern.
		uda_vulkan_native app = {};
		app.type = UDA_STRUCTURE_TYPE_VULKAN_NATIVE;
		app.physical_device = physical;
		app.device = device;
		vulkan_upload_pattern(app, image, kWidth, kHeight);

		// GL, through the core, reads the same memory.
		AllocationPtr in_gl = import_through_fd(ctx.get(), gl, allocation.get(), UDA_HANDLE_TYPE_OPAQUE_FD);
		ASSERT_TRUE(in_gl);
		EXPECT_EQ(gl_count_wrong_pixels(gl_native_of(in_gl.get()), kWidth, kHeight), 0u);
		vkDestroyImage(device, image, nullptr);
		vkFreeMemory(device, memory, nullptr);
	}
	EXPECT_EQ(open_fd_count(), fds_before);
}

// The reverse direction: system memory the CPU wrote, imported into the
// application's Vulkan image through the layer as a host pointer, and
// copied out by the application.
TEST_F(LayerImport, SystemMemoryReachesTheApplicationsImage)
{
	const int fds_before = open_fd_count();
	{
		const uda_usage_atom cpu[] = {cpu_atom(UDA_USAGE_CPU_WRITE)};
		const uda_usage cpu_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, cpu};
		const uda_usage_atom copy[] = {atom(UDA_USAGE_TRANSFER_SRC)};
		const uda_usage copy_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, copy};
		const uda_device_usage devices[] = {{vulkan, &copy_usage}, {system, &cpu_usage}};
		const uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 2,
		                                          devices};
		uda_allocation *raw = nullptr;
		ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &negotiation, &raw, nullptr, nullptr), UDA_SUCCESS)
			<< uda_context_get_error(ctx.get());
		AllocationPtr memfd(raw);
		uda_allocation_metadata m = {};
		ASSERT_EQ(uda_allocation_get_metadata(raw, &m), UDA_SUCCESS);
		void *pointer = nullptr;
		ASSERT_EQ(uda_allocation_map(raw, UDA_ACCESS_WRITE, &pointer), UDA_SUCCESS) << uda_context_get_error(ctx.get());
		for (uint32_t y = 0; y < kHeight; y++)
			for (uint32_t x = 0; x < kWidth; x++) {
				const uint32_t value = pattern(x, y);
				std::memcpy(static_cast<uint8_t *>(pointer) + y * m.planes[0].pitch + x * 4, &value, 4);
			}
		ASSERT_EQ(uda_allocation_unmap(raw), UDA_SUCCESS);

		const VkImageUdaAllocationCreateInfoUDA uda = {VK_STRUCTURE_TYPE_IMAGE_UDA_ALLOCATION_CREATE_INFO_UDA,
		                                               nullptr, raw};
		VkImageCreateInfo info = image_info(&uda);
		info.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
		VkImage image = VK_NULL_HANDLE;
		ASSERT_EQ(vkCreateImage(device, &info, nullptr, &image), VK_SUCCESS);
		VkDeviceMemory memory = VK_NULL_HANDLE;
		ASSERT_EQ(import_memory(image, raw, &memory), VK_SUCCESS);
		ASSERT_EQ(vkBindImageMemory(device, image, memory, 0), VK_SUCCESS);

		uda_vulkan_native app = {};
		app.type = UDA_STRUCTURE_TYPE_VULKAN_NATIVE;
		app.physical_device = physical;
		app.device = device;
		{
			VulkanCommands commands(app);
			void *mapped = nullptr;
			VkBuffer readback = commands.host_buffer(kWidth * kHeight * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &mapped);
			commands.image_barrier(image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 0,
			                       VK_ACCESS_TRANSFER_READ_BIT, VK_QUEUE_FAMILY_EXTERNAL, 0);
			VkBufferImageCopy region = {};
			region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
			region.imageExtent = {kWidth, kHeight, 1};
			vkCmdCopyImageToBuffer(commands.cmd(), image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback, 1,
			                       &region);
			commands.submit_and_wait();
			const auto *pixels = static_cast<const uint32_t *>(mapped);
			size_t wrong = 0;
			for (uint32_t y = 0; y < kHeight; y++)
				for (uint32_t x = 0; x < kWidth; x++)
					wrong += pixels[y * kWidth + x] != pattern(x, y);
			EXPECT_EQ(wrong, 0u);
		}
		vkDestroyImage(device, image, nullptr);
		vkFreeMemory(device, memory, nullptr);
	}
	EXPECT_EQ(open_fd_count(), fds_before);
}

// Export: memory the application allocated exportable becomes an fd and uda
// metadata, which GL imports through the core and reads.
TEST_F(LayerImport, ApplicationExportsItsMemoryGlReadsEveryPixel)
{
	const int fds_before = open_fd_count();
	{
		VkExternalMemoryImageCreateInfo external = {VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO};
		external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
		VkImageCreateInfo info = image_info(nullptr);
		info.pNext = &external;
		info.tiling = VK_IMAGE_TILING_OPTIMAL;
		VkImage image = VK_NULL_HANDLE;
		ASSERT_EQ(vkCreateImage(device, &info, nullptr, &image), VK_SUCCESS);
		VkMemoryRequirements requirements;
		vkGetImageMemoryRequirements(device, image, &requirements);
		VkMemoryDedicatedAllocateInfo dedicated = {VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
		dedicated.image = image;
		VkExportMemoryAllocateInfo export_info = {VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO, &dedicated,
		                                          VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
		VkMemoryAllocateInfo allocate = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &export_info, requirements.size,
		                                 static_cast<uint32_t>(__builtin_ctz(requirements.memoryTypeBits))};
		VkDeviceMemory memory = VK_NULL_HANDLE;
		ASSERT_EQ(vkAllocateMemory(device, &allocate, nullptr, &memory), VK_SUCCESS);
		ASSERT_EQ(vkBindImageMemory(device, image, memory, 0), VK_SUCCESS);

		uda_vulkan_native app = {};
		app.type = UDA_STRUCTURE_TYPE_VULKAN_NATIVE;
		app.physical_device = physical;
		app.device = device;
		vulkan_upload_pattern(app, image, kWidth, kHeight);

		auto export_memory =
			reinterpret_cast<PFN_vkExportMemoryUdaUDA>(vkGetDeviceProcAddr(device, "vkExportMemoryUdaUDA"));
		ASSERT_NE(export_memory, nullptr);
		VkMemoryUdaExportInfoUDA export_request = {VK_STRUCTURE_TYPE_MEMORY_UDA_EXPORT_INFO_UDA, nullptr, memory,
		                                           image, UDA_HANDLE_TYPE_OPAQUE_FD};
		size_t size = 0;
		int fd = -1;
		ASSERT_EQ(export_memory(device, &export_request, &fd, &size, nullptr), VK_SUCCESS);
		EXPECT_EQ(fd, -1);
		std::vector<uint8_t> metadata(size);
		size_t short_size = size - 1;
		EXPECT_EQ(export_memory(device, &export_request, &fd, &short_size, metadata.data()), VK_INCOMPLETE);
		EXPECT_EQ(fd, -1);
		ASSERT_EQ(export_memory(device, &export_request, &fd, &size, metadata.data()), VK_SUCCESS);
		ASSERT_GE(fd, 0);
		// Memory the layer did not see made exportable is refused.
		VkMemoryUdaExportInfoUDA unknown = export_request;
		unknown.image = VK_NULL_HANDLE;
		int other = -1;
		EXPECT_EQ(export_memory(device, &unknown, &other, &size, metadata.data()), VK_ERROR_INVALID_EXTERNAL_HANDLE);
		unknown = export_request;
		unknown.handleType = UDA_HANDLE_TYPE_DMA_BUF;
		EXPECT_EQ(export_memory(device, &unknown, &other, &size, metadata.data()), VK_ERROR_INVALID_EXTERNAL_HANDLE);

		uda_allocation *in_gl = nullptr;
		ASSERT_EQ(uda_import_serialized(gl, fd, metadata.data(), metadata.size(), &in_gl), UDA_SUCCESS)
			<< uda_context_get_error(ctx.get());
		close(fd);
		AllocationPtr owned(in_gl);
		EXPECT_EQ(gl_count_wrong_pixels(gl_native_of(in_gl), kWidth, kHeight), 0u);
		owned.reset();
		vkDestroyImage(device, image, nullptr);
		vkFreeMemory(device, memory, nullptr);
	}
	EXPECT_EQ(open_fd_count(), fds_before);
}

// The physical-device half: which uda device a VkPhysicalDevice is, and
// its capability sets asked in Vulkan terms, ready to negotiate with GL.
TEST_F(LayerImport, PhysicalDeviceQueriesSpeakVulkan)
{
	auto get_device = reinterpret_cast<PFN_vkGetPhysicalDeviceUdaDeviceUDA>(
		vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceUdaDeviceUDA"));
	auto get_sets = reinterpret_cast<PFN_vkGetPhysicalDeviceUdaCapabilitySetsUDA>(
		vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceUdaCapabilitySetsUDA"));
	ASSERT_NE(get_device, nullptr);
	ASSERT_NE(get_sets, nullptr);
	uda_device *found = nullptr;
	ASSERT_EQ(get_device(physical, ctx.get(), &found), VK_SUCCESS);
	EXPECT_EQ(found, vulkan);
	EXPECT_EQ(get_device(physical, nullptr, &found), VK_ERROR_INITIALIZATION_FAILED);

	VkUdaCapabilityQueryUDA query = {VK_STRUCTURE_TYPE_UDA_CAPABILITY_QUERY_UDA, nullptr, ctx.get(),
	                                 VK_FORMAT_R8G8B8A8_UNORM, {kWidth, kHeight},
	                                 VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT};
	uda_capability_set_list *sets = nullptr;
	ASSERT_EQ(get_sets(physical, &query, &sets), VK_SUCCESS);
	ListPtr owned(sets);
	uda_capability layout = {};
	ASSERT_EQ(uda_capability_set_list_get_layout(sets, 0, &layout), UDA_SUCCESS);
	EXPECT_EQ(layout.name, UDA_CAPABILITY_LAYOUT_OPAQUE);
	// What the Vulkan side offers meets GL's sampling.
	const uda_usage_atom gl_atoms[] = {atom(UDA_USAGE_SAMPLED)};
	const uda_usage gl_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, gl_atoms};
	uda_capability_set_list *gl_sets = nullptr;
	ASSERT_EQ(uda_device_get_capability_sets(gl, &assertion, &gl_usage, &gl_sets), UDA_SUCCESS);
	ListPtr owned_gl(gl_sets);
	uda_capability_set_list *common = nullptr;
	ASSERT_EQ(uda_capability_set_list_intersect(sets, gl_sets, &common), UDA_SUCCESS);
	ListPtr owned_common(common);
	uint32_t count = 0;
	ASSERT_EQ(uda_capability_set_list_get_count(common, &count), UDA_SUCCESS);
	EXPECT_GE(count, 1u);

	query.usage = VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT;
	EXPECT_EQ(get_sets(physical, &query, &sets), VK_ERROR_FORMAT_NOT_SUPPORTED);
	query.usage = VK_IMAGE_USAGE_SAMPLED_BIT;
	query.format = VK_FORMAT_BC1_RGB_UNORM_BLOCK;
	EXPECT_EQ(get_sets(physical, &query, &sets), VK_ERROR_FORMAT_NOT_SUPPORTED);
	query.format = VK_FORMAT_R8G8B8A8_UNORM;
	query.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
	EXPECT_EQ(get_sets(physical, &query, &sets), VK_ERROR_INITIALIZATION_FAILED);
}

TEST_F(LayerImport, BadStructsGiveVulkanErrorsAndMessages)
{
	// Every refusal also reaches the application's debug-utils messenger.
	auto expect_reported = [&](const char *fragment) {
		ASSERT_FALSE(app_messages.empty()) << "no message for: " << fragment;
		EXPECT_NE(app_messages.back().find(fragment), std::string::npos) << app_messages.back();
		app_messages.clear();
	};
	const int fds_before = open_fd_count();
	VkImage image = VK_NULL_HANDLE;
	VkImageUdaAllocationCreateInfoUDA uda = {VK_STRUCTURE_TYPE_IMAGE_UDA_ALLOCATION_CREATE_INFO_UDA, nullptr,
	                                         nullptr};
	VkImageCreateInfo info = image_info(&uda);
	EXPECT_EQ(vkCreateImage(device, &info, nullptr, &image), VK_ERROR_INITIALIZATION_FAILED);
	expect_reported("allocation is NULL");
	uda.allocation = allocation.get();
	info.extent.width = kWidth + 1;
	EXPECT_EQ(vkCreateImage(device, &info, nullptr, &image), VK_ERROR_FORMAT_NOT_SUPPORTED);
	expect_reported("does not match its uda allocation");
	info = image_info(&uda);
	info.format = VK_FORMAT_B8G8R8A8_UNORM;
	EXPECT_EQ(vkCreateImage(device, &info, nullptr, &image), VK_ERROR_FORMAT_NOT_SUPPORTED);
	expect_reported("does not match its uda allocation");
	info = image_info(&uda);
	info.mipLevels = 2;
	EXPECT_EQ(vkCreateImage(device, &info, nullptr, &image), VK_ERROR_FORMAT_NOT_SUPPORTED);
	expect_reported("does not match its uda allocation");
	// The exporter's image had no storage usage; an opaque import's image
	// must be identical to it.
	info = image_info(&uda);
	info.usage |= VK_IMAGE_USAGE_STORAGE_BIT;
	EXPECT_EQ(vkCreateImage(device, &info, nullptr, &image), VK_ERROR_FORMAT_NOT_SUPPORTED);
	expect_reported("beyond those of the image");

	info = image_info(&uda);
	ASSERT_EQ(vkCreateImage(device, &info, nullptr, &image), VK_SUCCESS);
	VkDeviceMemory memory = VK_NULL_HANDLE;
	EXPECT_EQ(import_memory(image, nullptr, &memory), VK_ERROR_INITIALIZATION_FAILED);
	expect_reported("needs an allocation");
	EXPECT_EQ(import_memory(image, allocation.get(), &memory, 0, false), VK_ERROR_INITIALIZATION_FAILED);
	expect_reported("VkMemoryDedicatedAllocateInfo");
	EXPECT_EQ(import_memory(image, allocation.get(), &memory, 4096), VK_ERROR_INVALID_EXTERNAL_HANDLE);
	expect_reported("allocationSize");
	EXPECT_EQ(memory, VK_NULL_HANDLE);
	vkDestroyImage(device, image, nullptr);
	EXPECT_EQ(open_fd_count(), fds_before);
}

} // namespace
