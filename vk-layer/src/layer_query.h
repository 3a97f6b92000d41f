/* VK_UDA_external_allocation's physical-device functions. */
#ifndef UDA_LAYER_QUERY_H
#define UDA_LAYER_QUERY_H

#include <vulkan/vulkan_core.h>

/* vkGetPhysicalDeviceUdaDeviceUDA / vkGetPhysicalDeviceUdaCapabilitySetsUDA
 * for `name`, or NULL. */
PFN_vkVoidFunction layer_query_command(const char *name);

#endif
