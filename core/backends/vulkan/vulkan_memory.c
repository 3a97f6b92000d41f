/*
 * Allocations of the vulkan backend: a VkImage with dedicated exportable
 * memory, or memory imported from an fd (OPAQUE_FD from the same driver,
 * DMA_BUF, or a MEMFD mapped and imported as a host pointer), plus a
 * buffer over the memory for copies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mesa_memory_file.h"
#include "vulkan_backend.h"

struct vulkan_allocation {
	uint32_t width, height;
	VkDeviceMemory memory;
	VkDeviceSize size;
	VkImage image;
	VkBuffer buffer;
	VkFormat format;
	VkImageTiling tiling;
	uint64_t modifier; /* VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT */
	VkImageUsageFlags usage;
	struct vulkan_video_profile video; /* decode outputs */
	uint32_t plane_count;              /* of the format */
	VkExternalMemoryHandleTypeFlags export_handles;
	VkMemoryPropertyFlags memory_flags;
	bool coherent;
	/* A MEMFD import: the host mapping the memory lives in. */
	void *host_pointer;
	size_t host_size;
	/* An OPAQUE_FD or DMA_BUF import: a descriptor of the memory kept to
	 * hand on (the layer imports a uda import into the application's own
	 * VkDevice), since imported memory is not exportable through Vulkan.
	 * -1 otherwise. */
	int kept_fd;
	VkExternalMemoryHandleTypeFlagBits kept_handle;
};

static VkExternalMemoryHandleTypeFlagBits vulkan_handle_type(uda_handle_type type)
{
	switch (type) {
	case UDA_HANDLE_TYPE_OPAQUE_FD:
		return VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
	case UDA_HANDLE_TYPE_DMA_BUF:
		return VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
	case UDA_HANDLE_TYPE_MEMFD:
		return VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
	default:
		return 0;
	}
}

static void destroy_allocation(const struct vulkan_device *device, struct vulkan_allocation *a)
{
	if (a->buffer)
		vkDestroyBuffer(device->device, a->buffer, NULL);
	if (a->image)
		vkDestroyImage(device->device, a->image, NULL);
	if (a->memory)
		vkFreeMemory(device->device, a->memory, NULL);
	if (a->host_pointer)
		munmap(a->host_pointer, a->host_size);
	if (a->kept_fd >= 0)
		close(a->kept_fd);
	free(a);
}

/* *out_dedicated_only (may be NULL): an exported handle type of the image
 * is DEDICATED_ONLY (VUID-VkMemoryAllocateInfo-pNext-00639). */
static VkResult create_image(const struct vulkan_device *device, struct vulkan_allocation *a, uint32_t width,
                             uint32_t height, VkExternalMemoryHandleTypeFlags handles,
                             VkExternalMemoryFeatureFlags features, const uda_allocation_metadata *explicit_layout,
                             bool *out_dedicated_only)
{
	const struct vulkan_image_desc desc = {a->format, a->tiling, a->modifier, a->usage, a->video};
	return vulkan_create_image(device, &desc, width, height, handles, features, explicit_layout, out_dedicated_only,
	                           &a->image);
}

/* Vulkan's plain linear tiling lays multi-planar formats out as it likes,
 * with no promise another device could follow: they take a DRM modifier
 * (LINEAR among them) or the driver's own tiling. */
static uda_result check_planar_tiling(uda_context *ctx, const struct vulkan_allocation *a)
{
	if (a->plane_count != 1 && a->tiling == VK_IMAGE_TILING_LINEAR)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: a multi-planar image needs a DRM modifier or the driver's tiling");
	return UDA_SUCCESS;
}

/* One choice for exporter and importer alike: an OPAQUE_FD import must
 * use the memory type the export did (VUID-VkMemoryAllocateInfo-
 * allocationSize-01742), and both see the same set. */
static int choose_memory_type(const struct vulkan_device *device, uint32_t type_bits, bool mappable)
{
	return vulkan_device_find_memory_type(device, type_bits, mappable ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT : 0,
	                                      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
	                                              (mappable ? VK_MEMORY_PROPERTY_HOST_COHERENT_BIT : 0));
}

