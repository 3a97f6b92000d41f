/* What the layer remembers of the instances and devices it sits in,
 * found by dispatch key (the loader's dispatch table pointer, the first
 * word of every dispatchable handle). Only intercepted calls look records
 * up; everything else goes straight to the next layer. */
#ifndef UDA_LAYER_OBJECTS_H
#define UDA_LAYER_OBJECTS_H

#include <stdbool.h>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan_core.h>

#include "uda_layer_dispatch_table.h"

struct layer_instance {
	void *key;
	VkInstance handle;
	PFN_vkGetInstanceProcAddr next_gipa;
	PFN_GetPhysicalDeviceProcAddr next_gpdpa; /* may be NULL */
	struct uda_layer_instance_dispatch next;
	/* The instance of uda's own Vulkan backend: the layer stays out. */
	bool uda_internal;
	/* VK_EXT_debug_utils enabled: refusals are also reported as
	 * messages (layer_report). */
	bool debug_utils;
};

/* Reports why the layer refused a call, through the application's
 * debug-utils messengers where it has any; returns `result`. */
VkResult layer_report(const struct layer_instance *instance, VkResult result, const char *message);

struct layer_device {
	void *key;
	VkDevice handle;
	VkPhysicalDevice physical;
	struct layer_instance *instance;
	PFN_vkGetDeviceProcAddr next_gdpa;
	struct uda_layer_device_dispatch next;
	bool uda_internal;
	bool extension_enabled; /* VK_UDA_external_allocation */
	/* What the driver underneath has enabled, and who it is: an opaque
	 * fd only travels between equal device and driver UUIDs. */
	bool has_opaque_fd, has_dma_buf, has_modifiers, has_host_memory;
	VkDeviceSize host_pointer_alignment;
	/* Host memory imported from memfds: mapped by the layer until the
	 * application frees the VkDeviceMemory. Guarded by the registry's
	 * lock (layer_host_mapping_*). */
	struct layer_host_mapping *host_mappings;
	/* Images and memory the application made exportable, for
	 * vkExportMemoryUdaUDA (layer_export_*). */
	struct layer_export_image *export_images;
	struct layer_export_memory *export_memories;
	uint8_t device_uuid[VK_UUID_SIZE];
	uint8_t driver_uuid[VK_UUID_SIZE];
};

static inline void *dispatch_key(const void *handle)
{
	return *(void *const *)handle;
}

/* Records are owned by the registry; add returns NULL when out of
 * memory. The lookups take a lock: they serve intercepted calls only. */
struct layer_instance *layer_instance_add(void *key);
struct layer_instance *layer_instance_find(void *key);
void layer_instance_remove(struct layer_instance *instance);

struct layer_host_mapping {
	struct layer_host_mapping *next;
	VkDeviceMemory memory;
	void *pointer;
	size_t size;
};

/* Remembers, or takes back (returns NULL if unknown), the mapping behind
 * a memory object of the device. */
bool layer_host_mapping_add(struct layer_device *device, VkDeviceMemory memory, void *pointer, size_t size);
struct layer_host_mapping *layer_host_mapping_take(struct layer_device *device, VkDeviceMemory memory);

struct layer_export_image {
	struct layer_export_image *next;
	VkImage image;
	VkFormat format;
	VkExtent3D extent;
	VkImageTiling tiling;
	VkExternalMemoryHandleTypeFlags handles;
};

struct layer_export_memory {
	struct layer_export_memory *next;
	VkDeviceMemory memory;
	VkDeviceSize size;
	VkExternalMemoryHandleTypeFlags handles;
	VkImage image; /* the dedicated image */
};

/* Records are copied in; find copies out (false if unknown). */
bool layer_export_image_add(struct layer_device *device, const struct layer_export_image *image);
bool layer_export_image_find(struct layer_device *device, VkImage image, struct layer_export_image *out);
void layer_export_image_remove(struct layer_device *device, VkImage image);
bool layer_export_memory_add(struct layer_device *device, const struct layer_export_memory *memory);
bool layer_export_memory_find(struct layer_device *device, VkDeviceMemory memory, struct layer_export_memory *out);
void layer_export_memory_remove(struct layer_device *device, VkDeviceMemory memory);

struct layer_device *layer_device_add(void *key);
struct layer_device *layer_device_find(void *key);
void layer_device_remove(struct layer_device *device);

#endif
