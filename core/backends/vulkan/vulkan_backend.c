/*
 * The vulkan backend module: its own VkInstance through the loader, and one
 * uda device per physical device that speaks Vulkan 1.1.
 *
 * UDA_VULKAN_VALIDATION=1 enables VK_LAYER_KHRONOS_validation on that
 * instance and routes every message it reports to the context's log
 * (errors at UDA_LOG_ERROR), which is how the test suite fails on any
 * validation error inside the backend. The loader's own switches
 * (VK_INSTANCE_LAYERS, VK_LOADER_LAYERS_ENABLE) enable it too, with the
 * layer's messages its own: the backend notices, for what a layer older
 * than an extension cannot take (vulkan_video.c).
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "vulkan_backend.h"

#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

const char *vulkan_result_string(VkResult result)
{
	switch (result) {
#define CASE(r)                                                                                                        \
	case r:                                                                                                        \
		return #r;
		CASE(VK_SUCCESS)
		CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
		CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
		CASE(VK_ERROR_INITIALIZATION_FAILED)
		CASE(VK_ERROR_LAYER_NOT_PRESENT)
		CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
		CASE(VK_ERROR_FEATURE_NOT_PRESENT)
		CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
		CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
		CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
		CASE(VK_ERROR_MEMORY_MAP_FAILED)
		CASE(VK_ERROR_DEVICE_LOST)
		CASE(VK_ERROR_TOO_MANY_OBJECTS)
		CASE(VK_ERROR_UNKNOWN)
		CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
		CASE(VK_ERROR_FRAGMENTATION)
		CASE(VK_NOT_READY)
		CASE(VK_TIMEOUT)
		CASE(VK_INCOMPLETE)
		/* A driver's answer to a layout it cannot take (an import's
		 * offsets and pitches). */
		CASE(VK_ERROR_INVALID_DRM_FORMAT_MODIFIER_PLANE_LAYOUT_EXT)
		/* Vulkan Video's answers to a profile (vulkan_video.c). */
		CASE(VK_ERROR_IMAGE_USAGE_NOT_SUPPORTED_KHR)
		CASE(VK_ERROR_VIDEO_PICTURE_LAYOUT_NOT_SUPPORTED_KHR)
		CASE(VK_ERROR_VIDEO_PROFILE_OPERATION_NOT_SUPPORTED_KHR)
		CASE(VK_ERROR_VIDEO_PROFILE_FORMAT_NOT_SUPPORTED_KHR)
		CASE(VK_ERROR_VIDEO_PROFILE_CODEC_NOT_SUPPORTED_KHR)
		CASE(VK_ERROR_VIDEO_STD_VERSION_NOT_SUPPORTED_KHR)
		CASE(VK_ERROR_VALIDATION_FAILED_EXT)
#undef CASE
	default:
		return "VkResult (other)";
	}
}

static VKAPI_ATTR VkBool32 VKAPI_CALL log_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                             VkDebugUtilsMessageTypeFlagsEXT types,
                                                             const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                             void *user_data)
{
	struct vulkan_backend *backend = user_data;
	uda_log_level level = UDA_LOG_DEBUG;
	if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)
		level = UDA_LOG_ERROR;
	else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT)
		level = UDA_LOG_WARNING;
	uda_context_log(backend->ctx, level, "vulkan validation: %s", data->pMessage ? data->pMessage : "");
	return VK_FALSE;
}

/* The version of the headers an instance layer was built with (its
 * specVersion); 0 where the layer is not installed. */
static uint32_t instance_layer_version(const char *name)
{
	uint32_t count = 0;
	if (vkEnumerateInstanceLayerProperties(&count, NULL) != VK_SUCCESS || count == 0)
		return 0;
	VkLayerProperties *layers = calloc(count, sizeof(*layers));
	uint32_t version = 0;
	if (layers && vkEnumerateInstanceLayerProperties(&count, layers) >= 0) {
		for (uint32_t i = 0; i < count && !version; i++) {
			if (strcmp(layers[i].layerName, name) == 0)
				version = layers[i].specVersion ? layers[i].specVersion : 1;
		}
	}
	free(layers);
	return version;
}

