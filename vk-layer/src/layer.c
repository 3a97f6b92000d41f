/*
 * VK_LAYER_UDA_allocator: the loader-facing half of the layer.
 *
 * Loader interface version 2: vkNegotiateLoaderLayerInterfaceVersion hands
 * the loader this layer's vkGetInstanceProcAddr and vkGetDeviceProcAddr.
 * Those answer with the layer's own function only for the handful of
 * commands it intercepts (instance and device creation and destruction,
 * device extension enumeration) and with the next layer's function for
 * every other command, so calls the layer does not intercept never pass
 * through it.
 *
 * A layer is called through free functions the loader looks up, so its
 * records of instances and devices are process-wide (layer_objects.c):
 * the one place in uda with global state, and it is guarded.
 */
#include <stdlib.h>
#include <string.h>

#include <vulkan/vk_layer.h>
#include <vulkan/vk_uda.h>

#include "layer_import.h"
#include "layer_query.h"
#include "layer_objects.h"

#define LAYER_NAME "VK_LAYER_UDA_allocator"
/* Must match the Vulkan backend's VkApplicationInfo::pEngineName. */
#define UDA_BACKEND_ENGINE_NAME "uda-vulkan-backend"

#if defined(__GNUC__)
#define LAYER_EXPORT __attribute__((visibility("default")))
#else
#define LAYER_EXPORT
#endif

static const VkExtensionProperties layer_device_extensions[] = {
	{VK_UDA_EXTERNAL_ALLOCATION_EXTENSION_NAME, VK_UDA_EXTERNAL_ALLOCATION_SPEC_VERSION},
};

/* Driver extensions the layer turns on under VK_UDA_external_allocation,
 * each where the device has it. */
static const char *const underlying_extensions[] = {
	VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
	VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME,
	VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME,
	VK_KHR_IMAGE_FORMAT_LIST_EXTENSION_NAME,
	VK_EXT_IMAGE_DRM_FORMAT_MODIFIER_EXTENSION_NAME,
};

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetInstanceProcAddr(VkInstance instance, const char *name);
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetDeviceProcAddr(VkDevice device, const char *name);

static bool has_name(const char *const *names, uint32_t count, const char *name)
{
	for (uint32_t i = 0; i < count; i++) {
		if (strcmp(names[i], name) == 0)
			return true;
	}
	return false;
}

static VkLayerInstanceCreateInfo *find_instance_link(const VkInstanceCreateInfo *info)
{
	for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
		if (s->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
		    ((const VkLayerInstanceCreateInfo *)s)->function == VK_LAYER_LINK_INFO)
			return (VkLayerInstanceCreateInfo *)s;
	}
	return NULL;
}

static VkLayerDeviceCreateInfo *find_device_link(const VkDeviceCreateInfo *info)
{
	for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
		if (s->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
		    ((const VkLayerDeviceCreateInfo *)s)->function == VK_LAYER_LINK_INFO)
			return (VkLayerDeviceCreateInfo *)s;
	}
	return NULL;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateInstance(const VkInstanceCreateInfo *info,
                                                          const VkAllocationCallbacks *allocator,
                                                          VkInstance *out_instance)
{
	VkLayerInstanceCreateInfo *link = find_instance_link(info);
	if (!link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_GetPhysicalDeviceProcAddr next_gpdpa = link->u.pLayerInfo->pfnNextGetPhysicalDeviceProcAddr;
	PFN_vkCreateInstance next_create = (PFN_vkCreateInstance)next_gipa(VK_NULL_HANDLE, "vkCreateInstance");
	if (!next_create)
		return VK_ERROR_INITIALIZATION_FAILED;
	/* The next layer finds its own link. */
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	VkResult result = next_create(info, allocator, out_instance);
	if (result != VK_SUCCESS)
		return result;

	struct layer_instance *instance = layer_instance_add(dispatch_key(*out_instance));
	if (!instance) {
		PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)next_gipa(*out_instance, "vkDestroyInstance");
		if (destroy)
			destroy(*out_instance, allocator);
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}
	instance->handle = *out_instance;
	instance->next_gipa = next_gipa;
	instance->next_gpdpa = next_gpdpa;
	uda_layer_instance_dispatch_init(&instance->next, next_gipa, *out_instance);
	const VkApplicationInfo *application = info->pApplicationInfo;
	instance->uda_internal = application && application->pEngineName &&
	                         strcmp(application->pEngineName, UDA_BACKEND_ENGINE_NAME) == 0;
	instance->debug_utils = has_name(info->ppEnabledExtensionNames, info->enabledExtensionCount,
	                                 VK_EXT_DEBUG_UTILS_EXTENSION_NAME) &&
	                        instance->next.SubmitDebugUtilsMessageEXT;
	return VK_SUCCESS;
}

