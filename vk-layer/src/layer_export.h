/* VK_UDA_external_allocation's export half: uda metadata and an fd for
 * memory the application allocated exportable. */
#ifndef UDA_LAYER_EXPORT_H
#define UDA_LAYER_EXPORT_H

#include "layer_objects.h"

/* Remember images and memory made exportable (after the driver made
 * them), and forget them when they go. */
void layer_export_note_image(struct layer_device *device, const VkImageCreateInfo *info, VkImage image);
void layer_export_note_memory(struct layer_device *device, const VkMemoryAllocateInfo *info, VkDeviceMemory memory);

/* The layer's vkDestroyImage and vkExportMemoryUdaUDA for `name`, or NULL. */
PFN_vkVoidFunction layer_export_command(const char *name);

#endif
