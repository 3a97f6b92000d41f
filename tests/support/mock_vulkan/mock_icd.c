/* The loader's side of the mock: interface negotiation, the one entry-point
 * table, the instance, and the physical device's answers. */
#include <stdlib.h>
#include <string.h>

#include "mock_entry_points.h"
#include "mock_icd.h"

#define MOCK_EXPORT __attribute__((visibility("default")))

/* UDA_MOCK_VULKAN_DEDICATED=prefer: external images prefer dedicated
 * memory without requiring it, and their handle types are not
 * DEDICATED_ONLY (a driver of another kind than NVIDIA's); by default
 * they require it, as NVIDIA's do. */
bool mock_external_images_require_dedicated(void)
{
	const char *mode = getenv("UDA_MOCK_VULKAN_DEDICATED");
	return !mode || strcmp(mode, "prefer") != 0;
}

/* One GPU, the same for every instance: its identity does not change
 * across processes, as a real GPU's does not. Its loader slot is set once,
 * here, so instances made on several threads never write it. */
static struct mock_physical_device physical_device = {.loader = {.loaderMagic = ICD_LOADER_MAGIC}};

static const uint8_t device_uuid[VK_UUID_SIZE] = {0x75, 0x64, 0x61, 0x2d, 0x6d, 0x6f, 0x63, 0x6b,
                                                   0x2d, 0x6e, 0x76, 0x2d, 0x67, 0x70, 0x75, 0x30};
static const uint8_t driver_uuid[VK_UUID_SIZE] = {0x75, 0x64, 0x61, 0x2d, 0x6d, 0x6f, 0x63, 0x6b,
                                                   0x2d, 0x6e, 0x76, 0x2d, 0x64, 0x72, 0x76, 0x30};

static const VkExtensionProperties device_extensions[] = {
	{VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_SPEC_VERSION},
	{VK_EXT_IMAGE_DRM_FORMAT_MODIFIER_EXTENSION_NAME, VK_EXT_IMAGE_DRM_FORMAT_MODIFIER_SPEC_VERSION},
	{VK_EXT_PHYSICAL_DEVICE_DRM_EXTENSION_NAME, VK_EXT_PHYSICAL_DEVICE_DRM_SPEC_VERSION},
	{VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_MEMORY_FD_SPEC_VERSION},
	{VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME, VK_KHR_SYNCHRONIZATION_2_SPEC_VERSION},
	{VK_KHR_VIDEO_DECODE_AV1_EXTENSION_NAME, VK_KHR_VIDEO_DECODE_AV1_SPEC_VERSION},
	{VK_KHR_VIDEO_DECODE_H264_EXTENSION_NAME, VK_KHR_VIDEO_DECODE_H264_SPEC_VERSION},
	{VK_KHR_VIDEO_DECODE_H265_EXTENSION_NAME, VK_KHR_VIDEO_DECODE_H265_SPEC_VERSION},
	{VK_KHR_VIDEO_DECODE_QUEUE_EXTENSION_NAME, VK_KHR_VIDEO_DECODE_QUEUE_SPEC_VERSION},
	{VK_KHR_VIDEO_DECODE_VP9_EXTENSION_NAME, VK_KHR_VIDEO_DECODE_VP9_SPEC_VERSION},
	{VK_KHR_VIDEO_ENCODE_AV1_EXTENSION_NAME, VK_KHR_VIDEO_ENCODE_AV1_SPEC_VERSION},
	{VK_KHR_VIDEO_ENCODE_H264_EXTENSION_NAME, VK_KHR_VIDEO_ENCODE_H264_SPEC_VERSION},
	{VK_KHR_VIDEO_ENCODE_H265_EXTENSION_NAME, VK_KHR_VIDEO_ENCODE_H265_SPEC_VERSION},
	{VK_KHR_VIDEO_ENCODE_QUEUE_EXTENSION_NAME, VK_KHR_VIDEO_ENCODE_QUEUE_SPEC_VERSION},
	{VK_KHR_VIDEO_QUEUE_EXTENSION_NAME, VK_KHR_VIDEO_QUEUE_SPEC_VERSION},
};

