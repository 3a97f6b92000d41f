/*
 * Usage changes of the vulkan backend's allocations. The image's LOCAL
 * IMAGE_PARAMS capability fixes what the image can be used for: a usage
 * outside it needs a new image. Memory crosses devices in GENERAL layout
 * owned by VK_QUEUE_FAMILY_EXTERNAL (uda_vulkan.h), so starting or ending
 * a share is a queue family ownership transfer, which is also what lets a
 * driver resolve compression only it understands.
 */
#include <string.h>

#include "vulkan_backend.h"

static const VkImageSubresourceRange whole_color_image = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};

static VkImageMemoryBarrier image_barrier(VkImage image, VkImageLayout from, VkImageLayout to, VkAccessFlags src,
                                          VkAccessFlags dst, uint32_t src_family, uint32_t dst_family)
{
	return (VkImageMemoryBarrier){
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		.srcAccessMask = src,
		.dstAccessMask = dst,
		.oldLayout = from,
		.newLayout = to,
		.srcQueueFamilyIndex = src_family,
		.dstQueueFamilyIndex = dst_family,
		.image = image,
		.subresourceRange = whole_color_image,
	};
}

static VkImageMemoryBarrier release_barrier(const struct vulkan_device *device, VkImage image)
{
	return image_barrier(image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL, VK_ACCESS_MEMORY_WRITE_BIT, 0,
	                     device->queue_family, VK_QUEUE_FAMILY_EXTERNAL);
}

static VkImageMemoryBarrier acquire_barrier(const struct vulkan_device *device, VkImage image)
{
	return image_barrier(image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL, 0,
	                     VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT, VK_QUEUE_FAMILY_EXTERNAL,
	                     device->queue_family);
}

static uda_result add_op(uda_context *ctx, uda_transition *out, uda_vulkan_transition *barriers,
                         uda_transition_op_kind kind, VkImageMemoryBarrier barrier)
{
	uda_result result = uda_backend_transition_add_op(out, kind, UDA_VENDOR_API_BACKEND,
	                                                  VULKAN_CAPABILITY_IMAGE_PARAMS);
	if (result != UDA_SUCCESS)
		return uda_context_set_error(ctx, result, "vulkan: no room for another transition operation");
	if (barriers)
		barriers->barriers[barriers->barrier_count++] = barrier;
	return UDA_SUCCESS;
}

uda_result vulkan_transition(void *device_data, uda_context *ctx, void *allocation,
                             const uda_capability_set_list *set, const uda_backend_transition *change,
                             uda_transition *out)
{
	struct vulkan_device *device = device_data;
	uda_vulkan_transition *barriers = out->next;
	if (barriers && (barriers->type != UDA_STRUCTURE_TYPE_VULKAN_TRANSITION || barriers->next))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: a transition fills one uda_vulkan_transition and nothing else");
	if (barriers)
		barriers->barrier_count = 0;
	uda_vulkan_native native = {.type = UDA_STRUCTURE_TYPE_VULKAN_NATIVE};
	uda_result result = vulkan_get_native(device, ctx, allocation, &native);
	if (result != UDA_SUCCESS || !native.image)
		return result; /* host memory seen as a buffer keeps nothing local */

	if (change->own_to) {
		VkImageUsageFlags needed;
		bool cpu;
		result = vulkan_usage_to_image_usage(ctx, change->own_to, &needed, &cpu);
		if (result != UDA_SUCCESS)
			return result;
		if (needed & ~native.usage)
			uda_backend_transition_reallocate(out,
			                                  "device %s: the VkImage was created for usage 0x%x, the new "
			                                  "usage needs 0x%x as well",
			                                  device->name, native.usage, needed & ~native.usage);
	}

	/* A copy reads the memory as another device would. */
	const bool others_after = change->shared_after || out->kind == UDA_TRANSITION_REALLOCATE;
	if (!change->shared_before && others_after)
		return add_op(ctx, out, barriers, UDA_TRANSITION_OP_RELEASE, release_barrier(device, native.image));
	if (change->shared_before && !others_after && change->own_to)
		return add_op(ctx, out, barriers, UDA_TRANSITION_OP_ACQUIRE, acquire_barrier(device, native.image));
	return UDA_SUCCESS;
}

static void barrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to, VkAccessFlags src,
                    VkAccessFlags dst, uint32_t src_family, uint32_t dst_family)
{
	const VkImageMemoryBarrier b = image_barrier(image, from, to, src, dst, src_family, dst_family);
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0,
	                     NULL, 1, &b);
}

