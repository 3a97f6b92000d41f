/*
 * uda-bench-alloc: what uda costs on the allocation path, and what its
 * zero-copy hand-off saves, on this machine's real drivers.
 *
 * 1. allocate + export + import of a 1920x1080 ABGR8888 image:
 *    uda (uda_allocate on the Vulkan device with the negotiated set,
 *    uda_allocation_export, uda_allocation_serialize_metadata,
 *    uda_import on the GL device into the application's current context,
 *    both destroyed) against the
 *    same work written directly in this file (vkCreateImage, dedicated
 *    exportable vkAllocateMemory, vkGetMemoryFdKHR, glImportMemoryFdEXT,
 *    glTexStorageMem2DEXT, and the teardown) on the same VkDevice and EGL
 *    display. Target: uda / raw at most 1.1.
 *
 * 2. hand-off of one 1080p frame from Vulkan to GL, after Vulkan has
 *    produced it: uda's zero-copy path (a queue-family release barrier and
 *    the producer's wait, GL already holds the texture) against the copy
 *    path it replaces (vkCmdCopyImageToBuffer into host memory, wait,
 *    glTexSubImage2D, glFinish). Target: at least 5x faster, and no byte
 *    copied by the CPU on uda's path.
 *
 * Both contenders of a row run interleaved, round after round, and the
 * median round is reported, so drift in machine load hits both alike.
 * Timings are never asserted; --quick (run by ctest) only checks that every
 * path works and that the frame GL sees is the frame Vulkan made.
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#include <GLES2/gl2ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_timing.h"

#include <drm_fourcc.h>
#include <uda/uda_backend.h>
#include <uda/uda_gl.h>
#include <uda/uda_vulkan.h>

#define WIDTH 1920u
#define HEIGHT 1080u
#define MAX_ROUNDS 1000u
#define FRAME_BYTES ((size_t)WIDTH * HEIGHT * 4)

struct bench {
	uda_context *ctx;
	uda_device *vulkan, *gl;
	uda_capability_set_list *sets; /* negotiated, set 0 = opaque optimal */
	uda_assertion assertion;
	/* Raw path objects, borrowed from uda's devices. */
	uda_vulkan_native vk;
	uda_gl_native gl_objects;
	EGLContext bench_context; /* the benchmark's own, sharing uda's */
	PFN_vkGetMemoryFdKHR get_memory_fd;
	PFNGLCREATEMEMORYOBJECTSEXTPROC create_memory_objects;
	PFNGLDELETEMEMORYOBJECTSEXTPROC delete_memory_objects;
	PFNGLMEMORYOBJECTPARAMETERIVEXTPROC memory_object_parameter;
	PFNGLIMPORTMEMORYFDEXTPROC import_memory_fd;
	PFNGLTEXSTORAGEMEM2DEXTPROC tex_storage_mem_2d;
	VkQueue queue;
	VkCommandPool pool;
};

static int fail(const char *what, const struct bench *b)
{
	fprintf(stderr, "uda-bench-alloc: %s%s%s\n", what, b && b->ctx ? ": " : "",
	        b && b->ctx ? uda_context_get_error(b->ctx) : "");
	return 1;
}

/* ---- 1. allocate + export + import ---------------------------------- */

/* What a compositor does with a client's buffer: read the metadata, import
 * into the context it renders with (current here), no context switch, and
 * hand over the fd, which it has no further use for. */
static bool import_into_current_context(struct bench *b, int fd, const void *metadata, size_t size,
                                        uda_allocation **out)
{
	uda_allocation_metadata m;
	uda_capability_set_list *set = NULL;
	if (uda_allocation_metadata_deserialize(b->ctx, metadata, size, &m, &set) != UDA_SUCCESS) {
		close(fd);
		return false;
	}
	const uda_gl_import_info gl_info = {
		.type = UDA_STRUCTURE_TYPE_GL_IMPORT_INFO,
		.flags = UDA_GL_IMPORT_CURRENT_CONTEXT,
	};
	const uda_import_info info = {
		.type = UDA_STRUCTURE_TYPE_IMPORT_INFO,
		.next = &gl_info,
		.device = b->gl,
		.fd = fd,
		.metadata = &m,
		.set_list = set,
		.flags = UDA_IMPORT_TAKE_FD,
	};
	bool ok = uda_import(&info, out) == UDA_SUCCESS;
	uda_capability_set_list_destroy(set);
	return ok;
}

