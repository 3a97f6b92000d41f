/*
 * Importing a uda allocation into the application's VkDevice.
 *
 * vkCreateImage with VkImageUdaAllocationCreateInfoUDA: the image is made
 * to the allocation's measure (tiling from its layout, the handle type the
 * layer will import through). vkAllocateMemory with
 * VkImportMemoryUdaAllocationInfoUDA: the layer exports an fd of that
 * handle type from the allocation and imports it, dedicated to the image.
 * The layer's structs never reach the driver: they are unlinked from the
 * application's chain for the call and linked back afterwards.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <uda/uda_backend.h>
#include <vulkan/vk_uda.h>

#include "layer_export.h"
#include "layer_import.h"
#include "layer_objects.h"

/* A struct of the chain and the link that points at it, so it can be
 * taken out for the call down and put back after. */
struct chain_cut {
	VkBaseOutStructure *holder; /* whose pNext pointed at it; NULL: the head */
	VkBaseOutStructure *removed;
};

static VkBaseOutStructure *find_in_chain(const void *head, VkStructureType type, VkBaseOutStructure **out_holder)
{
	VkBaseOutStructure *holder = NULL;
	for (VkBaseOutStructure *s = (VkBaseOutStructure *)head; s; holder = s, s = s->pNext) {
		if (s->sType == type) {
			if (out_holder)
				*out_holder = holder;
			return s;
		}
	}
	return NULL;
}

/* Removes the first struct of `type` from the chain starting at *head
 * (the head pointer is the layer's copy; inner links are the
 * application's and are restored by chain_restore). */
static struct chain_cut chain_remove(const void **head, VkStructureType type)
{
	struct chain_cut cut = {0};
	cut.removed = find_in_chain(*head, type, &cut.holder);
	if (cut.removed) {
		if (cut.holder)
			cut.holder->pNext = cut.removed->pNext;
		else
			*head = cut.removed->pNext;
	}
	return cut;
}

static void chain_restore(struct chain_cut cut)
{
	if (cut.removed && cut.holder)
		cut.holder->pNext = cut.removed;
}

/* The layer's struct of `wanted` type in the chain (NULL if none), after
 * one pass that also finds what must never reach the driver: a second
 * struct of that type, or a struct of the layer's block that does not
 * belong to this call. Drivers know none of the layer's types. */
static const VkBaseInStructure *find_own_struct(const void *head, VkStructureType wanted, bool *out_stray)
{
	const VkBaseInStructure *found = NULL;
	*out_stray = false;
	for (const VkBaseInStructure *s = head; s; s = s->pNext) {
		if ((uint32_t)s->sType < (uint32_t)VK_UDA_STRUCTURE_TYPE_BASE ||
		    (uint32_t)s->sType >= (uint32_t)VK_UDA_STRUCTURE_TYPE_BASE + 1000)
			continue;
		if (s->sType != wanted || found)
			*out_stray = true;
		else
			found = s;
	}
	return found;
}

/* How the allocation's memory can reach this device. */
static VkExternalMemoryHandleTypeFlagBits choose_handle(const struct layer_device *device,
                                                        const uda_allocation_metadata *m,
                                                        const uda_capability_set_list *set,
                                                        uda_handle_type *out_type)
{
	if (device->has_opaque_fd && uda_backend_set_has_u32(set, 0, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_OPAQUE_FD) &&
	    memcmp(m->device_uuid, device->device_uuid, VK_UUID_SIZE) == 0 &&
	    memcmp(m->driver_uuid, device->driver_uuid, VK_UUID_SIZE) == 0) {
		*out_type = UDA_HANDLE_TYPE_OPAQUE_FD;
		return VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
	}
	if (device->has_dma_buf && uda_backend_set_has_u32(set, 0, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF)) {
		*out_type = UDA_HANDLE_TYPE_DMA_BUF;
		return VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
	}
	if (device->has_host_memory && uda_backend_set_has_u32(set, 0, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_MEMFD)) {
		*out_type = UDA_HANDLE_TYPE_MEMFD;
		return VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
	}
	*out_type = UDA_HANDLE_TYPE_NONE;
	return 0;
}