static void record_memory_type(const struct vulkan_device *device, struct vulkan_allocation *a, int type)
{
	a->memory_flags = device->memory.memoryTypes[type].propertyFlags;
	a->coherent = a->memory_flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
}

/* A buffer over the whole memory, bound at offset 0, for copies in and
 * out. Not fatal when the memory type cannot back one. */
static void bind_buffer(const struct vulkan_device *device, struct vulkan_allocation *a, uint32_t memory_type,
                        VkExternalMemoryHandleTypeFlags handles)
{
	const VkExternalMemoryBufferCreateInfo external = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
		.handleTypes = handles,
	};
	const VkBufferCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.pNext = handles ? &external : NULL,
		.size = a->size,
		.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	if (vkCreateBuffer(device->device, &info, NULL, &a->buffer) != VK_SUCCESS) {
		a->buffer = VK_NULL_HANDLE;
		return;
	}
	VkMemoryRequirements requirements;
	vkGetBufferMemoryRequirements(device->device, a->buffer, &requirements);
	if (!(requirements.memoryTypeBits & (1u << memory_type)) || requirements.size > a->size ||
	    vkBindBufferMemory(device->device, a->buffer, a->memory, 0) != VK_SUCCESS) {
		vkDestroyBuffer(device->device, a->buffer, NULL);
		a->buffer = VK_NULL_HANDLE;
	}
}

static uda_result fill_layout(const struct vulkan_device *device, uda_context *ctx, const struct vulkan_allocation *a,
                              const uda_format_info *format, uint32_t width, uda_allocation_metadata *m)
{
	m->size = a->size;
	m->plane_count = 1;
	if (a->tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT) {
		/* The driver may have been offered one modifier only; still,
		 * the metadata must say what it really did. */
		VkImageDrmFormatModifierPropertiesEXT chosen = {
			.sType = VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_PROPERTIES_EXT};
		if (!device->get_image_modifier ||
		    device->get_image_modifier(device->device, a->image, &chosen) != VK_SUCCESS ||
		    chosen.drmFormatModifier != a->modifier)
			return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "vulkan: the driver chose another modifier");
		m->plane_count = vulkan_modifier_plane_count(device, a->format, a->modifier);
		if (m->plane_count == 0 || m->plane_count > UDA_MAX_PLANES)
			return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "vulkan: %u memory planes", m->plane_count);
	}
	if (a->tiling == VK_IMAGE_TILING_OPTIMAL) {
		/* Optimal tiling has no pitch or plane offset a CPU could use;
		 * report each plane's row size, the planes one after another,
		 * so the metadata still describes the image. */
		uint64_t offset = 0;
		m->plane_count = format->plane_count;
		for (uint32_t p = 0; p < format->plane_count; p++) {
			const uda_format_plane_info *fp = &format->planes[p];
			const uint64_t plane_width = (width + fp->horizontal_subsampling - 1) / fp->horizontal_subsampling;
			const uint64_t plane_height = (a->height + fp->vertical_subsampling - 1) / fp->vertical_subsampling;
			m->planes[p].offset = offset;
			m->planes[p].pitch = (plane_width + fp->block_width - 1) / fp->block_width * fp->bytes_per_block;
			offset += m->planes[p].pitch * plane_height;
		}
		if (offset > m->size)
			return uda_context_set_error(ctx, UDA_ERROR_BACKEND,
			                             "vulkan: %llu bytes of memory for %llu bytes of planes",
			                             (unsigned long long)m->size, (unsigned long long)offset);
		return UDA_SUCCESS;
	}
	for (uint32_t p = 0; p < m->plane_count; p++) {
		VkSubresourceLayout layout;
		vulkan_image_plane_layout(device, a->image, a->tiling, p, &layout);
		m->planes[p].offset = layout.offset;
		m->planes[p].pitch = layout.rowPitch;
	}
	return UDA_SUCCESS;
}