static bool uda_round(struct bench *b)
{
	const uda_allocation_create_info info = {
		.type = UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO,
		.device = b->vulkan,
		.assertion = &b->assertion,
		.set_list = b->sets,
		.set_index = 0,
	};
	uda_allocation *allocation = NULL, *imported = NULL;
	uint8_t metadata[4096];
	size_t size = 0;
	int fd = -1;
	bool ok = uda_allocate(&info, &allocation) == UDA_SUCCESS &&
	          uda_allocation_export(allocation, UDA_HANDLE_TYPE_OPAQUE_FD, &fd) == UDA_SUCCESS &&
	          uda_allocation_serialize_metadata(allocation, UDA_HANDLE_TYPE_OPAQUE_FD, metadata, sizeof(metadata),
	                                            &size) == UDA_SUCCESS;
	if (ok)
		ok = import_into_current_context(b, fd, metadata, size, &imported); /* takes fd */
	else if (fd >= 0)
		close(fd);
	uda_allocation_destroy(imported);
	uda_allocation_destroy(allocation);
	return ok;
}

static bool raw_round(struct bench *b)
{
	VkDevice device = b->vk.device;
	const VkExternalMemoryImageCreateInfo external = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
		.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
	};
	const VkImageCreateInfo image_info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.pNext = &external,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = VK_FORMAT_R8G8B8A8_UNORM,
		.extent = {WIDTH, HEIGHT, 1},
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = b->vk.usage,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	VkImage image;
	if (vkCreateImage(device, &image_info, NULL, &image) != VK_SUCCESS)
		return false;
	VkMemoryRequirements requirements;
	vkGetImageMemoryRequirements(device, image, &requirements);
	uint32_t type = (uint32_t)__builtin_ctz(requirements.memoryTypeBits);
	const VkMemoryDedicatedAllocateInfo dedicated = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
		.image = image,
	};
	const VkExportMemoryAllocateInfo export_info = {
		.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
		.pNext = &dedicated,
		.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
	};
	const VkMemoryAllocateInfo allocate_info = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = &export_info,
		.allocationSize = requirements.size,
		.memoryTypeIndex = type,
	};
	VkDeviceMemory memory;
	bool ok = vkAllocateMemory(device, &allocate_info, NULL, &memory) == VK_SUCCESS;
	int fd = -1;
	if (ok) {
		vkBindImageMemory(device, image, memory, 0);
		const VkMemoryGetFdInfoKHR fd_info = {
			.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
			.memory = memory,
			.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
		};
		ok = b->get_memory_fd(device, &fd_info, &fd) == VK_SUCCESS;
	}
	GLuint memory_object = 0, texture = 0;
	if (ok) {
		b->create_memory_objects(1, &memory_object);
		const GLint yes = GL_TRUE;
		b->memory_object_parameter(memory_object, GL_DEDICATED_MEMORY_OBJECT_EXT, &yes);
		b->import_memory_fd(memory_object, requirements.size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
		glGenTextures(1, &texture);
		glBindTexture(GL_TEXTURE_2D, texture);
		glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_TILING_EXT, GL_OPTIMAL_TILING_EXT);
		b->tex_storage_mem_2d(GL_TEXTURE_2D, 1, GL_RGBA8, WIDTH, HEIGHT, memory_object, 0);
		glBindTexture(GL_TEXTURE_2D, 0);
		ok = glGetError() == GL_NO_ERROR;
		glDeleteTextures(1, &texture);
		b->delete_memory_objects(1, &memory_object);
	}
	if (memory)
		vkFreeMemory(device, memory, NULL);
	vkDestroyImage(device, image, NULL);
	return ok;
}

/* ---- 2. frame hand-off ---------------------------------------------- */

struct frame {
	uda_allocation *allocation, *in_gl;
	uda_vulkan_native vk;
	uda_gl_native gl;
	VkCommandBuffer cmd;
	/* Copy path: host-visible staging buffer and a plain GL texture. */
	VkBuffer staging;
	VkDeviceMemory staging_memory;
	void *staging_pointer;
	GLuint copy_texture;
	GLuint fbo;
};