/* The tiling the allocation's layout means on this device. */
static bool choose_tiling(const struct layer_device *device, const uda_capability_set_list *set,
                          uda_handle_type handle, VkImageTiling *out_tiling, uint64_t *out_modifier)
{
	uda_capability layout;
	if (uda_capability_set_list_get_layout(set, 0, &layout) != UDA_SUCCESS)
		return false;
	*out_modifier = 0;
	if (layout.name == UDA_CAPABILITY_LAYOUT_OPAQUE) {
		const uint8_t *p = layout.payload;
		if (handle != UDA_HANDLE_TYPE_OPAQUE_FD || layout.length != UDA_OPAQUE_LAYOUT_PAYLOAD_SIZE ||
		    memcmp(p, device->driver_uuid, VK_UUID_SIZE) != 0 || p[16] != UDA_OPAQUE_LAYOUT_OPTIMAL_TILING ||
		    p[17] || p[18] || p[19])
			return false;
		*out_tiling = VK_IMAGE_TILING_OPTIMAL;
		return true;
	}
	if (uda_capability_set_list_get_modifier(set, 0, out_modifier) != UDA_SUCCESS)
		return false;
	if (handle == UDA_HANDLE_TYPE_DMA_BUF && device->has_modifiers) {
		*out_tiling = VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT;
		return true;
	}
	/* Without explicit layouts only the driver's own linear tiling. */
	*out_tiling = VK_IMAGE_TILING_LINEAR;
	return *out_modifier == 0;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateImage(VkDevice handle, const VkImageCreateInfo *info,
                                                       const VkAllocationCallbacks *allocator, VkImage *out_image)
{
	struct layer_device *device = layer_device_find(dispatch_key(handle));
	if (!device)
		return VK_ERROR_INITIALIZATION_FAILED;
	bool stray;
	const VkImageUdaAllocationCreateInfoUDA *uda_info = (const VkImageUdaAllocationCreateInfoUDA *)find_own_struct(
		info->pNext, VK_STRUCTURE_TYPE_IMAGE_UDA_ALLOCATION_CREATE_INFO_UDA, &stray);
	if (stray)
		return layer_report(device->instance, VK_ERROR_INITIALIZATION_FAILED,
		                    "vkCreateImage: a VK_UDA_external_allocation struct that does not belong in "
		                    "VkImageCreateInfo, or a second VkImageUdaAllocationCreateInfoUDA");
	if (!uda_info) {
		VkResult result = device->next.CreateImage(handle, info, allocator, out_image);
		if (result == VK_SUCCESS)
			layer_export_note_image(device, info, *out_image);
		return result;
	}
	if (!uda_info->allocation)
		return layer_report(device->instance, VK_ERROR_INITIALIZATION_FAILED,
		                    "vkCreateImage: VkImageUdaAllocationCreateInfoUDA::allocation is NULL");

	uda_allocation_metadata m = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	const uda_capability_set_list *set = NULL;
	uda_format_info format;
	if (uda_allocation_get_metadata(uda_info->allocation, &m) != UDA_SUCCESS ||
	    uda_allocation_get_capability_set(uda_info->allocation, &set) != UDA_SUCCESS ||
	    uda_format_get_info(m.format, &format) != UDA_SUCCESS)
		return VK_ERROR_INITIALIZATION_FAILED;
	if (info->imageType != VK_IMAGE_TYPE_2D || info->format != (VkFormat)format.vk_format || !format.vk_format ||
	    info->extent.width != m.width || info->extent.height != m.height || info->extent.depth != 1 ||
	    info->mipLevels != 1 || info->arrayLayers != 1 || info->samples != VK_SAMPLE_COUNT_1_BIT)
		return layer_report(device->instance, VK_ERROR_FORMAT_NOT_SUPPORTED,
		                    "vkCreateImage: the image does not match its uda allocation (2D, the allocation's "
		                    "format and extent, one mip level, layer and sample)");
	uda_handle_type handle_type;
	const VkExternalMemoryHandleTypeFlagBits handle_bit = choose_handle(device, &m, set, &handle_type);
	VkImageCreateInfo down = *info;
	uint64_t modifier = 0;
	if (!handle_bit || !choose_tiling(device, set, handle_type, &down.tiling, &modifier))
		return layer_report(device->instance, VK_ERROR_INVALID_EXTERNAL_HANDLE,
		                    "vkCreateImage: no handle type or layout brings this uda allocation to this device");

	/* An opaque import needs the image the exporter made: where a Vulkan
	 * device of this hardware made it, take its usage and flags, and
	 * refuse usage beyond them. */
	/* One per Vulkan device of this hardware that negotiated the set: the
	 * exporter made its image for all of them. */
	uda_capability params[UDA_MAX_NEGOTIATION_DEVICES + UDA_MAX_NEGOTIATION_PEERS];
	uint32_t found = handle_type == UDA_HANDLE_TYPE_OPAQUE_FD
	                         ? uda_backend_find_capabilities(set, 0, UDA_VENDOR_API_BACKEND,
	                                                         UDA_CAPABILITY_VULKAN_IMAGE_PARAMS, device->device_uuid,
	                                                         params, sizeof(params) / sizeof(params[0]))
	                         : 0;
	if (found > sizeof(params) / sizeof(params[0]))
		found = 0;
	uint32_t usage = 0, flags = 0;
	bool have_params = false;
	for (uint32_t i = 0; i < found; i++) {
		if (params[i].length != UDA_CAPABILITY_VULKAN_IMAGE_PARAMS_SIZE)
			continue;
		const uint8_t *p = params[i].payload;
		usage |= p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
		flags |= p[4] | p[5] << 8 | p[6] << 16 | (uint32_t)p[7] << 24;
		have_params = true;
	}
	if (have_params) {
		if (info->usage & ~usage || info->flags & ~flags)
			return layer_report(device->instance, VK_ERROR_FORMAT_NOT_SUPPORTED,
			                    "vkCreateImage: usage or flags beyond those of the image the uda allocation "
			                    "was exported from (an opaque import needs an identical image)");
		down.usage = usage;
		down.flags = flags;
	}

	/* The layer's struct goes, and so does any external-memory struct of
	 * the application's: the layer states the handle type itself. */
	struct chain_cut ours = chain_remove(&down.pNext, VK_STRUCTURE_TYPE_IMAGE_UDA_ALLOCATION_CREATE_INFO_UDA);
	struct chain_cut theirs = chain_remove(&down.pNext, VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO);
	VkSubresourceLayout planes[UDA_MAX_PLANES] = {{0}};
	for (uint32_t p = 0; p < m.plane_count && p < UDA_MAX_PLANES; p++) {
		planes[p].offset = m.planes[p].offset;
		planes[p].rowPitch = m.planes[p].pitch;
	}
	VkImageDrmFormatModifierExplicitCreateInfoEXT explicit_layout = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_EXPLICIT_CREATE_INFO_EXT,
		.pNext = down.pNext,
		.drmFormatModifier = modifier,
		.drmFormatModifierPlaneCount = m.plane_count,
		.pPlaneLayouts = planes,
	};
	VkExternalMemoryImageCreateInfo external = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
		.pNext = down.tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT ? (const void *)&explicit_layout : down.pNext,
		.handleTypes = handle_bit,
	};
	down.pNext = &external;
	down.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
	VkResult result = device->next.CreateImage(handle, &down, allocator, out_image);
	chain_restore(theirs);
	chain_restore(ours);
	if (result != VK_SUCCESS || down.tiling != VK_IMAGE_TILING_LINEAR)
		return result;
	/* Linear without modifiers: the driver's pitch must be the memory's. */
	const VkImageSubresource subresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
	VkSubresourceLayout layout;
	device->next.GetImageSubresourceLayout(handle, *out_image, &subresource, &layout);
	if (layout.rowPitch != m.planes[0].pitch || layout.offset != m.planes[0].offset) {
		device->next.DestroyImage(handle, *out_image, allocator);
		*out_image = VK_NULL_HANDLE;
		return VK_ERROR_INVALID_EXTERNAL_HANDLE;
	}
	return VK_SUCCESS;
}

