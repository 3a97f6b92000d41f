/*
 * Vulkan objects behind a uda allocation of the vulkan backend, for
 * applications that drive the backend's device themselves (record a
 * clear, copy, render). Applications with their own VkDevice import the
 * exported fd instead, or use the VK_LAYER_UDA_allocator layer.
 */
#ifndef UDA_VULKAN_H
#define UDA_VULKAN_H

#include <vulkan/vulkan_core.h>

#include <uda/uda.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct uda_vulkan_native {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_VULKAN_NATIVE */
	const void *next;
	/* The backend's own instance and device. The device has one queue,
	 * of queue_family_index (graphics, compute and transfer where the
	 * family has them); the backend never submits to it, so the
	 * application may, with the usual external synchronization. */
	VkInstance instance;
	VkPhysicalDevice physical_device;
	VkDevice device;
	uint32_t queue_family_index;
	/* Dedicated memory and the image bound to it; VK_NULL_HANDLE image
	 * for an import that is only a buffer (host memory of another
	 * layout). */
	VkDeviceMemory memory;
	VkDeviceSize memory_size;
	/* Created UNDEFINED, as external-memory images must be. Contents
	 * written outside this device (the CPU through a map, GL, another
	 * process) are acquired with a barrier from VK_QUEUE_FAMILY_EXTERNAL
	 * whose old layout is GENERAL. */
	VkImage image;
	VkFormat format;
	VkImageTiling tiling;
	VkImageUsageFlags usage;
	/* A buffer over the whole memory, for copies; VK_NULL_HANDLE where
	 * the memory type cannot back one. */
	VkBuffer buffer;
} uda_vulkan_native;

#ifdef __cplusplus
}
#endif

#endif /* UDA_VULKAN_H */
