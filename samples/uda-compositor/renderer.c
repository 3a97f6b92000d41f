/* renderer.h, in Vulkan through the uda layer. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include <vulkan/vk_uda.h>

#include "common/demo_pattern.h"
#include "renderer.h"

struct renderer_image {
	uda_allocation *allocation; /* not ours: the caller's */
	VkImage image;
	VkDeviceMemory memory;
	uint32_t width, height;
};

struct renderer {
	uda_context *ctx;
	uda_device *device;
	VkInstance instance;
	VkPhysicalDevice physical;
	char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
	VkDevice vk;
	uint32_t queue_family;
	VkQueue queue;
	VkCommandPool pool;
	VkCommandBuffer cmd;
	VkFence fence;
	PFN_vkGetPhysicalDeviceUdaDeviceUDA get_uda_device;
	PFN_vkGetPhysicalDeviceUdaCapabilitySetsUDA get_capability_sets;
	VkImage output;
	VkDeviceMemory output_memory;
	VkBuffer readback;
	VkDeviceMemory readback_memory;
	void *pixels;
	uint32_t width, height;
};

static uint32_t memory_type(const struct renderer *r, uint32_t bits, VkMemoryPropertyFlags want)
{
	VkPhysicalDeviceMemoryProperties properties;
	vkGetPhysicalDeviceMemoryProperties(r->physical, &properties);
	for (uint32_t i = 0; i < properties.memoryTypeCount; i++) {
		if ((bits & (1u << i)) && (properties.memoryTypes[i].propertyFlags & want) == want)
			return i;
	}
	return UINT32_MAX;
}

static bool has_extension(VkPhysicalDevice physical, const char *name)
{
	uint32_t count = 0;
	if (physical)
		vkEnumerateDeviceExtensionProperties(physical, NULL, &count, NULL);
	else
		vkEnumerateInstanceExtensionProperties(NULL, &count, NULL);
	VkExtensionProperties *extensions = calloc(count ? count : 1, sizeof(*extensions));
	if (!extensions)
		return false;
	if (physical)
		vkEnumerateDeviceExtensionProperties(physical, NULL, &count, extensions);
	else
		vkEnumerateInstanceExtensionProperties(NULL, &count, extensions);
	bool found = false;
	for (uint32_t i = 0; i < count && !found; i++)
		found = strcmp(extensions[i].extensionName, name) == 0;
	free(extensions);
	return found;
}

/* What the layer (and the validation layer, where the tests load it) says
 * about a refused call. */
static VKAPI_ATTR VkBool32 VKAPI_CALL print_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                    VkDebugUtilsMessageTypeFlagsEXT types,
                                                    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
	(void)types;
	(void)user;
	if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT)
		fprintf(stderr, "uda-compositor: vulkan: %s\n", data->pMessage);
	return VK_FALSE;
}

