/*
 * What a Vulkan device can do with an image of the assertion, as capability
 * sets, best first:
 *
 *  1. optimal tiling, driver-private layout (LAYOUT_OPAQUE tagged with the
 *     driver UUID), shared as OPAQUE_FD with devices of the same driver;
 *  2. linear tiling at the driver's own row pitch, OPAQUE_FD and, where
 *     VK_EXT_external_memory_dma_buf exists, DMA_BUF;
 *  3. linear host memory imported through VK_EXT_external_memory_host from
 *     a MEMFD (the system backend allocates it).
 *
 * Before them all, where VK_EXT_image_drm_format_modifier exists, every
 * modifier the driver lists, over DMA_BUF. Multi-planar formats (NV12,
 * P010) take only that path and the optimal one: Vulkan's plain linear
 * tiling gives them no layout a CPU or another device could rely on. A
 * VIDEO_DECODE or VIDEO_ENCODE usage narrows both to the tilings the
 * driver lists for the profile's pictures (vulkan_video.c).
 *
 * Every answer comes from the driver: vkGetPhysicalDeviceImageFormatProperties2
 * with the handle type for support and limits, and a probe image for the
 * memory requirements and the linear row pitch.
 */
#include <string.h>

#include "vulkan_backend.h"

uda_result vulkan_usage_to_image_usage(uda_context *ctx, const uda_usage *usage, VkImageUsageFlags *out_usage,
                                       bool *out_cpu)
{
	VkImageUsageFlags flags = 0;
	bool cpu = false;
	for (uint32_t i = 0; i < usage->atom_count; i++) {
		const uda_usage_atom *atom = &usage->atoms[i];
		if (atom->vendor != UDA_VENDOR_NONE)
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: vendor usage %04x:%u unknown",
			                             atom->vendor, atom->name);
		switch (atom->name) {
		case UDA_USAGE_RENDER_TARGET:
			flags |= VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
			break;
		case UDA_USAGE_SAMPLED:
			flags |= VK_IMAGE_USAGE_SAMPLED_BIT;
			break;
		case UDA_USAGE_STORAGE:
			flags |= VK_IMAGE_USAGE_STORAGE_BIT;
			break;
		case UDA_USAGE_TRANSFER_SRC:
			flags |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
			break;
		case UDA_USAGE_TRANSFER_DST:
			flags |= VK_IMAGE_USAGE_TRANSFER_DST_BIT;
			break;
		case UDA_USAGE_VIDEO_DECODE:
			/* The profile is vulkan_video_profile_for_usage's. */
			flags |= VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR;
			break;
		case UDA_USAGE_VIDEO_ENCODE:
			flags |= VK_IMAGE_USAGE_VIDEO_ENCODE_SRC_BIT_KHR;
			break;
		case UDA_USAGE_CPU_READ:
		case UDA_USAGE_CPU_WRITE: {
			uint32_t frequency;
			memcpy(&frequency, atom->payload, 4);
			cpu = cpu || frequency != UDA_CPU_ACCESS_NEVER;
			break;
		}
		default:
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: usage %u has no Vulkan image use",
			                             atom->name);
		}
	}
	/* An image needs some usage; a CPU-only one is copied from or to. */
	if (!flags)
		flags = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	*out_usage = flags;
	*out_cpu = cpu;
	return UDA_SUCCESS;
}

