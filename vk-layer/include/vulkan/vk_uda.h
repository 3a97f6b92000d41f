/*
 * VK_UDA_external_allocation: uda allocations in Vulkan, through the
 * VK_LAYER_UDA_allocator implicit layer, on any driver.
 *
 * An application that holds a uda_allocation (allocated by any uda device,
 * or imported from another process) makes a VkImage of it and imports its
 * memory with two structs; the layer picks the handle type (an opaque fd
 * between devices of one driver, else a dma-buf), exports it from the
 * allocation and hands the driver the ordinary external-memory structs.
 * vkExportMemoryUdaUDA goes the other way: an fd and uda metadata for
 * memory the application allocated exportable. vkGetPhysicalDeviceUdaDeviceUDA
 * and vkGetPhysicalDeviceUdaCapabilitySetsUDA connect a VkPhysicalDevice to
 * the core, so a Vulkan application negotiates with other consumers in
 * Vulkan terms.
 */
#ifndef VK_UDA_H_
#define VK_UDA_H_ 1

#include <vulkan/vulkan_core.h>

#include <uda/uda.h>

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
#define VK_STRUCTURE_TYPE_IMAGE_UDA_ALLOCATION_CREATE_INFO_UDA ((VkStructureType)(VK_UDA_STRUCTURE_TYPE_BASE + 0))
#define VK_STRUCTURE_TYPE_IMPORT_MEMORY_UDA_ALLOCATION_INFO_UDA ((VkStructureType)(VK_UDA_STRUCTURE_TYPE_BASE + 1))
#define VK_STRUCTURE_TYPE_MEMORY_UDA_EXPORT_INFO_UDA ((VkStructureType)(VK_UDA_STRUCTURE_TYPE_BASE + 2))
#define VK_STRUCTURE_TYPE_UDA_CAPABILITY_QUERY_UDA ((VkStructureType)(VK_UDA_STRUCTURE_TYPE_BASE + 3))

/* Chained to VkImageCreateInfo: the image is the one the allocation's
 * memory holds. imageType 2D, format (the allocation's fourcc's VkFormat),
 * extent (its width, height, 1), one mip level, one layer and one sample
 * must match the allocation; the layer sets tiling from the allocation's
 * layout (optimal for the driver's opaque layout, linear, or the DRM
 * format modifier with the allocation's planes) and the external-memory
 * handle type it will import through, replacing any the application
 * chained. Mismatches fail with VK_ERROR_FORMAT_NOT_SUPPORTED; an
 * allocation no handle type can bring to this device with
 * VK_ERROR_INVALID_EXTERNAL_HANDLE; a NULL allocation with
 * VK_ERROR_INITIALIZATION_FAILED. */
typedef struct VkImageUdaAllocationCreateInfoUDA {
	VkStructureType sType;
	const void *pNext;
	uda_allocation *allocation;
} VkImageUdaAllocationCreateInfoUDA;

/* Chained to VkMemoryAllocateInfo, together with a
 * VkMemoryDedicatedAllocateInfo naming an image made with
 * VkImageUdaAllocationCreateInfoUDA of the same allocation: imports the
 * allocation's memory. allocationSize and memoryTypeIndex come from
 * vkGetImageMemoryRequirements as usual. The allocation must outlive
 * nothing: the memory holds its own reference to what it imported. */
typedef struct VkImportMemoryUdaAllocationInfoUDA {
	VkStructureType sType;
	const void *pNext;
	uda_allocation *allocation;
} VkImportMemoryUdaAllocationInfoUDA;

/* Export: what a uda device in this or another process needs to import
 * memory the application allocated. The memory must have been allocated
 * with VkExportMemoryAllocateInfo including the handle type (OPAQUE_FD or
 * DMA_BUF) and a VkMemoryDedicatedAllocateInfo naming `image`, itself
 * created with VkExternalMemoryImageCreateInfo of that handle type, 2D,
 * one mip level, one layer, one sample, optimal or linear tiling, of a
 * format uda's table has. */
typedef struct VkMemoryUdaExportInfoUDA {
	VkStructureType sType; /* VK_STRUCTURE_TYPE_MEMORY_UDA_EXPORT_INFO_UDA */
	const void *pNext;
	VkDeviceMemory memory;
	VkImage image;
	uda_handle_type handleType; /* UDA_HANDLE_TYPE_OPAQUE_FD or _DMA_BUF */
} VkMemoryUdaExportInfoUDA;

/* Two calls: with pMetadata NULL, *pMetadataSize receives the size of the
 * serialized metadata (uda_allocation_metadata_serialize's format) and no
 * fd is made; with a buffer, the metadata is written and *pFd receives a
 * new fd (close-on-exec, the caller's) of the handle type. Pass both to
 * uda_import_serialized on the importing device. VK_INCOMPLETE when the
 * buffer is too small (nothing else written); VK_ERROR_INVALID_EXTERNAL_HANDLE
 * for memory or images the layer did not see made exportable. */
typedef VkResult(VKAPI_PTR *PFN_vkExportMemoryUdaUDA)(VkDevice device, const VkMemoryUdaExportInfoUDA *pInfo,
                                                     int *pFd, size_t *pMetadataSize, void *pMetadata);

/* The uda device of `context` that is this physical device: the one its
 * Vulkan backend registered with the same device UUID. With it the
 * application negotiates with GL, display or other consumers through the
 * core (uda_negotiate, uda_negotiate_allocate). VK_ERROR_INITIALIZATION_FAILED
 * if the context has no such device. */
typedef VkResult(VKAPI_PTR *PFN_vkGetPhysicalDeviceUdaDeviceUDA)(VkPhysicalDevice physicalDevice,
                                                                uda_context *context, uda_device **pDevice);

/* What the device can do with an image of `format` and `extent` for
 * `usage`, in Vulkan terms. */
typedef struct VkUdaCapabilityQueryUDA {
	VkStructureType sType; /* VK_STRUCTURE_TYPE_UDA_CAPABILITY_QUERY_UDA */
	const void *pNext;
	uda_context *context;
	VkFormat format;
	VkExtent2D extent;
	/* COLOR_ATTACHMENT, SAMPLED, STORAGE, TRANSFER_SRC, TRANSFER_DST. */
	VkImageUsageFlags usage;
} VkUdaCapabilityQueryUDA;

/* The device's capability sets for the query, best first, as a list the
 * caller owns (uda_capability_set_list_destroy). VK_ERROR_FORMAT_NOT_SUPPORTED
 * for a format uda's table lacks or usage it cannot express, or when the
 * device offers nothing. */
typedef VkResult(VKAPI_PTR *PFN_vkGetPhysicalDeviceUdaCapabilitySetsUDA)(VkPhysicalDevice physicalDevice,
                                                                        const VkUdaCapabilityQueryUDA *pQuery,
                                                                        uda_capability_set_list **pSets);

#ifdef __cplusplus
}
#endif

#endif /* VK_UDA_H_ */