static bool create_device(struct renderer *r)
{
	const VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "uda-compositor", 1, NULL, 0,
	                               VK_API_VERSION_1_1};
	const bool debug = has_extension(VK_NULL_HANDLE, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
	const char *instance_extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
	const VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
		VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT, NULL, 0,
		VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
		VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
		print_message, NULL,
	};
	const VkInstanceCreateInfo instance_info = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, debug ? &messenger_info : NULL,
	                                            0, &app, 0, NULL, debug ? 1 : 0, instance_extensions};
	if (vkCreateInstance(&instance_info, NULL, &r->instance) != VK_SUCCESS) {
		fprintf(stderr, "uda-compositor: no Vulkan instance (is a Vulkan driver installed?)\n");
		return false;
	}
	uint32_t count = 8;
	VkPhysicalDevice physicals[8];
	if (vkEnumeratePhysicalDevices(r->instance, &count, physicals) < 0)
		count = 0;
	for (uint32_t i = 0; i < count && !r->physical; i++) {
		if (has_extension(physicals[i], VK_UDA_EXTERNAL_ALLOCATION_EXTENSION_NAME))
			r->physical = physicals[i];
	}
	if (!r->physical) {
		fprintf(stderr, "uda-compositor: no Vulkan device offers %s: is the layer VK_LAYER_UDA_allocator "
		                "installed (or XDG_DATA_DIRS pointing at the build tree's manifests/share)?\n",
		        VK_UDA_EXTERNAL_ALLOCATION_EXTENSION_NAME);
		return false;
	}
	VkPhysicalDeviceProperties properties;
	vkGetPhysicalDeviceProperties(r->physical, &properties);
	snprintf(r->name, sizeof(r->name), "%s", properties.deviceName);
	r->get_uda_device = (PFN_vkGetPhysicalDeviceUdaDeviceUDA)vkGetInstanceProcAddr(r->instance,
	                                                                               "vkGetPhysicalDeviceUdaDeviceUDA");
	r->get_capability_sets = (PFN_vkGetPhysicalDeviceUdaCapabilitySetsUDA)vkGetInstanceProcAddr(
	        r->instance, "vkGetPhysicalDeviceUdaCapabilitySetsUDA");
	if (!r->get_uda_device || !r->get_capability_sets ||
	    r->get_uda_device(r->physical, r->ctx, &r->device) != VK_SUCCESS) {
		fprintf(stderr, "uda-compositor: the layer cannot name this device's uda device\n");
		return false;
	}
	uint32_t families = 8;
	VkQueueFamilyProperties family_properties[8];
	vkGetPhysicalDeviceQueueFamilyProperties(r->physical, &families, family_properties);
	r->queue_family = UINT32_MAX;
	for (uint32_t i = 0; i < families && r->queue_family == UINT32_MAX; i++) {
		if (family_properties[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)
			r->queue_family = i;
	}
	const float priority = 1.0f;
	const VkDeviceQueueCreateInfo queue_info = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0,
	                                            r->queue_family, 1, &priority};
	const char *extensions[] = {VK_UDA_EXTERNAL_ALLOCATION_EXTENSION_NAME};
	const VkDeviceCreateInfo device_info = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, NULL, 0, 1, &queue_info, 0, NULL,
	                                        1, extensions, NULL};
	if (r->queue_family == UINT32_MAX || vkCreateDevice(r->physical, &device_info, NULL, &r->vk) != VK_SUCCESS) {
		fprintf(stderr, "uda-compositor: cannot create the Vulkan device\n");
		return false;
	}
	vkGetDeviceQueue(r->vk, r->queue_family, 0, &r->queue);
	const VkCommandPoolCreateInfo pool_info = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL,
	                                           VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, r->queue_family};
	const VkFenceCreateInfo fence_info = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, NULL, 0};
	if (vkCreateCommandPool(r->vk, &pool_info, NULL, &r->pool) != VK_SUCCESS ||
	    vkCreateFence(r->vk, &fence_info, NULL, &r->fence) != VK_SUCCESS)
		return false;
	const VkCommandBufferAllocateInfo cmd_info = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, r->pool,
	                                              VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
	return vkAllocateCommandBuffers(r->vk, &cmd_info, &r->cmd) == VK_SUCCESS;
}

