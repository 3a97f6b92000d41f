/*
 * The physical-device half of VK_UDA_external_allocation: which uda device
 * a VkPhysicalDevice is, and what it offers for a Vulkan-described image.
 * Both answer from the application's uda context; the layer only maps
 * Vulkan terms to uda's.
 */
#include <string.h>

#include <vulkan/vk_uda.h>

#include "layer_objects.h"
#include "layer_query.h"

static bool uuid_of(VkPhysicalDevice physical, uint8_t out[VK_UUID_SIZE])
{
	struct layer_instance *instance = layer_instance_find(dispatch_key(physical));
	if (!instance)
		return false;
	VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
	VkPhysicalDeviceProperties2 properties = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id};
	instance->next.GetPhysicalDeviceProperties2(physical, &properties);
	memcpy(out, id.deviceUUID, VK_UUID_SIZE);
	return true;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_GetPhysicalDeviceUdaDeviceUDA(VkPhysicalDevice physical,
                                                                         uda_context *context, uda_device **out)
{
	uint8_t uuid[VK_UUID_SIZE];
	if (!context || !out || !uuid_of(physical, uuid))
		return VK_ERROR_INITIALIZATION_FAILED;
	return uda_context_find_device(context, uuid, UDA_DEVICE_API_VULKAN, out) == UDA_SUCCESS
	               ? VK_SUCCESS
	               : VK_ERROR_INITIALIZATION_FAILED;
}

static uint32_t fourcc_of(VkFormat format)
{
	uint32_t count = 0, found = 0;
	bool found_alpha = false;
	uint32_t fourccs[128];
	uda_format_enumerate(&count, NULL);
	if (count > 128)
		count = 128;
	uda_format_enumerate(&count, fourccs);
	for (uint32_t i = 0; i < count; i++) {
		uda_format_info info;
		if (uda_format_get_info(fourccs[i], &info) != UDA_SUCCESS || info.vk_format != (uint32_t)format)
			continue;
		/* ABGR8888 over XBGR8888 for R8G8B8A8: Vulkan formats carry alpha. */
		if (!found || (info.has_alpha && !found_alpha)) {
			found = info.fourcc;
			found_alpha = info.has_alpha;
		}
	}
	return found;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_GetPhysicalDeviceUdaCapabilitySetsUDA(VkPhysicalDevice physical,
                                                                                 const VkUdaCapabilityQueryUDA *query,
                                                                                 uda_capability_set_list **out)
{
	if (!query || query->sType != VK_STRUCTURE_TYPE_UDA_CAPABILITY_QUERY_UDA || query->pNext || !out)
		return VK_ERROR_INITIALIZATION_FAILED;
	uda_device *device;
	VkResult vr = layer_GetPhysicalDeviceUdaDeviceUDA(physical, query->context, &device);
	if (vr != VK_SUCCESS)
		return vr;
	static const struct {
		VkImageUsageFlagBits bit;
		uda_usage_name name;
	} usages[] = {
		{VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, UDA_USAGE_RENDER_TARGET},
		{VK_IMAGE_USAGE_SAMPLED_BIT, UDA_USAGE_SAMPLED},
		{VK_IMAGE_USAGE_STORAGE_BIT, UDA_USAGE_STORAGE},
		{VK_IMAGE_USAGE_TRANSFER_SRC_BIT, UDA_USAGE_TRANSFER_SRC},
		{VK_IMAGE_USAGE_TRANSFER_DST_BIT, UDA_USAGE_TRANSFER_DST},
	};
	uda_usage_atom atoms[sizeof(usages) / sizeof(usages[0])];
	uint32_t atom_count = 0;
	VkImageUsageFlags left = query->usage;
	for (size_t i = 0; i < sizeof(usages) / sizeof(usages[0]); i++) {
		if (query->usage & usages[i].bit) {
			atoms[atom_count++] = (uda_usage_atom){UDA_VENDOR_NONE, (uint16_t)usages[i].name, 0, NULL};
			left &= ~(VkImageUsageFlags)usages[i].bit;
		}
	}
	const uint32_t fourcc = fourcc_of(query->format);
	if (left || !atom_count || !fourcc)
		return VK_ERROR_FORMAT_NOT_SUPPORTED;
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, query->extent.width, query->extent.height,
	                                 fourcc, 0};
	const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, atom_count, atoms};
	return uda_device_get_capability_sets(device, &assertion, &usage, out) == UDA_SUCCESS
	               ? VK_SUCCESS
	               : VK_ERROR_FORMAT_NOT_SUPPORTED;
}

PFN_vkVoidFunction layer_query_command(const char *name)
{
	if (strcmp(name, "vkGetPhysicalDeviceUdaDeviceUDA") == 0)
		return (PFN_vkVoidFunction)layer_GetPhysicalDeviceUdaDeviceUDA;
	if (strcmp(name, "vkGetPhysicalDeviceUdaCapabilitySetsUDA") == 0)
		return (PFN_vkVoidFunction)layer_GetPhysicalDeviceUdaCapabilitySetsUDA;
	return NULL;
}
