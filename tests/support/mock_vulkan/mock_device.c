/* The mock's VkDevice: images laid out as mock_formats.c says, memory in
 * memfds that leave as OPAQUE_FD or DMA_BUF and come back the same way,
 * and queues that accept work and do nothing with it. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mock_entry_points.h"
#include "mock_icd.h"

struct mock_image {
	const struct mock_format *format;
	VkImageTiling tiling;
	uint64_t modifier;
	VkImageUsageFlags usage;
	bool external;
	struct mock_layout layout;
};

struct mock_memory {
	int fd;
	VkDeviceSize size;
	uint32_t type;
	void *map;
	VkImage dedicated; /* VkMemoryDedicatedAllocateInfo's image */
};

struct mock_buffer {
	VkDeviceSize size;
};

struct mock_fence {
	bool signaled;
};

struct mock_command_pool {
	struct mock_command_buffer *buffers;
	VkCommandPoolCreateFlags flags;
};

static const uint32_t device_local_types = 1u << 0;
static const uint32_t all_types = 0xfu;

VKAPI_ATTR VkResult VKAPI_CALL mock_CreateDevice(VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
                                                 const VkAllocationCallbacks *allocator, VkDevice *out)
{
	for (uint32_t i = 0; i < info->enabledExtensionCount; i++) {
		if (!mock_has_device_extension(info->ppEnabledExtensionNames[i]))
			return VK_ERROR_EXTENSION_NOT_PRESENT;
	}
	for (uint32_t i = 0; i < info->queueCreateInfoCount; i++) {
		if (info->pQueueCreateInfos[i].queueFamilyIndex >= MOCK_QUEUE_FAMILIES)
			return VK_ERROR_INITIALIZATION_FAILED;
	}
	struct mock_device *device = calloc(1, sizeof(*device));
	if (!device)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	set_loader_magic_value(device);
	for (uint32_t i = 0; i < MOCK_QUEUE_FAMILIES; i++)
		set_loader_magic_value(&device->queues[i]);
	const VkPhysicalDeviceVideoEncodeAV1FeaturesKHR *encode_av1 =
		mock_find_struct(info->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VIDEO_ENCODE_AV1_FEATURES_KHR);
	device->encode_av1 = encode_av1 && encode_av1->videoEncodeAV1;
	const VkPhysicalDeviceVideoDecodeVP9FeaturesKHR *decode_vp9 =
		mock_find_struct(info->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VIDEO_DECODE_VP9_FEATURES_KHR);
	device->decode_vp9 = decode_vp9 && decode_vp9->videoDecodeVP9;
	*out = (VkDevice)device;
	return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL mock_DestroyDevice(VkDevice device, const VkAllocationCallbacks *allocator)
{
	free((struct mock_device *)device);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL mock_GetDeviceProcAddr(VkDevice device, const char *name)
{
	return mock_lookup(name);
}

/* Every queue of a family is the same object: nothing runs on it. */
VKAPI_ATTR void VKAPI_CALL mock_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue *out)
{
	*out = family < MOCK_QUEUE_FAMILIES ? (VkQueue)&((struct mock_device *)device)->queues[family] : VK_NULL_HANDLE;
}

VKAPI_ATTR void VKAPI_CALL mock_GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *info, VkQueue *out)
{
	mock_GetDeviceQueue(device, info->queueFamilyIndex, info->queueIndex, out);
}

VKAPI_ATTR VkResult VKAPI_CALL mock_DeviceWaitIdle(VkDevice device)
{
	return VK_SUCCESS;
}