bool vulkan_query_image(const struct vulkan_device *device, const struct vulkan_image_desc *desc,
                        VkExternalMemoryHandleTypeFlagBits handle, struct image_support *out)
{
	bool supported = false;
	if (vulkan_query_cache_find(device->query_cache, desc, handle, &supported, out))
		return supported;
	/* The chain, built back to front: video profile, modifier, handle
	 * (none: an image that never leaves the device). */
	const void *chain = NULL;
	struct vulkan_video_chain video;
	if (desc->video.operation) {
		vulkan_video_chain_init(&video, &desc->video);
		chain = &video.list;
	}
	const VkPhysicalDeviceImageDrmFormatModifierInfoEXT modifier_info = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_DRM_FORMAT_MODIFIER_INFO_EXT,
		.pNext = chain,
		.drmFormatModifier = desc->modifier,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	if (desc->tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT)
		chain = &modifier_info;
	const VkPhysicalDeviceExternalImageFormatInfo external_info = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO,
		.pNext = chain,
		.handleType = handle,
	};
	if (handle)
		chain = &external_info;
	const VkPhysicalDeviceImageFormatInfo2 info = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2,
		.pNext = chain,
		.format = desc->format,
		.type = VK_IMAGE_TYPE_2D,
		.tiling = desc->tiling,
		.usage = desc->usage,
	};
	/* The external properties are asked for only with a handle: without
	 * one the driver leaves them as they are (and 1.4.363's layer warns
	 * of the output asked for with no handle named). */
	VkExternalImageFormatProperties external = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES};
	VkImageFormatProperties2 properties = {.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2,
	                                       .pNext = handle ? &external : NULL};
	/* A video image also needs its profile, format, tiling and usage to
	 * be among those the driver lists for decoding (vulkan_video.c): the
	 * image format query need not check them, and a profile may come
	 * from another process. Asked here, the answer is cached with the
	 * rest. */
	supported = (!(desc->usage & VULKAN_IMAGE_USAGE_VIDEO) ||
	             (desc->video.operation && vulkan_video_image_allowed(device, desc))) &&
	            vkGetPhysicalDeviceImageFormatProperties2(device->physical, &info, &properties) == VK_SUCCESS;
	out->limits = properties.imageFormatProperties;
	out->features = external.externalMemoryProperties.externalMemoryFeatures;
	out->compatible = external.externalMemoryProperties.compatibleHandleTypes;
	vulkan_query_cache_add(device->query_cache, desc, handle, supported, out);
	return supported;
}

struct probe {
	VkMemoryRequirements requirements;
	VkSubresourceLayout layout; /* linear tiling only */
};

/* Creates and destroys an image of the assertion to learn what the driver
 * would need for it. */
static bool probe_image(const struct vulkan_device *device, const struct vulkan_image_desc *desc,
                        VkExternalMemoryHandleTypeFlags handles, uint32_t width, uint32_t height, struct probe *out)
{
	VkImage image;
	if (vulkan_create_image(device, desc, width, height, handles, 0, NULL, NULL, &image) != VK_SUCCESS)
		return false;
	vkGetImageMemoryRequirements(device->device, image, &out->requirements);
	memset(&out->layout, 0, sizeof(out->layout));
	vulkan_image_plane_layout(device, image, desc->tiling, 0, &out->layout);
	vkDestroyImage(device->device, image, NULL);
	return true;
}

static bool has_host_visible_type(const struct vulkan_device *device, uint32_t type_bits)
{
	return vulkan_device_find_memory_type(device, type_bits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0) >= 0;
}

static bool has_coherent_type(const struct vulkan_device *device, uint32_t type_bits)
{
	return vulkan_device_find_memory_type(device, type_bits,
	                                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                                      0) >= 0;
}

/* Builds one set from the pieces every kind shares. */
struct set_recipe {
	const struct vulkan_device *device;
	const struct image_support *support;
	const struct probe *probe;
	VkImageTiling tiling;
	uint64_t modifier;     /* DRM_FORMAT_MODIFIER_EXT tiling */
	uint32_t plane_count;  /* memory planes of the modifier */
	uint32_t pitch_alignment;
	struct vulkan_image_params params;
	uda_handle_type handles[2];
	uint32_t handle_count;
	uint32_t handle_flags;
	uda_placement placement;
	bool mappable, coherent;
	bool pin_pitch;
	uint64_t host_alignment; /* host memory import: pointer and size granule */
};