uda_result vulkan_allocate(void *device_data, uda_context *ctx, const uda_assertion *assertion,
                           const uda_capability_set_list *set, uint32_t set_index, uda_backend_allocation *out)
{
	struct vulkan_device *device = device_data;
	uda_format_info format;
	if (uda_format_get_info(assertion->format, &format) != UDA_SUCCESS || !format.vk_format)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: format 0x%08x not supported",
		                             assertion->format);

	VkExternalMemoryHandleTypeFlags handles = 0;
	if (device->has_external_memory_fd &&
	    uda_backend_set_has_u32(set, set_index, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_OPAQUE_FD))
		handles |= VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
	if (device->has_dma_buf && uda_backend_set_has_u32(set, set_index, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF))
		handles |= VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
	if (uda_backend_set_has_u32(set, set_index, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_MEMFD) && !handles)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: host memory sets are allocated by the system backend and imported");
	/* Vulkan promises neither physically contiguous memory nor, without
	 * protected queues, protected memory: such sets go to a memory source. */
	const uint32_t placement = uda_backend_set_required_placement(set, set_index);
	if (placement == UDA_PLACEMENT_CONTIGUOUS || placement == UDA_PLACEMENT_PROTECTED)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: cannot allocate %s memory",
		                             placement == UDA_PLACEMENT_CONTIGUOUS ? "contiguous" : "protected");

	struct vulkan_allocation *a = calloc(1, sizeof(*a));
	if (!a)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	a->kept_fd = -1;
	a->width = assertion->width;
	a->height = assertion->height;
	a->format = (VkFormat)format.vk_format;
	a->plane_count = format.plane_count;
	a->export_handles = handles;
	struct vulkan_image_params params;
	uda_result result = vulkan_image_params_for_set(device, ctx, a->format, set, set_index, UDA_HANDLE_TYPE_NONE,
	                                                &a->tiling, &a->modifier, &params);
	if (result == UDA_SUCCESS)
		result = check_planar_tiling(ctx, a);
	if (result != UDA_SUCCESS) {
		free(a);
		return result;
	}
	a->usage = params.usage;
	a->video = params.video;

	const VkExternalMemoryHandleTypeFlags both =
		VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT | VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
	if (a->tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT) {
		handles &= VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT; /* explicit layouts travel as dma-bufs */
	} else if ((handles & both) == both) {
		/* A set naming both gets one image for both only where the
		 * driver says they go together (VUID-VkImageCreateInfo-pNext-
		 * 00990). The backend writes such a set only then; one from
		 * elsewhere is refused, so the next set is tried, rather than
		 * an image made that one of its handles cannot export. */
		const struct vulkan_image_desc desc = {a->format, a->tiling, 0, a->usage, a->video};
		struct image_support support;
		if (!vulkan_query_image(device, &desc, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, &support) ||
		    !(support.compatible & VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT)) {
			free(a);
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
			                             "vulkan: %s makes no one image for both OPAQUE_FD and DMA_BUF, which "
			                             "the set names",
			                             device->name);
		}
	}
	a->export_handles = handles;
	/* A linear modifier takes the layout the set's merged constraints
	 * allow (other devices' pitch alignment included), explicitly; other
	 * modifiers are the driver's to lay out. */
	uda_allocation_metadata linear_layout = {.plane_count = 1};
	const uda_allocation_metadata *explicit_layout = NULL;
	if (a->tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT && a->modifier == 0 /* DRM_FORMAT_MOD_LINEAR */) {
		result = uda_backend_linear_layout(assertion, set, set_index, &linear_layout);
		if (result != UDA_SUCCESS) {
			free(a);
			return result;
		}
		explicit_layout = &linear_layout;
	}
	bool dedicated_only = false;
	VkResult vr = create_image(device, a, assertion->width, assertion->height, handles,
	                           handles ? VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT : 0, explicit_layout,
	                           &dedicated_only);
	if (vr != VK_SUCCESS) {
		destroy_allocation(device, a);
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: vkCreateImage: %s",
		                             vulkan_result_string(vr));
	}
	VkMemoryDedicatedRequirements dedicated_requirements = {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
	VkMemoryRequirements2 requirements2 = {.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2,
	                                       .pNext = &dedicated_requirements};
	const VkImageMemoryRequirementsInfo2 requirements_info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2,
		.image = a->image,
	};
	vkGetImageMemoryRequirements2(device->device, &requirements_info, &requirements2);
	const VkMemoryRequirements requirements = requirements2.memoryRequirements;
	uint64_t size_alignment = 1;
	uda_backend_get_constraint(set, set_index, UDA_CONSTRAINT_SIZE_ALIGNMENT, 1, &size_alignment);
	if (requirements.size % size_alignment) {
		destroy_allocation(device, a);
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: the image needs %llu bytes, not a multiple of the set's %llu",
		                             (unsigned long long)requirements.size, (unsigned long long)size_alignment);
	}
	/* Memory is dedicated, and a dedicated allocation is the image's
	 * size (VUID-VkMemoryDedicatedAllocateInfo-image-02964). A device
	 * that reads past the planes (a decoder's motion vectors: MIN_SIZE)
	 * gets larger memory, not dedicated, where the image may have it:
	 * not shared as OPAQUE_FD (such memory is dedicated, uda_backend.h)
	 * and not required dedicated by the driver. Else another device
	 * allocates. */
	uint64_t min_size = 0, max_size = UINT64_MAX, allocation_size = requirements.size;
	uda_backend_get_constraint(set, set_index, UDA_CONSTRAINT_MIN_SIZE, 0, &min_size);
	uda_backend_get_constraint(set, set_index, UDA_CONSTRAINT_MAX_SIZE, UINT64_MAX, &max_size);
	const bool larger = requirements.size < min_size;
	const char *must_be_dedicated = !larger ? NULL
	                                : (handles & VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT) ? "an OPAQUE_FD share"
	                                : dedicated_requirements.requiresDedicatedAllocation       ? "the driver requires it"
	                                : dedicated_only ? "the driver exports the image's memory dedicated only"
	                                                 : NULL;
	if (must_be_dedicated) {
		destroy_allocation(device, a);
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: the image takes %llu bytes, the set asks for at least %llu, and "
		                             "its memory must be dedicated, of the image's size (%s)",
		                             (unsigned long long)requirements.size, (unsigned long long)min_size,
		                             must_be_dedicated);
	}
	/* allocationSize has no alignment rule of its own: the set's size
	 * alignment, checked against its max size before any memory. */
	if (larger && (min_size > UINT64_MAX - (size_alignment - 1) ||
	               (allocation_size = (min_size + size_alignment - 1) / size_alignment * size_alignment) > max_size)) {
		destroy_allocation(device, a);
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: the set's min size %llu, aligned to %llu, passes its max size %llu",
		                             (unsigned long long)min_size, (unsigned long long)size_alignment,
		                             (unsigned long long)max_size);
	}
	const bool mappable = uda_backend_set_has_u32(set, set_index, UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE);
	int type = choose_memory_type(device, requirements.memoryTypeBits, mappable);
	if (type < 0) {
		destroy_allocation(device, a);
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: no memory type for the image");
	}
	const VkMemoryDedicatedAllocateInfo dedicated = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
		.image = a->image,
	};
	const VkExportMemoryAllocateInfo export_info = {
		.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
		.pNext = larger ? NULL : &dedicated,
		.handleTypes = handles,
	};
	const VkMemoryAllocateInfo allocate_info = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = handles ? (const void *)&export_info : larger ? NULL : (const void *)&dedicated,
		.allocationSize = allocation_size,
		.memoryTypeIndex = (uint32_t)type,
	};
	vr = vkAllocateMemory(device->device, &allocate_info, NULL, &a->memory);
	if (vr == VK_SUCCESS)
		vr = vkBindImageMemory(device->device, a->image, a->memory, 0);
	if (vr != VK_SUCCESS) {
		destroy_allocation(device, a);
		return uda_context_set_error(ctx, vr == VK_ERROR_OUT_OF_DEVICE_MEMORY || vr == VK_ERROR_OUT_OF_HOST_MEMORY
		                                          ? UDA_ERROR_OUT_OF_MEMORY
		                                          : UDA_ERROR_BACKEND,
		                             "vulkan: allocating %llu bytes: %s", (unsigned long long)allocation_size,
		                             vulkan_result_string(vr));
	}
	a->size = allocation_size;
	record_memory_type(device, a, type);
	result = fill_layout(device, ctx, a, &format, assertion->width, &out->metadata);
	if (result != UDA_SUCCESS) {
		destroy_allocation(device, a);
		return result;
	}
	out->data = a;
	return UDA_SUCCESS;
}

