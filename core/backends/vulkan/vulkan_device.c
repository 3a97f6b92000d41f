/* Opening one physical device: its identity (UUIDs, name), the external
 * memory extensions it has, and a VkDevice with one queue. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vulkan_backend.h"

bool vulkan_has_extension(const struct vulkan_extension_list *list, const char *name)
{
	for (uint32_t i = 0; i < list->count; i++) {
		if (strcmp(list->properties[i].extensionName, name) == 0)
			return true;
	}
	return false;
}

static uint32_t pick_queue_family(VkPhysicalDevice physical)
{
	uint32_t count = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, NULL);
	VkQueueFamilyProperties *families = calloc(count ? count : 1, sizeof(*families));
	uint32_t chosen = 0;
	if (families) {
		vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families);
		/* Graphics first: clears, blits and render passes need it; the
		 * backend's own work is only copies. */
		const VkQueueFlags wanted[] = {VK_QUEUE_GRAPHICS_BIT, VK_QUEUE_COMPUTE_BIT, VK_QUEUE_TRANSFER_BIT};
		bool found = false;
		for (unsigned w = 0; w < 3 && !found; w++) {
			for (uint32_t i = 0; i < count && !found; i++) {
				if (families[i].queueFlags & wanted[w]) {
					chosen = i;
					found = true;
				}
			}
		}
	}
	free(families);
	return chosen;
}

bool vulkan_device_query_drm(const struct vulkan_device *device, VkPhysicalDeviceDrmPropertiesEXT *drm)
{
	if (!device->has_drm_properties)
		return false;
	VkPhysicalDeviceProperties2 properties = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = drm};
	vkGetPhysicalDeviceProperties2(device->physical, &properties);
	return true;
}

int vulkan_device_find_memory_type(const struct vulkan_device *device, uint32_t type_bits,
                                   VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred)
{
	int best = -1;
	int best_score = -1;
	for (uint32_t i = 0; i < device->memory.memoryTypeCount; i++) {
		VkMemoryPropertyFlags flags = device->memory.memoryTypes[i].propertyFlags;
		if (!(type_bits & (1u << i)) || (flags & required) != required)
			continue;
		int score = __builtin_popcount(flags & preferred);
		if (score > best_score) {
			best = (int)i;
			best_score = score;
		}
	}
	return best;
}