/* The output image and the host-visible buffer it is read back into. */
static bool create_output(struct renderer *r)
{
	const VkImageCreateInfo image_info = {
		VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, NULL, 0, VK_IMAGE_TYPE_2D, VK_FORMAT_R8G8B8A8_UNORM,
		{r->width, r->height, 1}, 1, 1, VK_SAMPLE_COUNT_1_BIT, VK_IMAGE_TILING_OPTIMAL,
		VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, VK_SHARING_MODE_EXCLUSIVE, 0, NULL,
		VK_IMAGE_LAYOUT_UNDEFINED,
	};
	if (vkCreateImage(r->vk, &image_info, NULL, &r->output) != VK_SUCCESS)
		return false;
	VkMemoryRequirements requirements;
	vkGetImageMemoryRequirements(r->vk, r->output, &requirements);
	VkMemoryAllocateInfo alloc = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, requirements.size,
	                              memory_type(r, requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)};
	if (vkAllocateMemory(r->vk, &alloc, NULL, &r->output_memory) != VK_SUCCESS ||
	    vkBindImageMemory(r->vk, r->output, r->output_memory, 0) != VK_SUCCESS)
		return false;
	const VkBufferCreateInfo buffer_info = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0,
	                                        (VkDeviceSize)r->width * r->height * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                                        VK_SHARING_MODE_EXCLUSIVE, 0, NULL};
	if (vkCreateBuffer(r->vk, &buffer_info, NULL, &r->readback) != VK_SUCCESS)
		return false;
	vkGetBufferMemoryRequirements(r->vk, r->readback, &requirements);
	alloc.allocationSize = requirements.size;
	alloc.memoryTypeIndex = memory_type(r, requirements.memoryTypeBits,
	                                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
	return vkAllocateMemory(r->vk, &alloc, NULL, &r->readback_memory) == VK_SUCCESS &&
	       vkBindBufferMemory(r->vk, r->readback, r->readback_memory, 0) == VK_SUCCESS &&
	       vkMapMemory(r->vk, r->readback_memory, 0, VK_WHOLE_SIZE, 0, &r->pixels) == VK_SUCCESS;
}

struct renderer *renderer_create(uda_context *context, uint32_t width, uint32_t height)
{
	struct renderer *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->ctx = context;
	r->width = width;
	r->height = height;
	if (!create_device(r) || !create_output(r)) {
		renderer_destroy(r);
		return NULL;
	}
	return r;
}

void renderer_destroy(struct renderer *r)
{
	if (!r)
		return;
	if (r->vk) {
		vkDeviceWaitIdle(r->vk);
		if (r->pixels)
			vkUnmapMemory(r->vk, r->readback_memory);
		vkDestroyBuffer(r->vk, r->readback, NULL);
		vkFreeMemory(r->vk, r->readback_memory, NULL);
		vkDestroyImage(r->vk, r->output, NULL);
		vkFreeMemory(r->vk, r->output_memory, NULL);
		vkDestroyFence(r->vk, r->fence, NULL);
		vkDestroyCommandPool(r->vk, r->pool, NULL);
		vkDestroyDevice(r->vk, NULL);
	}
	if (r->instance)
		vkDestroyInstance(r->instance, NULL);
	free(r);
}

uda_device *renderer_get_device(const struct renderer *r)
{
	return r->device;
}

const char *renderer_get_name(const struct renderer *r)
{
	return r->name;
}

/* Sampling is what a compositor with shaders does; this one blits. */
static const VkImageUsageFlags READER_USAGE = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;

static VkFormat vk_format_of(uint32_t fourcc)
{
	uda_format_info format = {0};
	return uda_format_get_info(fourcc, &format) == UDA_SUCCESS ? (VkFormat)format.vk_format : VK_FORMAT_UNDEFINED;
}

uda_result renderer_get_reader_sets(struct renderer *r, uint32_t format, uint32_t width, uint32_t height,
                                    uda_capability_set_list **out_sets)
{
	const VkFormat vk_format = vk_format_of(format);
	if (vk_format == VK_FORMAT_UNDEFINED)
		return UDA_ERROR_UNSUPPORTED;
	const VkUdaCapabilityQueryUDA query = {VK_STRUCTURE_TYPE_UDA_CAPABILITY_QUERY_UDA, NULL, r->ctx, vk_format,
	                                       {width, height}, READER_USAGE};
	return r->get_capability_sets(r->physical, &query, out_sets) == VK_SUCCESS ? UDA_SUCCESS
	                                                                           : UDA_ERROR_INCOMPATIBLE;
}