/* Whether `name` is among the `separator`-separated items of `list`,
 * each a name or, where `globs`, a pattern as the loader takes them. */
static bool listed(const char *list, char separator, bool globs, const char *name)
{
	while (list && *list) {
		const char *end = strchr(list, separator);
		const size_t length = end ? (size_t)(end - list) : strlen(list);
		char item[256];
		if (length && length < sizeof(item)) {
			memcpy(item, list, length);
			item[length] = '\0';
			if (globs ? fnmatch(item, name, 0) == 0 : strcmp(item, name) == 0)
				return true;
		}
		list = end ? end + 1 : NULL;
	}
	return false;
}

/* Whether the loader enables the validation layer on every instance of
 * this process, as its environment asks (the loader reads it only where
 * the process is not setuid, hence secure_getenv). A layer switched on
 * some other way (vkconfig's override layer) stays unknown. */
static bool loader_enables_validation(void)
{
	return listed(secure_getenv("VK_INSTANCE_LAYERS"), ':', false, VALIDATION_LAYER) ||
	       listed(secure_getenv("VK_LOADER_LAYERS_ENABLE"), ',', true, VALIDATION_LAYER);
}

static uda_result create_instance(struct vulkan_backend *backend, uda_context *ctx)
{
	const char *validation = secure_getenv("UDA_VULKAN_VALIDATION");
	bool debug = validation && strcmp(validation, "1") == 0;
	backend->validation_layer_version = debug ? instance_layer_version(VALIDATION_LAYER) : 0;
	if (debug && !backend->validation_layer_version) {
		uda_context_log(ctx, UDA_LOG_WARNING, "vulkan: UDA_VULKAN_VALIDATION=1 but %s is not installed",
		                VALIDATION_LAYER);
		debug = false;
	}
	if (!debug && loader_enables_validation()) {
		backend->validation_layer_version = instance_layer_version(VALIDATION_LAYER);
		if (backend->validation_layer_version)
			uda_context_log(ctx, UDA_LOG_INFO,
			                "vulkan: the loader's environment enables %s (1.%u.%u); its messages are not uda's",
			                VALIDATION_LAYER, VK_API_VERSION_MINOR(backend->validation_layer_version),
			                VK_API_VERSION_PATCH(backend->validation_layer_version));
	}

	/* The engine name is how VK_LAYER_UDA_allocator recognises uda's own
	 * instance and stays out of it. */
	const VkApplicationInfo application = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "libuda",
		.pEngineName = "uda-vulkan-backend",
		.engineVersion = 1,
		/* The highest the backend knows: the effective version is the lower
		 * of this and each device's, and 1.2 devices then have
		 * VK_KHR_image_format_list in core. */
		.apiVersion = VK_API_VERSION_1_3,
	};
	const VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
		.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
		                   VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
		.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
		               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
		.pfnUserCallback = log_validation_message,
		.pUserData = backend,
	};
	const char *layers[] = {VALIDATION_LAYER};
	const char *extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
	const VkInstanceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		/* Chained, so instance creation itself is validated. */
		.pNext = debug ? &messenger_info : NULL,
		.pApplicationInfo = &application,
		.enabledLayerCount = debug ? 1 : 0,
		.ppEnabledLayerNames = layers,
		.enabledExtensionCount = debug ? 1 : 0,
		.ppEnabledExtensionNames = extensions,
	};
	VkResult vr = vkCreateInstance(&info, NULL, &backend->instance);
	if (vr != VK_SUCCESS)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "vkCreateInstance: %s", vulkan_result_string(vr));
	if (debug) {
		PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
			(PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(backend->instance,
		                                                                  "vkCreateDebugUtilsMessengerEXT");
		backend->destroy_messenger = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
			backend->instance, "vkDestroyDebugUtilsMessengerEXT");
		if (create_messenger && backend->destroy_messenger)
			create_messenger(backend->instance, &messenger_info, NULL, &backend->messenger);
	}
	return UDA_SUCCESS;
}

static void destroy_instance(struct vulkan_backend *backend)
{
	if (backend->messenger != VK_NULL_HANDLE)
		backend->destroy_messenger(backend->instance, backend->messenger, NULL);
	vkDestroyInstance(backend->instance, NULL);
	free(backend);
}