/* OPAQUE_FD and DMA_BUF: the driver takes a dup of the fd on success. */
/* *consumed: the driver took a taken fd (the core then does not close it). */
static uda_result import_fd(struct vulkan_device *device, uda_context *ctx, int fd, bool take_fd,
                            const uda_allocation_metadata *m, const uda_capability_set_list *set,
                            struct vulkan_allocation *a, bool *consumed)
{
	const VkExternalMemoryHandleTypeFlagBits handle = vulkan_handle_type(m->handle_type);
	char why[160];
	const char *file_problem = handle == VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT && device->opaque_fds_are_mesa_files
	                                   ? mesa_memory_file_problem(fd, m->size, why, sizeof(why))
	                                   : NULL;
	if (file_problem)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "vulkan import: %s", file_problem);
	struct vulkan_image_params params;
	uda_result result = vulkan_image_params_for_set(device, ctx, a->format, set, 0, m->handle_type, &a->tiling,
	                                                &a->modifier, &params);
	if (result == UDA_SUCCESS)
		result = check_planar_tiling(ctx, a);
	if (result != UDA_SUCCESS)
		return result;
	a->usage = params.usage;
	a->video = params.video;
	if (a->tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT &&
	    (handle != VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT ||
	     m->plane_count != vulkan_modifier_plane_count(device, a->format, a->modifier)))
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "vulkan import: modifier 0x%016llx wants a dma-buf with %u planes",
		                             (unsigned long long)a->modifier,
		                             vulkan_modifier_plane_count(device, a->format, a->modifier));
	VkResult vr = create_image(device, a, m->width, m->height, handle, VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT,
	                           a->tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT ? m : NULL, NULL);
	if (vr != VK_SUCCESS)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan import: vkCreateImage: %s",
		                             vulkan_result_string(vr));
	VkMemoryRequirements requirements;
	vkGetImageMemoryRequirements(device->device, a->image, &requirements);
	/* uda's exporters allocate opaque image memory dedicated and of the
	 * image's exact size, and an opaque import must repeat the export's
	 * size; anything else is metadata that does not describe this memory. */
	if (handle == VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT ? requirements.size != m->size
	                                                            : requirements.size > m->size)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "vulkan import: the image needs %llu bytes, the memory has %llu",
		                             (unsigned long long)requirements.size, (unsigned long long)m->size);
	if (a->tiling == VK_IMAGE_TILING_LINEAR) {
		const VkImageSubresource subresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
		VkSubresourceLayout layout;
		vkGetImageSubresourceLayout(device->device, a->image, &subresource, &layout);
		if (layout.rowPitch != m->planes[0].pitch || layout.offset != m->planes[0].offset)
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
			                             "vulkan import: linear pitch %llu at %llu, this driver's is %llu at %llu",
			                             (unsigned long long)m->planes[0].pitch,
			                             (unsigned long long)m->planes[0].offset,
			                             (unsigned long long)layout.rowPitch, (unsigned long long)layout.offset);
	}
	uint32_t type_bits = requirements.memoryTypeBits;
	if (handle == VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT) {
		VkMemoryFdPropertiesKHR fd_properties = {.sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR};
		if (device->get_memory_fd_properties(device->device, handle, fd, &fd_properties) != VK_SUCCESS)
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "vulkan import: the driver refuses the dma-buf");
		type_bits &= fd_properties.memoryTypeBits;
	}
	const bool mappable = uda_backend_set_has_u32(set, 0, UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE);
	int type = choose_memory_type(device, type_bits, mappable);
	if (type < 0)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan import: no memory type fits");
	int dup_fd = take_fd ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "vulkan import: dup: %s", strerror(errno));
	/* Before the driver takes it: the memory's own descriptor, to export. */
	a->kept_fd = fcntl(dup_fd, F_DUPFD_CLOEXEC, 0);
	a->kept_handle = handle;
	if (a->kept_fd < 0) {
		if (!take_fd)
			close(dup_fd);
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "vulkan import: dup: %s", strerror(errno));
	}
	/* Always dedicated, of exactly the image's size: an opaque import
	 * must repeat its dedicated export, and a dma-buf (often larger than
	 * the image) is safest so, since drivers may demand it
	 * (DEDICATED_ONLY) and a dedicated import's size is the image's. */
	const VkMemoryDedicatedAllocateInfo dedicated = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
		.image = a->image,
	};
	const VkImportMemoryFdInfoKHR import_info = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
		.pNext = &dedicated,
		.handleType = handle,
		.fd = dup_fd,
	};
	const VkMemoryAllocateInfo allocate_info = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = &import_info,
		.allocationSize = requirements.size,
		.memoryTypeIndex = (uint32_t)type,
	};
	vr = vkAllocateMemory(device->device, &allocate_info, NULL, &a->memory);
	if (vr != VK_SUCCESS) {
		if (!take_fd)
			close(dup_fd); /* only a successful import takes ownership */
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "vulkan import: vkAllocateMemory: %s",
		                             vulkan_result_string(vr));
	}
	*consumed = true;
	a->size = requirements.size;
	vr = vkBindImageMemory(device->device, a->image, a->memory, 0);
	if (vr != VK_SUCCESS)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "vulkan import: vkBindImageMemory: %s",
		                             vulkan_result_string(vr));
	record_memory_type(device, a, type);
	return UDA_SUCCESS;
}