static uda_result append_set(uda_context *ctx, const struct set_recipe *r, uda_capability_set_list *out)
{
	uda_capability_set_builder *b;
	uda_result result = uda_capability_set_builder_create(ctx, &b);
	if (result != UDA_SUCCESS)
		return result;
	if (r->tiling == VK_IMAGE_TILING_OPTIMAL) {
		uint8_t payload[UDA_OPAQUE_LAYOUT_PAYLOAD_SIZE] = {0};
		memcpy(payload, r->device->driver_uuid, UDA_UUID_SIZE);
		payload[UDA_UUID_SIZE] = UDA_OPAQUE_LAYOUT_OPTIMAL_TILING;
		const uda_capability layout = {
			.vendor = UDA_VENDOR_NONE,
			.name = UDA_CAPABILITY_LAYOUT_OPAQUE,
			.length = sizeof(payload),
			.payload = payload,
		};
		result = uda_capability_set_builder_add_capability(b, &layout);
	} else {
		result = uda_capability_set_builder_add_layout(
			b, r->tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT ? r->modifier : 0 /* linear */, 0);
	}
	for (uint32_t i = 0; result == UDA_SUCCESS && i < r->handle_count; i++)
		result = uda_capability_set_builder_add_u32(b, UDA_CAPABILITY_HANDLE, r->handles[i], r->handle_flags);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_add_u32(b, UDA_CAPABILITY_PLACEMENT, r->placement, 0);
	if (result == UDA_SUCCESS && r->mappable)
		result = uda_capability_set_builder_add_u32(b, UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE, 0);
	if (result == UDA_SUCCESS && r->coherent)
		result = uda_capability_set_builder_add_u32(b, UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_COHERENT, 0);
	if (result == UDA_SUCCESS) {
		uint8_t payload[VULKAN_IMAGE_PARAMS_PICTURE_SIZE];
		memcpy(payload, &r->params.usage, 4);
		memcpy(payload + 4, &r->params.flags, 4);
		memcpy(payload + 8, &r->params.video, VULKAN_VIDEO_PROFILE_SIZE);
		memcpy(payload + VULKAN_IMAGE_PARAMS_VIDEO_SIZE, &r->params.video.picture, 4);
		const uda_capability params = {
			.vendor = UDA_VENDOR_API_BACKEND,
			.name = VULKAN_CAPABILITY_IMAGE_PARAMS,
			.flags = UDA_CAPABILITY_FLAG_LOCAL,
			.length = !r->params.video.operation ? VULKAN_IMAGE_PARAMS_SIZE
			          : r->params.video.picture  ? VULKAN_IMAGE_PARAMS_PICTURE_SIZE
			                                     : VULKAN_IMAGE_PARAMS_VIDEO_SIZE,
			.payload = payload,
		};
		result = uda_capability_set_builder_add_capability(b, &params);
	}

	const VkImageFormatProperties *limits = &r->support->limits;
	uint64_t alignment = r->probe->requirements.alignment;
	if (r->host_alignment > alignment)
		alignment = r->host_alignment;
	struct {
		uda_constraint name;
		uint64_t value;
	} constraints[] = {
		{UDA_CONSTRAINT_ADDRESS_ALIGNMENT, alignment ? alignment : 1},
		{UDA_CONSTRAINT_MAX_WIDTH, limits->maxExtent.width},
		{UDA_CONSTRAINT_MAX_HEIGHT, limits->maxExtent.height},
		{UDA_CONSTRAINT_MAX_SIZE, limits->maxResourceSize},
		{UDA_CONSTRAINT_MAX_PLANES, r->plane_count ? r->plane_count : 1},
		{UDA_CONSTRAINT_PITCH_ALIGNMENT, r->pitch_alignment},
		{UDA_CONSTRAINT_SIZE_ALIGNMENT, r->host_alignment},
		/* Without modifiers a Vulkan linear image has the driver's
		 * pitch and no other: pin it with min = max. */
		{UDA_CONSTRAINT_MIN_PITCH, r->pin_pitch ? r->probe->layout.rowPitch : 0},
		{UDA_CONSTRAINT_MAX_PITCH, r->pin_pitch ? r->probe->layout.rowPitch : 0},
	};
	for (size_t i = 0; result == UDA_SUCCESS && i < sizeof(constraints) / sizeof(constraints[0]); i++) {
		if (constraints[i].value)
			result = uda_capability_set_builder_set_constraint(b, constraints[i].name, constraints[i].value);
	}
	if (result == UDA_SUCCESS)
		result = uda_capability_set_list_append_set(out, b);
	uda_capability_set_builder_destroy(b);
	return result;
}

