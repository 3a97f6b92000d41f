/*
 * uda-bench-layer: what VK_LAYER_UDA_allocator costs an application.
 *
 * 1. Calls the layer does not intercept (command recording, empty
 *    submits, a physical-device query): the same loop on a device created
 *    with the layer disabled (UDA_LAYER_DISABLE=1) and on one created with
 *    the layer and VK_UDA_external_allocation enabled, interleaved.
 *    Target: at most 1 % overhead. The layer hands out the next layer's
 *    functions for these, so the expected overhead is none.
 * 2. Importing a uda allocation: vkCreateImage + vkAllocateMemory with the
 *    layer's structs against the same image and a raw VkImportMemoryFdInfoKHR
 *    import of an fd exported from the same allocation, on the device
 *    without the layer. Both paths export the fd inside the timed round.
 *    Target: at most 1.05x.
 *
 * Needs the layer on the loader's path (the ctest entry sets
 * XDG_DATA_DIRS) and the build tree's backends (UDA_BACKEND_PATH).
 * --quick checks every path once; its timings mean nothing.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_timing.h"

#include <drm_fourcc.h>
#include <uda/uda.h>
#include <vulkan/vk_uda.h>
#include <vulkan/vulkan.h>

#define WIDTH 1920u
#define HEIGHT 1080u
#define MAX_ROUNDS 101u

struct app {
	VkInstance instance;
	VkPhysicalDevice physical;
	VkDevice device;
	VkQueue queue;
	VkCommandPool pool;
	VkCommandBuffer cmd;
};

static bool app_create(struct app *app, bool with_layer)
{
	/* The loader reads the disable variable at instance creation. */
	if (with_layer)
		unsetenv("UDA_LAYER_DISABLE");
	else
		setenv("UDA_LAYER_DISABLE", "1", 1);
	const VkApplicationInfo application = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	                                       .apiVersion = VK_API_VERSION_1_1};
	const VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
	                                   .pApplicationInfo = &application};
	uint32_t count = 1;
	if (vkCreateInstance(&info, NULL, &app->instance) != VK_SUCCESS ||
	    vkEnumeratePhysicalDevices(app->instance, &count, &app->physical) < 0 || !count)
		return false;
	const float priority = 1.0f;
	const VkDeviceQueueCreateInfo queue = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	                                       .queueCount = 1,
	                                       .pQueuePriorities = &priority};
	/* The baseline enables the driver extensions the layer enables
	 * underneath VK_UDA_external_allocation, so that the layer's presence
	 * is the one difference between the two devices. */
	static const char *const underlying[] = {
		VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,  VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME,
		VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME, VK_KHR_IMAGE_FORMAT_LIST_EXTENSION_NAME,
		VK_EXT_IMAGE_DRM_FORMAT_MODIFIER_EXTENSION_NAME,
	};
	const char *extensions[sizeof(underlying) / sizeof(underlying[0])];
	uint32_t extension_count = 0;
	if (with_layer) {
		extensions[extension_count++] = VK_UDA_EXTERNAL_ALLOCATION_EXTENSION_NAME;
	} else {
		VkExtensionProperties available[512];
		uint32_t available_count = 512;
		if (vkEnumerateDeviceExtensionProperties(app->physical, NULL, &available_count, available) < 0)
			return false;
		for (size_t i = 0; i < sizeof(underlying) / sizeof(underlying[0]); i++) {
			for (uint32_t j = 0; j < available_count; j++) {
				if (strcmp(available[j].extensionName, underlying[i]) == 0) {
					extensions[extension_count++] = underlying[i];
					break;
				}
			}
		}
	}
	const VkDeviceCreateInfo device_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	                                        .queueCreateInfoCount = 1,
	                                        .pQueueCreateInfos = &queue,
	                                        .enabledExtensionCount = extension_count,
	                                        .ppEnabledExtensionNames = extensions};
	if (vkCreateDevice(app->physical, &device_info, NULL, &app->device) != VK_SUCCESS)
		return false;
	vkGetDeviceQueue(app->device, 0, 0, &app->queue);
	const VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                                           .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT};
	const VkCommandBufferAllocateInfo cmd_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                              .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                              .commandBufferCount = 1};
	if (vkCreateCommandPool(app->device, &pool_info, NULL, &app->pool) != VK_SUCCESS)
		return false;
	VkCommandBufferAllocateInfo with_pool = cmd_info;
	with_pool.commandPool = app->pool;
	return vkAllocateCommandBuffers(app->device, &with_pool, &app->cmd) == VK_SUCCESS;
}

