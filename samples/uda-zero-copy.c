/*
 * uda-zero-copy: one buffer, two APIs, no copy.
 *
 * Negotiates a 1920x1080 ABGR8888 buffer between the first Vulkan device
 * (renders and copies in) and the GL device of the same hardware (samples),
 * lets Vulkan allocate it, writes a pattern into it with a Vulkan copy,
 * hands the opaque fd and the serialized metadata to GL, and has GL read
 * every pixel back. Exit status 0 only if every pixel matches.
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <uda/uda_gl.h>
#include <uda/uda_vulkan.h>

#define WIDTH 1920u
#define HEIGHT 1080u

static uint32_t pattern(uint32_t x, uint32_t y)
{
	return (x & 0xff) | (y & 0xff) << 8 | ((x ^ y) & 0xff) << 16 | 0xffu << 24;
}

static int fail(uda_context *ctx, const char *what)
{
	fprintf(stderr, "uda-zero-copy: %s: %s\n", what, ctx ? uda_context_get_error(ctx) : "");
	return 1;
}

/* Copies the pattern into the image from a host-visible staging buffer on
 * the backend's own device, then waits: the producer finishes before the
 * hand-off (this machine's drivers share no sync primitive). */
static bool vulkan_write(const uda_vulkan_native *vk)
{
	VkDevice device = vk->device;
	const VkBufferCreateInfo buffer_info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
	                                        .size = (VkDeviceSize)WIDTH * HEIGHT * 4,
	                                        .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT};
	VkBuffer staging;
	if (vkCreateBuffer(device, &buffer_info, NULL, &staging) != VK_SUCCESS)
		return false;
	VkMemoryRequirements requirements;
	vkGetBufferMemoryRequirements(device, staging, &requirements);
	VkPhysicalDeviceMemoryProperties properties;
	vkGetPhysicalDeviceMemoryProperties(vk->physical_device, &properties);
	uint32_t type = UINT32_MAX;
	const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	for (uint32_t i = 0; i < properties.memoryTypeCount && type == UINT32_MAX; i++) {
		if ((requirements.memoryTypeBits & (1u << i)) && (properties.memoryTypes[i].propertyFlags & host) == host)
			type = i;
	}
	const VkMemoryAllocateInfo allocate_info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	                                            .allocationSize = requirements.size,
	                                            .memoryTypeIndex = type};
	VkDeviceMemory memory = VK_NULL_HANDLE;
	void *mapped = NULL;
	bool ok = type != UINT32_MAX && vkAllocateMemory(device, &allocate_info, NULL, &memory) == VK_SUCCESS &&
	          vkBindBufferMemory(device, staging, memory, 0) == VK_SUCCESS &&
	          vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, &mapped) == VK_SUCCESS;
	if (ok) {
		uint32_t *pixels = mapped;
		for (uint32_t y = 0; y < HEIGHT; y++)
			for (uint32_t x = 0; x < WIDTH; x++)
				pixels[y * WIDTH + x] = pattern(x, y);
	}

	VkQueue queue;
	vkGetDeviceQueue(device, vk->queue_family_index, 0, &queue);
	const VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                                           .queueFamilyIndex = vk->queue_family_index};
	VkCommandPool pool = VK_NULL_HANDLE;
	VkCommandBuffer cmd = VK_NULL_HANDLE;
	ok = ok && vkCreateCommandPool(device, &pool_info, NULL, &pool) == VK_SUCCESS;
	const VkCommandBufferAllocateInfo cmd_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                              .commandPool = pool,
	                                              .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                              .commandBufferCount = 1};
	ok = ok && vkAllocateCommandBuffers(device, &cmd_info, &cmd) == VK_SUCCESS;
	if (ok) {
		const VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		                                        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
		vkBeginCommandBuffer(cmd, &begin);
		VkImageMemoryBarrier barrier = {
			.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
			.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
			.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
			.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
			.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.image = vk->image,
			.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
		};
		vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL,
		                     0, NULL, 1, &barrier);
		const VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
		                                  .imageExtent = {WIDTH, HEIGHT, 1}};
		vkCmdCopyBufferToImage(cmd, staging, vk->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
		/* Released to "external": GL is the next user. */
		barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
		barrier.dstAccessMask = 0;
		barrier.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
		barrier.newLayout = VK_IMAGE_LAYOUT_GENERAL;
		barrier.srcQueueFamilyIndex = vk->queue_family_index;
		barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
		vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, NULL,
		                     0, NULL, 1, &barrier);
		vkEndCommandBuffer(cmd);
		const VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
		                             .pCommandBuffers = &cmd};
		ok = vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE) == VK_SUCCESS && vkQueueWaitIdle(queue) == VK_SUCCESS;
	}
	if (pool)
		vkDestroyCommandPool(device, pool, NULL);
	vkDestroyBuffer(device, staging, NULL);
	if (memory)
		vkFreeMemory(device, memory, NULL);
	return ok;
}