VkResult layer_report(const struct layer_instance *instance, VkResult result, const char *message)
{
	if (instance && instance->debug_utils) {
		const VkDebugUtilsMessengerCallbackDataEXT data = {
			.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CALLBACK_DATA_EXT,
			.pMessageIdName = "VK_LAYER_UDA_allocator",
			.pMessage = message,
		};
		instance->next.SubmitDebugUtilsMessageEXT(instance->handle, VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
		                                          VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT, &data);
	}
	return result;
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyInstance(VkInstance handle, const VkAllocationCallbacks *allocator)
{
	if (!handle)
		return;
	struct layer_instance *instance = layer_instance_find(dispatch_key(handle));
	if (!instance)
		return;
	PFN_vkDestroyInstance destroy = instance->next.DestroyInstance;
	layer_instance_remove(instance);
	destroy(handle, allocator);
}


static bool device_has_extension(const struct layer_instance *instance, VkPhysicalDevice physical, const char *name)
{
	uint32_t count = 0;
	if (instance->next.EnumerateDeviceExtensionProperties(physical, NULL, &count, NULL) != VK_SUCCESS)
		return false;
	VkExtensionProperties *properties = calloc(count ? count : 1, sizeof(*properties));
	bool found = false;
	if (properties && instance->next.EnumerateDeviceExtensionProperties(physical, NULL, &count, properties) >= 0) {
		for (uint32_t i = 0; i < count && !found; i++)
			found = strcmp(properties[i].extensionName, name) == 0;
	}
	free(properties);
	return found;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateDevice(VkPhysicalDevice physical, const VkDeviceCreateInfo *info,
                                                        const VkAllocationCallbacks *allocator, VkDevice *out_device)
{
	struct layer_instance *instance = layer_instance_find(dispatch_key(physical));
	VkLayerDeviceCreateInfo *link = find_device_link(info);
	if (!instance || !link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkGetDeviceProcAddr next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	PFN_vkCreateDevice next_create = (PFN_vkCreateDevice)next_gipa(instance->handle, "vkCreateDevice");
	if (!next_create)
		return VK_ERROR_INITIALIZATION_FAILED;
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;

	/* The driver must never see VK_UDA_external_allocation: it is this
	 * layer's. In its place go the driver extensions it builds on. */
	const bool wanted = !instance->uda_internal &&
	                    has_name(info->ppEnabledExtensionNames, info->enabledExtensionCount,
	                             VK_UDA_EXTERNAL_ALLOCATION_EXTENSION_NAME);
	VkDeviceCreateInfo down = *info;
	const char **names = NULL;
	if (wanted) {
		const uint32_t capacity = info->enabledExtensionCount + sizeof(underlying_extensions) / sizeof(char *);
		names = calloc(capacity, sizeof(*names));
		if (!names)
			return VK_ERROR_OUT_OF_HOST_MEMORY;
		uint32_t count = 0;
		for (uint32_t i = 0; i < info->enabledExtensionCount; i++) {
			if (strcmp(info->ppEnabledExtensionNames[i], VK_UDA_EXTERNAL_ALLOCATION_EXTENSION_NAME) != 0)
				names[count++] = info->ppEnabledExtensionNames[i];
		}
		for (size_t i = 0; i < sizeof(underlying_extensions) / sizeof(char *); i++) {
			if (!has_name(names, count, underlying_extensions[i]) &&
			    device_has_extension(instance, physical, underlying_extensions[i]))
				names[count++] = underlying_extensions[i];
		}
		down.enabledExtensionCount = count;
		down.ppEnabledExtensionNames = names;
	}
	VkResult result = next_create(physical, &down, allocator, out_device);
	if (result != VK_SUCCESS) {
		free(names);
		return result;
	}

	struct layer_device *device = layer_device_add(dispatch_key(*out_device));
	if (!device) {
		free(names);
		PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)next_gdpa(*out_device, "vkDestroyDevice");
		if (destroy)
			destroy(*out_device, allocator);
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}
	device->handle = *out_device;
	device->instance = instance;
	device->next_gdpa = next_gdpa;
	uda_layer_device_dispatch_init(&device->next, next_gdpa, *out_device);
	device->physical = physical;
	device->uda_internal = instance->uda_internal;
	device->extension_enabled = wanted;
	if (wanted) {
		const char *const *enabled = down.ppEnabledExtensionNames;
		const uint32_t enabled_count = down.enabledExtensionCount;
		device->has_opaque_fd = has_name(enabled, enabled_count, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
		device->has_dma_buf = has_name(enabled, enabled_count, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME);
		device->has_modifiers = has_name(enabled, enabled_count, VK_EXT_IMAGE_DRM_FORMAT_MODIFIER_EXTENSION_NAME);
		device->has_host_memory = has_name(enabled, enabled_count, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
		VkPhysicalDeviceExternalMemoryHostPropertiesEXT host = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT,
		};
		VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES,
		                                   .pNext = device->has_host_memory ? &host : NULL};
		VkPhysicalDeviceProperties2 properties = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
		                                          .pNext = &id};
		instance->next.GetPhysicalDeviceProperties2(physical, &properties);
		memcpy(device->device_uuid, id.deviceUUID, VK_UUID_SIZE);
		memcpy(device->driver_uuid, id.driverUUID, VK_UUID_SIZE);
		device->host_pointer_alignment = host.minImportedHostPointerAlignment;
		device->has_host_memory = device->has_host_memory && device->host_pointer_alignment;
	}
	free(names);
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyDevice(VkDevice handle, const VkAllocationCallbacks *allocator)
{
	if (!handle)
		return;
	struct layer_device *device = layer_device_find(dispatch_key(handle));
	if (!device)
		return;
	PFN_vkDestroyDevice destroy = device->next.DestroyDevice;
	layer_device_remove(device);
	destroy(handle, allocator);
}

/* Asked by name, the layer lists its own extension. The full list
 * (pLayerName NULL) needs nothing from the layer: the loader's terminator
 * already adds the device extensions the manifest declares for every
 * enabled layer, so adding it here would list it twice. */
static VKAPI_ATTR VkResult VKAPI_CALL layer_EnumerateDeviceExtensionProperties(VkPhysicalDevice physical,
                                                                              const char *layer_name,
                                                                              uint32_t *count,
                                                                              VkExtensionProperties *properties)
{
	const uint32_t own = sizeof(layer_device_extensions) / sizeof(layer_device_extensions[0]);
	if (layer_name && strcmp(layer_name, LAYER_NAME) == 0) {
		if (!properties) {
			*count = own;
			return VK_SUCCESS;
		}
		const uint32_t n = *count < own ? *count : own;
		memcpy(properties, layer_device_extensions, n * sizeof(*properties));
		*count = n;
		return n < own ? VK_INCOMPLETE : VK_SUCCESS;
	}
	struct layer_instance *instance = layer_instance_find(dispatch_key(physical));
	if (!instance)
		return VK_ERROR_INITIALIZATION_FAILED;
	return instance->next.EnumerateDeviceExtensionProperties(physical, layer_name, count, properties);
}

static PFN_vkVoidFunction intercepted_device_command(const char *name)
{
	if (strcmp(name, "vkGetDeviceProcAddr") == 0)
		return (PFN_vkVoidFunction)layer_GetDeviceProcAddr;
	if (strcmp(name, "vkDestroyDevice") == 0)
		return (PFN_vkVoidFunction)layer_DestroyDevice;
	return NULL;
}

static PFN_vkVoidFunction intercepted_instance_command(const char *name)
{
	static const struct {
		const char *name;
		PFN_vkVoidFunction function;
	} commands[] = {
		{"vkGetInstanceProcAddr", (PFN_vkVoidFunction)layer_GetInstanceProcAddr},
		{"vkCreateInstance", (PFN_vkVoidFunction)layer_CreateInstance},
		{"vkDestroyInstance", (PFN_vkVoidFunction)layer_DestroyInstance},
		{"vkCreateDevice", (PFN_vkVoidFunction)layer_CreateDevice},
		{"vkEnumerateDeviceExtensionProperties", (PFN_vkVoidFunction)layer_EnumerateDeviceExtensionProperties},
	};
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(name, commands[i].name) == 0)
			return commands[i].function;
	}
	return intercepted_device_command(name);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetInstanceProcAddr(VkInstance handle, const char *name)
{
	if (!name)
		return NULL;
	PFN_vkVoidFunction own = intercepted_instance_command(name);
	if (own)
		return own;
	if (!handle)
		return NULL;
	struct layer_instance *instance = layer_instance_find(dispatch_key(handle));
	if (instance && !instance->uda_internal && (own = layer_query_command(name)))
		return own;
	return instance ? instance->next_gipa(handle, name) : NULL;
}

/* The loader asks here for physical-device commands it does not know,
 * such as the extension's own. */
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetPhysicalDeviceProcAddr(VkInstance handle, const char *name)
{
	if (!handle || !name)
		return NULL;
	struct layer_instance *instance = layer_instance_find(dispatch_key(handle));
	if (!instance)
		return NULL;
	PFN_vkVoidFunction own = instance->uda_internal ? NULL : layer_query_command(name);
	if (own)
		return own;
	return instance->next_gpdpa ? instance->next_gpdpa(handle, name) : NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetDeviceProcAddr(VkDevice handle, const char *name)
{
	if (!name || !handle)
		return NULL;
	PFN_vkVoidFunction own = intercepted_device_command(name);
	if (own)
		return own;
	struct layer_device *device = layer_device_find(dispatch_key(handle));
	if (!device)
		return NULL;
	/* Only devices that enabled the extension pay for its interception. */
	if (device->extension_enabled) {
		PFN_vkVoidFunction import = layer_import_command(name);
		if (import)
			return import;
	}
	return device->next_gdpa(handle, name);
}

LAYER_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *version)
{
	if (!version || version->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT || version->loaderLayerInterfaceVersion < 2)
		return VK_ERROR_INITIALIZATION_FAILED;
	version->loaderLayerInterfaceVersion = 2;
	version->pfnGetInstanceProcAddr = layer_GetInstanceProcAddr;
	version->pfnGetDeviceProcAddr = layer_GetDeviceProcAddr;
	version->pfnGetPhysicalDeviceProcAddr = layer_GetPhysicalDeviceProcAddr;
	return VK_SUCCESS;
}