/* MEMFD: mapped here and imported as a host pointer, with a buffer over
 * all of it and, when the pitch is this driver's linear pitch, an image. */
static uda_result import_host(struct vulkan_device *device, uda_context *ctx, int fd,
                              const uda_allocation_metadata *m, const uda_capability_set_list *set,
                              struct vulkan_allocation *a)
{
	const VkExternalMemoryHandleTypeFlagBits handle = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
	if (!device->has_external_memory_host || !device->host_pointer_alignment)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan import: no VK_EXT_external_memory_host");
	if (a->plane_count != 1)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan import: host memory is imported for single-plane formats only");
	if (m->size % device->host_pointer_alignment || m->size > SIZE_MAX)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "vulkan import: host memory of %llu bytes, not a multiple of %llu",
		                             (unsigned long long)m->size,
		                             (unsigned long long)device->host_pointer_alignment);
	a->host_size = (size_t)m->size;
	void *pointer = mmap(NULL, a->host_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pointer == MAP_FAILED)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "vulkan import: mmap: %s", strerror(errno));
	a->host_pointer = pointer;
	if ((uintptr_t)pointer % device->host_pointer_alignment)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "vulkan import: the mapping is misaligned");

	VkMemoryHostPointerPropertiesEXT host = {.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
	VkResult vr = device->get_host_pointer_properties(device->device, handle, pointer, &host);
	if (vr != VK_SUCCESS || !host.memoryTypeBits)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan import: the driver cannot use the pointer");
	uint32_t type_bits = host.memoryTypeBits;

	/* The image, if the driver lays it out as the memory is laid out. */
	struct vulkan_image_params params;
	if (vulkan_image_params_for_set(device, ctx, a->format, set, 0, UDA_HANDLE_TYPE_MEMFD, &a->tiling, &a->modifier,
	                                &params) == UDA_SUCCESS &&
	    a->tiling == VK_IMAGE_TILING_LINEAR) {
		a->usage = params.usage;
		if (create_image(device, a, m->width, m->height, handle, VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT, NULL,
		                 NULL) ==
		    VK_SUCCESS) {
			const VkImageSubresource subresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
			VkSubresourceLayout layout;
			vkGetImageSubresourceLayout(device->device, a->image, &subresource, &layout);
			VkMemoryRequirements requirements;
			vkGetImageMemoryRequirements(device->device, a->image, &requirements);
			if (layout.rowPitch == m->planes[0].pitch && layout.offset == m->planes[0].offset &&
			    requirements.size <= m->size && (requirements.memoryTypeBits & type_bits)) {
				type_bits &= requirements.memoryTypeBits;
			} else {
				vkDestroyImage(device->device, a->image, NULL);
				a->image = VK_NULL_HANDLE;
			}
		}
	}
	if (!a->image) {
		a->usage = 0;
		a->tiling = VK_IMAGE_TILING_LINEAR;
	}
	/* Coherent: the CPU reaches this memory through the memfd's own
	 * mapping, which vkFlushMappedMemoryRanges cannot cover. */
	int type = vulkan_device_find_memory_type(
		device, type_bits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0);
	if (type < 0)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan import: no host-coherent type fits");
	const VkImportMemoryHostPointerInfoEXT import_info = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
		.handleType = handle,
		.pHostPointer = pointer,
	};
	const VkMemoryAllocateInfo allocate_info = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = &import_info,
		.allocationSize = m->size,
		.memoryTypeIndex = (uint32_t)type,
	};
	vr = vkAllocateMemory(device->device, &allocate_info, NULL, &a->memory);
	if (vr != VK_SUCCESS)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan import: host pointer: %s",
		                             vulkan_result_string(vr));
	a->size = m->size;
	record_memory_type(device, a, type);
	if (a->image && vkBindImageMemory(device->device, a->image, a->memory, 0) != VK_SUCCESS) {
		vkDestroyImage(device->device, a->image, NULL);
		a->image = VK_NULL_HANDLE;
	}
	bind_buffer(device, a, (uint32_t)type, handle);
	if (!a->image && !a->buffer)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan import: neither image nor buffer binds");
	return UDA_SUCCESS;
}