/* Reads the texture back through a framebuffer in a context of our own
 * that shares the gl backend's. Returns the number of wrong pixels. */
static long gl_count_wrong_pixels(const uda_gl_native *gl)
{
	EGLDisplay display = gl->egl_display;
	eglBindAPI(EGL_OPENGL_ES_API);
	const EGLint attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
	EGLContext context = eglCreateContext(display, EGL_NO_CONFIG_KHR, gl->egl_context, attributes);
	if (context == EGL_NO_CONTEXT || !eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context))
		return -1;
	GLuint fbo;
	glGenFramebuffers(1, &fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, gl->texture, 0);
	uint32_t *pixels = malloc((size_t)WIDTH * HEIGHT * 4);
	long wrong = -1;
	if (pixels && glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE) {
		glReadPixels(0, 0, WIDTH, HEIGHT, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
		wrong = glGetError() == GL_NO_ERROR ? 0 : -1;
		for (uint32_t y = 0; y < HEIGHT && wrong >= 0; y++)
			for (uint32_t x = 0; x < WIDTH; x++)
				wrong += pixels[y * WIDTH + x] != pattern(x, y);
	}
	free(pixels);
	glDeleteFramebuffers(1, &fbo);
	eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	eglDestroyContext(display, context);
	return wrong;
}

/* Warnings and errors go to stderr, and count against the exit status:
 * with UDA_VULKAN_VALIDATION=1 they include every validation message. */
