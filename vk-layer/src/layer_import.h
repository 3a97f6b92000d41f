/* VK_UDA_external_allocation's import half: images made for a uda
 * allocation and memory imported from it. */
#ifndef UDA_LAYER_IMPORT_H
#define UDA_LAYER_IMPORT_H

#include <vulkan/vulkan_core.h>

/* The layer's function for `name` among those of the extension
 * (vkCreateImage, vkAllocateMemory, vkFreeMemory, and the export half's),
 * or NULL. */
PFN_vkVoidFunction layer_import_command(const char *name);

#endif