uda_result vulkan_import(void *device_data, uda_context *ctx, int fd, bool take_fd, const uda_allocation_metadata *m,
                         const uda_capability_set_list *set, const void *next, uda_backend_allocation *out)
{
	struct vulkan_device *device = device_data;
	if (next)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: no import extension structs");
	uda_format_info format;
	if (uda_format_get_info(m->format, &format) != UDA_SUCCESS || !format.vk_format)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan import: format 0x%08x not supported",
		                             m->format);
	if ((m->handle_type == UDA_HANDLE_TYPE_OPAQUE_FD && !device->has_external_memory_fd) ||
	    (m->handle_type == UDA_HANDLE_TYPE_DMA_BUF && !device->has_dma_buf) || !vulkan_handle_type(m->handle_type))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan import: handle type %d not supported",
		                             (int)m->handle_type);
	struct vulkan_allocation *a = calloc(1, sizeof(*a));
	if (!a)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	a->kept_fd = -1;
	a->width = m->width;
	a->height = m->height;
	a->format = (VkFormat)format.vk_format;
	a->plane_count = format.plane_count;
	uda_result result = m->handle_type == UDA_HANDLE_TYPE_MEMFD
	                            ? import_host(device, ctx, fd, m, set, a)
	                            : import_fd(device, ctx, fd, take_fd, m, set, a, &out->took_fd);
	if (result != UDA_SUCCESS) {
		destroy_allocation(device, a);
		return result;
	}
	out->data = a;
	return UDA_SUCCESS;
}

