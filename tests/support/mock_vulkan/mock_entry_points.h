/* Every Vulkan command the mock implements, in name order: the one table
 * the loader's lookups go through (mock_icd.c). X(Name) stands for vkName,
 * implemented as mock_Name. */
#ifndef UDA_MOCK_ENTRY_POINTS_H
#define UDA_MOCK_ENTRY_POINTS_H

#include <vulkan/vulkan.h>

#define MOCK_ENTRY_POINTS(X)                                                                                           \
	X(AllocateCommandBuffers)                                                                                      \
	X(AllocateMemory)                                                                                              \
	X(BeginCommandBuffer)                                                                                          \
	X(BindBufferMemory)                                                                                            \
	X(BindBufferMemory2)                                                                                           \
	X(BindImageMemory)                                                                                             \
	X(BindImageMemory2)                                                                                            \
	X(CmdBlitImage)                                                                                                \
	X(CmdClearColorImage)                                                                                          \
	X(CmdCopyBufferToImage)                                                                                        \
	X(CmdCopyImage)                                                                                                \
	X(CmdCopyImageToBuffer)                                                                                        \
	X(CmdPipelineBarrier)                                                                                          \
	X(CmdPipelineBarrier2)                                                                                         \
	X(CreateBuffer)                                                                                                \
	X(CreateCommandPool)                                                                                           \
	X(CreateDevice)                                                                                                \
	X(CreateFence)                                                                                                 \
	X(CreateImage)                                                                                                 \
	X(CreateInstance)                                                                                              \
	X(DestroyBuffer)                                                                                               \
	X(DestroyCommandPool)                                                                                          \
	X(DestroyDevice)                                                                                               \
	X(DestroyFence)                                                                                                \
	X(DestroyImage)                                                                                                \
	X(DestroyInstance)                                                                                             \
	X(DeviceWaitIdle)                                                                                              \
	X(EndCommandBuffer)                                                                                            \
	X(EnumerateDeviceExtensionProperties)                                                                          \
	X(EnumerateInstanceExtensionProperties)                                                                        \
	X(EnumerateInstanceVersion)                                                                                    \
	X(EnumeratePhysicalDevices)                                                                                    \
	X(FlushMappedMemoryRanges)                                                                                     \
	X(FreeCommandBuffers)                                                                                          \
	X(FreeMemory)                                                                                                  \
	X(GetBufferMemoryRequirements)                                                                                 \
	X(GetBufferMemoryRequirements2)                                                                                \
	X(GetDeviceProcAddr)                                                                                           \
	X(GetDeviceQueue)                                                                                              \
	X(GetDeviceQueue2)                                                                                             \
	X(GetFenceStatus)                                                                                              \
	X(GetImageDrmFormatModifierPropertiesEXT)                                                                      \
	X(GetImageMemoryRequirements)                                                                                  \
	X(GetImageMemoryRequirements2)                                                                                 \
	X(GetImageSparseMemoryRequirements)                                                                            \
	X(GetImageSparseMemoryRequirements2)                                                                           \
	X(GetImageSubresourceLayout)                                                                                   \
	X(GetMemoryFdKHR)                                                                                              \
	X(GetMemoryFdPropertiesKHR)                                                                                    \
	X(GetPhysicalDeviceExternalBufferProperties)                                                                   \
	X(GetPhysicalDeviceFeatures)                                                                                   \
	X(GetPhysicalDeviceFeatures2)                                                                                  \
	X(GetPhysicalDeviceFormatProperties)                                                                           \
	X(GetPhysicalDeviceFormatProperties2)                                                                          \
	X(GetPhysicalDeviceImageFormatProperties)                                                                      \
	X(GetPhysicalDeviceImageFormatProperties2)                                                                     \
	X(GetPhysicalDeviceMemoryProperties)                                                                           \
	X(GetPhysicalDeviceMemoryProperties2)                                                                          \
	X(GetPhysicalDeviceProperties)                                                                                 \
	X(GetPhysicalDeviceProperties2)                                                                                \
	X(GetPhysicalDeviceQueueFamilyProperties)                                                                      \
	X(GetPhysicalDeviceQueueFamilyProperties2)                                                                     \
	X(GetPhysicalDeviceSparseImageFormatProperties)                                                                \
	X(GetPhysicalDeviceSparseImageFormatProperties2)                                                               \
	X(GetPhysicalDeviceVideoCapabilitiesKHR)                                                                       \
	X(GetPhysicalDeviceVideoFormatPropertiesKHR)                                                                   \
	X(InvalidateMappedMemoryRanges)                                                                                \
	X(MapMemory)                                                                                                   \
	X(QueueSubmit)                                                                                                 \
	X(QueueSubmit2)                                                                                                \
	X(QueueWaitIdle)                                                                                               \
	X(ResetCommandBuffer)                                                                                          \
	X(ResetCommandPool)                                                                                            \
	X(ResetFences)                                                                                                 \
	X(UnmapMemory)                                                                                                 \
	X(WaitForFences)

/* Declared from the Vulkan headers' own function types, so a definition
 * that strays from the API does not compile. */
#define MOCK_DECLARE(name) extern __typeof__(*(PFN_vk##name)0) mock_##name;
MOCK_ENTRY_POINTS(MOCK_DECLARE)
#undef MOCK_DECLARE

#endif