static void log_to_stderr(uda_log_level level, const char *message, void *user_data)
{
	fprintf(stderr, "uda: %s\n", message);
	if (level == UDA_LOG_ERROR)
		++*(unsigned *)user_data;
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		bool help = strcmp(argv[1], "--help") == 0;
		fprintf(help ? stdout : stderr,
		        "usage: uda-zero-copy\n\nNegotiates a 1920x1080 buffer between the Vulkan and GL devices of one "
		        "GPU, writes a\npattern with Vulkan, imports the memory into GL and checks every pixel: no "
		        "copy.\nUDA_VULKAN_VALIDATION=1 runs the Vulkan side under the Khronos validation layer.\n");
		return help ? 0 : 2;
	}
	unsigned errors = 0;
	const uda_context_create_info context_info = {
		.type = UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO,
		.log_level = UDA_LOG_WARNING,
		.log_callback = log_to_stderr,
		.log_user_data = &errors,
	};
	uda_context *ctx;
	if (uda_context_create(&context_info, &ctx) != UDA_SUCCESS)
		return fail(NULL, "cannot create a context");
	uda_device *devices[32], *vulkan = NULL, *gl = NULL;
	uint32_t count = 32;
	uda_context_enumerate_devices(ctx, &count, devices);
	for (uint32_t i = 0; i < count && !vulkan; i++) {
		uda_device_info info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
		uda_device_get_info(devices[i], &info);
		if (info.api == UDA_DEVICE_API_VULKAN)
			vulkan = devices[i];
	}
	/* The GL device of the same hardware: opaque fds need equal UUIDs. */
	for (uint32_t i = 0; i < count && vulkan && !gl; i++) {
		uda_device_info info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
		uda_device_get_info(devices[i], &info);
		if (info.api == UDA_DEVICE_API_GL && uda_device_same_hardware(vulkan, devices[i]))
			gl = devices[i];
	}
	if (!vulkan || !gl) {
		uda_context_destroy(ctx);
		return fail(NULL, "needs a Vulkan device and the GL device of the same hardware");
	}

	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, WIDTH, HEIGHT, DRM_FORMAT_ABGR8888, 0};
	const uda_usage_atom vk_atoms[] = {{0, UDA_USAGE_RENDER_TARGET, 0, NULL}, {0, UDA_USAGE_TRANSFER_DST, 0, NULL}};
	const uda_usage_atom gl_atoms[] = {{0, UDA_USAGE_SAMPLED, 0, NULL}, {0, UDA_USAGE_RENDER_TARGET, 0, NULL}};
	const uda_usage vk_usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 2, vk_atoms};
	const uda_usage gl_usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 2, gl_atoms};
	const uda_device_usage participants[] = {{vulkan, &vk_usage}, {gl, &gl_usage}};
	const uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, NULL, &assertion, 2,
	                                          participants};
	uda_allocation *allocation = NULL, *in_gl = NULL;
	uda_capability_set_list *sets = NULL;
	uint32_t set_index = 0;
	int status = 1;
	if (uda_negotiate_allocate(ctx, &negotiation, &allocation, &sets, &set_index) != UDA_SUCCESS) {
		status = fail(ctx, "negotiation");
		goto out;
	}
	uda_capability layout;
	uda_capability_set_list_get_layout(sets, set_index, &layout);
	printf("negotiated set %u: %s layout, shared as OPAQUE_FD\n", set_index,
	       layout.name == UDA_CAPABILITY_LAYOUT_OPAQUE ? "driver-private (optimal tiling)" : "linear");

	uda_vulkan_native vk = {.type = UDA_STRUCTURE_TYPE_VULKAN_NATIVE};
	uda_allocation_get_native(allocation, &vk);
	if (!vk.image || !vulkan_write(&vk)) {
		status = fail(ctx, "Vulkan could not write the pattern");
		goto out;
	}
	printf("Vulkan wrote a %ux%u pattern into its allocation\n", WIDTH, HEIGHT);

	/* What would cross a process boundary: an fd and some bytes. */
	uint8_t metadata[4096];
	size_t metadata_size = 0;
	int fd = -1;
	if (uda_allocation_export(allocation, UDA_HANDLE_TYPE_OPAQUE_FD, &fd) != UDA_SUCCESS ||
	    uda_allocation_serialize_metadata(allocation, UDA_HANDLE_TYPE_OPAQUE_FD, metadata, sizeof(metadata),
	                                      &metadata_size) != UDA_SUCCESS) {
		status = fail(ctx, "export");
		goto out;
	}
	uda_result imported = uda_import_serialized(gl, fd, metadata, metadata_size, &in_gl);
	close(fd);
	if (imported != UDA_SUCCESS) {
		status = fail(ctx, "GL import");
		goto out;
	}
	printf("GL imported fd + %zu bytes of metadata\n", metadata_size);
	uda_gl_native gl_objects = {.type = UDA_STRUCTURE_TYPE_GL_NATIVE};
	uda_allocation_get_native(in_gl, &gl_objects);
	long wrong = gl_count_wrong_pixels(&gl_objects);
	if (wrong != 0) {
		fprintf(stderr, "uda-zero-copy: GL read %ld wrong pixels\n", wrong);
		goto out;
	}
	printf("zero-copy ok: GL read all %u pixels Vulkan wrote; the CPU copied 0 bytes between them\n",
	       WIDTH * HEIGHT);
	status = 0;
out:
	uda_allocation_destroy(in_gl);
	uda_allocation_destroy(allocation);
	uda_capability_set_list_destroy(sets);
	uda_context_destroy(ctx);
	if (errors) {
		fprintf(stderr, "uda-zero-copy: %u errors logged\n", errors);
		return 1;
	}
	return status;
}
