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
	 * family has them); the backend submits to it only inside
	 * uda_allocation_reallocate with UDA_REALLOCATE_COPY_CONTENTS, so
	 * the application may too, with the usual external synchronization
	 * (that call included). */
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

/* Chained to uda_transition::next for an allocation of the vulkan
 * backend: each operation of the transition as the image memory barrier
 * that performs it, to record with srcStageMask and dstStageMask of the
 * application's choosing (ALL_COMMANDS is always right). Memory crosses
 * devices in GENERAL layout owned by VK_QUEUE_FAMILY_EXTERNAL, so:
 * - a RELEASE hands the image over: oldLayout GENERAL (set it to the
 *   image's current layout, and the barrier changes both at once),
 *   srcAccessMask MEMORY_WRITE, from the device's queue family to
 *   EXTERNAL;
 * - an ACQUIRE takes it back: GENERAL to GENERAL (set newLayout to the
 *   one needed next), dstAccessMask MEMORY_READ | MEMORY_WRITE, from
 *   EXTERNAL to the device's queue family.
 * That is also how a LOCAL compression the driver keeps is resolved
 * before other devices read the memory. */
typedef struct uda_vulkan_transition {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_VULKAN_TRANSITION */
	void *next;
	uint32_t barrier_count; /* uda_transition::op_count, same order */
	VkImageMemoryBarrier barriers[UDA_MAX_TRANSITION_OPS];
} uda_vulkan_transition;

#ifdef __cplusplus
}
#endif

#endif /* UDA_VULKAN_H */
