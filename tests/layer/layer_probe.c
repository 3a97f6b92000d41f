/*
 * uda-layer-probe: an ordinary Vulkan application, for checking the layer
 * from the outside. It creates an instance with the Khronos validation
 * layer and a messenger that counts every message, reports whether
 * VK_LAYER_UDA_allocator is active and whether the device offers
 * VK_UDA_external_allocation (exactly once), creates a device (with the
 * extension when --enable-extension is given and it is offered), clears an
 * image, copies it into a buffer and checks every pixel.
 *
 * Prints "layer active: yes|no", "extension offered: yes|no" and
 * "pixels ok"; exits 1 on any failure or validation message.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan.h>

#define SIZE 64u

static unsigned messages;

static VKAPI_ATTR VkBool32 VKAPI_CALL count_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                    VkDebugUtilsMessageTypeFlagsEXT types,
                                                    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
	(void)severity;
	(void)types;
	(void)user;
	fprintf(stderr, "validation: %s\n", data->pMessage);
	messages++;
	return VK_FALSE;
}

static bool layer_present(const char *name)
{
	uint32_t count = 0;
	vkEnumerateInstanceLayerProperties(&count, NULL);
	VkLayerProperties *layers = calloc(count ? count : 1, sizeof(*layers));
	bool found = false;
	if (layers && vkEnumerateInstanceLayerProperties(&count, layers) >= 0) {
		for (uint32_t i = 0; i < count && !found; i++)
			found = strcmp(layers[i].layerName, name) == 0;
	}
	free(layers);
	return found;
}

static int fail(const char *what, VkResult result)
{
	fprintf(stderr, "uda-layer-probe: %s (VkResult %d)\n", what, (int)result);
	return 1;
}

int main(int argc, char **argv)
{
	const bool enable = argc > 1 && strcmp(argv[1], "--enable-extension") == 0;
	const bool validation = layer_present("VK_LAYER_KHRONOS_validation");
	const VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
		.messageSeverity =
			VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
		.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
		.pfnUserCallback = count_message,
	};
	const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
	const char *instance_extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
	const VkApplicationInfo application = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	                                       .pApplicationName = "uda-layer-probe",
	                                       .apiVersion = VK_API_VERSION_1_1};
	const VkInstanceCreateInfo instance_info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pNext = validation ? &messenger_info : NULL,
		.pApplicationInfo = &application,
		.enabledLayerCount = validation ? 1 : 0,
		.ppEnabledLayerNames = layers,
		.enabledExtensionCount = validation ? 1 : 0,
		.ppEnabledExtensionNames = instance_extensions,
	};
	VkInstance instance;
	VkResult vr = vkCreateInstance(&instance_info, NULL, &instance);
	if (vr != VK_SUCCESS)
		return fail("vkCreateInstance", vr);
	if (!validation)
		fprintf(stderr, "uda-layer-probe: VK_LAYER_KHRONOS_validation is not installed\n");
	printf("layer active: %s\n", layer_present("VK_LAYER_UDA_allocator") ? "listed" : "no");

	uint32_t count = 1;
	VkPhysicalDevice physical;
	vr = vkEnumeratePhysicalDevices(instance, &count, &physical);
	if (vr < 0 || count == 0)
		return fail("no physical device", vr);
	uint32_t extension_count = 0;
	vkEnumerateDeviceExtensionProperties(physical, NULL, &extension_count, NULL);
	VkExtensionProperties *extensions = calloc(extension_count ? extension_count : 1, sizeof(*extensions));
	vkEnumerateDeviceExtensionProperties(physical, NULL, &extension_count, extensions);
	unsigned offered = 0;
	for (uint32_t i = 0; i < extension_count; i++)
		offered += strcmp(extensions[i].extensionName, "VK_UDA_external_allocation") == 0;
	free(extensions);
	printf("extension offered: %s\n", offered == 1 ? "yes" : offered ? "more than once" : "no");

	const float priority = 1.0f;
	const VkDeviceQueueCreateInfo queue_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	                                            .queueFamilyIndex = 0,
	                                            .queueCount = 1,
	                                            .pQueuePriorities = &priority};
	const char *device_extensions[] = {"VK_UDA_external_allocation"};
	const bool with_extension = enable && offered == 1;
	const VkDeviceCreateInfo device_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	                                        .queueCreateInfoCount = 1,
	                                        .pQueueCreateInfos = &queue_info,
	                                        .enabledExtensionCount = with_extension ? 1 : 0,
	                                        .ppEnabledExtensionNames = device_extensions};
	VkDevice device;
	vr = vkCreateDevice(physical, &device_info, NULL, &device);
	if (vr != VK_SUCCESS)
		return fail("vkCreateDevice", vr);
	printf("device created%s\n", with_extension ? " with VK_UDA_external_allocation" : "");
	/* Under the extension the layer enables the driver's external-memory
	 * extensions; otherwise nothing changes. */
	if (with_extension && !vkGetDeviceProcAddr(device, "vkGetMemoryFdKHR"))
		return fail("VK_UDA_external_allocation without VK_KHR_external_memory_fd underneath", VK_SUCCESS);

	/* An ordinary workload: clear an image, copy it out, check it. */
	const VkImageCreateInfo image_info = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
	                                      .imageType = VK_IMAGE_TYPE_2D,
	                                      .format = VK_FORMAT_R8G8B8A8_UNORM,
	                                      .extent = {SIZE, SIZE, 1},
	                                      .mipLevels = 1,
	                                      .arrayLayers = 1,
	                                      .samples = VK_SAMPLE_COUNT_1_BIT,
	                                      .tiling = VK_IMAGE_TILING_OPTIMAL,
	                                      .usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT};
	VkImage image;
	vkCreateImage(device, &image_info, NULL, &image);
	VkMemoryRequirements image_requirements;
	vkGetImageMemoryRequirements(device, image, &image_requirements);
	const VkBufferCreateInfo buffer_info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
	                                        .size = SIZE * SIZE * 4,
	                                        .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
	VkBuffer buffer;
	vkCreateBuffer(device, &buffer_info, NULL, &buffer);
	VkMemoryRequirements buffer_requirements;
	vkGetBufferMemoryRequirements(device, buffer, &buffer_requirements);
	VkPhysicalDeviceMemoryProperties memory_properties;
	vkGetPhysicalDeviceMemoryProperties(physical, &memory_properties);
	uint32_t host_type = 0;
	const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	for (uint32_t i = memory_properties.memoryTypeCount; i-- > 0;) {
		if ((buffer_requirements.memoryTypeBits & (1u << i)) &&
		    (memory_properties.memoryTypes[i].propertyFlags & host) == host)
			host_type = i;
	}
	const VkMemoryAllocateInfo image_memory_info = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = image_requirements.size,
		.memoryTypeIndex = (uint32_t)__builtin_ctz(image_requirements.memoryTypeBits)};
	const VkMemoryAllocateInfo buffer_memory_info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	                                                 .allocationSize = buffer_requirements.size,
	                                                 .memoryTypeIndex = host_type};
	VkDeviceMemory image_memory, buffer_memory;
	vkAllocateMemory(device, &image_memory_info, NULL, &image_memory);
	vkAllocateMemory(device, &buffer_memory_info, NULL, &buffer_memory);
	vkBindImageMemory(device, image, image_memory, 0);
	vkBindBufferMemory(device, buffer, buffer_memory, 0);

	VkQueue queue;
	vkGetDeviceQueue(device, 0, 0, &queue);
	const VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
	VkCommandPool pool;
	vkCreateCommandPool(device, &pool_info, NULL, &pool);
	const VkCommandBufferAllocateInfo cmd_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                              .commandPool = pool,
	                                              .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                              .commandBufferCount = 1};
	VkCommandBuffer cmd;
	vkAllocateCommandBuffers(device, &cmd_info, &cmd);
	const VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	vkBeginCommandBuffer(cmd, &begin);
	VkImageMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
	                                .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
	                                .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	                                .newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
	                                .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
	                                .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
	                                .image = image,
	                                .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0, NULL,
	                     1, &barrier);
	const VkClearColorValue color = {.float32 = {1.0f, 0.0f, 1.0f, 1.0f}};
	vkCmdClearColorImage(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &color, 1, &barrier.subresourceRange);
	barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
	barrier.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
	barrier.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0, NULL, 1,
	                     &barrier);
	const VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
	                                  .imageExtent = {SIZE, SIZE, 1}};
	vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer, 1, &region);
	vkEndCommandBuffer(cmd);
	const VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
	                             .pCommandBuffers = &cmd};
	vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE);
	vkQueueWaitIdle(queue);
	uint32_t *pixels = NULL;
	vkMapMemory(device, buffer_memory, 0, VK_WHOLE_SIZE, 0, (void **)&pixels);
	unsigned wrong = 0;
	for (uint32_t i = 0; pixels && i < SIZE * SIZE; i++)
		wrong += pixels[i] != 0xffff00ffu;
	vkUnmapMemory(device, buffer_memory);
	if (!pixels || wrong)
		fprintf(stderr, "uda-layer-probe: %u wrong pixels\n", wrong);
	else
		printf("pixels ok\n");

	vkDestroyCommandPool(device, pool, NULL);
	vkDestroyBuffer(device, buffer, NULL);
	vkDestroyImage(device, image, NULL);
	vkFreeMemory(device, buffer_memory, NULL);
	vkFreeMemory(device, image_memory, NULL);
	vkDestroyDevice(device, NULL);
	vkDestroyInstance(instance, NULL);
	if (messages)
		fprintf(stderr, "uda-layer-probe: %u validation messages\n", messages);
	return (!pixels || wrong || messages) ? 1 : 0;
}