static void vulkan_destroy_device(void *device_data)
{
	struct vulkan_device *device = device_data;
	struct vulkan_backend *backend = device->backend;
	vulkan_device_close(device);
	backend->live_devices--;
}

static const uda_device_interface vulkan_device_interface = {
	.version = UDA_DEVICE_INTERFACE_VERSION_3,
	.get_capability_sets = vulkan_get_capability_sets,
	.destroy = vulkan_destroy_device,
	.allocate = vulkan_allocate,
	.import = vulkan_import,
	.free = vulkan_free,
	.export_fd = vulkan_export_fd,
	.map = vulkan_map,
	.unmap = vulkan_unmap,
	.begin_cpu_access = vulkan_begin_cpu_access,
	.end_cpu_access = vulkan_end_cpu_access,
	.get_native = vulkan_get_native,
	.transition = vulkan_transition,
	.copy = vulkan_copy,
};

static void register_device(struct vulkan_backend *backend, uda_context *ctx, VkPhysicalDevice physical)
{
	struct vulkan_device *device;
	uda_result result = vulkan_device_open(backend, physical, &device);
	if (result != UDA_SUCCESS) {
		uda_context_log(ctx, UDA_LOG_INFO, "vulkan: skipping a physical device: %s", uda_context_get_error(ctx));
		return;
	}
	VkPhysicalDeviceDrmPropertiesEXT drm = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRM_PROPERTIES_EXT};
	uda_device_create_info info = {
		.type = UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.name = device->name,
		.backend_name = VULKAN_BACKEND_NAME,
		.api = UDA_DEVICE_API_VULKAN,
		.interface = &vulkan_device_interface,
		.device_data = device,
	};
	if (vulkan_device_query_drm(device, &drm)) {
		info.drm_primary = (uda_drm_node){drm.hasPrimary, (uint32_t)drm.primaryMajor, (uint32_t)drm.primaryMinor};
		info.drm_render = (uda_drm_node){drm.hasRender, (uint32_t)drm.renderMajor, (uint32_t)drm.renderMinor};
	}
	memcpy(info.device_uuid, device->device_uuid, UDA_UUID_SIZE);
	memcpy(info.driver_uuid, device->driver_uuid, UDA_UUID_SIZE);
	result = uda_context_add_device(ctx, &info, NULL);
	if (result != UDA_SUCCESS) {
		uda_context_log(ctx, UDA_LOG_WARNING, "vulkan: %s not registered: %s", device->name,
		                uda_context_get_error(ctx));
		vulkan_device_close(device);
		return;
	}
	backend->live_devices++;
}

static uda_result vulkan_load(uda_context *ctx, void **out_backend_data)
{
	struct vulkan_backend *backend = calloc(1, sizeof(*backend));
	if (!backend)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	backend->ctx = ctx;
	uda_result result = create_instance(backend, ctx);
	if (result != UDA_SUCCESS) {
		free(backend);
		return result;
	}
	uint32_t count = 0;
	VkResult vr = vkEnumeratePhysicalDevices(backend->instance, &count, NULL);
	VkPhysicalDevice *physical = count ? calloc(count, sizeof(*physical)) : NULL;
	if (vr == VK_SUCCESS && physical)
		vr = vkEnumeratePhysicalDevices(backend->instance, &count, physical);
	if (vr < 0 || !physical) {
		free(physical);
		destroy_instance(backend);
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "no Vulkan physical device (%s)",
		                             vulkan_result_string(vr));
	}
	for (uint32_t i = 0; i < count; i++)
		register_device(backend, ctx, physical[i]);
	free(physical);
	if (backend->live_devices == 0) {
		destroy_instance(backend);
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "no usable Vulkan device");
	}
	*out_backend_data = backend;
	return UDA_SUCCESS;
}

static void vulkan_unload(void *backend_data)
{
	destroy_instance(backend_data);
}

static const uda_backend_interface vulkan_backend_interface = {
	.version = UDA_BACKEND_INTERFACE_VERSION_1,
	.name = VULKAN_BACKEND_NAME,
	.load = vulkan_load,
	.unload = vulkan_unload,
};

UDA_BACKEND_DEFINE_ENTRY_POINT(vulkan_backend_interface)