static void app_destroy(struct app *app)
{
	if (app->device) {
		vkDestroyCommandPool(app->device, app->pool, NULL);
		vkDestroyDevice(app->device, NULL);
	}
	if (app->instance)
		vkDestroyInstance(app->instance, NULL);
}

/* 1. A workload of calls the layer does not intercept. */
static void plain_calls(struct app *app, unsigned repeat)
{
	const VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	const VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
	                                 .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
	                                 .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT};
	for (unsigned r = 0; r < repeat; r++) {
		vkResetCommandBuffer(app->cmd, 0);
		vkBeginCommandBuffer(app->cmd, &begin);
		for (unsigned i = 0; i < 256; i++)
			vkCmdPipelineBarrier(app->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1,
			                     &barrier, 0, NULL, 0, NULL);
		vkEndCommandBuffer(app->cmd);
		for (unsigned i = 0; i < 16; i++)
			vkQueueSubmit(app->queue, 0, NULL, VK_NULL_HANDLE);
		VkFormatProperties properties;
		for (unsigned i = 0; i < 64; i++)
			vkGetPhysicalDeviceFormatProperties(app->physical, VK_FORMAT_R8G8B8A8_UNORM, &properties);
	}
	vkQueueWaitIdle(app->queue);
}

/* 2. One import of the allocation, through the layer or raw. */
static bool import_round(struct app *app, uda_allocation *allocation, bool through_layer)
{
	uda_allocation_metadata m = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	uda_allocation_get_metadata(allocation, &m);
	const VkImageUdaAllocationCreateInfoUDA uda_image = {.sType = VK_STRUCTURE_TYPE_IMAGE_UDA_ALLOCATION_CREATE_INFO_UDA,
	                                                     .allocation = allocation};
	const VkExternalMemoryImageCreateInfo external = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
	                                                  .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
	const VkImageCreateInfo image_info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.pNext = through_layer ? (const void *)&uda_image : (const void *)&external,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = VK_FORMAT_R8G8B8A8_UNORM,
		.extent = {WIDTH, HEIGHT, 1},
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
		         VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
	};
	VkImage image;
	if (vkCreateImage(app->device, &image_info, NULL, &image) != VK_SUCCESS)
		return false;
	VkMemoryRequirements requirements;
	vkGetImageMemoryRequirements(app->device, image, &requirements);
	const VkMemoryDedicatedAllocateInfo dedicated = {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
	                                                 .image = image};
	const VkImportMemoryUdaAllocationInfoUDA uda_import = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_UDA_ALLOCATION_INFO_UDA, .pNext = &dedicated,
		.allocation = allocation};
	int fd = -1;
	if (!through_layer && uda_allocation_export(allocation, UDA_HANDLE_TYPE_OPAQUE_FD, &fd) != UDA_SUCCESS) {
		vkDestroyImage(app->device, image, NULL);
		return false;
	}
	const VkImportMemoryFdInfoKHR raw_import = {.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
	                                            .pNext = &dedicated,
	                                            .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
	                                            .fd = fd};
	const VkMemoryAllocateInfo allocate_info = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = through_layer ? (const void *)&uda_import : (const void *)&raw_import,
		.allocationSize = requirements.size,
		.memoryTypeIndex = (uint32_t)__builtin_ctz(requirements.memoryTypeBits),
	};
	VkDeviceMemory memory;
	bool ok = vkAllocateMemory(app->device, &allocate_info, NULL, &memory) == VK_SUCCESS;
	if (ok) {
		ok = vkBindImageMemory(app->device, image, memory, 0) == VK_SUCCESS;
		vkFreeMemory(app->device, memory, NULL);
	} else if (fd >= 0) {
		close(fd);
	}
	vkDestroyImage(app->device, image, NULL);
	return ok && m.size == requirements.size;
}

