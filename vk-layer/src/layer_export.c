/*
 * vkExportMemoryUdaUDA: serialized uda metadata and an fd for a dedicated,
 * exportable image allocation of the application's, which any uda device
 * (GL here, a display or another process there) imports with
 * uda_import_serialized.
 *
 * The layer learns what it needs while the application creates the image
 * and allocates the memory (format, extent, tiling, handle types, size),
 * and builds the capability set the metadata carries with a context of its
 * own that loads no backends.
 */
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include <uda/uda_backend.h>
#include <vulkan/vk_uda.h>

#include "layer_export.h"

static const VkExternalMemoryHandleTypeFlags exportable_handles =
	VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT | VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;

static const void *find_struct(const void *chain, VkStructureType type)
{
	for (const VkBaseInStructure *s = chain; s; s = s->pNext) {
		if (s->sType == type)
			return s;
	}
	return NULL;
}

void layer_export_note_image(struct layer_device *device, const VkImageCreateInfo *info, VkImage image)
{
	const VkExternalMemoryImageCreateInfo *external =
		find_struct(info->pNext, VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO);
	if (!external || !(external->handleTypes & exportable_handles) || info->imageType != VK_IMAGE_TYPE_2D ||
	    info->mipLevels != 1 || info->arrayLayers != 1 || info->samples != VK_SAMPLE_COUNT_1_BIT ||
	    (info->tiling != VK_IMAGE_TILING_OPTIMAL && info->tiling != VK_IMAGE_TILING_LINEAR))
		return;
	const struct layer_export_image record = {
		.image = image,
		.format = info->format,
		.extent = info->extent,
		.tiling = info->tiling,
		.handles = external->handleTypes,
	};
	layer_export_image_add(device, &record);
}

void layer_export_note_memory(struct layer_device *device, const VkMemoryAllocateInfo *info, VkDeviceMemory memory)
{
	const VkExportMemoryAllocateInfo *export_info =
		find_struct(info->pNext, VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO);
	const VkMemoryDedicatedAllocateInfo *dedicated =
		find_struct(info->pNext, VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO);
	if (!export_info || !(export_info->handleTypes & exportable_handles) || !dedicated || !dedicated->image)
		return;
	const struct layer_export_memory record = {
		.memory = memory,
		.size = info->allocationSize,
		.handles = export_info->handleTypes,
		.image = dedicated->image,
	};
	layer_export_memory_add(device, &record);
}

/* A context for building the metadata's capability set: no backends, no
 * devices, made once per process. */
static pthread_once_t context_once = PTHREAD_ONCE_INIT;
static uda_context *export_context;

/* With the module: the loader unloads layers when their last instance
 * goes, and whatever stays loaded ends with the process. */
__attribute__((destructor)) static void destroy_export_context(void)
{
	uda_context_destroy(export_context);
	export_context = NULL;
}

static void create_export_context(void)
{
	const uda_context_create_info info = {
		.type = UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO,
		.flags = UDA_CONTEXT_CREATE_NO_BACKENDS,
	};
	if (uda_context_create(&info, &export_context) != UDA_SUCCESS)
		export_context = NULL;
}

/* The fourcc of a VkFormat; with alpha where the table has a choice. */
static uint32_t fourcc_of(VkFormat format, uda_format_info *out)
{
	uint32_t count = 0, found = 0;
	uda_format_enumerate(&count, NULL);
	uint32_t fourccs[128];
	if (count > 128)
		count = 128;
	uda_format_enumerate(&count, fourccs);
	for (uint32_t i = 0; i < count; i++) {
		uda_format_info info;
		if (uda_format_get_info(fourccs[i], &info) != UDA_SUCCESS || info.vk_format != (uint32_t)format ||
		    info.plane_count != 1)
			continue;
		if (!found || (info.has_alpha && !out->has_alpha)) {
			*out = info;
			found = info.fourcc;
		}
	}
	return found;
}

