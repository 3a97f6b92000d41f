/* Creating the VkImage of a layout, one place for allocation, import and
 * the probes that answer capability queries. */
#include <string.h>

#include "vulkan_backend.h"

static bool supported(const struct vulkan_device *device, const struct vulkan_image_desc *desc, uint32_t width,
                      uint32_t height, VkExternalMemoryHandleTypeFlagBits handle, VkExternalMemoryFeatureFlags features,
                      bool *dedicated_only)
{
	struct image_support support;
	if (!vulkan_query_image(device, desc, handle, &support) ||
	    support.limits.maxExtent.width < width || support.limits.maxExtent.height < height ||
	    (support.features & features) != features)
		return false;
	if (support.features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT)
		*dedicated_only = true;
	/* Rendering is further bounded by the framebuffer limits. */
	if ((desc->usage & VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT) &&
	    (width > device->max_framebuffer_width || height > device->max_framebuffer_height))
		return false;
	return true;
}

VkResult vulkan_create_image(const struct vulkan_device *device, const struct vulkan_image_desc *desc,
                             uint32_t width, uint32_t height, VkExternalMemoryHandleTypeFlags handles,
                             VkExternalMemoryFeatureFlags features, const uda_allocation_metadata *explicit_layout,
                             bool *out_dedicated_only, VkImage *out)
{
	/* Parameters may come from another process: create only what the
	 * driver says it supports, for every handle type (or for none). */
	bool dedicated_only = false;
	if (!handles && !supported(device, desc, width, height, 0, 0, &dedicated_only))
		return VK_ERROR_FORMAT_NOT_SUPPORTED;
	for (uint32_t bit = 1; bit; bit <<= 1) {
		if ((handles & bit) && !supported(device, desc, width, height, (VkExternalMemoryHandleTypeFlagBits)bit,
		                                  features, &dedicated_only))
			return VK_ERROR_FORMAT_NOT_SUPPORTED;
	}
	if (out_dedicated_only)
		*out_dedicated_only = dedicated_only;

	/* The chain, built back to front: video profile, modifier, handles. */
	const void *chain = NULL;
	struct vulkan_video_chain video;
	if (desc->video.operation) {
		vulkan_video_chain_init(&video, &desc->video);
		chain = &video.list;
	}
	VkSubresourceLayout planes[UDA_MAX_PLANES];
	VkImageDrmFormatModifierExplicitCreateInfoEXT explicit_info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_EXPLICIT_CREATE_INFO_EXT,
		.pNext = chain,
		.drmFormatModifier = desc->modifier,
		.pPlaneLayouts = planes,
	};
	const VkImageDrmFormatModifierListCreateInfoEXT list_info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_LIST_CREATE_INFO_EXT,
		.pNext = chain,
		.drmFormatModifierCount = 1,
		.pDrmFormatModifiers = &desc->modifier,
	};
	if (desc->tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT && explicit_layout) {
		/* An import: the exporter's layout, plane by plane. */
		memset(planes, 0, sizeof(planes));
		explicit_info.drmFormatModifierPlaneCount = explicit_layout->plane_count;
		for (uint32_t p = 0; p < explicit_layout->plane_count && p < UDA_MAX_PLANES; p++) {
			planes[p].offset = explicit_layout->planes[p].offset;
			planes[p].rowPitch = explicit_layout->planes[p].pitch;
		}
		chain = &explicit_info;
	} else if (desc->tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT) {
		chain = &list_info;
	}
	const VkExternalMemoryImageCreateInfo external = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
		.pNext = chain,
		.handleTypes = handles,
	};
	const VkImageCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.pNext = handles ? &external : chain,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = desc->format,
		.extent = {width, height, 1},
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = desc->tiling,
		.usage = desc->usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
		/* External-memory images must start UNDEFINED
		 * (VUID-VkImageCreateInfo-pNext-01443); whoever wrote the
		 * memory outside Vulkan hands it over with an acquire from
		 * VK_QUEUE_FAMILY_EXTERNAL in GENERAL layout. */
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	return vkCreateImage(device->device, &info, NULL, out);
}

bool vulkan_image_plane_layout(const struct vulkan_device *device, VkImage image, VkImageTiling tiling,
                               uint32_t plane, VkSubresourceLayout *out)
{
	static const VkImageAspectFlagBits memory_planes[] = {
		VK_IMAGE_ASPECT_MEMORY_PLANE_0_BIT_EXT, VK_IMAGE_ASPECT_MEMORY_PLANE_1_BIT_EXT,
		VK_IMAGE_ASPECT_MEMORY_PLANE_2_BIT_EXT, VK_IMAGE_ASPECT_MEMORY_PLANE_3_BIT_EXT};
	if (tiling == VK_IMAGE_TILING_OPTIMAL || plane >= 4 || (tiling == VK_IMAGE_TILING_LINEAR && plane > 0))
		return false;
	const VkImageSubresource subresource = {
		tiling == VK_IMAGE_TILING_LINEAR ? VK_IMAGE_ASPECT_COLOR_BIT : (VkImageAspectFlags)memory_planes[plane], 0,
		0};
	vkGetImageSubresourceLayout(device->device, image, &subresource, out);
	return true;
}

uint32_t vulkan_list_modifiers(const struct vulkan_device *device, VkFormat format,
                               VkDrmFormatModifierPropertiesEXT out[VULKAN_MAX_MODIFIERS])
{
	VkDrmFormatModifierPropertiesListEXT list = {
		.sType = VK_STRUCTURE_TYPE_DRM_FORMAT_MODIFIER_PROPERTIES_LIST_EXT,
		.drmFormatModifierCount = VULKAN_MAX_MODIFIERS,
		.pDrmFormatModifierProperties = out,
	};
	VkFormatProperties2 properties = {.sType = VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2, .pNext = &list};
	vkGetPhysicalDeviceFormatProperties2(device->physical, format, &properties);
	return list.drmFormatModifierCount < VULKAN_MAX_MODIFIERS ? list.drmFormatModifierCount : VULKAN_MAX_MODIFIERS;
}

bool vulkan_find_modifier(const struct vulkan_device *device, VkFormat format, uint64_t modifier,
                          VkDrmFormatModifierPropertiesEXT *out)
{
	VkDrmFormatModifierPropertiesEXT modifiers[VULKAN_MAX_MODIFIERS];
	const uint32_t count = vulkan_list_modifiers(device, format, modifiers);
	for (uint32_t i = 0; i < count; i++) {
		if (modifiers[i].drmFormatModifier == modifier) {
			*out = modifiers[i];
			return true;
		}
	}
	return false;
}

uint32_t vulkan_modifier_plane_count(const struct vulkan_device *device, VkFormat format, uint64_t modifier)
{
	VkDrmFormatModifierPropertiesEXT properties;
	return vulkan_find_modifier(device, format, modifier, &properties) ? properties.drmFormatModifierPlaneCount : 0;
}