int main(int argc, char **argv)
{
	const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
	if (argc > 1 && !quick) {
		printf("usage: uda-bench-layer [--quick]\n");
		return strcmp(argv[1], "--help") == 0 ? 0 : 2;
	}
	const unsigned rounds = quick ? 3 : MAX_ROUNDS;
	struct app without = {0}, with = {0};
	int status = 0;
	if (!app_create(&without, false) || !app_create(&with, true)) {
		fprintf(stderr, "uda-bench-layer: cannot create the devices (is the layer on XDG_DATA_DIRS?)\n");
		status = 1;
	}

	uda_context *ctx = NULL;
	uda_allocation *allocation = NULL;
	if (status == 0 && uda_context_create(NULL, &ctx) == UDA_SUCCESS) {
		uda_device *devices[32], *vulkan = NULL;
		uint32_t count = 32;
		uda_context_enumerate_devices(ctx, &count, devices);
		for (uint32_t i = 0; i < count && !vulkan; i++) {
			uda_device_info info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
			uda_device_get_info(devices[i], &info);
			if (info.api == UDA_DEVICE_API_VULKAN)
				vulkan = devices[i];
		}
		const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, WIDTH, HEIGHT, DRM_FORMAT_ABGR8888, 0};
		const uda_usage_atom atoms[] = {{0, UDA_USAGE_RENDER_TARGET, 0, NULL},
		                                {0, UDA_USAGE_TRANSFER_SRC, 0, NULL},
		                                {0, UDA_USAGE_TRANSFER_DST, 0, NULL}};
		const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 3, atoms};
		const uda_device_usage participants[] = {{vulkan, &usage}};
		const uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, NULL, &assertion, 1,
		                                          participants};
		if (!vulkan || uda_negotiate_allocate(ctx, &negotiation, &allocation, NULL, NULL) != UDA_SUCCESS)
			status = 1;
	} else {
		status = 1;
	}
	if (status != 0)
		fprintf(stderr, "uda-bench-layer: no uda allocation: %s\n", ctx ? uda_context_get_error(ctx) : "");

	uint64_t plain_without[MAX_ROUNDS], plain_with[MAX_ROUNDS], import_raw[MAX_ROUNDS], import_layer[MAX_ROUNDS];
	for (unsigned r = 0; r < rounds && status == 0; r++) {
		/* Alternate the order so neither always finds warm caches. */
		struct app *first = r % 2 ? &with : &without, *second = r % 2 ? &without : &with;
		uint64_t t0 = bench_now_ns();
		plain_calls(first, 4);
		uint64_t t1 = bench_now_ns();
		plain_calls(second, 4);
		uint64_t t2 = bench_now_ns();
		(r % 2 ? plain_with : plain_without)[r] = t1 - t0;
		(r % 2 ? plain_without : plain_with)[r] = t2 - t1;

		t0 = bench_now_ns();
		bool ok = import_round(r % 2 ? &with : &without, allocation, r % 2);
		t1 = bench_now_ns();
		ok = ok && import_round(r % 2 ? &without : &with, allocation, !(r % 2));
		t2 = bench_now_ns();
		(r % 2 ? import_layer : import_raw)[r] = t1 - t0;
		(r % 2 ? import_raw : import_layer)[r] = t2 - t1;
		if (!ok) {
			fprintf(stderr, "uda-bench-layer: an import round failed\n");
			status = 1;
		}
	}
	if (status == 0) {
		const double pw = (double)bench_median(plain_without, rounds) / 1e3;
		const double pl = (double)bench_median(plain_with, rounds) / 1e3;
		const double ir = (double)bench_median(import_raw, rounds) / 1e3;
		const double il = (double)bench_median(import_layer, rounds) / 1e3;
		VkPhysicalDeviceProperties properties;
		vkGetPhysicalDeviceProperties(with.physical, &properties);
		printf("uda-bench-layer: %s, median of %u interleaved rounds%s\n\n", properties.deviceName, rounds,
		       quick ? " (--quick: too few rounds to mean anything)" : "");
		printf("%-52s %12s %12s %8s %8s\n", "operation", "layer (us)", "baseline (us)", "ratio", "target");
		printf("%-52s %12.1f %12.1f %7.3fx %8s %s\n", "non-intercepted calls (vs layer disabled)", pl, pw, pl / pw,
		       "<= 1.01x", pl / pw <= 1.01 ? "PASS" : "MISS");
		printf("%-52s %12.1f %12.1f %7.3fx %8s %s\n", "import a uda allocation (vs raw opaque-fd import)", il, ir,
		       il / ir, "<= 1.05x", il / ir <= 1.05 ? "PASS" : "MISS");
		bench_result("uda-bench-layer", "non-intercepted calls, layer / no layer", pl / pw, "x", true, 1.01);
		bench_result("uda-bench-layer", "import, layer / raw opaque-fd import", il / ir, "x", true, 1.05);
	}
	uda_allocation_destroy(allocation);
	uda_context_destroy(ctx);
	app_destroy(&with);
	app_destroy(&without);
	return status;
}
