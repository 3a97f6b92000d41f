/* uda-compositor: the consumer half of the demo. It listens on a unix
 * socket, tells each client what its Vulkan device can take (through the
 * uda layer's VK_UDA_external_allocation), imports the buffers the client
 * sends into its own VkDevice without a copy, composites each frame onto
 * its output image and writes chosen frames as PNG files. */
#include <errno.h>
#include <getopt.h>
#include <dirent.h>
#include <png.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include <uda/uda.h>
#include <vulkan/vk_uda.h>

#include "common/demo_pattern.h"
#include "common/demo_protocol.h"
#include "common/describe.h"

#define MAX_BUFFERS 8
#define MAX_SAVED 16

struct options {
	char socket_path[108];
	const char *output;
	unsigned clients; /* serve this many, then exit; 0: forever */
	uint64_t save[MAX_SAVED];
	unsigned save_count;
	bool save_all;
	int idle_timeout_ms; /* a client silent this long is dropped */
	uint64_t exit_after;  /* frames, then exit as if restarted; 0: never */
};

struct imported {
	uint64_t id;
	uda_allocation *allocation;
	VkImage image;
	VkDeviceMemory memory;
	uint32_t width, height;
};

struct compositor {
	struct options options;
	uint64_t frames_composited;
	uda_context *ctx;
	uda_device *device;
	VkInstance instance;
	VkPhysicalDevice physical;
	VkDevice vk;
	uint32_t queue_family;
	VkQueue queue;
	VkCommandPool pool;
	VkCommandBuffer cmd;
	VkFence fence;
	PFN_vkGetPhysicalDeviceUdaDeviceUDA get_uda_device;
	PFN_vkGetPhysicalDeviceUdaCapabilitySetsUDA get_capability_sets;
	/* The output image, sized for the current client, and its readback. */
	VkImage output;
	VkDeviceMemory output_memory;
	VkBuffer readback;
	VkDeviceMemory readback_memory;
	void *readback_pixels;
	uint32_t output_width, output_height;
	int listen_fd;
};

static volatile sig_atomic_t stopping;

static void on_signal(int signal_number)
{
	(void)signal_number;
	stopping = 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: uda-compositor [--socket PATH] [--output DIR] [--clients N] [--save N,N,...|all|none]\n"
	           "                      [--idle-timeout MS] [--exit-after FRAMES]\n"
	           "\n"
	           "Serves uda-client over a unix socket (default $XDG_RUNTIME_DIR/uda-demo.sock),\n"
	           "imports its buffers through the Vulkan layer VK_LAYER_UDA_allocator without\n"
	           "copies, composites them and writes the frames named by --save as\n"
	           "DIR/frame-NNN.png (default: frames 1, 4 and 8 into the current folder).\n"
	           "--clients N exits after N clients (default 1; 0 serves forever). A client\n"
	           "that misbehaves, is silent for --idle-timeout ms (default 10000), or sends\n"
	           "a frame whose fence has not signalled by then, is dropped; the compositor\n"
	           "goes on. --exit-after stops it after that many\n"
	           "frames, without a goodbye, as a crash or a restart would.\n");
}

static bool parse_options(int argc, char **argv, struct options *o)
{
	*o = (struct options){.output = ".", .clients = 1, .save = {1, 4, 8}, .save_count = 3, .idle_timeout_ms = 10000};
	demo_default_socket_path(o->socket_path, sizeof(o->socket_path));
	static const struct option long_options[] = {
		{"socket", required_argument, NULL, 's'}, {"output", required_argument, NULL, 'o'},
		{"clients", required_argument, NULL, 'c'}, {"save", required_argument, NULL, 'f'},
		{"idle-timeout", required_argument, NULL, 't'}, {"exit-after", required_argument, NULL, 'x'},
		{"help", no_argument, NULL, 'h'},               {NULL, 0, NULL, 0},
	};
	int option;
	while ((option = getopt_long(argc, argv, "s:o:c:f:t:x:h", long_options, NULL)) != -1) {
		switch (option) {
		case 's':
			if (strlen(optarg) >= sizeof(o->socket_path)) {
				fprintf(stderr, "uda-compositor: socket path too long\n");
				return false;
			}
			snprintf(o->socket_path, sizeof(o->socket_path), "%s", optarg);
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'c':
			o->clients = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 't':
			o->idle_timeout_ms = (int)strtol(optarg, NULL, 10);
			break;
		case 'x':
			o->exit_after = strtoull(optarg, NULL, 10);
			break;
		case 'f':
			o->save_count = 0;
			o->save_all = strcmp(optarg, "all") == 0;
			for (char *next = optarg; !o->save_all && strcmp(optarg, "none") != 0 && *next &&
			                          o->save_count < MAX_SAVED;) {
				char *end;
				o->save[o->save_count++] = strtoull(next, &end, 10);
				next = *end == ',' ? end + 1 : end;
				if (end == next && *end)
					break;
			}
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return false;
		}
	}
	return optind == argc;
}