static bool fits(const struct image_support *support, const uda_assertion *assertion)
{
	return support->limits.maxExtent.width >= assertion->width &&
	       support->limits.maxExtent.height >= assertion->height;
}

/* The largest power of two (up to 4096) dividing a pitch the driver chose:
 * the alignment an explicit import at another pitch can expect to pass. */
static uint32_t pitch_granule(uint64_t pitch)
{
	uint32_t granule = 1;
	while (granule < 4096 && pitch && pitch % (granule * 2) == 0)
		granule *= 2;
	return granule;
}

static uda_result append_modifier_sets(const struct vulkan_device *device, uda_context *ctx,
                                       const uda_assertion *assertion, VkFormat format,
                                       const struct vulkan_image_params *params, uda_capability_set_list *out)
{
	VkDrmFormatModifierPropertiesEXT modifiers[VULKAN_MAX_MODIFIERS];
	const uint32_t count = vulkan_list_modifiers(device, format, modifiers);
	for (uint32_t i = 0; i < count; i++) {
		const struct vulkan_image_desc desc = {
			.format = format,
			.tiling = VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT,
			.modifier = modifiers[i].drmFormatModifier,
			.usage = params->usage,
			.video = params->video,
		};
		struct image_support support;
		struct probe probe;
		if (modifiers[i].drmFormatModifierPlaneCount > UDA_MAX_PLANES ||
		    !vulkan_query_image(device, &desc, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, &support) ||
		    !(support.features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) || !fits(&support, assertion) ||
		    !probe_image(device, &desc, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, assertion->width,
		                 assertion->height, &probe))
			continue;
		const struct set_recipe recipe = {
			.device = device,
			.support = &support,
			.probe = &probe,
			.tiling = VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT,
			.modifier = desc.modifier,
			.plane_count = modifiers[i].drmFormatModifierPlaneCount,
			.pitch_alignment = pitch_granule(probe.layout.rowPitch),
			.params = *params,
			.handles = {UDA_HANDLE_TYPE_DMA_BUF},
			.handle_count = 1,
			.placement = UDA_PLACEMENT_DEVICE_LOCAL,
		};
		uda_result result = append_set(ctx, &recipe, out);
		if (result != UDA_SUCCESS)
			return result;
	}
	return UDA_SUCCESS;
}

/* Optimal tiling, opaque, for devices of this driver; its metadata still
 * names every plane of the format. */
static uda_result append_optimal_set(const struct vulkan_device *device, uda_context *ctx,
                                     const uda_assertion *assertion, VkFormat format, uint32_t plane_count,
                                     const struct vulkan_image_params *params, uda_capability_set_list *out)
{
	const struct vulkan_image_desc desc = {
		.format = format,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = params->usage,
		.video = params->video,
	};
	struct image_support support;
	struct probe probe;
	if (!device->has_external_memory_fd ||
	    !vulkan_query_image(device, &desc, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, &support) ||
	    !(support.features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) || !fits(&support, assertion) ||
	    !probe_image(device, &desc, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, assertion->width, assertion->height,
	                 &probe))
		return UDA_SUCCESS;
	const struct set_recipe recipe = {
		.device = device,
		.support = &support,
		.probe = &probe,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.plane_count = plane_count,
		.params = *params,
		.handles = {UDA_HANDLE_TYPE_OPAQUE_FD},
		.handle_count = 1,
		.placement = UDA_PLACEMENT_DEVICE_LOCAL,
	};
	return append_set(ctx, &recipe, out);
}

/* One linear set over `handles` (one image made for them all), described
 * by `support`: skipped where the probe image cannot be made, or a CPU
 * needs it mapped and it cannot be. */