void vulkan_free(void *device_data, void *allocation)
{
	destroy_allocation(device_data, allocation);
}

uda_result vulkan_export_fd(void *device_data, uda_context *ctx, void *allocation, uda_handle_type handle_type,
                            int *out_fd)
{
	struct vulkan_device *device = device_data;
	struct vulkan_allocation *a = allocation;
	const VkExternalMemoryHandleTypeFlagBits handle = vulkan_handle_type(handle_type);
	if (handle && a->kept_fd >= 0 && handle == a->kept_handle) {
		int fd = fcntl(a->kept_fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "vulkan: dup: %s", strerror(errno));
		*out_fd = fd;
		return UDA_SUCCESS;
	}
	if (!handle || !(a->export_handles & handle) || !device->get_memory_fd)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: this memory was not allocated exportable as handle type %d",
		                             (int)handle_type);
	const VkMemoryGetFdInfoKHR info = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
		.memory = a->memory,
		.handleType = handle,
	};
	int fd = -1;
	VkResult vr = device->get_memory_fd(device->device, &info, &fd);
	if (vr != VK_SUCCESS || fd < 0)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "vulkan: vkGetMemoryFdKHR: %s",
		                             vulkan_result_string(vr));
	/* Drivers differ on close-on-exec; the API promises it. FD_CLOEXEC
	 * is the only descriptor flag, so setting it needs no F_GETFD. */
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		close(fd);
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "vulkan: fcntl: %s", strerror(errno));
	}
	*out_fd = fd;
	return UDA_SUCCESS;
}