uda_result vulkan_device_open(struct vulkan_backend *backend, VkPhysicalDevice physical,
                              struct vulkan_device **out_device)
{
	uda_context *ctx = backend->ctx;
	VkPhysicalDeviceProperties base;
	vkGetPhysicalDeviceProperties(physical, &base);
	if (base.apiVersion < VK_API_VERSION_1_1)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "%s speaks Vulkan %u.%u, 1.1 is needed",
		                             base.deviceName, VK_API_VERSION_MAJOR(base.apiVersion),
		                             VK_API_VERSION_MINOR(base.apiVersion));

	struct vulkan_extension_list extensions = {0};
	if (vkEnumerateDeviceExtensionProperties(physical, NULL, &extensions.count, NULL) == VK_SUCCESS &&
	    extensions.count) {
		extensions.properties = calloc(extensions.count, sizeof(*extensions.properties));
		if (!extensions.properties ||
		    vkEnumerateDeviceExtensionProperties(physical, NULL, &extensions.count, extensions.properties) < 0)
			extensions.count = 0;
	}

	struct vulkan_device *device = calloc(1, sizeof(*device));
	if (!device) {
		free(extensions.properties);
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	device->backend = backend;
	device->physical = physical;
	device->api_version = base.apiVersion;
	device->has_external_memory_fd = vulkan_has_extension(&extensions, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
	device->has_external_memory_host = vulkan_has_extension(&extensions, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
	device->has_dma_buf = device->has_external_memory_fd &&
	                      vulkan_has_extension(&extensions, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME);
	device->has_drm_properties = vulkan_has_extension(&extensions, VK_EXT_PHYSICAL_DEVICE_DRM_EXTENSION_NAME);
	/* Modifiers need VK_KHR_image_format_list, core from Vulkan 1.2. */
	const bool format_list = base.apiVersion >= VK_API_VERSION_1_2 ||
	                         vulkan_has_extension(&extensions, VK_KHR_IMAGE_FORMAT_LIST_EXTENSION_NAME);
	device->has_drm_modifiers = device->has_dma_buf && format_list &&
	                            vulkan_has_extension(&extensions, VK_EXT_IMAGE_DRM_FORMAT_MODIFIER_EXTENSION_NAME);

	VkPhysicalDeviceExternalMemoryHostPropertiesEXT host = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT,
	};
	VkPhysicalDeviceDriverProperties driver = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
		.pNext = device->has_external_memory_host ? &host : NULL,
	};
	const bool knows_driver = base.apiVersion >= VK_API_VERSION_1_2 ||
	                          vulkan_has_extension(&extensions, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
	VkPhysicalDeviceIDProperties id = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES,
		.pNext = knows_driver ? (void *)&driver : driver.pNext,
	};
	VkPhysicalDeviceProperties2 properties = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id};
	vkGetPhysicalDeviceProperties2(physical, &properties);
	device->max_framebuffer_width = properties.properties.limits.maxFramebufferWidth;
	device->max_framebuffer_height = properties.properties.limits.maxFramebufferHeight;
	device->query_cache = vulkan_query_cache_create();
	if (!device->query_cache) {
		free(extensions.properties);
		free(device);
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	memcpy(device->device_uuid, id.deviceUUID, VK_UUID_SIZE);
	memcpy(device->driver_uuid, id.driverUUID, VK_UUID_SIZE);
	device->host_pointer_alignment = host.minImportedHostPointerAlignment;
	device->opaque_fds_are_mesa_files = knows_driver && driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
	snprintf(device->name, sizeof(device->name), "%s (Vulkan)", base.deviceName);
	vkGetPhysicalDeviceMemoryProperties(physical, &device->memory);

	const char *enabled[5 + VULKAN_VIDEO_EXTENSIONS];
	uint32_t enabled_count = 0;
	if (device->has_external_memory_fd)
		enabled[enabled_count++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
	if (device->has_external_memory_host)
		enabled[enabled_count++] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
	if (device->has_dma_buf)
		enabled[enabled_count++] = VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME;
	if (device->has_drm_modifiers) {
		enabled[enabled_count++] = VK_EXT_IMAGE_DRM_FORMAT_MODIFIER_EXTENSION_NAME;
		if (base.apiVersion < VK_API_VERSION_1_2)
			enabled[enabled_count++] = VK_KHR_IMAGE_FORMAT_LIST_EXTENSION_NAME;
	}
	struct vulkan_video_features video_features;
	vulkan_video_device_init(device, &extensions, enabled, &enabled_count, &video_features);
	free(extensions.properties);

	device->queue_family = pick_queue_family(physical);
	const float priority = 1.0f;
	const VkDeviceQueueCreateInfo queue = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = device->queue_family,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	const VkDeviceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.pNext = video_features.head,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &queue,
		.enabledExtensionCount = enabled_count,
		.ppEnabledExtensionNames = enabled,
	};
	VkResult vr = vkCreateDevice(physical, &info, NULL, &device->device);
	if (vr != VK_SUCCESS) {
		vulkan_query_cache_destroy(device->query_cache);
		free(device);
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "vkCreateDevice for %s: %s", base.deviceName,
		                             vulkan_result_string(vr));
	}
	if (device->has_external_memory_fd) {
		device->get_memory_fd = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(device->device, "vkGetMemoryFdKHR");
		device->get_memory_fd_properties = (PFN_vkGetMemoryFdPropertiesKHR)vkGetDeviceProcAddr(
			device->device, "vkGetMemoryFdPropertiesKHR");
	}
	if (device->has_drm_modifiers)
		device->get_image_modifier = (PFN_vkGetImageDrmFormatModifierPropertiesEXT)vkGetDeviceProcAddr(
			device->device, "vkGetImageDrmFormatModifierPropertiesEXT");
	if (device->has_external_memory_host)
		device->get_host_pointer_properties = (PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(
			device->device, "vkGetMemoryHostPointerPropertiesEXT");
	*out_device = device;
	return UDA_SUCCESS;
}

void vulkan_device_close(struct vulkan_device *device)
{
	vkDestroyDevice(device->device, NULL);
	vulkan_query_cache_destroy(device->query_cache);
	free(device);
}