static void begin(VkCommandBuffer cmd)
{
	const VkCommandBufferBeginInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	                                       .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
	vkResetCommandBuffer(cmd, 0);
	vkBeginCommandBuffer(cmd, &info);
}

static void submit_and_wait(struct bench *b, VkCommandBuffer cmd)
{
	vkEndCommandBuffer(cmd);
	const VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
	                             .pCommandBuffers = &cmd};
	vkQueueSubmit(b->queue, 1, &submit, VK_NULL_HANDLE);
	vkQueueWaitIdle(b->queue);
}

static void barrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to, uint32_t src_family,
                    uint32_t dst_family)
{
	const VkImageMemoryBarrier barrier = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT,
		.oldLayout = from,
		.newLayout = to,
		.srcQueueFamilyIndex = src_family,
		.dstQueueFamilyIndex = dst_family,
		.image = image,
		.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
	};
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0,
	                     NULL, 1, &barrier);
}

/* The producer's work, outside the timed hand-off: clear to a colour. */
static void produce(struct bench *b, struct frame *f, float red)
{
	begin(f->cmd);
	barrier(f->cmd, f->vk.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
	        VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED);
	/* Channels of exact 8-bit values: 0.5 lies halfway between 127 and
	 * 128, and drivers round it either way (lavapipe up, NVIDIA down). */
	const VkClearColorValue color = {.float32 = {red, 128.0f / 255.0f, 64.0f / 255.0f, 1.0f}};
	const VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
	vkCmdClearColorImage(f->cmd, f->vk.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &color, 1, &range);
	submit_and_wait(b, f->cmd);
}

static void handoff_zero_copy(struct bench *b, struct frame *f)
{
	begin(f->cmd);
	barrier(f->cmd, f->vk.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL,
	        f->vk.queue_family_index, VK_QUEUE_FAMILY_EXTERNAL);
	submit_and_wait(b, f->cmd);
	/* GL holds the texture already: nothing to upload. */
}

static void handoff_copy(struct bench *b, struct frame *f)
{
	begin(f->cmd);
	barrier(f->cmd, f->vk.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
	        VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED);
	const VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
	                                  .imageExtent = {WIDTH, HEIGHT, 1}};
	vkCmdCopyImageToBuffer(f->cmd, f->vk.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, f->staging, 1, &region);
	submit_and_wait(b, f->cmd);
	glBindTexture(GL_TEXTURE_2D, f->copy_texture);
	glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, WIDTH, HEIGHT, GL_RGBA, GL_UNSIGNED_BYTE, f->staging_pointer);
	glFinish();
}

/* What GL sees at the centre of a texture. */
static uint32_t gl_sample(struct frame *f, GLuint texture)
{
	glBindFramebuffer(GL_FRAMEBUFFER, f->fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
	uint32_t pixel = 0;
	glReadPixels(WIDTH / 2, HEIGHT / 2, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, &pixel);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	return pixel;
}

static int frame_setup(struct bench *b, struct frame *f)
{
	const uda_allocation_create_info info = {
		.type = UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO,
		.device = b->vulkan,
		.assertion = &b->assertion,
		.set_list = b->sets,
	};
	uint8_t metadata[4096];
	size_t size = 0;
	int fd = -1;
	if (uda_allocate(&info, &f->allocation) != UDA_SUCCESS ||
	    uda_allocation_export(f->allocation, UDA_HANDLE_TYPE_OPAQUE_FD, &fd) != UDA_SUCCESS ||
	    uda_allocation_serialize_metadata(f->allocation, UDA_HANDLE_TYPE_OPAQUE_FD, metadata, sizeof(metadata),
	                                      &size) != UDA_SUCCESS ||
	    uda_import_serialized(b->gl, fd, metadata, size, &f->in_gl) != UDA_SUCCESS)
		return fail("frame allocation", b);
	close(fd);
	f->vk.type = UDA_STRUCTURE_TYPE_VULKAN_NATIVE;
	f->gl.type = UDA_STRUCTURE_TYPE_GL_NATIVE;
	uda_allocation_get_native(f->allocation, &f->vk);
	uda_allocation_get_native(f->in_gl, &f->gl);

	const VkCommandBufferAllocateInfo cmd_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                              .commandPool = b->pool,
	                                              .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                              .commandBufferCount = 1};
	vkAllocateCommandBuffers(b->vk.device, &cmd_info, &f->cmd);

	const VkBufferCreateInfo buffer_info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
	                                        .size = FRAME_BYTES,
	                                        .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
	vkCreateBuffer(b->vk.device, &buffer_info, NULL, &f->staging);
	VkMemoryRequirements requirements;
	vkGetBufferMemoryRequirements(b->vk.device, f->staging, &requirements);
	VkPhysicalDeviceMemoryProperties memory;
	vkGetPhysicalDeviceMemoryProperties(b->vk.physical_device, &memory);
	uint32_t type = 0;
	for (uint32_t i = 0; i < memory.memoryTypeCount; i++) {
		if ((requirements.memoryTypeBits & (1u << i)) &&
		    (memory.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) {
			type = i;
			break;
		}
	}
	const VkMemoryAllocateInfo allocate_info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	                                            .allocationSize = requirements.size,
	                                            .memoryTypeIndex = type};
	vkAllocateMemory(b->vk.device, &allocate_info, NULL, &f->staging_memory);
	vkBindBufferMemory(b->vk.device, f->staging, f->staging_memory, 0);
	vkMapMemory(b->vk.device, f->staging_memory, 0, VK_WHOLE_SIZE, 0, &f->staging_pointer);

	glGenTextures(1, &f->copy_texture);
	glBindTexture(GL_TEXTURE_2D, f->copy_texture);
	glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, WIDTH, HEIGHT);
	glGenFramebuffers(1, &f->fbo);
	return glGetError() == GL_NO_ERROR ? 0 : fail("GL copy texture", NULL);
}