/* Acquires the source from EXTERNAL (its contents kept) and the
 * destination (contents discarded), copies, and releases both to
 * EXTERNAL in GENERAL layout again. */
static void record_copy(const struct vulkan_device *device, VkCommandBuffer cmd, const uda_vulkan_native *from,
                        const uda_vulkan_native *to, uint32_t width, uint32_t height)
{
	const uint32_t family = device->queue_family;
	barrier(cmd, from->image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 0,
	        VK_ACCESS_TRANSFER_READ_BIT, VK_QUEUE_FAMILY_EXTERNAL, family);
	barrier(cmd, to->image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
	        VK_ACCESS_TRANSFER_WRITE_BIT, VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED);
	const VkImageCopy region = {
		.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
		.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
		.extent = {width, height, 1},
	};
	vkCmdCopyImage(cmd, from->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, to->image,
	               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
	barrier(cmd, from->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL, 0, 0, family,
	        VK_QUEUE_FAMILY_EXTERNAL);
	barrier(cmd, to->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL,
	        VK_ACCESS_TRANSFER_WRITE_BIT, 0, family, VK_QUEUE_FAMILY_EXTERNAL);
}

static uda_result submit_and_wait(struct vulkan_device *device, uda_context *ctx, VkCommandBuffer cmd)
{
	VkQueue queue;
	vkGetDeviceQueue(device->device, device->queue_family, 0, &queue);
	const VkSubmitInfo submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &cmd,
	};
	VkFence fence;
	const VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VkResult vr = vkCreateFence(device->device, &fence_info, NULL, &fence);
	if (vr != VK_SUCCESS)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "vulkan: vkCreateFence: %s", vulkan_result_string(vr));
	vr = vkQueueSubmit(queue, 1, &submit, fence);
	if (vr == VK_SUCCESS)
		vr = vkWaitForFences(device->device, 1, &fence, VK_TRUE, UINT64_MAX);
	vkDestroyFence(device->device, fence, NULL);
	if (vr != VK_SUCCESS)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "vulkan: copy submission: %s",
		                             vulkan_result_string(vr));
	return UDA_SUCCESS;
}

uda_result vulkan_copy(void *device_data, uda_context *ctx, void *source, void *destination)
{
	struct vulkan_device *device = device_data;
	uda_vulkan_native from = {.type = UDA_STRUCTURE_TYPE_VULKAN_NATIVE};
	uda_vulkan_native to = {.type = UDA_STRUCTURE_TYPE_VULKAN_NATIVE};
	uda_result result = vulkan_get_native(device, ctx, source, &from);
	if (result == UDA_SUCCESS)
		result = vulkan_get_native(device, ctx, destination, &to);
	if (result != UDA_SUCCESS)
		return result;
	if (!from.image || !to.image || from.format != to.format)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: copies only between images of one format");
	if (!(from.usage & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) || !(to.usage & VK_IMAGE_USAGE_TRANSFER_DST_BIT))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "vulkan: the images were not created for transfers (usage 0x%x to 0x%x)",
		                             from.usage, to.usage);
	uint32_t width, height;
	vulkan_allocation_extent(source, &width, &height);

	const VkCommandPoolCreateInfo pool_info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
		.queueFamilyIndex = device->queue_family,
	};
	VkCommandPool pool;
	VkResult vr = vkCreateCommandPool(device->device, &pool_info, NULL, &pool);
	if (vr != VK_SUCCESS)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "vulkan: vkCreateCommandPool: %s",
		                             vulkan_result_string(vr));
	const VkCommandBufferAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	VkCommandBuffer cmd;
	const VkCommandBufferBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	vr = vkAllocateCommandBuffers(device->device, &alloc, &cmd);
	if (vr == VK_SUCCESS)
		vr = vkBeginCommandBuffer(cmd, &begin);
	if (vr == VK_SUCCESS) {
		record_copy(device, cmd, &from, &to, width, height);
		vr = vkEndCommandBuffer(cmd);
	}
	result = vr == VK_SUCCESS ? submit_and_wait(device, ctx, cmd)
	                          : uda_context_set_error(ctx, UDA_ERROR_BACKEND, "vulkan: recording the copy: %s",
	                                                  vulkan_result_string(vr));
	vkDestroyCommandPool(device->device, pool, NULL);
	return result;
}