static int open_descriptors(void)
{
	DIR *dir = opendir("/proc/self/fd");
	int count = 0;
	for (struct dirent *entry; dir && (entry = readdir(dir));)
		count += entry->d_name[0] != '.';
	if (dir)
		closedir(dir);
	return count - 1; /* the listing's own */
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static uint32_t memory_type(const struct compositor *c, uint32_t bits, VkMemoryPropertyFlags want)
{
	VkPhysicalDeviceMemoryProperties properties;
	vkGetPhysicalDeviceMemoryProperties(c->physical, &properties);
	for (uint32_t i = 0; i < properties.memoryTypeCount; i++) {
		if ((bits & (1u << i)) && (properties.memoryTypes[i].propertyFlags & want) == want)
			return i;
	}
	return UINT32_MAX;
}

static bool has_device_extension(VkPhysicalDevice physical, const char *name)
{
	uint32_t count = 0;
	vkEnumerateDeviceExtensionProperties(physical, NULL, &count, NULL);
	VkExtensionProperties *extensions = calloc(count ? count : 1, sizeof(*extensions));
	vkEnumerateDeviceExtensionProperties(physical, NULL, &count, extensions);
	bool found = false;
	for (uint32_t i = 0; i < count && !found; i++)
		found = strcmp(extensions[i].extensionName, name) == 0;
	free(extensions);
	return found;
}

/* What the layer (and any other) says about a refused call. */
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

static bool has_instance_extension(const char *name)
{
	uint32_t count = 0;
	vkEnumerateInstanceExtensionProperties(NULL, &count, NULL);
	VkExtensionProperties *extensions = calloc(count ? count : 1, sizeof(*extensions));
	vkEnumerateInstanceExtensionProperties(NULL, &count, extensions);
	bool found = false;
	for (uint32_t i = 0; i < count && !found; i++)
		found = strcmp(extensions[i].extensionName, name) == 0;
	free(extensions);
	return found;
}

static bool vulkan_setup(struct compositor *c)
{
	const VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "uda-compositor", 1, NULL, 0,
	                               VK_API_VERSION_1_1};
	const bool debug = has_instance_extension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
	const char *instance_extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
	const VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
		VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT, NULL, 0,
		VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
		VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
		print_message, NULL,
	};
	const VkInstanceCreateInfo instance_info = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, debug ? &messenger_info : NULL,
	                                            0, &app, 0, NULL, debug ? 1 : 0, instance_extensions};
	if (vkCreateInstance(&instance_info, NULL, &c->instance) != VK_SUCCESS) {
		fprintf(stderr, "uda-compositor: no Vulkan instance (is a Vulkan driver installed?)\n");
		return false;
	}
	uint32_t count = 8;
	VkPhysicalDevice physicals[8];
	vkEnumeratePhysicalDevices(c->instance, &count, physicals);
	for (uint32_t i = 0; i < count && !c->physical; i++) {
		if (has_device_extension(physicals[i], VK_UDA_EXTERNAL_ALLOCATION_EXTENSION_NAME))
			c->physical = physicals[i];
	}
	if (!c->physical) {
		fprintf(stderr, "uda-compositor: no Vulkan device offers %s: is the layer VK_LAYER_UDA_allocator "
		                "installed (or XDG_DATA_DIRS pointing at the build tree's manifests/share)?\n",
		        VK_UDA_EXTERNAL_ALLOCATION_EXTENSION_NAME);
		return false;
	}
	c->get_uda_device = (PFN_vkGetPhysicalDeviceUdaDeviceUDA)vkGetInstanceProcAddr(
	        c->instance, "vkGetPhysicalDeviceUdaDeviceUDA");
	c->get_capability_sets = (PFN_vkGetPhysicalDeviceUdaCapabilitySetsUDA)vkGetInstanceProcAddr(
	        c->instance, "vkGetPhysicalDeviceUdaCapabilitySetsUDA");
	if (!c->get_uda_device || !c->get_capability_sets ||
	    c->get_uda_device(c->physical, c->ctx, &c->device) != VK_SUCCESS) {
		fprintf(stderr, "uda-compositor: the layer cannot name this device's uda device\n");
		return false;
	}

	uint32_t families = 8;
	VkQueueFamilyProperties family_properties[8];
	vkGetPhysicalDeviceQueueFamilyProperties(c->physical, &families, family_properties);
	c->queue_family = UINT32_MAX;
	for (uint32_t i = 0; i < families && c->queue_family == UINT32_MAX; i++) {
		if (family_properties[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)
			c->queue_family = i;
	}
	const float priority = 1.0f;
	const VkDeviceQueueCreateInfo queue_info = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0,
	                                            c->queue_family, 1, &priority};
	const char *extensions[] = {VK_UDA_EXTERNAL_ALLOCATION_EXTENSION_NAME};
	const VkDeviceCreateInfo device_info = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, NULL, 0, 1, &queue_info, 0, NULL,
	                                        1, extensions, NULL};
	if (c->queue_family == UINT32_MAX || vkCreateDevice(c->physical, &device_info, NULL, &c->vk) != VK_SUCCESS) {
		fprintf(stderr, "uda-compositor: cannot create the Vulkan device\n");
		return false;
	}
	vkGetDeviceQueue(c->vk, c->queue_family, 0, &c->queue);
	const VkCommandPoolCreateInfo pool_info = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL,
	                                           VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, c->queue_family};
	const VkFenceCreateInfo fence_info = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, NULL, 0};
	if (vkCreateCommandPool(c->vk, &pool_info, NULL, &c->pool) != VK_SUCCESS ||
	    vkCreateFence(c->vk, &fence_info, NULL, &c->fence) != VK_SUCCESS)
		return false;
	const VkCommandBufferAllocateInfo cmd_info = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, c->pool,
	                                              VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
	return vkAllocateCommandBuffers(c->vk, &cmd_info, &c->cmd) == VK_SUCCESS;
}