static void frame_teardown(struct bench *b, struct frame *f)
{
	glDeleteFramebuffers(1, &f->fbo);
	glDeleteTextures(1, &f->copy_texture);
	vkDestroyBuffer(b->vk.device, f->staging, NULL);
	vkFreeMemory(b->vk.device, f->staging_memory, NULL);
	vkFreeCommandBuffers(b->vk.device, b->pool, 1, &f->cmd);
	uda_allocation_destroy(f->in_gl);
	uda_allocation_destroy(f->allocation);
}

/* ---- set-up ----------------------------------------------------------- */

static int setup(struct bench *b)
{
	uda_context_create_info info = {.type = UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO};
	if (uda_context_create(&info, &b->ctx) != UDA_SUCCESS)
		return fail("context", NULL);
	uda_device *devices[32];
	uint32_t count = 32;
	uda_context_enumerate_devices(b->ctx, &count, devices);
	for (uint32_t i = 0; i < count; i++) {
		uda_device_info di = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
		uda_device_get_info(devices[i], &di);
		if (di.api == UDA_DEVICE_API_VULKAN && !b->vulkan)
			b->vulkan = devices[i];
		if (di.api == UDA_DEVICE_API_GL && !b->gl)
			b->gl = devices[i];
	}
	if (!b->vulkan || !b->gl)
		return fail("needs a Vulkan and a GL device (lavapipe and llvmpipe here)", NULL);

	b->assertion = (uda_assertion){UDA_STRUCTURE_TYPE_ASSERTION, NULL, WIDTH, HEIGHT, DRM_FORMAT_ABGR8888, 0};
	const uda_usage_atom vk_atoms[] = {{0, UDA_USAGE_TRANSFER_DST, 0, NULL}, {0, UDA_USAGE_TRANSFER_SRC, 0, NULL}};
	const uda_usage_atom gl_atoms[] = {{0, UDA_USAGE_SAMPLED, 0, NULL}};
	const uda_usage vk_usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 2, vk_atoms};
	const uda_usage gl_usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 1, gl_atoms};
	const uda_device_usage participants[] = {{b->vulkan, &vk_usage}, {b->gl, &gl_usage}};
	const uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, NULL, &b->assertion, 2,
	                                          participants};
	if (uda_negotiate(b->ctx, &negotiation, &b->sets) != UDA_SUCCESS)
		return fail("negotiation", b);
	uda_capability layout;
	uda_capability_set_list_get_layout(b->sets, 0, &layout);
	if (layout.name != UDA_CAPABILITY_LAYOUT_OPAQUE)
		return fail("expected the opaque optimal layout first", NULL);

	/* Borrow uda's VkDevice and EGL display for the raw path. */
	struct frame probe = {0};
	const uda_allocation_create_info create = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO,
	                                           .device = b->vulkan,
	                                           .assertion = &b->assertion,
	                                           .set_list = b->sets};
	if (uda_allocate(&create, &probe.allocation) != UDA_SUCCESS)
		return fail("allocation", b);
	b->vk.type = UDA_STRUCTURE_TYPE_VULKAN_NATIVE;
	uda_allocation_get_native(probe.allocation, &b->vk);
	uda_allocation_destroy(probe.allocation);
	if (!uda_backend_set_has_u32(b->sets, 0, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_OPAQUE_FD))
		return fail("no OPAQUE_FD in the negotiated set", NULL);
	b->get_memory_fd = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(b->vk.device, "vkGetMemoryFdKHR");
	vkGetDeviceQueue(b->vk.device, b->vk.queue_family_index, 0, &b->queue);
	const VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                                           .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
	                                           .queueFamilyIndex = b->vk.queue_family_index};
	vkCreateCommandPool(b->vk.device, &pool_info, NULL, &b->pool);

	/* The GL display comes from an import; the benchmark's context shares
	 * with uda's, as an application's would. */
	struct frame gl_probe = {0};
	if (frame_setup(b, &gl_probe) != 0)
		return 1;
	b->gl_objects = gl_probe.gl;
	eglBindAPI(EGL_OPENGL_ES_API);
	const EGLint attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
	b->bench_context =
		eglCreateContext(b->gl_objects.egl_display, EGL_NO_CONFIG_KHR, b->gl_objects.egl_context, attributes);
	if (b->bench_context == EGL_NO_CONTEXT ||
	    !eglMakeCurrent(b->gl_objects.egl_display, EGL_NO_SURFACE, EGL_NO_SURFACE, b->bench_context))
		return fail("EGL context", NULL);
	/* frame_setup's GL objects went to no context; redo them in ours. */
	uda_allocation_destroy(gl_probe.in_gl);
	uda_allocation_destroy(gl_probe.allocation);
	vkDestroyBuffer(b->vk.device, gl_probe.staging, NULL);
	vkFreeMemory(b->vk.device, gl_probe.staging_memory, NULL);
	vkFreeCommandBuffers(b->vk.device, b->pool, 1, &gl_probe.cmd);
	b->create_memory_objects = (PFNGLCREATEMEMORYOBJECTSEXTPROC)eglGetProcAddress("glCreateMemoryObjectsEXT");
	b->delete_memory_objects = (PFNGLDELETEMEMORYOBJECTSEXTPROC)eglGetProcAddress("glDeleteMemoryObjectsEXT");
	b->memory_object_parameter =
		(PFNGLMEMORYOBJECTPARAMETERIVEXTPROC)eglGetProcAddress("glMemoryObjectParameterivEXT");
	b->import_memory_fd = (PFNGLIMPORTMEMORYFDEXTPROC)eglGetProcAddress("glImportMemoryFdEXT");
	b->tex_storage_mem_2d = (PFNGLTEXSTORAGEMEM2DEXTPROC)eglGetProcAddress("glTexStorageMem2DEXT");
	if (!b->get_memory_fd || !b->create_memory_objects || !b->import_memory_fd || !b->tex_storage_mem_2d)
		return fail("missing entry points", NULL);
	return 0;
}

