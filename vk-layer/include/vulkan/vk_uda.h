/*
 * VK_UDA_external_allocation: uda allocations in Vulkan, through the
 * VK_LAYER_UDA_allocator implicit layer, on any driver.
 *
 * This header grows with the extension. So far it names the extension and
 * reserves its structure types; the structs that import and export
 * allocations, and the capability query, come next (see vk-layer/README.md).
 */
#ifndef VK_UDA_H_
#define VK_UDA_H_ 1

#include <vulkan/vulkan_core.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VK_UDA_external_allocation 1
#define VK_UDA_EXTERNAL_ALLOCATION_SPEC_VERSION 1
#define VK_UDA_EXTERNAL_ALLOCATION_EXTENSION_NAME "VK_UDA_external_allocation"

/* Structure types. Registered extension N uses 1000000000 + (N - 1) *
 * 1000 + offset; the registry has fewer than 1000 extensions, so the
 * block of extension number 900001 (1900000000 and up) cannot collide with
 * a registered value and still fits a 32-bit VkStructureType. */
#define VK_UDA_STRUCTURE_TYPE_BASE 1900000000
#define VK_STRUCTURE_TYPE_UDA_RESERVED_0 ((VkStructureType)(VK_UDA_STRUCTURE_TYPE_BASE + 0))

#ifdef __cplusplus
}
#endif

#endif /* VK_UDA_H_ */
