/*
 * uda-bench-transition: what a change of usage costs when the memory can
 * stay (uda_allocation_transition) against when it cannot
 * (uda_allocation_reallocate, with and without copying the pixels), for
 * 1080p and 4K ABGR8888 images of the Vulkan device.
 *
 * Rows, each the median of its rounds:
 *   steady      transition to the same usages (the per-frame case),
 *               timed over batches of STEADY_BATCH calls
 *   share       Vulkan alone -> Vulkan + GL: every device of the new
 *               usage asked for its sets, the release barrier returned
 *   refused     Vulkan render -> Vulkan storage: the image lacks the
 *               usage, REALLOCATE returned
 *   reallocate  negotiate + allocate for the new usage, old one kept
 *   + copy      the same with UDA_REALLOCATE_COPY_CONTENTS (vkCmdCopyImage
 *               on the backend's queue, waited for)
 * Ratios are against "share", the cost of the transition that avoids
 * reallocating. Timings are never asserted; --quick (run by ctest) checks
 * that each path answers as expected.
 */
#include <stdio.h>
#include <string.h>

#include "bench_timing.h"

#include <drm_fourcc.h>
#include <uda/uda_vulkan.h>

#define MAX_ROUNDS 400u
#define STEADY_BATCH 1000u

struct bench {
	uda_context *ctx;
	uda_device *vulkan, *gl;
	unsigned rounds;
};

static const uda_usage_atom render_atoms[] = {
	{UDA_VENDOR_NONE, UDA_USAGE_RENDER_TARGET, 0, NULL},
	{UDA_VENDOR_NONE, UDA_USAGE_TRANSFER_SRC, 0, NULL},
	{UDA_VENDOR_NONE, UDA_USAGE_TRANSFER_DST, 0, NULL},
};
static const uda_usage_atom storage_atoms[] = {
	{UDA_VENDOR_NONE, UDA_USAGE_STORAGE, 0, NULL},
	{UDA_VENDOR_NONE, UDA_USAGE_TRANSFER_SRC, 0, NULL},
	{UDA_VENDOR_NONE, UDA_USAGE_TRANSFER_DST, 0, NULL},
};
static const uda_usage_atom sampled_atom = {UDA_VENDOR_NONE, UDA_USAGE_SAMPLED, 0, NULL};
static const uda_usage render = {UDA_STRUCTURE_TYPE_USAGE, NULL, 3, render_atoms};
static const uda_usage storage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 3, storage_atoms};
static const uda_usage sampled = {UDA_STRUCTURE_TYPE_USAGE, NULL, 1, &sampled_atom};

static int fail(const struct bench *b, const char *what)
{
	fprintf(stderr, "uda-bench-transition: %s: %s\n", what, b->ctx ? uda_context_get_error(b->ctx) : "");
	return 1;
}

static bool find_devices(struct bench *b)
{
	uda_device *devices[64];
	uint32_t count = 64;
	if (uda_context_enumerate_devices(b->ctx, &count, devices) != UDA_SUCCESS)
		return false;
	for (uint32_t i = 0; i < count; i++) {
		uda_device_info info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
		uda_device_get_info(devices[i], &info);
		if (info.api == UDA_DEVICE_API_VULKAN && !b->vulkan)
			b->vulkan = devices[i];
		if (info.api == UDA_DEVICE_API_GL && !b->gl)
			b->gl = devices[i];
	}
	return b->vulkan && b->gl;
}

static uda_result transition(uda_allocation *allocation, const uda_device_usage *from, uint32_t from_count,
                             const uda_device_usage *to, uint32_t to_count, uda_transition *out,
                             uda_vulkan_transition *barriers)
{
	const uda_transition_info info = {UDA_STRUCTURE_TYPE_TRANSITION_INFO, NULL, from_count, from, to_count, to};
	*out = (uda_transition){.type = UDA_STRUCTURE_TYPE_TRANSITION, .next = barriers};
	if (barriers)
		*barriers = (uda_vulkan_transition){.type = UDA_STRUCTURE_TYPE_VULKAN_TRANSITION};
	return uda_allocation_transition(allocation, &info, out);
}

/* Records and waits for the release uda asked for: the image is new, so
 * its current layout is UNDEFINED. */
static bool release(const uda_vulkan_native *native, const VkImageMemoryBarrier *uda_barrier)
{
	VkImageMemoryBarrier barrier = *uda_barrier;
	barrier.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
	barrier.srcAccessMask = 0;
	VkQueue queue;
	vkGetDeviceQueue(native->device, native->queue_family_index, 0, &queue);
	const VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                                           .queueFamilyIndex = native->queue_family_index};
	VkCommandPool pool;
	if (vkCreateCommandPool(native->device, &pool_info, NULL, &pool) != VK_SUCCESS)
		return false;
	const VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                           .commandPool = pool,
	                                           .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                           .commandBufferCount = 1};
	VkCommandBuffer cmd;
	const VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	bool ok = vkAllocateCommandBuffers(native->device, &alloc, &cmd) == VK_SUCCESS &&
	          vkBeginCommandBuffer(cmd, &begin) == VK_SUCCESS;
	if (ok) {
		vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0,
		                     NULL, 0, NULL, 1, &barrier);
		const VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		                             .commandBufferCount = 1,
		                             .pCommandBuffers = &cmd};
		ok = vkEndCommandBuffer(cmd) == VK_SUCCESS && vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE) == VK_SUCCESS &&
		     vkQueueWaitIdle(queue) == VK_SUCCESS;
	}
	vkDestroyCommandPool(native->device, pool, NULL);
	return ok;
}