/* MEMFD: the layer maps the memfd and imports the mapping as host memory,
 * keeping it until the application frees the VkDeviceMemory. Host-pointer
 * imports are never dedicated, and use a memory type the pointer allows
 * (the application's, when it does). Takes fd. */
static VkResult import_host_memory(struct layer_device *device, const VkMemoryAllocateInfo *info, uint64_t size,
                                   int fd, const VkAllocationCallbacks *allocator, VkDeviceMemory *out_memory)
{
	const VkExternalMemoryHandleTypeFlagBits handle_bit = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
	if (size > SIZE_MAX || size % device->host_pointer_alignment || info->allocationSize > size) {
		close(fd);
		return VK_ERROR_INVALID_EXTERNAL_HANDLE;
	}
	void *pointer = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (pointer == MAP_FAILED)
		return VK_ERROR_INVALID_EXTERNAL_HANDLE;
	VkMemoryHostPointerPropertiesEXT host = {.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
	VkResult result =
		device->next.GetMemoryHostPointerPropertiesEXT(device->handle, handle_bit, pointer, &host);
	VkMemoryAllocateInfo down = *info;
	if (result == VK_SUCCESS && !(host.memoryTypeBits & (1u << info->memoryTypeIndex)))
		down.memoryTypeIndex = host.memoryTypeBits ? (uint32_t)__builtin_ctz(host.memoryTypeBits) : 0;
	if (result != VK_SUCCESS || !host.memoryTypeBits) {
		munmap(pointer, (size_t)size);
		return VK_ERROR_INVALID_EXTERNAL_HANDLE;
	}
	/* Whole host-pointer granules: the pointer is page-aligned and the
	 * memfd's size a multiple of the import alignment. */
	down.allocationSize = size;
	struct chain_cut ours = chain_remove(&down.pNext, VK_STRUCTURE_TYPE_IMPORT_MEMORY_UDA_ALLOCATION_INFO_UDA);
	struct chain_cut dedicated = chain_remove(&down.pNext, VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO);
	const VkImportMemoryHostPointerInfoEXT import = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
		.pNext = down.pNext,
		.handleType = handle_bit,
		.pHostPointer = pointer,
	};
	down.pNext = &import;
	result = device->next.AllocateMemory(device->handle, &down, allocator, out_memory);
	chain_restore(dedicated);
	chain_restore(ours);
	if (result == VK_SUCCESS && !layer_host_mapping_add(device, *out_memory, pointer, (size_t)size)) {
		device->next.FreeMemory(device->handle, *out_memory, allocator);
		result = VK_ERROR_OUT_OF_HOST_MEMORY;
	}
	if (result != VK_SUCCESS)
		munmap(pointer, (size_t)size);
	return result;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_AllocateMemory(VkDevice handle, const VkMemoryAllocateInfo *info,
                                                          const VkAllocationCallbacks *allocator,
                                                          VkDeviceMemory *out_memory)
{
	struct layer_device *device = layer_device_find(dispatch_key(handle));
	if (!device)
		return VK_ERROR_INITIALIZATION_FAILED;
	bool stray;
	const VkImportMemoryUdaAllocationInfoUDA *uda_info = (const VkImportMemoryUdaAllocationInfoUDA *)find_own_struct(
		info->pNext, VK_STRUCTURE_TYPE_IMPORT_MEMORY_UDA_ALLOCATION_INFO_UDA, &stray);
	if (stray)
		return layer_report(device->instance, VK_ERROR_INITIALIZATION_FAILED,
		                    "vkAllocateMemory: a VK_UDA_external_allocation struct that does not belong in "
		                    "VkMemoryAllocateInfo, or a second VkImportMemoryUdaAllocationInfoUDA");
	if (!uda_info) {
		VkResult result = device->next.AllocateMemory(handle, info, allocator, out_memory);
		if (result == VK_SUCCESS)
			layer_export_note_memory(device, info, *out_memory);
		return result;
	}
	const VkMemoryDedicatedAllocateInfo *dedicated = (const VkMemoryDedicatedAllocateInfo *)find_in_chain(
		info->pNext, VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO, NULL);
	if (!uda_info->allocation || !dedicated || dedicated->image == VK_NULL_HANDLE)
		return layer_report(device->instance, VK_ERROR_INITIALIZATION_FAILED,
		                    "vkAllocateMemory: VkImportMemoryUdaAllocationInfoUDA needs an allocation and a "
		                    "VkMemoryDedicatedAllocateInfo naming its image");
	/* Another import of the application's would contradict this one. */
	if (find_in_chain(info->pNext, VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR, NULL) ||
	    find_in_chain(info->pNext, VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT, NULL) ||
	    find_in_chain(info->pNext, VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO, NULL))
		return VK_ERROR_INVALID_EXTERNAL_HANDLE;

	uda_allocation_metadata m = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	const uda_capability_set_list *set = NULL;
	if (uda_allocation_get_metadata(uda_info->allocation, &m) != UDA_SUCCESS ||
	    uda_allocation_get_capability_set(uda_info->allocation, &set) != UDA_SUCCESS)
		return VK_ERROR_INITIALIZATION_FAILED;
	uda_handle_type handle_type;
	const VkExternalMemoryHandleTypeFlagBits handle_bit = choose_handle(device, &m, set, &handle_type);
	if (!handle_bit)
		return VK_ERROR_INVALID_EXTERNAL_HANDLE;
	/* An opaque import repeats the export's size, the image's. */
	if (handle_type == UDA_HANDLE_TYPE_OPAQUE_FD ? info->allocationSize != m.size : info->allocationSize > m.size)
		return layer_report(device->instance, VK_ERROR_INVALID_EXTERNAL_HANDLE,
		                    "vkAllocateMemory: allocationSize does not match the uda allocation's size");
	/* The image was made with this handle type by layer_CreateImage. */
	int fd = -1;
	if (uda_allocation_export(uda_info->allocation, handle_type, &fd) != UDA_SUCCESS)
		return VK_ERROR_INVALID_EXTERNAL_HANDLE;
	if (handle_type == UDA_HANDLE_TYPE_MEMFD)
		return import_host_memory(device, info, m.size, fd, allocator, out_memory);

	VkMemoryAllocateInfo down = *info;
	struct chain_cut ours = chain_remove(&down.pNext, VK_STRUCTURE_TYPE_IMPORT_MEMORY_UDA_ALLOCATION_INFO_UDA);
	const VkImportMemoryFdInfoKHR import = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
		.pNext = down.pNext,
		.handleType = handle_bit,
		.fd = fd,
	};
	down.pNext = &import;
	VkResult result = device->next.AllocateMemory(handle, &down, allocator, out_memory);
	chain_restore(ours);
	/* The driver owns the fd only when the import succeeded. */
	if (result != VK_SUCCESS)
		close(fd);
	return result;
}

static VKAPI_ATTR void VKAPI_CALL layer_FreeMemory(VkDevice handle, VkDeviceMemory memory,
                                                  const VkAllocationCallbacks *allocator)
{
	struct layer_device *device = layer_device_find(dispatch_key(handle));
	if (!device)
		return;
	device->next.FreeMemory(handle, memory, allocator);
	if (memory)
		layer_export_memory_remove(device, memory);
	struct layer_host_mapping *mapping = memory ? layer_host_mapping_take(device, memory) : NULL;
	if (mapping) {
		munmap(mapping->pointer, mapping->size);
		free(mapping);
	}
}

PFN_vkVoidFunction layer_import_command(const char *name)
{
	PFN_vkVoidFunction exported = layer_export_command(name);
	if (exported)
		return exported;
	if (strcmp(name, "vkCreateImage") == 0)
		return (PFN_vkVoidFunction)layer_CreateImage;
	if (strcmp(name, "vkAllocateMemory") == 0)
		return (PFN_vkVoidFunction)layer_AllocateMemory;
	if (strcmp(name, "vkFreeMemory") == 0)
		return (PFN_vkVoidFunction)layer_FreeMemory;
	return NULL;
}