static void destroy_output(struct compositor *c)
{
	if (c->readback_pixels)
		vkUnmapMemory(c->vk, c->readback_memory);
	vkDestroyBuffer(c->vk, c->readback, NULL);
	vkFreeMemory(c->vk, c->readback_memory, NULL);
	vkDestroyImage(c->vk, c->output, NULL);
	vkFreeMemory(c->vk, c->output_memory, NULL);
	c->readback_pixels = NULL;
	c->readback = VK_NULL_HANDLE;
	c->readback_memory = VK_NULL_HANDLE;
	c->output = VK_NULL_HANDLE;
	c->output_memory = VK_NULL_HANDLE;
	c->output_width = c->output_height = 0;
}

/* The output: the client's picture with a border around it. */
static bool ensure_output(struct compositor *c, uint32_t width, uint32_t height)
{
	width += 2 * DEMO_BORDER;
	height += 2 * DEMO_BORDER;
	if (c->output_width == width && c->output_height == height)
		return true;
	destroy_output(c);
	const VkImageCreateInfo image_info = {
		VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, NULL, 0, VK_IMAGE_TYPE_2D, VK_FORMAT_R8G8B8A8_UNORM,
		{width, height, 1}, 1, 1, VK_SAMPLE_COUNT_1_BIT, VK_IMAGE_TILING_OPTIMAL,
		VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, VK_SHARING_MODE_EXCLUSIVE, 0, NULL,
		VK_IMAGE_LAYOUT_UNDEFINED,
	};
	if (vkCreateImage(c->vk, &image_info, NULL, &c->output) != VK_SUCCESS)
		return false;
	VkMemoryRequirements requirements;
	vkGetImageMemoryRequirements(c->vk, c->output, &requirements);
	VkMemoryAllocateInfo alloc = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, requirements.size,
	                              memory_type(c, requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)};
	if (vkAllocateMemory(c->vk, &alloc, NULL, &c->output_memory) != VK_SUCCESS ||
	    vkBindImageMemory(c->vk, c->output, c->output_memory, 0) != VK_SUCCESS)
		return false;
	const VkBufferCreateInfo buffer_info = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0, (VkDeviceSize)width * height * 4,
	                                        VK_BUFFER_USAGE_TRANSFER_DST_BIT, VK_SHARING_MODE_EXCLUSIVE, 0, NULL};
	if (vkCreateBuffer(c->vk, &buffer_info, NULL, &c->readback) != VK_SUCCESS)
		return false;
	vkGetBufferMemoryRequirements(c->vk, c->readback, &requirements);
	alloc.allocationSize = requirements.size;
	alloc.memoryTypeIndex = memory_type(c, requirements.memoryTypeBits,
	                                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
	if (vkAllocateMemory(c->vk, &alloc, NULL, &c->readback_memory) != VK_SUCCESS ||
	    vkBindBufferMemory(c->vk, c->readback, c->readback_memory, 0) != VK_SUCCESS ||
	    vkMapMemory(c->vk, c->readback_memory, 0, VK_WHOLE_SIZE, 0, &c->readback_pixels) != VK_SUCCESS)
		return false;
	c->output_width = width;
	c->output_height = height;
	return true;
}