static void teardown(struct bench *b)
{
	if (b->pool)
		vkDestroyCommandPool(b->vk.device, b->pool, NULL);
	if (b->bench_context) {
		eglMakeCurrent(b->gl_objects.egl_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
		eglDestroyContext(b->gl_objects.egl_display, b->bench_context);
	}
	uda_capability_set_list_destroy(b->sets);
	uda_context_destroy(b->ctx);
}

int main(int argc, char **argv)
{
	bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
	if (argc > 1 && !quick) {
		printf("usage: uda-bench-alloc [--quick]\n");
		return strcmp(argv[1], "--help") == 0 ? 0 : 2;
	}
	const unsigned rounds = quick ? 3 : MAX_ROUNDS;
	struct bench b = {0};
	int status = setup(&b);
	if (status != 0) {
		teardown(&b);
		return status;
	}

	/* 1 */
	uint64_t uda_ns[MAX_ROUNDS], raw_ns[MAX_ROUNDS];
	for (unsigned r = 0; r < rounds && status == 0; r++) {
		/* Alternate who goes first: the second of a pair finds the
		 * allocator's caches warm. */
		bool ok_uda, ok_raw;
		uint64_t t0 = bench_now_ns(), t1, t2;
		if (r % 2) {
			ok_uda = uda_round(&b);
			t1 = bench_now_ns();
			ok_raw = raw_round(&b);
			t2 = bench_now_ns();
			uda_ns[r] = t1 - t0;
			raw_ns[r] = t2 - t1;
		} else {
			ok_raw = raw_round(&b);
			t1 = bench_now_ns();
			ok_uda = uda_round(&b);
			t2 = bench_now_ns();
			raw_ns[r] = t1 - t0;
			uda_ns[r] = t2 - t1;
		}
		if (!ok_uda || !ok_raw)
			status = fail(ok_uda ? "raw allocation round" : "uda allocation round", ok_uda ? NULL : &b);
	}

	/* 2 */
	struct frame f = {0};
	uint64_t zero_ns[MAX_ROUNDS], copy_ns[MAX_ROUNDS];
	if (status == 0)
		status = frame_setup(&b, &f);
	for (unsigned r = 0; r < rounds && status == 0; r++) {
		const float red = (float)(r % 2);
		produce(&b, &f, red);
		uint64_t t0 = bench_now_ns();
		handoff_zero_copy(&b, &f);
		uint64_t t1 = bench_now_ns();
		const uint32_t zero_copy_pixel = gl_sample(&f, f.gl.texture);
		produce(&b, &f, red);
		uint64_t t2 = bench_now_ns();
		handoff_copy(&b, &f);
		uint64_t t3 = bench_now_ns();
		const uint32_t copied_pixel = gl_sample(&f, f.copy_texture);
		const uint32_t expected = (r % 2 ? 0xffu : 0) | 0x80u << 8 | 0x40u << 16 | 0xffu << 24;
		if (zero_copy_pixel != expected || copied_pixel != expected) {
			fprintf(stderr, "uda-bench-alloc: GL sees %08x (zero-copy) / %08x (copy), Vulkan wrote %08x\n",
			        zero_copy_pixel, copied_pixel, expected);
			status = 1;
		}
		zero_ns[r] = t1 - t0;
		copy_ns[r] = t3 - t2;
	}
	if (f.allocation)
		frame_teardown(&b, &f);

	if (status == 0) {
		const double alloc_uda = (double)bench_median(uda_ns, rounds) / 1e3;
		const double alloc_raw = (double)bench_median(raw_ns, rounds) / 1e3;
		const double zero = (double)bench_median(zero_ns, rounds) / 1e3;
		const double copy = (double)bench_median(copy_ns, rounds) / 1e3;
		printf("uda-bench-alloc: %ux%u ABGR8888 on %s, median of %u interleaved rounds%s\n\n", WIDTH, HEIGHT,
		       "lavapipe + llvmpipe", rounds, quick ? " (--quick: too few rounds to mean anything)" : "");
		printf("%-44s %12s %12s %9s %8s %s\n", "operation", "uda (us)", "baseline (us)", "ratio", "target", "");
		printf("%-44s %12.1f %12.1f %8.2fx %8s %s\n", "allocate+export+import (vs raw Vulkan/GL)", alloc_uda,
		       alloc_raw, alloc_uda / alloc_raw, "<= 1.1x", alloc_uda / alloc_raw <= 1.1 ? "PASS" : "MISS");
		printf("%-44s %12.1f %12.1f %8.1fx %8s %s\n", "Vulkan->GL frame hand-off (vs copy path)", zero, copy,
		       copy / zero, ">= 5x", copy / zero >= 5.0 ? "PASS" : "MISS");
		bench_result("uda-bench-alloc", "allocate+export+import, uda / raw Vulkan+GL", alloc_uda / alloc_raw, "x",
		             true, 1.1);
		bench_result("uda-bench-alloc", "Vulkan->GL hand-off, copy path / uda", copy / zero, "x", false, 5.0);
		printf("\nbytes copied by the CPU per frame: uda 0 (GL samples the Vulkan memory), copy path %zu "
		       "(glTexSubImage2D from the staging buffer)\n",
		       FRAME_BYTES);
	}
	teardown(&b);
	return status;
}