static void signal_fence(VkFence fence)
{
	if (fence != VK_NULL_HANDLE)
		((struct mock_fence *)fence)->signaled = true;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits,
                                                VkFence fence)
{
	signal_fence(fence);
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_QueueSubmit2(VkQueue queue, uint32_t count, const VkSubmitInfo2 *submits,
                                                 VkFence fence)
{
	signal_fence(fence);
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_QueueWaitIdle(VkQueue queue)
{
	return VK_SUCCESS;
}

/* --- images ------------------------------------------------------------ */

VKAPI_ATTR VkResult VKAPI_CALL mock_CreateImage(VkDevice device, const VkImageCreateInfo *info,
                                                const VkAllocationCallbacks *allocator, VkImage *out)
{
	const struct mock_format *format = mock_format_find(info->format);
	if (!format || info->imageType != VK_IMAGE_TYPE_2D || info->extent.width == 0 || info->extent.height == 0 ||
	    info->extent.width > 32768 || info->extent.height > 32768 ||
	    (info->usage & mock_image_usages(format, info->tiling)) != info->usage ||
	    !mock_video_profiles_allow(info->pNext, format, info->usage, true))
		return VK_ERROR_FORMAT_NOT_SUPPORTED;
	if (!mock_video_device_allows((const struct mock_device *)device, info->pNext))
		return VK_ERROR_FEATURE_NOT_PRESENT;
	/* One image for handle types the driver does not list as compatible
	 * (VUID-VkImageCreateInfo-pNext-00990) is the application's error. */
	const VkExternalMemoryImageCreateInfo *external =
		mock_find_struct(info->pNext, VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO);
	if (external && (external->handleTypes & (external->handleTypes - 1)) &&
	    !mock_handles_together(info->tiling)) {
		fprintf(stderr, "uda-mock-vulkan: an image for handle types 0x%x, which are not compatible "
		                "(VUID-VkImageCreateInfo-pNext-00990)\n",
		        external->handleTypes);
		return VK_ERROR_INVALID_EXTERNAL_HANDLE;
	}
	uint64_t modifier = 0;
	const VkSubresourceLayout *explicit_planes = NULL;
	uint32_t explicit_count = 0;
	if (info->tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT) {
		const VkImageDrmFormatModifierListCreateInfoEXT *list =
			mock_find_struct(info->pNext, VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_LIST_CREATE_INFO_EXT);
		const VkImageDrmFormatModifierExplicitCreateInfoEXT *explicit_info =
			mock_find_struct(info->pNext, VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_EXPLICIT_CREATE_INFO_EXT);
		bool found = false;
		if (explicit_info) {
			modifier = explicit_info->drmFormatModifier;
			found = mock_format_has_modifier(format, modifier);
			explicit_planes = explicit_info->pPlaneLayouts;
			explicit_count = explicit_info->drmFormatModifierPlaneCount;
		} else if (list) {
			/* The driver's pick among those offered: the first it knows. */
			for (uint32_t i = 0; i < list->drmFormatModifierCount && !found; i++) {
				modifier = list->pDrmFormatModifiers[i];
				found = mock_format_has_modifier(format, modifier);
			}
		}
		if (!found)
			return VK_ERROR_FORMAT_NOT_SUPPORTED;
	}
	struct mock_image *image = calloc(1, sizeof(*image));
	if (!image)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	image->format = format;
	image->tiling = info->tiling;
	image->modifier = modifier;
	image->usage = info->usage;
	image->external = mock_find_struct(info->pNext, VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO) != NULL;
	if (!mock_layout_compute(format, info->tiling, modifier, info->extent.width, info->extent.height, explicit_planes,
	                         explicit_count, &image->layout)) {
		free(image);
		return VK_ERROR_INVALID_DRM_FORMAT_MODIFIER_PLANE_LAYOUT_EXT;
	}
	*out = (VkImage)image;
	return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL mock_DestroyImage(VkDevice device, VkImage image, const VkAllocationCallbacks *allocator)
{
	free((struct mock_image *)image);
}

VKAPI_ATTR void VKAPI_CALL mock_GetImageMemoryRequirements(VkDevice device, VkImage handle,
                                                           VkMemoryRequirements *out)
{
	const struct mock_image *image = (const struct mock_image *)handle;
	const bool linear = image->tiling == VK_IMAGE_TILING_LINEAR ||
	                    (image->tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT && image->modifier == MOCK_MOD_LINEAR);
	*out = (VkMemoryRequirements){
		.size = image->layout.size,
		.alignment = MOCK_MEMORY_ALIGNMENT,
		/* Block-linear memory lives in VRAM only. */
		.memoryTypeBits = linear ? all_types : device_local_types,
	};
}

VKAPI_ATTR void VKAPI_CALL mock_GetImageMemoryRequirements2(VkDevice device, const VkImageMemoryRequirementsInfo2 *info,
                                                            VkMemoryRequirements2 *out)
{
	mock_GetImageMemoryRequirements(device, info->image, &out->memoryRequirements);
	VkMemoryDedicatedRequirements *dedicated =
		mock_find_out_struct(out->pNext, VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS);
	if (dedicated) {
		const bool external = ((const struct mock_image *)info->image)->external;
		dedicated->prefersDedicatedAllocation = external;
		dedicated->requiresDedicatedAllocation = external && mock_external_images_require_dedicated();
	}
}

VKAPI_ATTR void VKAPI_CALL mock_GetImageSparseMemoryRequirements(VkDevice device, VkImage image, uint32_t *count,
                                                                 VkSparseImageMemoryRequirements *out)
{
	*count = 0;
}

VKAPI_ATTR void VKAPI_CALL mock_GetImageSparseMemoryRequirements2(VkDevice device,
                                                                  const VkImageSparseMemoryRequirementsInfo2 *info,
                                                                  uint32_t *count,
                                                                  VkSparseImageMemoryRequirements2 *out)
{
	*count = 0;
}

VKAPI_ATTR void VKAPI_CALL mock_GetImageSubresourceLayout(VkDevice device, VkImage handle,
                                                          const VkImageSubresource *subresource,
                                                          VkSubresourceLayout *out)
{
	const struct mock_image *image = (const struct mock_image *)handle;
	uint32_t plane = 0;
	switch (subresource->aspectMask) {
	case VK_IMAGE_ASPECT_MEMORY_PLANE_1_BIT_EXT:
	case VK_IMAGE_ASPECT_PLANE_1_BIT:
		plane = 1;
		break;
	case VK_IMAGE_ASPECT_MEMORY_PLANE_2_BIT_EXT:
	case VK_IMAGE_ASPECT_PLANE_2_BIT:
		plane = 2;
		break;
	default:
		break;
	}
	*out = plane < image->layout.plane_count ? image->layout.planes[plane] : (VkSubresourceLayout){0};
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetImageDrmFormatModifierPropertiesEXT(
	VkDevice device, VkImage handle, VkImageDrmFormatModifierPropertiesEXT *out)
{
	const struct mock_image *image = (const struct mock_image *)handle;
	out->drmFormatModifier = image->modifier;
	return VK_SUCCESS;
}

/* --- memory ------------------------------------------------------------ */

static bool fd_holds(int fd, VkDeviceSize size)
{
	struct stat st;
	return fstat(fd, &st) == 0 && (uint64_t)st.st_size >= size;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_AllocateMemory(VkDevice device, const VkMemoryAllocateInfo *info,
                                                   const VkAllocationCallbacks *allocator, VkDeviceMemory *out)
{
	if (info->memoryTypeIndex >= 4 || info->allocationSize == 0)
		return VK_ERROR_OUT_OF_DEVICE_MEMORY;
	const VkImportMemoryFdInfoKHR *import = mock_find_struct(info->pNext, VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR);
	struct mock_memory *memory = calloc(1, sizeof(*memory));
	if (!memory)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	memory->size = info->allocationSize;
	memory->type = info->memoryTypeIndex;
	const VkMemoryDedicatedAllocateInfo *dedicated =
		mock_find_struct(info->pNext, VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO);
	memory->dedicated = dedicated ? dedicated->image : VK_NULL_HANDLE;
	if (import && import->handleType) {
		/* The memory must really be there: an import larger than its
		 * file is refused, as a kernel driver refuses it. */
		if (!fd_holds(import->fd, info->allocationSize)) {
			free(memory);
			return VK_ERROR_INVALID_EXTERNAL_HANDLE;
		}
		memory->fd = import->fd; /* the import takes it */
	} else {
		memory->fd = memfd_create("uda-mock-vulkan", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		if (memory->fd < 0 || ftruncate(memory->fd, (off_t)info->allocationSize) != 0) {
			if (memory->fd >= 0)
				close(memory->fd);
			free(memory);
			return VK_ERROR_OUT_OF_DEVICE_MEMORY;
		}
	}
	*out = (VkDeviceMemory)memory;
	return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL mock_FreeMemory(VkDevice device, VkDeviceMemory handle,
                                           const VkAllocationCallbacks *allocator)
{
	struct mock_memory *memory = (struct mock_memory *)handle;
	if (!memory)
		return;
	if (memory->map)
		munmap(memory->map, memory->size);
	close(memory->fd);
	free(memory);
}

VKAPI_ATTR VkResult VKAPI_CALL mock_MapMemory(VkDevice device, VkDeviceMemory handle, VkDeviceSize offset,
                                              VkDeviceSize size, VkMemoryMapFlags flags, void **out)
{
	struct mock_memory *memory = (struct mock_memory *)handle;
	if (!(memory->type == 1 || memory->type == 2 || memory->type == 3) || memory->map)
		return VK_ERROR_MEMORY_MAP_FAILED;
	void *map = mmap(NULL, memory->size, PROT_READ | PROT_WRITE, MAP_SHARED, memory->fd, 0);
	if (map == MAP_FAILED)
		return VK_ERROR_MEMORY_MAP_FAILED;
	memory->map = map;
	*out = (uint8_t *)map + offset;
	return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL mock_UnmapMemory(VkDevice device, VkDeviceMemory handle)
{
	struct mock_memory *memory = (struct mock_memory *)handle;
	if (memory->map)
		munmap(memory->map, memory->size);
	memory->map = NULL;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_FlushMappedMemoryRanges(VkDevice device, uint32_t count,
                                                            const VkMappedMemoryRange *ranges)
{
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_InvalidateMappedMemoryRanges(VkDevice device, uint32_t count,
                                                                 const VkMappedMemoryRange *ranges)
{
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_BindImageMemory(VkDevice device, VkImage image, VkDeviceMemory handle,
                                                    VkDeviceSize offset)
{
	const struct mock_memory *memory = (const struct mock_memory *)handle;
	const struct mock_image *mock_image = (const struct mock_image *)image;
	/* External images require dedicated memory (their requirements say
	 * so), as NVIDIA's do, unless the mock plays a driver that only
	 * prefers it. */
	if (mock_image->external && memory->dedicated != image && mock_external_images_require_dedicated())
		return VK_ERROR_OUT_OF_DEVICE_MEMORY;
	return offset + mock_image->layout.size <= memory->size ? VK_SUCCESS : VK_ERROR_OUT_OF_DEVICE_MEMORY;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_BindImageMemory2(VkDevice device, uint32_t count,
                                                     const VkBindImageMemoryInfo *infos)
{
	for (uint32_t i = 0; i < count; i++) {
		const VkResult result = mock_BindImageMemory(device, infos[i].image, infos[i].memory, infos[i].memoryOffset);
		if (result != VK_SUCCESS)
			return result;
	}
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetMemoryFdKHR(VkDevice device, const VkMemoryGetFdInfoKHR *info, int *out)
{
	const struct mock_memory *memory = (const struct mock_memory *)info->memory;
	if (info->handleType != VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT &&
	    info->handleType != VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT)
		return VK_ERROR_INVALID_EXTERNAL_HANDLE;
	/* A plain dup, as NVIDIA's and lavapipe's are: not close-on-exec. */
	*out = fcntl(memory->fd, F_DUPFD, 0);
	return *out >= 0 ? VK_SUCCESS : VK_ERROR_TOO_MANY_OBJECTS;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetMemoryFdPropertiesKHR(VkDevice device,
                                                             VkExternalMemoryHandleTypeFlagBits handle_type, int fd,
                                                             VkMemoryFdPropertiesKHR *out)
{
	if (handle_type != VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT || !fd_holds(fd, 1))
		return VK_ERROR_INVALID_EXTERNAL_HANDLE;
	out->memoryTypeBits = all_types;
	return VK_SUCCESS;
}

/* --- buffers ----------------------------------------------------------- */

VKAPI_ATTR VkResult VKAPI_CALL mock_CreateBuffer(VkDevice device, const VkBufferCreateInfo *info,
                                                 const VkAllocationCallbacks *allocator, VkBuffer *out)
{
	struct mock_buffer *buffer = calloc(1, sizeof(*buffer));
	if (!buffer)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	buffer->size = info->size;
	*out = (VkBuffer)buffer;
	return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL mock_DestroyBuffer(VkDevice device, VkBuffer buffer,
                                              const VkAllocationCallbacks *allocator)
{
	free((struct mock_buffer *)buffer);
}

VKAPI_ATTR void VKAPI_CALL mock_GetBufferMemoryRequirements(VkDevice device, VkBuffer buffer,
                                                            VkMemoryRequirements *out)
{
	*out = (VkMemoryRequirements){
		.size = (((const struct mock_buffer *)buffer)->size + 255) / 256 * 256,
		.alignment = 256,
		.memoryTypeBits = all_types,
	};
}

VKAPI_ATTR void VKAPI_CALL mock_GetBufferMemoryRequirements2(VkDevice device,
                                                             const VkBufferMemoryRequirementsInfo2 *info,
                                                             VkMemoryRequirements2 *out)
{
	mock_GetBufferMemoryRequirements(device, info->buffer, &out->memoryRequirements);
}

VKAPI_ATTR VkResult VKAPI_CALL mock_BindBufferMemory(VkDevice device, VkBuffer buffer, VkDeviceMemory memory,
                                                     VkDeviceSize offset)
{
	return offset + ((const struct mock_buffer *)buffer)->size <= ((const struct mock_memory *)memory)->size
	               ? VK_SUCCESS
	               : VK_ERROR_OUT_OF_DEVICE_MEMORY;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_BindBufferMemory2(VkDevice device, uint32_t count,
                                                      const VkBindBufferMemoryInfo *infos)
{
	for (uint32_t i = 0; i < count; i++) {
		const VkResult result =
			mock_BindBufferMemory(device, infos[i].buffer, infos[i].memory, infos[i].memoryOffset);
		if (result != VK_SUCCESS)
			return result;
	}
	return VK_SUCCESS;
}

/* --- fences and command buffers ----------------------------------------- */

VKAPI_ATTR VkResult VKAPI_CALL mock_CreateFence(VkDevice device, const VkFenceCreateInfo *info,
                                                const VkAllocationCallbacks *allocator, VkFence *out)
{
	struct mock_fence *fence = calloc(1, sizeof(*fence));
	if (!fence)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	fence->signaled = info->flags & VK_FENCE_CREATE_SIGNALED_BIT;
	*out = (VkFence)fence;
	return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL mock_DestroyFence(VkDevice device, VkFence fence, const VkAllocationCallbacks *allocator)
{
	free((struct mock_fence *)fence);
}

VKAPI_ATTR VkResult VKAPI_CALL mock_ResetFences(VkDevice device, uint32_t count, const VkFence *fences)
{
	for (uint32_t i = 0; i < count; i++)
		((struct mock_fence *)fences[i])->signaled = false;
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetFenceStatus(VkDevice device, VkFence fence)
{
	return ((const struct mock_fence *)fence)->signaled ? VK_SUCCESS : VK_NOT_READY;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_WaitForFences(VkDevice device, uint32_t count, const VkFence *fences,
                                                  VkBool32 wait_all, uint64_t timeout)
{
	for (uint32_t i = 0; i < count; i++) {
		if (!((const struct mock_fence *)fences[i])->signaled)
			return VK_TIMEOUT; /* nothing was submitted to signal it */
	}
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *info,
                                                      const VkAllocationCallbacks *allocator, VkCommandPool *out)
{
	struct mock_command_pool *pool = calloc(1, sizeof(*pool));
	if (!pool)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	pool->flags = info->flags;
	*out = (VkCommandPool)pool;
	return VK_SUCCESS;
}

static void free_command_buffer(struct mock_command_buffer *buffer)
{
	*buffer->previous_next = buffer->next;
	if (buffer->next)
		buffer->next->previous_next = buffer->previous_next;
	free(buffer);
}

VKAPI_ATTR void VKAPI_CALL mock_DestroyCommandPool(VkDevice device, VkCommandPool pool,
                                                   const VkAllocationCallbacks *allocator)
{
	struct mock_command_pool *mock_pool = (struct mock_command_pool *)pool;
	if (!mock_pool)
		return;
	while (mock_pool->buffers)
		free_command_buffer(mock_pool->buffers);
	free(mock_pool);
}

VKAPI_ATTR VkResult VKAPI_CALL mock_ResetCommandPool(VkDevice device, VkCommandPool pool,
                                                     VkCommandPoolResetFlags flags)
{
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_AllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo *info,
                                                           VkCommandBuffer *out)
{
	struct mock_command_pool *pool = (struct mock_command_pool *)info->commandPool;
	for (uint32_t i = 0; i < info->commandBufferCount; i++) {
		struct mock_command_buffer *buffer = calloc(1, sizeof(*buffer));
		if (!buffer) {
			for (uint32_t j = 0; j < i; j++)
				free_command_buffer((struct mock_command_buffer *)out[j]);
			for (uint32_t j = 0; j < info->commandBufferCount; j++)
				out[j] = VK_NULL_HANDLE; /* as the spec asks of a failed call */
			return VK_ERROR_OUT_OF_HOST_MEMORY;
		}
		set_loader_magic_value(buffer);
		buffer->resettable = pool->flags & VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
		buffer->next = pool->buffers;
		buffer->previous_next = &pool->buffers;
		if (pool->buffers)
			pool->buffers->previous_next = &buffer->next;
		pool->buffers = buffer;
		out[i] = (VkCommandBuffer)buffer;
	}
	return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL mock_FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count,
                                                   const VkCommandBuffer *buffers)
{
	for (uint32_t i = 0; i < count; i++) {
		if (buffers[i])
			free_command_buffer((struct mock_command_buffer *)buffers[i]);
	}
}

VKAPI_ATTR VkResult VKAPI_CALL mock_BeginCommandBuffer(VkCommandBuffer buffer, const VkCommandBufferBeginInfo *info)
{
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_EndCommandBuffer(VkCommandBuffer buffer)
{
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_ResetCommandBuffer(VkCommandBuffer buffer, VkCommandBufferResetFlags flags)
{
	/* Undefined behaviour on a driver; where no validation layer runs
	 * (the fuzz targets) the mock says so itself. */
	if (!((struct mock_command_buffer *)buffer)->resettable) {
		fprintf(stderr, "uda-mock-vulkan: VUID-vkResetCommandBuffer-commandBuffer-00046: the command buffer's pool "
		                "lacks VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT\n");
		abort();
	}
	return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL mock_CmdClearColorImage(VkCommandBuffer buffer, VkImage image, VkImageLayout layout,
                                                   const VkClearColorValue *colour, uint32_t range_count,
                                                   const VkImageSubresourceRange *ranges)
{
}

VKAPI_ATTR void VKAPI_CALL mock_CmdBlitImage(VkCommandBuffer buffer, VkImage source, VkImageLayout source_layout,
                                             VkImage destination, VkImageLayout destination_layout, uint32_t count,
                                             const VkImageBlit *regions, VkFilter filter)
{
}

VKAPI_ATTR void VKAPI_CALL mock_CmdPipelineBarrier(VkCommandBuffer buffer, VkPipelineStageFlags src,
                                                   VkPipelineStageFlags dst, VkDependencyFlags flags,
                                                   uint32_t memory_count, const VkMemoryBarrier *memory,
                                                   uint32_t buffer_count, const VkBufferMemoryBarrier *buffers,
                                                   uint32_t image_count, const VkImageMemoryBarrier *images)
{
}

VKAPI_ATTR void VKAPI_CALL mock_CmdPipelineBarrier2(VkCommandBuffer buffer, const VkDependencyInfo *info)
{
}

VKAPI_ATTR void VKAPI_CALL mock_CmdCopyImage(VkCommandBuffer buffer, VkImage source, VkImageLayout source_layout,
                                             VkImage destination, VkImageLayout destination_layout, uint32_t count,
                                             const VkImageCopy *regions)
{
}

VKAPI_ATTR void VKAPI_CALL mock_CmdCopyBufferToImage(VkCommandBuffer buffer, VkBuffer source, VkImage destination,
                                                     VkImageLayout layout, uint32_t count,
                                                     const VkBufferImageCopy *regions)
{
}

VKAPI_ATTR void VKAPI_CALL mock_CmdCopyImageToBuffer(VkCommandBuffer buffer, VkImage source, VkImageLayout layout,
                                                     VkBuffer destination, uint32_t count,
                                                     const VkBufferImageCopy *regions)
{
}