bool mock_handles_together(VkImageTiling tiling)
{
	const char *handles = getenv("UDA_MOCK_VULKAN_HANDLES");
	return tiling == VK_IMAGE_TILING_LINEAR && handles && strcmp(handles, "together") == 0;
}

const void *mock_find_struct(const void *chain, VkStructureType type)
{
	for (const VkBaseInStructure *s = chain; s; s = s->pNext) {
		if (s->sType == type)
			return s;
	}
	return NULL;
}

void *mock_find_out_struct(void *chain, VkStructureType type)
{
	for (VkBaseOutStructure *s = chain; s; s = s->pNext) {
		if (s->sType == type)
			return s;
	}
	return NULL;
}

/* Fills an enumeration the Vulkan way: a count query, or up to *count. */
static VkResult enumerate(const void *items, size_t item_size, uint32_t available, uint32_t *count, void *out)
{
	if (!out) {
		*count = available;
		return VK_SUCCESS;
	}
	const uint32_t written = *count < available ? *count : available;
	if (written)
		memcpy(out, items, item_size * written);
	*count = written;
	return written < available ? VK_INCOMPLETE : VK_SUCCESS;
}

/* --- the loader interface --------------------------------------------- */

static const struct {
	const char *name;
	PFN_vkVoidFunction function;
} entry_points[] = {
#define MOCK_ENTRY(name) {"vk" #name, (PFN_vkVoidFunction)mock_##name},
	MOCK_ENTRY_POINTS(MOCK_ENTRY)
#undef MOCK_ENTRY
};

PFN_vkVoidFunction mock_lookup(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(entry_points) / sizeof(entry_points[0]); i++) {
		if (strcmp(entry_points[i].name, name) == 0)
			return entry_points[i].function;
	}
	/* Promoted commands under their extension names. */
	const size_t length = strlen(name);
	if (length > 3 && strcmp(name + length - 3, "KHR") == 0 && length < 128) {
		char core[128];
		memcpy(core, name, length - 3);
		core[length - 3] = '\0';
		return mock_lookup(core);
	}
	return NULL;
}

MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vk_icdNegotiateLoaderICDInterfaceVersion(uint32_t *version);
MOCK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vk_icdGetInstanceProcAddr(VkInstance instance, const char *name);
MOCK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vk_icdGetPhysicalDeviceProcAddr(VkInstance instance,
                                                                                     const char *name);