static uda_result append_linear_handles(const struct vulkan_device *device, uda_context *ctx,
                                        const uda_assertion *assertion, const struct vulkan_image_desc *desc,
                                        const struct vulkan_image_params *params, bool cpu,
                                        const struct image_support *support, VkExternalMemoryHandleTypeFlags handles,
                                        uda_capability_set_list *out)
{
	struct probe probe;
	if (!probe_image(device, desc, handles, assertion->width, assertion->height, &probe))
		return UDA_SUCCESS;
	struct set_recipe linear = {
		.device = device,
		.support = support,
		.probe = &probe,
		.tiling = VK_IMAGE_TILING_LINEAR,
		.params = *params,
		.placement = UDA_PLACEMENT_DEVICE_LOCAL,
		.pin_pitch = true,
		.mappable = has_host_visible_type(device, probe.requirements.memoryTypeBits),
		.coherent = has_coherent_type(device, probe.requirements.memoryTypeBits),
	};
	if (handles & VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT)
		linear.handles[linear.handle_count++] = UDA_HANDLE_TYPE_OPAQUE_FD;
	if (handles & VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT)
		linear.handles[linear.handle_count++] = UDA_HANDLE_TYPE_DMA_BUF;
	if (cpu && !linear.mappable)
		return UDA_SUCCESS;
	return append_set(ctx, &linear, out);
}

/* Whether `out` already offers a LINEAR layout over DMA_BUF (the LINEAR
 * modifier's set). */
static bool offers_linear_dma_buf(const uda_capability_set_list *out)
{
	uint32_t count = 0;
	uda_capability_set_list_get_count(out, &count);
	for (uint32_t i = 0; i < count; i++) {
		uint64_t modifier = 1;
		if (uda_capability_set_list_get_modifier(out, i, &modifier) == UDA_SUCCESS && modifier == 0 &&
		    uda_backend_set_has_u32(out, i, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF))
			return true;
	}
	return false;
}

/* Linear at the driver's pitch, exportable: one set for OPAQUE_FD and
 * DMA_BUF where the driver says one image may serve both
 * (compatibleHandleTypes, VUID-VkImageCreateInfo-pNext-00990); else an
 * OPAQUE_FD set (what GL's memory objects import) and, unless the LINEAR
 * modifier's set already carries one, a DMA_BUF set first (what other
 * drivers, displays and cameras import). */
static uda_result append_linear_set(const struct vulkan_device *device, uda_context *ctx,
                                    const uda_assertion *assertion, VkFormat format,
                                    const struct vulkan_image_params *params, bool cpu, uda_capability_set_list *out)
{
	const struct vulkan_image_desc desc = {.format = format, .tiling = VK_IMAGE_TILING_LINEAR, .usage = params->usage};
	struct image_support opaque, dma_buf;
	const bool has_opaque = device->has_external_memory_fd &&
	                        vulkan_query_image(device, &desc, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, &opaque) &&
	                        (opaque.features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) && fits(&opaque, assertion);
	const bool has_dma_buf = device->has_dma_buf &&
	                         vulkan_query_image(device, &desc, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, &dma_buf) &&
	                         (dma_buf.features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) && fits(&dma_buf, assertion);
	if (has_opaque && has_dma_buf && (opaque.compatible & VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT))
		return append_linear_handles(device, ctx, assertion, &desc, params, cpu, &opaque,
		                             VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT |
		                                     VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
		                             out);
	uda_result result = UDA_SUCCESS;
	if (has_dma_buf && (!has_opaque || !offers_linear_dma_buf(out)))
		result = append_linear_handles(device, ctx, assertion, &desc, params, cpu, &dma_buf,
		                               VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, out);
	if (result == UDA_SUCCESS && has_opaque)
		result = append_linear_handles(device, ctx, assertion, &desc, params, cpu, &opaque,
		                               VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, out);
	return result;
}

/* Host memory from a memfd, imported. Only this device's use counts, so
 * the handle is REQUIRED: without MEMFD the set means nothing here. */