enum row { STEADY, SHARE, REFUSED, REALLOCATE, REALLOCATE_COPY, ROW_COUNT };
static const char *const row_names[ROW_COUNT] = {"steady", "share", "refused", "reallocate", "+ copy"};

static int measure(struct bench *b, uint32_t width, uint32_t height, uint64_t medians[ROW_COUNT])
{
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, width, height, DRM_FORMAT_ABGR8888, 0};
	const uda_device_usage alone[] = {{b->vulkan, &render}};
	const uda_device_usage shared[] = {{b->vulkan, &render}, {b->gl, &sampled}};
	const uda_device_usage as_storage[] = {{b->vulkan, &storage}};
	const uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, NULL, &assertion, 1, alone};
	uda_allocation *allocation = NULL;
	if (uda_negotiate_allocate(b->ctx, &negotiation, &allocation, NULL, NULL) != UDA_SUCCESS)
		return fail(b, "allocating");

	/* Every path once, checked, and the contents released for copies. */
	uda_transition t;
	uda_vulkan_transition barriers;
	uda_vulkan_native native = {.type = UDA_STRUCTURE_TYPE_VULKAN_NATIVE};
	if (transition(allocation, alone, 1, alone, 1, &t, NULL) != UDA_SUCCESS || t.kind != UDA_TRANSITION_NONE ||
	    transition(allocation, alone, 1, shared, 2, &t, NULL) != UDA_SUCCESS || t.kind != UDA_TRANSITION_DEVICE_OPS ||
	    transition(allocation, alone, 1, as_storage, 1, &t, &barriers) != UDA_SUCCESS ||
	    t.kind != UDA_TRANSITION_REALLOCATE || barriers.barrier_count != 1 ||
	    uda_allocation_get_native(allocation, &native) != UDA_SUCCESS || !release(&native, &barriers.barriers[0])) {
		uda_allocation_destroy(allocation);
		return fail(b, "a transition answered unexpectedly");
	}

	static uint64_t samples[ROW_COUNT][MAX_ROUNDS];
	for (unsigned round = 0; round < b->rounds; round++) {
		for (int row = 0; row < ROW_COUNT; row++) {
			uda_allocation *fresh = NULL;
			const uda_reallocate_info info = {UDA_STRUCTURE_TYPE_REALLOCATE_INFO, NULL, 1, as_storage,
			                                  row == REALLOCATE_COPY ? UDA_REALLOCATE_COPY_CONTENTS : 0};
			uda_result result = UDA_SUCCESS;
			const uint64_t start = bench_now_ns();
			switch (row) {
			case STEADY: /* too short for one clock reading: a batch */
				for (unsigned i = 0; i < STEADY_BATCH && result == UDA_SUCCESS; i++)
					result = transition(allocation, alone, 1, alone, 1, &t, NULL);
				break;
			case SHARE:
				result = transition(allocation, alone, 1, shared, 2, &t, NULL);
				break;
			case REFUSED:
				result = transition(allocation, alone, 1, as_storage, 1, &t, NULL);
				break;
			default:
				result = uda_allocation_reallocate(allocation, &info, &fresh);
				uda_allocation_destroy(fresh);
				break;
			}
			samples[row][round] = (bench_now_ns() - start) / (row == STEADY ? STEADY_BATCH : 1);
			if (result != UDA_SUCCESS) {
				uda_allocation_destroy(allocation);
				return fail(b, row_names[row]);
			}
		}
	}
	for (int row = 0; row < ROW_COUNT; row++)
		medians[row] = bench_median(samples[row], b->rounds);
	uda_allocation_destroy(allocation);
	return 0;
}

int main(int argc, char **argv)
{
	const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
	struct bench b = {.rounds = quick ? 3 : 60};
	const uda_context_create_info info = {.type = UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO};
	if (uda_context_create(&info, &b.ctx) != UDA_SUCCESS)
		return fail(&b, "creating the context");
	if (!find_devices(&b)) {
		uda_context_destroy(b.ctx);
		fprintf(stderr, "uda-bench-transition: needs a Vulkan and a GL device\n");
		return 1;
	}
	static const struct {
		const char *name;
		uint32_t width, height;
	} sizes[] = {{"1080p", 1920, 1080}, {"4K", 3840, 2160}};
	uint64_t medians[2][ROW_COUNT];
	int status = 0;
	for (int s = 0; s < 2 && !status; s++)
		status = measure(&b, sizes[s].width, sizes[s].height, medians[s]);
	uda_context_destroy(b.ctx);
	if (status)
		return status;

	printf("usage change, ABGR8888, median of %u rounds (us; x = against share)\n", b.rounds);
	printf("%-12s %20s %20s\n", "", sizes[0].name, sizes[1].name);
	for (int row = 0; row < ROW_COUNT; row++) {
		printf("%-12s", row_names[row]);
		for (int s = 0; s < 2; s++)
			printf(" %11.2f %7.2fx", medians[s][row] / 1e3, (double)medians[s][row] / (double)medians[s][SHARE]);
		printf("\n");
	}
	/* For the record: what keeping memory saves over reallocating it. */
	bench_result("uda-bench-transition", "1080p usage change kept (share) / reallocated",
	             (double)medians[0][SHARE] / (double)medians[0][REALLOCATE], "x", true, 0);
	return 0;
}