uda_result vulkan_map(void *device_data, uda_context *ctx, void *allocation, uint32_t access, void **out_pointer)
{
	struct vulkan_device *device = device_data;
	struct vulkan_allocation *a = allocation;
	if (a->host_pointer) {
		*out_pointer = a->host_pointer;
		return UDA_SUCCESS;
	}
	if (!(a->memory_flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: the memory is not host-visible");
	VkResult vr = vkMapMemory(device->device, a->memory, 0, VK_WHOLE_SIZE, 0, out_pointer);
	if (vr != VK_SUCCESS)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: vkMapMemory: %s",
		                             vulkan_result_string(vr));
	return UDA_SUCCESS;
}

void vulkan_unmap(void *device_data, void *allocation, void *pointer)
{
	struct vulkan_device *device = device_data;
	struct vulkan_allocation *a = allocation;
	if (!a->host_pointer)
		vkUnmapMemory(device->device, a->memory);
}

static uda_result sync_mapping(struct vulkan_device *device, uda_context *ctx, struct vulkan_allocation *a, bool begin)
{
	if (a->coherent)
		return UDA_SUCCESS;
	const VkMappedMemoryRange range = {
		.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
		.memory = a->memory,
		.size = VK_WHOLE_SIZE,
	};
	VkResult vr = begin ? vkInvalidateMappedMemoryRanges(device->device, 1, &range)
	                    : vkFlushMappedMemoryRanges(device->device, 1, &range);
	if (vr != VK_SUCCESS)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "vulkan: %s mapped memory: %s",
		                             begin ? "invalidating" : "flushing", vulkan_result_string(vr));
	return UDA_SUCCESS;
}

uda_result vulkan_begin_cpu_access(void *device_data, uda_context *ctx, void *allocation, uint32_t access)
{
	return sync_mapping(device_data, ctx, allocation, true);
}

uda_result vulkan_end_cpu_access(void *device_data, uda_context *ctx, void *allocation, uint32_t access)
{
	return (access & UDA_ACCESS_WRITE) ? sync_mapping(device_data, ctx, allocation, false) : UDA_SUCCESS;
}

void vulkan_allocation_extent(const void *allocation, uint32_t *out_width, uint32_t *out_height)
{
	const struct vulkan_allocation *a = allocation;
	*out_width = a->width;
	*out_height = a->height;
}

uda_result vulkan_get_native(void *device_data, uda_context *ctx, void *allocation, void *out_native)
{
	struct vulkan_device *device = device_data;
	struct vulkan_allocation *a = allocation;
	uda_vulkan_native *native = out_native;
	if (native->type != UDA_STRUCTURE_TYPE_VULKAN_NATIVE || native->next)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: native objects are uda_vulkan_native");
	native->instance = device->backend->instance;
	native->physical_device = device->physical;
	native->device = device->device;
	native->queue_family_index = device->queue_family;
	native->memory = a->memory;
	native->memory_size = a->size;
	native->image = a->image;
	native->format = a->format;
	native->tiling = a->tiling;
	native->usage = a->usage;
	native->buffer = a->buffer;
	return UDA_SUCCESS;
}