static uda_result append_host_set(const struct vulkan_device *device, uda_context *ctx,
                                  const uda_assertion *assertion, VkFormat format,
                                  const struct vulkan_image_params *params, uda_capability_set_list *out)
{
	const struct vulkan_image_desc desc = {.format = format, .tiling = VK_IMAGE_TILING_LINEAR, .usage = params->usage};
	struct image_support support;
	struct probe probe;
	if (!device->has_external_memory_host || !device->host_pointer_alignment ||
	    !vulkan_query_image(device, &desc, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, &support) ||
	    !(support.features & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT) || !fits(&support, assertion) ||
	    !probe_image(device, &desc, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, assertion->width,
	                 assertion->height, &probe))
		return UDA_SUCCESS;
	const struct set_recipe host = {
		.device = device,
		.support = &support,
		.probe = &probe,
		.tiling = VK_IMAGE_TILING_LINEAR,
		.params = *params,
		.handles = {UDA_HANDLE_TYPE_MEMFD},
		.handle_count = 1,
		.handle_flags = UDA_CAPABILITY_FLAG_REQUIRED,
		.placement = UDA_PLACEMENT_SYSTEM,
		/* Host memory: the CPU maps it (the memfd), coherently. */
		.mappable = true,
		.coherent = true,
		.pin_pitch = true,
		.host_alignment = device->host_pointer_alignment,
	};
	return append_set(ctx, &host, out);
}

uda_result vulkan_get_capability_sets(void *device_data, uda_context *ctx, const uda_assertion *assertion,
                                      const uda_usage *usage, uda_capability_set_list *out)
{
	struct vulkan_device *device = device_data;
	uda_format_info format;
	if (uda_format_get_info(assertion->format, &format) != UDA_SUCCESS || !format.vk_format)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: no VkFormat for fourcc 0x%08x",
		                             assertion->format);
	const VkFormat vk_format = (VkFormat)format.vk_format;
	const bool multi_planar = format.plane_count != 1;
	VkImageUsageFlags image_usage = 0;
	bool cpu = false;
	uda_result result = vulkan_usage_to_image_usage(ctx, usage, &image_usage, &cpu);
	if (result != UDA_SUCCESS)
		return result;
	struct vulkan_image_params params = {.usage = image_usage};
	result = vulkan_video_profile_for_usage(device, ctx, usage, vk_format, &params.video);
	if (result != UDA_SUCCESS)
		return result;

	if (params.video.operation) {
		/* Decode outputs and encode inputs: only what the driver lists
		 * for the profile. */
		result = vulkan_video_check_picture(device, ctx, &params.video, assertion, &image_usage);
		if (result != UDA_SUCCESS)
			return result;
		params.usage = image_usage;
		const uint32_t tilings = vulkan_video_tilings(device, &params.video, vk_format, image_usage);
		if (!tilings)
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
			                             "vulkan: %s has no %s pictures for %s profile %u with image usage 0x%x",
			                             device->name, format.name,
			                             vulkan_video_operation_name(params.video.operation),
			                             params.video.std_profile, image_usage);
		if (cpu)
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
			                             "vulkan: video pictures are not mapped; a CPU reads or writes them through "
			                             "a copy");
		if ((tilings & VULKAN_VIDEO_TILING_MODIFIER) && device->has_drm_modifiers)
			result = append_modifier_sets(device, ctx, assertion, vk_format, &params, out);
		if (result == UDA_SUCCESS && (tilings & VULKAN_VIDEO_TILING_OPTIMAL))
			result = append_optimal_set(device, ctx, assertion, vk_format, format.plane_count, &params, out);
	} else {
		/* 0. Every modifier the driver lists for the format and usage,
		 * over DMA_BUF: explicit layouts any device can import. */
		if (!cpu && device->has_drm_modifiers)
			result = append_modifier_sets(device, ctx, assertion, vk_format, &params, out);
		/* 1. Optimal tiling, opaque, for devices of this driver. */
		if (result == UDA_SUCCESS && !cpu)
			result = append_optimal_set(device, ctx, assertion, vk_format, format.plane_count, &params, out);
	}
	if (multi_planar) {
		uint32_t count = 0;
		uda_capability_set_list_get_count(out, &count);
		if (result == UDA_SUCCESS && count == 0)
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
			                             "vulkan: %s makes no %s image for this usage: a multi-planar image "
			                             "needs DRM format modifiers%s or the driver's own tiling for it",
			                             device->name, format.name, device->has_drm_modifiers ? "" : " (absent)");
		return result;
	}
	/* 2. Linear at the driver's pitch, exportable. */
	if (result == UDA_SUCCESS)
		result = append_linear_set(device, ctx, assertion, vk_format, &params, cpu, out);
	/* 3. Host memory from a memfd, imported. */
	if (result == UDA_SUCCESS)
		result = append_host_set(device, ctx, assertion, vk_format, &params, out);
	return result;
}