uda_result renderer_allocate_upload(struct renderer *r, uint32_t format, uint32_t width, uint32_t height,
                                    uda_allocation **out_allocation)
{
	static const uint8_t often[4] = {UDA_CPU_ACCESS_OFTEN, 0, 0, 0};
	const uda_usage_atom atoms[] = {{UDA_VENDOR_NONE, UDA_USAGE_SAMPLED, 0, NULL},
	                                {UDA_VENDOR_NONE, UDA_USAGE_TRANSFER_SRC, 0, NULL},
	                                {UDA_VENDOR_NONE, UDA_USAGE_CPU_WRITE, sizeof(often), often}};
	const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 3, atoms};
	const uda_device_usage reader = {r->device, &usage};
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, width, height, format, 0};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, NULL, &assertion, 1, &reader};
	return uda_negotiate_allocate(r->ctx, &info, out_allocation, NULL, NULL);
}

struct renderer_image *renderer_image_create(struct renderer *r, uda_allocation *allocation, const char **out_problem)
{
	struct renderer_image *image = calloc(1, sizeof(*image));
	uda_allocation_metadata metadata = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	*out_problem = NULL;
	if (!image) {
		*out_problem = "out of memory";
		return NULL;
	}
	image->allocation = allocation;
	const VkFormat format = uda_allocation_get_metadata(allocation, &metadata) == UDA_SUCCESS
	                                ? vk_format_of(metadata.format)
	                                : VK_FORMAT_UNDEFINED;
	if (format == VK_FORMAT_UNDEFINED) {
		*out_problem = "a format Vulkan has no name for";
		free(image);
		return NULL;
	}
	image->width = metadata.width;
	image->height = metadata.height;
	const VkImageUdaAllocationCreateInfoUDA uda_image = {VK_STRUCTURE_TYPE_IMAGE_UDA_ALLOCATION_CREATE_INFO_UDA, NULL,
	                                                     allocation};
	const VkImageCreateInfo image_info = {
		VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, &uda_image, 0, VK_IMAGE_TYPE_2D, format,
		{metadata.width, metadata.height, 1}, 1, 1, VK_SAMPLE_COUNT_1_BIT, VK_IMAGE_TILING_OPTIMAL,
		READER_USAGE, VK_SHARING_MODE_EXCLUSIVE, 0, NULL, VK_IMAGE_LAYOUT_UNDEFINED,
	};
	if (vkCreateImage(r->vk, &image_info, NULL, &image->image) != VK_SUCCESS) {
		*out_problem = "the layer refused the image (UDA_LOG=debug says why)";
		renderer_image_destroy(r, image);
		return NULL;
	}
	VkMemoryRequirements requirements;
	vkGetImageMemoryRequirements(r->vk, image->image, &requirements);
	const VkMemoryDedicatedAllocateInfo dedicated = {VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO, NULL,
	                                                 image->image, VK_NULL_HANDLE};
	const VkImportMemoryUdaAllocationInfoUDA import = {VK_STRUCTURE_TYPE_IMPORT_MEMORY_UDA_ALLOCATION_INFO_UDA,
	                                                   &dedicated, allocation};
	/* An opaque import repeats the export's size; a dedicated import of
	 * a DMA-BUF (often larger than the image) is the image's size
	 * (VUID-VkMemoryDedicatedAllocateInfo-image-02964). */
	const VkDeviceSize size = metadata.handle_type == UDA_HANDLE_TYPE_OPAQUE_FD ? metadata.size : requirements.size;
	const VkMemoryAllocateInfo alloc = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &import, size,
	                                    requirements.memoryTypeBits
	                                            ? (uint32_t)__builtin_ctz(requirements.memoryTypeBits)
	                                            : 0};
	if (!requirements.memoryTypeBits || vkAllocateMemory(r->vk, &alloc, NULL, &image->memory) != VK_SUCCESS) {
		*out_problem = "the layer refused the memory import";
		renderer_image_destroy(r, image);
		return NULL;
	}
	if (vkBindImageMemory(r->vk, image->image, image->memory, 0) != VK_SUCCESS) {
		*out_problem = "the imported memory does not bind to the image";
		renderer_image_destroy(r, image);
		return NULL;
	}
	return image;
}