static bool write_png(const char *path, const uint8_t *rgba, uint32_t width, uint32_t height)
{
	FILE *file = fopen(path, "wb");
	if (!file)
		return false;
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	bool ok = png && info && !setjmp(png_jmpbuf(png));
	if (ok) {
		png_init_io(png, file);
		png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
		             PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
		png_write_info(png, info);
		for (uint32_t y = 0; y < height; y++)
			png_write_row(png, rgba + (size_t)y * width * 4);
		png_write_end(png, NULL);
	}
	png_destroy_write_struct(&png, &info);
	return fclose(file) == 0 && ok;
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

/* Clears the output to the border colour, copies the client's image into
 * the middle (the GPU reads the client's memory; the CPU touches nothing
 * of it) and reads the output back for the PNG. */
static bool composite(struct compositor *c, const struct imported *buffer)
{
	if (!ensure_output(c, buffer->width, buffer->height))
		return false;
	vkResetCommandBuffer(c->cmd, 0);
	const VkCommandBufferBeginInfo begin = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL,
	                                        VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL};
	vkBeginCommandBuffer(c->cmd, &begin);
	image_barrier(c->cmd, c->output, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
	              VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED);
	const struct demo_rgb border = demo_border_colour();
	const VkClearColorValue clear = {{border.r / 255.0f, border.g / 255.0f, border.b / 255.0f, 1.0f}};
	const VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
	vkCmdClearColorImage(c->cmd, c->output, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &clear, 1, &range);
	/* GL wrote the buffer: acquire it from "external", in GENERAL. */
	image_barrier(c->cmd, buffer->image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
	              VK_QUEUE_FAMILY_EXTERNAL, c->queue_family);
	const VkImageCopy region = {
		{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, {0, 0, 0}, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
		{DEMO_BORDER, DEMO_BORDER, 0}, {buffer->width, buffer->height, 1},
	};
	vkCmdCopyImage(c->cmd, buffer->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, c->output,
	               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
	image_barrier(c->cmd, buffer->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL,
	              c->queue_family, VK_QUEUE_FAMILY_EXTERNAL);
	image_barrier(c->cmd, c->output, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
	              VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED);
	const VkBufferImageCopy readback = {0, 0, 0, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, {0, 0, 0},
	                                    {c->output_width, c->output_height, 1}};
	vkCmdCopyImageToBuffer(c->cmd, c->output, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, c->readback, 1, &readback);
	vkEndCommandBuffer(c->cmd);
	const VkSubmitInfo submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &c->cmd, 0, NULL};
	vkResetFences(c->vk, 1, &c->fence);
	return vkQueueSubmit(c->queue, 1, &submit, c->fence) == VK_SUCCESS &&
	       vkWaitForFences(c->vk, 1, &c->fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS;
}

/* A sync file (or anything else that polls readable when done); as
 * long as a silent client is given. A hang-up is not "done": the fd is
 * the client's, and untrusted. */
static bool wait_for_fence(int fence, int timeout_ms)
{
	struct pollfd entry = {fence, POLLIN, 0};
	int ready;
	while ((ready = poll(&entry, 1, timeout_ms)) < 0 && errno == EINTR)
		;
	return ready == 1 && (entry.revents & POLLIN);
}

static void release_imported(struct compositor *c, struct imported *buffer)
{
	vkDestroyImage(c->vk, buffer->image, NULL);
	vkFreeMemory(c->vk, buffer->memory, NULL);
	uda_allocation_destroy(buffer->allocation);
	memset(buffer, 0, sizeof(*buffer));
}

/* The client's memory as a VkImage of this device, through the layer. */
static const char *import_buffer(struct compositor *c, const struct demo_message *message, struct imported *out)
{
	if (message->size < sizeof(uint64_t) || message->fd < 0)
		return "a BUFFER without an id or an fd";
	memcpy(&out->id, message->payload, sizeof(uint64_t));
	if (uda_import_serialized(c->device, message->fd, message->payload + sizeof(uint64_t),
	                          message->size - sizeof(uint64_t), &out->allocation) != UDA_SUCCESS)
		return uda_context_get_error(c->ctx);
	uda_allocation_metadata metadata = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	uda_allocation_get_metadata(out->allocation, &metadata);
	uda_format_info format = {0};
	uda_format_get_info(metadata.format, &format);
	if (format.vk_format != VK_FORMAT_R8G8B8A8_UNORM)
		return "the buffer is not RGBA8 (this compositor copies, it does not convert)";
	out->width = metadata.width;
	out->height = metadata.height;
	const VkImageUdaAllocationCreateInfoUDA uda_image = {VK_STRUCTURE_TYPE_IMAGE_UDA_ALLOCATION_CREATE_INFO_UDA,
	                                                     NULL, out->allocation};
	const VkImageCreateInfo image_info = {
		VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, &uda_image, 0, VK_IMAGE_TYPE_2D, VK_FORMAT_R8G8B8A8_UNORM,
		{metadata.width, metadata.height, 1}, 1, 1, VK_SAMPLE_COUNT_1_BIT, VK_IMAGE_TILING_OPTIMAL,
		VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, VK_SHARING_MODE_EXCLUSIVE, 0, NULL,
		VK_IMAGE_LAYOUT_UNDEFINED,
	};
	if (vkCreateImage(c->vk, &image_info, NULL, &out->image) != VK_SUCCESS)
		return "the layer refused the image (see the debug messages)";
	VkMemoryRequirements requirements;
	vkGetImageMemoryRequirements(c->vk, out->image, &requirements);
	const VkMemoryDedicatedAllocateInfo dedicated = {VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO, NULL,
	                                                 out->image, VK_NULL_HANDLE};
	const VkImportMemoryUdaAllocationInfoUDA import = {VK_STRUCTURE_TYPE_IMPORT_MEMORY_UDA_ALLOCATION_INFO_UDA,
	                                                   &dedicated, out->allocation};
	/* The memory's own size: an opaque import repeats the export's. */
	const VkMemoryAllocateInfo alloc = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &import, metadata.size,
	                                    (uint32_t)__builtin_ctz(requirements.memoryTypeBits)};
	VkResult result = vkAllocateMemory(c->vk, &alloc, NULL, &out->memory);
	if (result != VK_SUCCESS) {
		fprintf(stderr, "uda-compositor: vkAllocateMemory: VkResult %d\n", result);
		return "the layer refused the memory import";
	}
	result = vkBindImageMemory(c->vk, out->image, out->memory, 0);
	if (result != VK_SUCCESS) {
		fprintf(stderr, "uda-compositor: vkBindImageMemory: VkResult %d\n", result);
		return "the imported memory does not bind to the image";
	}
	return NULL;
}

static bool should_save(const struct options *o, uint64_t frame)
{
	for (unsigned i = 0; i < o->save_count; i++) {
		if (o->save[i] == frame)
			return true;
	}
	return o->save_all;
}

static bool send_caps(struct compositor *c, int client, const struct demo_message *message)
{
	struct demo_hello hello;
	if (message->size != sizeof(hello))
		return false;
	memcpy(&hello, message->payload, sizeof(hello));
	uda_format_info format = {0};
	if (hello.version != DEMO_PROTOCOL_VERSION || uda_format_get_info(hello.format, &format) != UDA_SUCCESS ||
	    !hello.width || !hello.height || hello.width > 16384 || hello.height > 16384) {
		fprintf(stderr, "uda-compositor: HELLO with version %u, %ux%u, format 0x%08x: refused\n", hello.version,
		        hello.width, hello.height, hello.format);
		return false;
	}
	const VkUdaCapabilityQueryUDA query = {VK_STRUCTURE_TYPE_UDA_CAPABILITY_QUERY_UDA, NULL, c->ctx,
	                                       (VkFormat)format.vk_format, {hello.width, hello.height},
	                                       VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT};
	uda_capability_set_list *sets = NULL;
	if (c->get_capability_sets(c->physical, &query, &sets) != VK_SUCCESS) {
		fprintf(stderr, "uda-compositor: the device takes no %ux%u %s\n", hello.width, hello.height, format.name);
		return false;
	}
	uint8_t bytes[DEMO_MAX_PAYLOAD];
	size_t size = 0;
	bool ok = uda_capability_set_list_serialize(sets, bytes, sizeof(bytes), &size) == UDA_SUCCESS &&
	          demo_send(client, DEMO_CAPS, bytes, size, -1) == 0;
	uda_capability_set_list_destroy(sets);
	printf("client: %ux%u %s\n", hello.width, hello.height, format.name);
	return ok;
}

/* One client from HELLO to BYE. A client that misbehaves is dropped with
 * a message; the compositor goes on. */
static void serve(struct compositor *c, int client)
{
	struct imported buffers[MAX_BUFFERS] = {0};
	struct demo_message *message = malloc(sizeof(*message));
	bool greeted = false;
	const char *problem = NULL;
	double last = now_ms();
	while (message && !problem && !stopping) {
		struct pollfd entry = {client, POLLIN, 0};
		int ready = poll(&entry, 1, c->options.idle_timeout_ms);
		if (ready == 0) {
			problem = "the client is silent";
			break;
		}
		if (ready < 0 && errno == EINTR)
			continue;
		int got = demo_receive(client, message);
		if (got == 0) {
			problem = "the client went away";
			break;
		}
		if (got < 0) {
			problem = got == -EPROTO ? "a malformed message" : strerror(-got);
			break;
		}
		if (message->type != DEMO_BUFFER && message->type != DEMO_FRAME && message->fd >= 0) {
			close(message->fd);
			message->fd = -1;
		}
		if (message->type == DEMO_HELLO) {
			if (greeted || !send_caps(c, client, message))
				problem = "a HELLO that cannot be served";
			greeted = true;
		} else if (!greeted) {
			problem = "no HELLO first";
		} else if (message->type == DEMO_BUFFER) {
			unsigned slot = MAX_BUFFERS;
			for (unsigned i = 0; i < MAX_BUFFERS && slot == MAX_BUFFERS; i++)
				slot = buffers[i].allocation ? slot : i;
			if (slot == MAX_BUFFERS) {
				problem = "more buffers than the compositor keeps";
			} else {
				problem = import_buffer(c, message, &buffers[slot]);
				if (problem)
					release_imported(c, &buffers[slot]);
			}
			close(message->fd);
			message->fd = -1;
		} else if (message->type == DEMO_FRAME && message->size == sizeof(struct demo_frame)) {
			struct demo_frame frame;
			memcpy(&frame, message->payload, sizeof(frame));
			struct imported *buffer = NULL;
			for (unsigned i = 0; i < MAX_BUFFERS && !buffer; i++)
				buffer = buffers[i].allocation && buffers[i].id == frame.buffer_id ? &buffers[i] : NULL;
			double start = now_ms();
			/* Waits for the client's rendering on the CPU: this
			 * compositor reads back every frame synchronously anyway.
			 * One that stays on the GPU imports the fence as a
			 * semaphore (VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT)
			 * and waits on it in the submit. */
			bool rendered = message->fd < 0 || wait_for_fence(message->fd, c->options.idle_timeout_ms);
			if (message->fd >= 0) {
				close(message->fd);
				message->fd = -1;
			}
			if (!buffer) {
				problem = "a FRAME of an unknown buffer";
			} else if (!rendered) {
				problem = "a FRAME whose rendering never finished";
			} else if (!composite(c, buffer)) {
				problem = "compositing failed";
			} else {
				double done = now_ms();
				printf("frame %3llu: buffer %llu, %ux%u, composited in %.2f ms, %.2f ms since the last\n",
				       (unsigned long long)frame.frame_number, (unsigned long long)frame.buffer_id, buffer->width,
				       buffer->height, done - start, done - last);
				last = done;
				if (should_save(&c->options, frame.frame_number)) {
					char path[4096];
					snprintf(path, sizeof(path), "%s/frame-%03llu.png", c->options.output,
					         (unsigned long long)frame.frame_number);
					if (write_png(path, c->readback_pixels, c->output_width, c->output_height))
						printf("wrote %s\n", path);
					else
						fprintf(stderr, "uda-compositor: cannot write %s\n", path);
				}
				/* The socket does not block: a client that stops
				 * reading is dropped, not waited for. No release
				 * fence: the copy above has finished. */
				if (demo_send(client, DEMO_RELEASE, &frame.buffer_id, sizeof(frame.buffer_id), -1) != 0)
					problem = "the client does not take its buffers back";
				if (++c->frames_composited == c->options.exit_after) {
					printf("uda-compositor: exiting after %llu frames (--exit-after)\n",
					       (unsigned long long)c->frames_composited);
					stopping = 1;
				}
			}
		} else if (message->type == DEMO_BYE) {
			break;
		} else {
			problem = "an unknown message";
		}
	}
	if (problem)
		fprintf(stderr, "uda-compositor: dropping the client: %s\n", problem);
	for (unsigned i = 0; i < MAX_BUFFERS; i++) {
		if (buffers[i].allocation)
			release_imported(c, &buffers[i]);
	}
	free(message);
	close(client);
	fflush(stdout);
}

/* A socket path someone still listens on is in use; one nobody answers on
 * is a leftover, removed. */
static int listen_on(const char *path)
{
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	snprintf(address.sun_path, sizeof(address.sun_path), "%s", path);
	int probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (probe >= 0 && connect(probe, (struct sockaddr *)&address, sizeof(address)) == 0) {
		close(probe);
		fprintf(stderr, "uda-compositor: %s is in use by another compositor\n", path);
		return -1;
	}
	if (probe >= 0)
		close(probe);
	unlink(path);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&address, sizeof(address)) != 0 || listen(fd, 4) != 0) {
		fprintf(stderr, "uda-compositor: cannot listen on %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void teardown(struct compositor *c)
{
	if (c->vk) {
		vkDeviceWaitIdle(c->vk);
		destroy_output(c);
		vkDestroyFence(c->vk, c->fence, NULL);
		vkDestroyCommandPool(c->vk, c->pool, NULL);
		vkDestroyDevice(c->vk, NULL);
	}
	if (c->instance)
		vkDestroyInstance(c->instance, NULL);
	uda_context_destroy(c->ctx);
	if (c->listen_fd >= 0) {
		close(c->listen_fd);
		unlink(c->options.socket_path);
	}
}

int main(int argc, char **argv)
{
	struct compositor c = {.listen_fd = -1};
	if (!parse_options(argc, argv, &c.options)) {
		usage(stderr);
		return 2;
	}
	mkdir(c.options.output, 0755);
	if (uda_context_create(NULL, &c.ctx) != UDA_SUCCESS) {
		fprintf(stderr, "uda-compositor: cannot create a uda context\n");
		return 1;
	}
	if (!vulkan_setup(&c)) {
		teardown(&c);
		return 1;
	}
	c.listen_fd = listen_on(c.options.socket_path);
	if (c.listen_fd < 0) {
		teardown(&c);
		return 1;
	}
	struct sigaction action = {.sa_handler = on_signal};
	sigaction(SIGINT, &action, NULL);
	sigaction(SIGTERM, &action, NULL);
	VkPhysicalDeviceProperties properties;
	vkGetPhysicalDeviceProperties(c.physical, &properties);
	printf("uda-compositor: %s, listening on %s\n", properties.deviceName, c.options.socket_path);
	fflush(stdout);
	const int descriptors_before = open_descriptors();
	for (unsigned served = 0; !stopping && (c.options.clients == 0 || served < c.options.clients); served++) {
		int client = accept4(c.listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (client < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "uda-compositor: accept: %s\n", strerror(errno));
			break;
		}
		serve(&c, client);
	}
	/* Every client's descriptors went with it, whatever it did. */
	printf("uda-compositor: %d descriptors open after the clients, %d before\n", open_descriptors(),
	       descriptors_before);
	teardown(&c);
	return 0;
}