uda_result vulkan_image_params_for_set(const struct vulkan_device *device, uda_context *ctx, VkFormat format,
                                       const uda_capability_set_list *set, uint32_t set_index,
                                       uda_handle_type handle, VkImageTiling *out_tiling, uint64_t *out_modifier,
                                       struct vulkan_image_params *out_params)
{
	*out_modifier = 0;
	memset(out_params, 0, sizeof(*out_params));
	uda_capability layout;
	uda_result result = uda_capability_set_list_get_layout(set, set_index, &layout);
	if (result != UDA_SUCCESS)
		return result;
	if (layout.name == UDA_CAPABILITY_LAYOUT_OPAQUE) {
		const uint8_t *p = layout.payload;
		if (layout.length != UDA_OPAQUE_LAYOUT_PAYLOAD_SIZE ||
		    memcmp(p, device->driver_uuid, UDA_UUID_SIZE) != 0 ||
		    (uint32_t)(p[16] | p[17] << 8 | p[18] << 16 | (uint32_t)p[19] << 24) !=
		            UDA_OPAQUE_LAYOUT_OPTIMAL_TILING)
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
			                             "vulkan: an opaque layout of another driver or kind");
		*out_tiling = VK_IMAGE_TILING_OPTIMAL;
	} else {
		uint64_t modifier = 0;
		uda_capability_set_list_get_modifier(set, set_index, &modifier);
		/* Memory that travels as a dma-buf has an explicit layout, so
		 * with modifiers it takes the modifier path, which accepts an
		 * exporter's pitch; a linear set that also (or only) speaks
		 * OPAQUE_FD or MEMFD keeps the driver's own linear tiling, the
		 * one its pinned pitch was measured on. */
		const bool dma_buf = handle == UDA_HANDLE_TYPE_DMA_BUF ||
		                     (handle == UDA_HANDLE_TYPE_NONE &&
		                      uda_backend_set_has_u32(set, set_index, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF) &&
		                      !uda_backend_set_has_u32(set, set_index, UDA_CAPABILITY_HANDLE,
		                                               UDA_HANDLE_TYPE_OPAQUE_FD));
		if (device->has_drm_modifiers && dma_buf && vulkan_modifier_plane_count(device, format, modifier) > 0) {
			*out_tiling = VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT;
			*out_modifier = modifier;
		} else if (modifier == 0 /* DRM_FORMAT_MOD_LINEAR */) {
			*out_tiling = VK_IMAGE_TILING_LINEAR;
		} else {
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
			                             "vulkan: modifier 0x%016llx is not one this driver lists",
			                             (unsigned long long)modifier);
		}
	}

	/* One IMAGE_PARAMS per Vulkan device of this hardware that took part
	 * (in this process or another, such as a compositor's): the image
	 * must serve them all, so their usages add up. */
	uda_capability params[UDA_MAX_NEGOTIATION_DEVICES + UDA_MAX_NEGOTIATION_PEERS];
	uint32_t found = uda_backend_find_capabilities(set, set_index, UDA_VENDOR_API_BACKEND,
	                                               VULKAN_CAPABILITY_IMAGE_PARAMS, device->device_uuid, params,
	                                               sizeof(params) / sizeof(params[0]));
	if (found > sizeof(params) / sizeof(params[0]))
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "vulkan: %u image parameter capabilities",
		                             found);
	for (uint32_t i = 0; i < found; i++) {
		/* Possibly from another process: only what this backend would
		 * have written passes. */
		if (params[i].length != VULKAN_IMAGE_PARAMS_SIZE && params[i].length != VULKAN_IMAGE_PARAMS_VIDEO_SIZE &&
		    params[i].length != VULKAN_IMAGE_PARAMS_PICTURE_SIZE)
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "vulkan: image parameters of %u bytes",
			                             params[i].length);
		uint32_t usage, flags;
		struct vulkan_video_profile video = {0};
		memcpy(&usage, params[i].payload, 4);
		memcpy(&flags, (const uint8_t *)params[i].payload + 4, 4);
		if (!usage || (usage & ~VULKAN_IMAGE_USAGE_KNOWN) || flags)
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
			                             "vulkan: image parameters usage 0x%x flags 0x%x are not this backend's",
			                             usage, flags);
		/* A profile exactly where there are video usages, as the
		 * backend writes them: a decode output's (with its DPB use)
		 * or an encode input's, of the profile's direction. */
		const bool video_usage = usage & VULKAN_IMAGE_USAGE_VIDEO;
		if (video_usage != (params[i].length != VULKAN_IMAGE_PARAMS_SIZE))
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
			                             "vulkan: image parameters of %u bytes for usage 0x%x", params[i].length,
			                             usage);
		if (video_usage) {
			memcpy(&video, (const uint8_t *)params[i].payload + 8, VULKAN_VIDEO_PROFILE_SIZE);
			if (params[i].length == VULKAN_IMAGE_PARAMS_PICTURE_SIZE) {
				memcpy(&video.picture, (const uint8_t *)params[i].payload + VULKAN_IMAGE_PARAMS_VIDEO_SIZE,
				       4);
				/* Written only where there are flags. */
				if (!video.picture)
					return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
					                             "vulkan: image parameters with picture flags 0");
			}
			if (!vulkan_video_params_valid(device, &video, usage))
				return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
				                             "vulkan: image parameters name a video profile (operation 0x%x, "
				                             "profile %u) and usage 0x%x this device does not decode or "
				                             "encode",
				                             video.operation, video.std_profile, usage);
		}
		/* One image, one profile: two decoders of different
		 * bitstreams, or a decoder and an encoder, cannot share a
		 * picture here. */
		if (video.operation && out_params->video.operation &&
		    memcmp(&video, &out_params->video, sizeof(video)) != 0)
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
			                             "vulkan: one image cannot be made for two video profiles");
		if (video.operation)
			out_params->video = video;
		out_params->usage |= usage;
	}
	if (found)
		return UDA_SUCCESS;
	/* A set this device never asked for: give the image every use the
	 * format has with that tiling, so the application can still use it. */
	VkFormatProperties properties;
	vkGetPhysicalDeviceFormatProperties(device->physical, format, &properties);
	VkFormatFeatureFlags features = *out_tiling == VK_IMAGE_TILING_OPTIMAL ? properties.optimalTilingFeatures
	                                                                      : properties.linearTilingFeatures;
	if (*out_tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT) {
		VkDrmFormatModifierPropertiesEXT chosen;
		features = vulkan_find_modifier(device, format, *out_modifier, &chosen)
		                   ? chosen.drmFormatModifierTilingFeatures
		                   : 0;
	}
	VkImageUsageFlags usage = 0;
	if (features & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)
		usage |= VK_IMAGE_USAGE_SAMPLED_BIT;
	if (features & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT)
		usage |= VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
	if (features & VK_FORMAT_FEATURE_TRANSFER_SRC_BIT)
		usage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
	if (features & VK_FORMAT_FEATURE_TRANSFER_DST_BIT)
		usage |= VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	if (!usage)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vulkan: the format has no use with that tiling");
	out_params->usage = usage;
	return UDA_SUCCESS;
}