static uda_result build_set(const struct layer_device *device, VkImageTiling tiling, uda_handle_type handle,
                            uda_capability_set_list **out)
{
	uda_capability_set_builder *builder;
	uda_result result = uda_capability_set_builder_create(export_context, &builder);
	if (result != UDA_SUCCESS)
		return result;
	uint8_t opaque[UDA_OPAQUE_LAYOUT_PAYLOAD_SIZE] = {0};
	memcpy(opaque, device->driver_uuid, UDA_UUID_SIZE);
	opaque[UDA_UUID_SIZE] = UDA_OPAQUE_LAYOUT_OPTIMAL_TILING;
	const uda_capability layout = {.name = UDA_CAPABILITY_LAYOUT_OPAQUE, .length = sizeof(opaque), .payload = opaque};
	result = tiling == VK_IMAGE_TILING_OPTIMAL ? uda_capability_set_builder_add_capability(builder, &layout)
	                                           : uda_capability_set_builder_add_layout(builder, 0 /* linear */, 0);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_add_u32(builder, UDA_CAPABILITY_HANDLE, handle, 0);
	uda_capability_set_list *list = NULL;
	if (result == UDA_SUCCESS)
		result = uda_capability_set_list_create(export_context, &list);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_list_append_set(list, builder);
	uda_capability_set_builder_destroy(builder);
	if (result != UDA_SUCCESS) {
		uda_capability_set_list_destroy(list);
		return result;
	}
	*out = list;
	return UDA_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_ExportMemoryUdaUDA(VkDevice handle, const VkMemoryUdaExportInfoUDA *info,
                                                              int *out_fd, size_t *out_size, void *data)
{
	struct layer_device *device = layer_device_find(dispatch_key(handle));
	if (!device || !info || info->sType != VK_STRUCTURE_TYPE_MEMORY_UDA_EXPORT_INFO_UDA || !out_size ||
	    (data && !out_fd))
		return VK_ERROR_INITIALIZATION_FAILED;
	const VkExternalMemoryHandleTypeFlagBits bit = info->handleType == UDA_HANDLE_TYPE_OPAQUE_FD
	                                                       ? VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT
	                                               : info->handleType == UDA_HANDLE_TYPE_DMA_BUF
	                                                       ? VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
	                                                       : 0;
	struct layer_export_memory memory;
	struct layer_export_image image;
	uda_format_info format;
	if (!bit || !layer_export_memory_find(device, info->memory, &memory) ||
	    !layer_export_image_find(device, info->image, &image) || memory.image != info->image ||
	    !(memory.handles & bit) || !(image.handles & bit) || !fourcc_of(image.format, &format))
		return VK_ERROR_INVALID_EXTERNAL_HANDLE;
	pthread_once(&context_once, create_export_context);
	if (!export_context)
		return VK_ERROR_OUT_OF_HOST_MEMORY;

	uda_allocation_metadata m = {
		.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA,
		.width = image.extent.width,
		.height = image.extent.height,
		.format = format.fourcc,
		.handle_type = info->handleType,
		.size = memory.size,
		.plane_count = 1,
	};
	memcpy(m.device_uuid, device->device_uuid, UDA_UUID_SIZE);
	memcpy(m.driver_uuid, device->driver_uuid, UDA_UUID_SIZE);
	if (image.tiling == VK_IMAGE_TILING_LINEAR) {
		const VkImageSubresource subresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
		VkSubresourceLayout layout;
		device->next.GetImageSubresourceLayout(handle, info->image, &subresource, &layout);
		m.planes[0].offset = layout.offset;
		m.planes[0].pitch = layout.rowPitch;
	} else {
		m.planes[0].pitch = (uint64_t)(m.width + format.planes[0].block_width - 1) / format.planes[0].block_width *
		                    format.planes[0].bytes_per_block;
	}
	uda_capability_set_list *set = NULL;
	if (build_set(device, image.tiling, info->handleType, &set) != UDA_SUCCESS)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	size_t needed = 0;
	uda_result result = uda_allocation_metadata_serialize(export_context, &m, set, 0, NULL, 0, &needed);
	if (result != UDA_SUCCESS || !data || *out_size < needed) {
		uda_capability_set_list_destroy(set);
		const bool asked_size = result == UDA_SUCCESS && !data;
		*out_size = needed;
		return result != UDA_SUCCESS ? VK_ERROR_INVALID_EXTERNAL_HANDLE : asked_size ? VK_SUCCESS : VK_INCOMPLETE;
	}
	result = uda_allocation_metadata_serialize(export_context, &m, set, 0, data, *out_size, out_size);
	uda_capability_set_list_destroy(set);
	if (result != UDA_SUCCESS)
		return VK_ERROR_INVALID_EXTERNAL_HANDLE;

	const VkMemoryGetFdInfoKHR fd_info = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
		.memory = info->memory,
		.handleType = bit,
	};
	int fd = -1;
	VkResult vr = device->next.GetMemoryFdKHR(handle, &fd_info, &fd);
	if (vr != VK_SUCCESS)
		return vr;
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		close(fd);
		return VK_ERROR_TOO_MANY_OBJECTS;
	}
	*out_fd = fd;
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyImage(VkDevice handle, VkImage image,
                                                    const VkAllocationCallbacks *allocator)
{
	struct layer_device *device = layer_device_find(dispatch_key(handle));
	if (!device)
		return;
	device->next.DestroyImage(handle, image, allocator);
	if (image)
		layer_export_image_remove(device, image);
}

PFN_vkVoidFunction layer_export_command(const char *name)
{
	if (strcmp(name, "vkExportMemoryUdaUDA") == 0)
		return (PFN_vkVoidFunction)layer_ExportMemoryUdaUDA;
	if (strcmp(name, "vkDestroyImage") == 0)
		return (PFN_vkVoidFunction)layer_DestroyImage;
	return NULL;
}