VKAPI_ATTR VkResult VKAPI_CALL vk_icdNegotiateLoaderICDInterfaceVersion(uint32_t *version)
{
	/* 5: the loader passes apiVersion through; nothing newer is needed. */
	if (*version > 5)
		*version = 5;
	return *version >= 3 ? VK_SUCCESS : VK_ERROR_INCOMPATIBLE_DRIVER;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vk_icdGetInstanceProcAddr(VkInstance instance, const char *name)
{
	return mock_lookup(name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vk_icdGetPhysicalDeviceProcAddr(VkInstance instance, const char *name)
{
	return name && strncmp(name, "vkGetPhysicalDevice", 19) == 0 ? mock_lookup(name) : NULL;
}

/* --- the instance -------------------------------------------------------- */

VKAPI_ATTR VkResult VKAPI_CALL mock_EnumerateInstanceVersion(uint32_t *version)
{
	*version = VK_API_VERSION_1_3;
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_EnumerateInstanceExtensionProperties(const char *layer, uint32_t *count,
                                                                         VkExtensionProperties *properties)
{
	if (layer)
		return VK_ERROR_LAYER_NOT_PRESENT;
	return enumerate(NULL, sizeof(*properties), 0, count, properties);
}

VKAPI_ATTR VkResult VKAPI_CALL mock_CreateInstance(const VkInstanceCreateInfo *info,
                                                   const VkAllocationCallbacks *allocator, VkInstance *out)
{
	if (info->enabledExtensionCount)
		return VK_ERROR_EXTENSION_NOT_PRESENT;
	struct mock_instance *instance = calloc(1, sizeof(*instance));
	if (!instance)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	set_loader_magic_value(instance);
	*out = (VkInstance)instance;
	return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL mock_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *allocator)
{
	free((struct mock_instance *)instance);
}

VKAPI_ATTR VkResult VKAPI_CALL mock_EnumeratePhysicalDevices(VkInstance instance, uint32_t *count,
                                                             VkPhysicalDevice *out)
{
	const VkPhysicalDevice only = (VkPhysicalDevice)&physical_device;
	return enumerate(&only, sizeof(only), 1, count, out);
}

/* --- the physical device ---------------------------------------------- */

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceProperties(VkPhysicalDevice physical,
                                                            VkPhysicalDeviceProperties *out)
{
	memset(out, 0, sizeof(*out));
	out->apiVersion = VK_API_VERSION_1_3 | VK_HEADER_VERSION;
	out->driverVersion = VK_MAKE_VERSION(1, 0, 0);
	out->vendorID = 0x10de;
	out->deviceID = 0x2204;
	out->deviceType = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
	strcpy(out->deviceName, "uda mock NVIDIA-like GPU");
	memcpy(out->pipelineCacheUUID, device_uuid, VK_UUID_SIZE);
	VkPhysicalDeviceLimits *l = &out->limits;
	l->maxImageDimension1D = l->maxImageDimension2D = 32768;
	l->maxImageDimension3D = 16384;
	l->maxImageDimensionCube = 32768;
	l->maxImageArrayLayers = 2048;
	l->maxTexelBufferElements = 1u << 27;
	l->maxUniformBufferRange = 65536;
	l->maxStorageBufferRange = 0xffffffffu;
	l->maxPushConstantsSize = 256;
	l->maxMemoryAllocationCount = 4096;
	l->maxSamplerAllocationCount = 4000;
	l->bufferImageGranularity = 1024;
	l->maxBoundDescriptorSets = 32;
	l->maxFramebufferWidth = l->maxFramebufferHeight = 32768;
	l->maxFramebufferLayers = 2048;
	l->maxColorAttachments = 8;
	l->maxViewports = 16;
	l->maxViewportDimensions[0] = l->maxViewportDimensions[1] = 32768;
	l->framebufferColorSampleCounts = l->sampledImageColorSampleCounts = VK_SAMPLE_COUNT_1_BIT;
	l->framebufferDepthSampleCounts = l->framebufferStencilSampleCounts = VK_SAMPLE_COUNT_1_BIT;
	l->framebufferNoAttachmentsSampleCounts = VK_SAMPLE_COUNT_1_BIT;
	l->sampledImageIntegerSampleCounts = l->sampledImageDepthSampleCounts = VK_SAMPLE_COUNT_1_BIT;
	l->sampledImageStencilSampleCounts = l->storageImageSampleCounts = VK_SAMPLE_COUNT_1_BIT;
	l->minMemoryMapAlignment = 64;
	l->minTexelBufferOffsetAlignment = 16;
	l->minUniformBufferOffsetAlignment = 64;
	l->minStorageBufferOffsetAlignment = 16;
	l->optimalBufferCopyOffsetAlignment = 1;
	l->optimalBufferCopyRowPitchAlignment = 1;
	l->nonCoherentAtomSize = 64;
	l->timestampPeriod = 1.0f;
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceProperties2(VkPhysicalDevice physical,
                                                             VkPhysicalDeviceProperties2 *out)
{
	mock_GetPhysicalDeviceProperties(physical, &out->properties);
	for (VkBaseOutStructure *s = out->pNext; s; s = s->pNext) {
		switch (s->sType) {
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES: {
			VkPhysicalDeviceIDProperties *id = (VkPhysicalDeviceIDProperties *)s;
			memcpy(id->deviceUUID, device_uuid, VK_UUID_SIZE);
			memcpy(id->driverUUID, driver_uuid, VK_UUID_SIZE);
			id->deviceNodeMask = 1;
			id->deviceLUIDValid = VK_FALSE;
			break;
		}
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES: {
			VkPhysicalDeviceVulkan11Properties *p = (VkPhysicalDeviceVulkan11Properties *)s;
			memcpy(p->deviceUUID, device_uuid, VK_UUID_SIZE);
			memcpy(p->driverUUID, driver_uuid, VK_UUID_SIZE);
			p->deviceNodeMask = 1;
			p->maxMemoryAllocationSize = 1ull << 36;
			p->maxPerSetDescriptors = 1024;
			p->maxMultiviewViewCount = 1;
			p->maxMultiviewInstanceIndex = 1;
			break;
		}
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES: {
			VkPhysicalDeviceMaintenance3Properties *p = (VkPhysicalDeviceMaintenance3Properties *)s;
			p->maxMemoryAllocationSize = 1ull << 36;
			p->maxPerSetDescriptors = 1024;
			break;
		}
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRM_PROPERTIES_EXT: {
			VkPhysicalDeviceDrmPropertiesEXT *p = (VkPhysicalDeviceDrmPropertiesEXT *)s;
			p->hasPrimary = VK_FALSE;
			p->hasRender = VK_TRUE;
			p->renderMajor = MOCK_RENDER_MAJOR;
			p->renderMinor = MOCK_RENDER_MINOR;
			break;
		}
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES: {
			VkPhysicalDeviceDriverProperties *p = (VkPhysicalDeviceDriverProperties *)s;
			p->driverID = VK_DRIVER_ID_NVIDIA_PROPRIETARY;
			strcpy(p->driverName, "uda-mock-vulkan");
			strcpy(p->driverInfo, "a test driver with NVIDIA-like answers");
			p->conformanceVersion = (VkConformanceVersion){1, 3, 0, 0};
			break;
		}
		default:
			break; /* left as the caller set it */
		}
	}
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceFeatures(VkPhysicalDevice physical, VkPhysicalDeviceFeatures *out)
{
	memset(out, 0, sizeof(*out));
	out->samplerAnisotropy = VK_TRUE;
	out->shaderStorageImageWriteWithoutFormat = VK_TRUE;
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceFeatures2(VkPhysicalDevice physical, VkPhysicalDeviceFeatures2 *out)
{
	mock_GetPhysicalDeviceFeatures(physical, &out->features);
	for (VkBaseOutStructure *s = out->pNext; s; s = s->pNext) {
		switch (s->sType) {
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SAMPLER_YCBCR_CONVERSION_FEATURES:
			((VkPhysicalDeviceSamplerYcbcrConversionFeatures *)s)->samplerYcbcrConversion = VK_TRUE;
			break;
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES:
			((VkPhysicalDeviceSynchronization2Features *)s)->synchronization2 = VK_TRUE;
			break;
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES:
			((VkPhysicalDeviceVulkan11Features *)s)->samplerYcbcrConversion = VK_TRUE;
			break;
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES:
			((VkPhysicalDeviceVulkan13Features *)s)->synchronization2 = VK_TRUE;
			break;
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VIDEO_ENCODE_AV1_FEATURES_KHR:
			/* UDA_MOCK_VULKAN_AV1_ENCODE=0: the extension without the
			 * feature, as a driver may list it. */
			((VkPhysicalDeviceVideoEncodeAV1FeaturesKHR *)s)->videoEncodeAV1 =
				!getenv("UDA_MOCK_VULKAN_AV1_ENCODE") || strcmp(getenv("UDA_MOCK_VULKAN_AV1_ENCODE"), "0") != 0;
			break;
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VIDEO_DECODE_VP9_FEATURES_KHR:
			/* UDA_MOCK_VULKAN_VP9_DECODE=0, likewise. */
			((VkPhysicalDeviceVideoDecodeVP9FeaturesKHR *)s)->videoDecodeVP9 =
				!getenv("UDA_MOCK_VULKAN_VP9_DECODE") || strcmp(getenv("UDA_MOCK_VULKAN_VP9_DECODE"), "0") != 0;
			break;
		default:
			break;
		}
	}
}

/* Heap 0 is the GPU's memory, heap 1 system memory; type 3 is the whole
 * of VRAM mapped (resizable BAR). */
VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceMemoryProperties(VkPhysicalDevice physical,
                                                                  VkPhysicalDeviceMemoryProperties *out)
{
	memset(out, 0, sizeof(*out));
	out->memoryHeapCount = 2;
	out->memoryHeaps[0] = (VkMemoryHeap){8ull << 30, VK_MEMORY_HEAP_DEVICE_LOCAL_BIT};
	out->memoryHeaps[1] = (VkMemoryHeap){16ull << 30, 0};
	out->memoryTypeCount = 4;
	out->memoryTypes[0] = (VkMemoryType){VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0};
	out->memoryTypes[1] = (VkMemoryType){VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 1};
	out->memoryTypes[2] = (VkMemoryType){
		VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
		1};
	out->memoryTypes[3] = (VkMemoryType){VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
	                                             VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                                     0};
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceMemoryProperties2(VkPhysicalDevice physical,
                                                                   VkPhysicalDeviceMemoryProperties2 *out)
{
	mock_GetPhysicalDeviceMemoryProperties(physical, &out->memoryProperties);
}

static VkQueueFamilyProperties family_properties(uint32_t family)
{
	static const VkQueueFlags flags[MOCK_QUEUE_FAMILIES] = {
		[MOCK_QUEUE_GRAPHICS] = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT,
		[MOCK_QUEUE_TRANSFER] = VK_QUEUE_TRANSFER_BIT,
		[MOCK_QUEUE_DECODE] = VK_QUEUE_VIDEO_DECODE_BIT_KHR,
		[MOCK_QUEUE_ENCODE] = VK_QUEUE_VIDEO_ENCODE_BIT_KHR,
	};
	return (VkQueueFamilyProperties){
		.queueFlags = flags[family],
		.queueCount = family == MOCK_QUEUE_GRAPHICS ? 16 : family == MOCK_QUEUE_TRANSFER ? 2 : 4,
		.timestampValidBits = 64,
		.minImageTransferGranularity = {1, 1, 1},
	};
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice physical, uint32_t *count,
                                                                       VkQueueFamilyProperties *out)
{
	VkQueueFamilyProperties all[MOCK_QUEUE_FAMILIES];
	for (uint32_t i = 0; i < MOCK_QUEUE_FAMILIES; i++)
		all[i] = family_properties(i);
	enumerate(all, sizeof(all[0]), MOCK_QUEUE_FAMILIES, count, out);
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceQueueFamilyProperties2(VkPhysicalDevice physical, uint32_t *count,
                                                                        VkQueueFamilyProperties2 *out)
{
	if (!out) {
		*count = MOCK_QUEUE_FAMILIES;
		return;
	}
	if (*count > MOCK_QUEUE_FAMILIES)
		*count = MOCK_QUEUE_FAMILIES;
	for (uint32_t i = 0; i < *count; i++) {
		out[i].queueFamilyProperties = family_properties(i);
		VkQueueFamilyVideoPropertiesKHR *video =
			mock_find_out_struct(out[i].pNext, VK_STRUCTURE_TYPE_QUEUE_FAMILY_VIDEO_PROPERTIES_KHR);
		if (video)
			video->videoCodecOperations =
				i == MOCK_QUEUE_DECODE   ? VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR |
				                                   VK_VIDEO_CODEC_OPERATION_DECODE_H265_BIT_KHR |
				                                   VK_VIDEO_CODEC_OPERATION_DECODE_AV1_BIT_KHR |
				                                   VK_VIDEO_CODEC_OPERATION_DECODE_VP9_BIT_KHR
				: i == MOCK_QUEUE_ENCODE ? VK_VIDEO_CODEC_OPERATION_ENCODE_H264_BIT_KHR |
				                                   VK_VIDEO_CODEC_OPERATION_ENCODE_H265_BIT_KHR |
				                                   VK_VIDEO_CODEC_OPERATION_ENCODE_AV1_BIT_KHR
				                         : 0;
		VkQueueFamilyQueryResultStatusPropertiesKHR *status =
			mock_find_out_struct(out[i].pNext, VK_STRUCTURE_TYPE_QUEUE_FAMILY_QUERY_RESULT_STATUS_PROPERTIES_KHR);
		if (status)
			status->queryResultStatusSupport = i == MOCK_QUEUE_DECODE || i == MOCK_QUEUE_ENCODE;
	}
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceFormatProperties(VkPhysicalDevice physical, VkFormat format,
                                                                  VkFormatProperties *out)
{
	const struct mock_format *known = mock_format_find(format);
	*out = (VkFormatProperties){
		.linearTilingFeatures = known ? known->linear : 0,
		.optimalTilingFeatures = known ? known->optimal : 0,
	};
}

/* The modifier list, in either of its two forms. */
static void list_modifiers(const struct mock_format *known, uint32_t *count, uint64_t *modifier_out, size_t stride,
                           uint32_t *plane_out, uint64_t *features_out, bool wide_features)
{
	uint64_t modifiers[1 + MOCK_BLOCK_LINEAR_HEIGHTS];
	const uint32_t available = known ? mock_format_modifiers(known, modifiers) : 0;
	if (!modifier_out) {
		*count = available;
		return;
	}
	if (*count > available)
		*count = available;
	for (uint32_t i = 0; i < *count; i++) {
		uint8_t *base = (uint8_t *)modifier_out + i * stride;
		memcpy(base, &modifiers[i], sizeof(uint64_t));
		memcpy((uint8_t *)plane_out + i * stride, &known->plane_count, sizeof(uint32_t));
		if (wide_features) {
			const uint64_t features = known->modifier;
			memcpy((uint8_t *)features_out + i * stride, &features, sizeof(uint64_t));
		} else {
			const uint32_t features = known->modifier;
			memcpy((uint8_t *)features_out + i * stride, &features, sizeof(uint32_t));
		}
	}
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceFormatProperties2(VkPhysicalDevice physical, VkFormat format,
                                                                   VkFormatProperties2 *out)
{
	mock_GetPhysicalDeviceFormatProperties(physical, format, &out->formatProperties);
	const struct mock_format *known = mock_format_find(format);
	for (VkBaseOutStructure *s = out->pNext; s; s = s->pNext) {
		if (s->sType == VK_STRUCTURE_TYPE_DRM_FORMAT_MODIFIER_PROPERTIES_LIST_EXT) {
			VkDrmFormatModifierPropertiesListEXT *list = (VkDrmFormatModifierPropertiesListEXT *)s;
			VkDrmFormatModifierPropertiesEXT *p = list->pDrmFormatModifierProperties;
			list_modifiers(known, &list->drmFormatModifierCount, p ? &p->drmFormatModifier : NULL, sizeof(*p),
			               p ? &p->drmFormatModifierPlaneCount : NULL,
			               p ? (uint64_t *)(void *)&p->drmFormatModifierTilingFeatures : NULL, false);
		} else if (s->sType == VK_STRUCTURE_TYPE_DRM_FORMAT_MODIFIER_PROPERTIES_LIST_2_EXT) {
			VkDrmFormatModifierPropertiesList2EXT *list = (VkDrmFormatModifierPropertiesList2EXT *)s;
			VkDrmFormatModifierProperties2EXT *p = list->pDrmFormatModifierProperties;
			list_modifiers(known, &list->drmFormatModifierCount, p ? &p->drmFormatModifier : NULL, sizeof(*p),
			               p ? &p->drmFormatModifierPlaneCount : NULL,
			               p ? (uint64_t *)&p->drmFormatModifierTilingFeatures : NULL, true);
		} else if (s->sType == VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_3) {
			VkFormatProperties3 *p3 = (VkFormatProperties3 *)s;
			p3->linearTilingFeatures = known ? known->linear : 0;
			p3->optimalTilingFeatures = known ? known->optimal : 0;
			p3->bufferFeatures = 0;
		}
	}
}

/* Which usages a tiling's features allow. */
static VkImageUsageFlags usages_of(VkFormatFeatureFlags features)
{
	VkImageUsageFlags usage = 0;
	if (features & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)
		usage |= VK_IMAGE_USAGE_SAMPLED_BIT;
	if (features & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)
		usage |= VK_IMAGE_USAGE_STORAGE_BIT;
	if (features & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT)
		usage |= VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
	if (features & VK_FORMAT_FEATURE_TRANSFER_SRC_BIT)
		usage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
	if (features & VK_FORMAT_FEATURE_TRANSFER_DST_BIT)
		usage |= VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	if (features & VK_FORMAT_FEATURE_VIDEO_DECODE_OUTPUT_BIT_KHR)
		usage |= VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR;
	if (features & VK_FORMAT_FEATURE_VIDEO_DECODE_DPB_BIT_KHR)
		usage |= VK_IMAGE_USAGE_VIDEO_DECODE_DPB_BIT_KHR;
	if (features & VK_FORMAT_FEATURE_VIDEO_ENCODE_INPUT_BIT_KHR)
		usage |= VK_IMAGE_USAGE_VIDEO_ENCODE_SRC_BIT_KHR;
	return usage;
}

VkImageUsageFlags mock_image_usages(const struct mock_format *known, VkImageTiling tiling)
{
	VkImageUsageFlags usage = usages_of(tiling == VK_IMAGE_TILING_OPTIMAL  ? known->optimal
	                                    : tiling == VK_IMAGE_TILING_LINEAR ? known->linear
	                                                                       : known->modifier);
	if (known->bit_depth)
		usage &= mock_video_usages(tiling) | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	return usage;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceImageFormatProperties2(
	VkPhysicalDevice physical, const VkPhysicalDeviceImageFormatInfo2 *info, VkImageFormatProperties2 *out)
{
	memset(&out->imageFormatProperties, 0, sizeof(out->imageFormatProperties));
	const struct mock_format *known = mock_format_find(info->format);
	if (!known || info->type != VK_IMAGE_TYPE_2D || (info->flags & ~VK_IMAGE_CREATE_ALIAS_BIT))
		return VK_ERROR_FORMAT_NOT_SUPPORTED;
	if ((info->usage & mock_image_usages(known, info->tiling)) != info->usage ||
	    !mock_video_profiles_allow(info->pNext, known, info->usage, false))
		return VK_ERROR_FORMAT_NOT_SUPPORTED;
	if (info->tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT) {
		const VkPhysicalDeviceImageDrmFormatModifierInfoEXT *modifier =
			mock_find_struct(info->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_DRM_FORMAT_MODIFIER_INFO_EXT);
		if (!modifier || !mock_format_has_modifier(known, modifier->drmFormatModifier))
			return VK_ERROR_FORMAT_NOT_SUPPORTED;
	}
	const VkPhysicalDeviceExternalImageFormatInfo *external =
		mock_find_struct(info->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO);
	VkExternalImageFormatProperties *external_out =
		mock_find_out_struct(out->pNext, VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES);
	if (external && external->handleType) {
		const VkExternalMemoryHandleTypeFlags both =
			VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT | VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
		if (!(external->handleType & both))
			return VK_ERROR_FORMAT_NOT_SUPPORTED;
		/* An explicit layout is shared as a dma-buf; the driver's own
		 * tiling only with itself. */
		if (info->tiling == VK_IMAGE_TILING_OPTIMAL &&
		    external->handleType != VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT)
			return VK_ERROR_FORMAT_NOT_SUPPORTED;
		const bool together = mock_handles_together(info->tiling);
		if (external_out) {
			external_out->externalMemoryProperties = (VkExternalMemoryProperties){
				.externalMemoryFeatures = (mock_external_images_require_dedicated()
			                                           ? VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT
			                                           : 0) |
			                                  VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT |
			                                  VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT,
				.exportFromImportedHandleTypes = together ? both : external->handleType,
				.compatibleHandleTypes = together ? both : external->handleType,
			};
		}
	}
	out->imageFormatProperties = (VkImageFormatProperties){
		.maxExtent = {32768, 32768, 1},
		.maxMipLevels = info->tiling == VK_IMAGE_TILING_OPTIMAL ? 16 : 1,
		.maxArrayLayers = info->tiling == VK_IMAGE_TILING_OPTIMAL ? 2048 : 1,
		.sampleCounts = VK_SAMPLE_COUNT_1_BIT,
		.maxResourceSize = 1ull << 36,
	};
	VkSamplerYcbcrConversionImageFormatProperties *ycbcr =
		mock_find_out_struct(out->pNext, VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_IMAGE_FORMAT_PROPERTIES);
	if (ycbcr)
		ycbcr->combinedImageSamplerDescriptorCount = known->plane_count;
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceImageFormatProperties(
	VkPhysicalDevice physical, VkFormat format, VkImageType type, VkImageTiling tiling, VkImageUsageFlags usage,
	VkImageCreateFlags flags, VkImageFormatProperties *out)
{
	const VkPhysicalDeviceImageFormatInfo2 info = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2,
		.format = format,
		.type = type,
		.tiling = tiling,
		.usage = usage,
		.flags = flags,
	};
	VkImageFormatProperties2 properties = {.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2};
	const VkResult result = mock_GetPhysicalDeviceImageFormatProperties2(physical, &info, &properties);
	*out = properties.imageFormatProperties;
	return result;
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceSparseImageFormatProperties(
	VkPhysicalDevice physical, VkFormat format, VkImageType type, VkSampleCountFlagBits samples,
	VkImageUsageFlags usage, VkImageTiling tiling, uint32_t *count, VkSparseImageFormatProperties *out)
{
	*count = 0;
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceSparseImageFormatProperties2(
	VkPhysicalDevice physical, const VkPhysicalDeviceSparseImageFormatInfo2 *info, uint32_t *count,
	VkSparseImageFormatProperties2 *out)
{
	*count = 0;
}

VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceExternalBufferProperties(
	VkPhysicalDevice physical, const VkPhysicalDeviceExternalBufferInfo *info, VkExternalBufferProperties *out)
{
	const VkExternalMemoryHandleTypeFlags both =
		VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT | VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
	out->externalMemoryProperties = (VkExternalMemoryProperties){0};
	if (info->handleType & both)
		out->externalMemoryProperties = (VkExternalMemoryProperties){
			.externalMemoryFeatures =
				VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT | VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT,
			.exportFromImportedHandleTypes = info->handleType,
			.compatibleHandleTypes = info->handleType,
		};
}

VKAPI_ATTR VkResult VKAPI_CALL mock_EnumerateDeviceExtensionProperties(VkPhysicalDevice physical, const char *layer,
                                                                       uint32_t *count,
                                                                       VkExtensionProperties *properties)
{
	if (layer)
		return VK_ERROR_LAYER_NOT_PRESENT;
	return enumerate(device_extensions, sizeof(device_extensions[0]),
	                 sizeof(device_extensions) / sizeof(device_extensions[0]), count, properties);
}

bool mock_has_device_extension(const char *name)
{
	for (size_t i = 0; i < sizeof(device_extensions) / sizeof(device_extensions[0]); i++) {
		if (strcmp(device_extensions[i].extensionName, name) == 0)
			return true;
	}
	return false;
}