void renderer_image_destroy(struct renderer *r, struct renderer_image *image)
{
	if (!image)
		return;
	vkDestroyImage(r->vk, image->image, NULL);
	vkFreeMemory(r->vk, image->memory, NULL);
	free(image);
}

static void image_barrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to,
                          uint32_t src_family, uint32_t dst_family)
{
	const VkImageMemoryBarrier barrier = {
		VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, NULL, VK_ACCESS_MEMORY_WRITE_BIT,
		VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT, from, to, src_family, dst_family, image,
		{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
	};
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0,
	                     NULL, 1, &barrier);
}

/* The part of a view inside the output, or false when nothing is. */
static bool clip(const struct renderer *r, const struct renderer_view *view, VkImageBlit *out)
{
	const int64_t x0 = view->x > 0 ? view->x : 0, y0 = view->y > 0 ? view->y : 0;
	int64_t x1 = (int64_t)view->x + view->width, y1 = (int64_t)view->y + view->height;
	x1 = x1 < r->width ? x1 : r->width;
	y1 = y1 < r->height ? y1 : r->height;
	if (x0 >= x1 || y0 >= y1)
		return false;
	const VkImageSubresourceLayers layers = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
	*out = (VkImageBlit){
		layers,
		{{(int32_t)(x0 - view->x), (int32_t)(y0 - view->y), 0}, {(int32_t)(x1 - view->x), (int32_t)(y1 - view->y), 1}},
		layers,
		{{(int32_t)x0, (int32_t)y0, 0}, {(int32_t)x1, (int32_t)y1, 1}},
	};
	return true;
}

bool renderer_composite(struct renderer *r, const struct renderer_view *views, unsigned count, bool read_back)
{
	vkResetCommandBuffer(r->cmd, 0);
	const VkCommandBufferBeginInfo begin = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL,
	                                        VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL};
	vkBeginCommandBuffer(r->cmd, &begin);
	image_barrier(r->cmd, r->output, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
	              VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED);
	const struct demo_rgb border = demo_border_colour();
	const VkClearColorValue clear = {{border.r / 255.0f, border.g / 255.0f, border.b / 255.0f, 1.0f}};
	const VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
	vkCmdClearColorImage(r->cmd, r->output, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &clear, 1, &range);
	for (unsigned i = 0; i < count; i++) {
		VkImageBlit region;
		if (!views[i].image || !clip(r, &views[i], &region))
			continue;
		/* The client's device (or the CPU) wrote it: acquired from
		 * "external" in GENERAL, given back the same way. The blit
		 * converts BGRA windows into the RGBA output. */
		VkImage source = views[i].image->image;
		image_barrier(r->cmd, source, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		              VK_QUEUE_FAMILY_EXTERNAL, r->queue_family);
		vkCmdBlitImage(r->cmd, source, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, r->output,
		               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region, VK_FILTER_NEAREST);
		image_barrier(r->cmd, source, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL,
		              r->queue_family, VK_QUEUE_FAMILY_EXTERNAL);
	}
	if (read_back) {
		image_barrier(r->cmd, r->output, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		              VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED);
		const VkBufferImageCopy readback = {0, 0, 0, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, {0, 0, 0},
		                                    {r->width, r->height, 1}};
		vkCmdCopyImageToBuffer(r->cmd, r->output, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, r->readback, 1, &readback);
	}
	vkEndCommandBuffer(r->cmd);
	const VkSubmitInfo submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &r->cmd, 0, NULL};
	vkResetFences(r->vk, 1, &r->fence);
	return vkQueueSubmit(r->queue, 1, &submit, r->fence) == VK_SUCCESS &&
	       vkWaitForFences(r->vk, 1, &r->fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS;
}

const uint8_t *renderer_get_pixels(const struct renderer *r, uint32_t *out_width, uint32_t *out_height)
{
	*out_width = r->width;
	*out_height = r->height;
	return r->pixels;
}
