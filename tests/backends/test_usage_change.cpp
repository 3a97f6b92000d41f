// Usage changes on real drivers: memory allocated for Vulkan alone is
// handed to GL after the operation uda_allocation_transition names, and a
// usage the image was not made for is met by reallocation, pixels kept.
// Every pixel is compared, under the validation layer.
#include <drm_fourcc.h>

#include "gpu_fixture.hpp"

using namespace uda_test;

namespace
{

constexpr uint32_t kWidth = 320, kHeight = 200;

class UsageChange : public GpuTest
{
protected:
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, kWidth, kHeight, DRM_FORMAT_ABGR8888, 0};
	const uda_usage_atom render_atoms[3] = {atom(UDA_USAGE_RENDER_TARGET), atom(UDA_USAGE_TRANSFER_SRC),
	                                        atom(UDA_USAGE_TRANSFER_DST)};
	const uda_usage render = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 3, render_atoms};
	const uda_usage_atom storage_atoms[3] = {atom(UDA_USAGE_STORAGE), atom(UDA_USAGE_TRANSFER_SRC),
	                                         atom(UDA_USAGE_TRANSFER_DST)};
	const uda_usage storage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 3, storage_atoms};
	const uda_usage_atom sampled_atom = atom(UDA_USAGE_SAMPLED);
	const uda_usage sampled = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &sampled_atom};

	AllocationPtr allocate_for_vulkan()
	{
		const uda_device_usage devices[] = {{vulkan, &render}};
		const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 1, devices};
		uda_allocation *allocation = nullptr;
		EXPECT_EQ(uda_negotiate_allocate(ctx.get(), &info, &allocation, nullptr, nullptr), UDA_SUCCESS)
			<< uda_context_get_error(ctx.get());
		return AllocationPtr(allocation);
	}

	static uda_vulkan_native vulkan_native(uda_allocation *allocation)
	{
		return vulkan_native_of(allocation);
	}

	uda_transition transition(uda_allocation *allocation, std::vector<uda_device_usage> from,
	                          std::vector<uda_device_usage> to, uda_vulkan_transition *barriers)
	{
		const uda_transition_info info = {UDA_STRUCTURE_TYPE_TRANSITION_INFO, nullptr,
		                                  static_cast<uint32_t>(from.size()), from.data(),
		                                  static_cast<uint32_t>(to.size()), to.data()};
		uda_transition out = {};
		out.type = UDA_STRUCTURE_TYPE_TRANSITION;
		*barriers = {};
		barriers->type = UDA_STRUCTURE_TYPE_VULKAN_TRANSITION;
		out.next = barriers;
		EXPECT_EQ(uda_allocation_transition(allocation, &info, &out), UDA_SUCCESS)
			<< uda_context_get_error(ctx.get());
		return out;
	}

	// Records uda's barrier the way an application does: with the layout
	// its own work left the image in and the writes to make available.
	static void record(const uda_vulkan_native &native, VkImageMemoryBarrier barrier, VkImageLayout current,
	                   VkAccessFlags writes)
	{
		VulkanCommands commands(native);
		barrier.oldLayout = current;
		barrier.srcAccessMask = writes;
		vkCmdPipelineBarrier(commands.cmd(), VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
		                     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, nullptr, 0, nullptr, 1, &barrier);
		commands.submit_and_wait();
	}

	static size_t wrong_pixels(const std::vector<uint32_t> &pixels)
	{
		size_t wrong = 0;
		for (uint32_t y = 0; y < kHeight; y++)
			for (uint32_t x = 0; x < kWidth; x++)
				wrong += pixels[y * kWidth + x] != pattern(x, y);
		return wrong;
	}
};

TEST_F(UsageChange, VulkanMemoryIsReleasedToGlAsTheTransitionSays)
{
	AllocationPtr allocation = allocate_for_vulkan();
	ASSERT_TRUE(allocation);
	// Vulkan alone chose its own image parameters, a LOCAL capability.
	const uda_capability_set_list *set = nullptr;
	ASSERT_EQ(uda_allocation_get_capability_set(allocation.get(), &set), UDA_SUCCESS);
	uda_device_info info = {UDA_STRUCTURE_TYPE_DEVICE_INFO};
	ASSERT_EQ(uda_device_get_info(vulkan, &info), UDA_SUCCESS);
	uda_capability params;
	ASSERT_TRUE(uda_backend_find_capability(set, 0, UDA_VENDOR_API_BACKEND, UDA_CAPABILITY_VULKAN_IMAGE_PARAMS,
	                                        info.device_uuid, &params));

	const uda_vulkan_native native = vulkan_native(allocation.get());
	vulkan_upload_pattern(native, native.image, kWidth, kHeight, /*release=*/false);

	uda_vulkan_transition barriers;
	uda_transition t = transition(allocation.get(), {{vulkan, &render}}, {{vulkan, &render}, {gl, &sampled}},
	                              &barriers);
	ASSERT_EQ(t.kind, UDA_TRANSITION_DEVICE_OPS) << t.reason;
	ASSERT_EQ(t.op_count, 1u);
	EXPECT_EQ(t.ops[0].kind, UDA_TRANSITION_OP_RELEASE);
	EXPECT_EQ(t.ops[0].device, vulkan);
	EXPECT_EQ(t.ops[0].capability_vendor, UDA_VENDOR_API_BACKEND);
	EXPECT_EQ(t.ops[0].capability_name, UDA_CAPABILITY_VULKAN_IMAGE_PARAMS);
	ASSERT_EQ(barriers.barrier_count, 1u);
	const VkImageMemoryBarrier &release = barriers.barriers[0];
	EXPECT_EQ(release.image, native.image);
	EXPECT_EQ(release.srcQueueFamilyIndex, native.queue_family_index);
	EXPECT_EQ(release.dstQueueFamilyIndex, VK_QUEUE_FAMILY_EXTERNAL);
	EXPECT_EQ(release.newLayout, VK_IMAGE_LAYOUT_GENERAL);
	record(native, release, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT);

	AllocationPtr in_gl = import_through_fd(ctx.get(), gl, allocation.get(), UDA_HANDLE_TYPE_OPAQUE_FD);
	ASSERT_TRUE(in_gl);
	EXPECT_EQ(gl_count_wrong_pixels(gl_native_of(in_gl.get()), kWidth, kHeight), 0u);

	// GL done, Vulkan alone again: ownership comes back.
	t = transition(allocation.get(), {{vulkan, &render}, {gl, &sampled}}, {{vulkan, &render}}, &barriers);
	ASSERT_EQ(t.kind, UDA_TRANSITION_DEVICE_OPS);
	ASSERT_EQ(t.op_count, 1u);
	EXPECT_EQ(t.ops[0].kind, UDA_TRANSITION_OP_ACQUIRE);
	ASSERT_EQ(barriers.barrier_count, 1u);
	EXPECT_EQ(barriers.barriers[0].srcQueueFamilyIndex, VK_QUEUE_FAMILY_EXTERNAL);
	EXPECT_EQ(barriers.barriers[0].dstQueueFamilyIndex, native.queue_family_index);
	record(native, barriers.barriers[0], VK_IMAGE_LAYOUT_GENERAL, 0);

	// Steady state: nothing at all.
	t = transition(allocation.get(), {{vulkan, &render}}, {{vulkan, &render}}, &barriers);
	EXPECT_EQ(t.kind, UDA_TRANSITION_NONE);
	EXPECT_EQ(barriers.barrier_count, 0u);
}

TEST_F(UsageChange, AUsageTheImageLacksIsAReallocationThatKeepsThePixels)
{
	AllocationPtr allocation = allocate_for_vulkan();
	ASSERT_TRUE(allocation);
	const uda_vulkan_native native = vulkan_native(allocation.get());
	ASSERT_FALSE(native.usage & VK_IMAGE_USAGE_STORAGE_BIT);
	vulkan_upload_pattern(native, native.image, kWidth, kHeight, /*release=*/false);

	uda_vulkan_transition barriers;
	const uda_transition t = transition(allocation.get(), {{vulkan, &render}}, {{vulkan, &storage}}, &barriers);
	ASSERT_EQ(t.kind, UDA_TRANSITION_REALLOCATE);
	EXPECT_NE(std::string(t.reason).find("usage"), std::string::npos) << t.reason;
	// The contents are released for the copy.
	ASSERT_EQ(t.op_count, 1u);
	EXPECT_EQ(t.ops[0].kind, UDA_TRANSITION_OP_RELEASE);
	ASSERT_EQ(barriers.barrier_count, 1u);
	record(native, barriers.barriers[0], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT);

	const uda_device_usage next[] = {{vulkan, &storage}};
	const uda_reallocate_info info = {UDA_STRUCTURE_TYPE_REALLOCATE_INFO, nullptr, 1, next,
	                                  UDA_REALLOCATE_COPY_CONTENTS};
	uda_allocation *raw = nullptr;
	ASSERT_EQ(uda_allocation_reallocate(allocation.get(), &info, &raw), UDA_SUCCESS)
		<< uda_context_get_error(ctx.get());
	AllocationPtr fresh(raw);
	const uda_vulkan_native now = vulkan_native(fresh.get());
	EXPECT_TRUE(now.usage & VK_IMAGE_USAGE_STORAGE_BIT);
	EXPECT_NE(now.image, native.image);
	EXPECT_EQ(wrong_pixels(vulkan_read_pixels(now, now.image, kWidth, kHeight)), 0u);
	// The old image still holds them too, released as before.
	EXPECT_EQ(wrong_pixels(vulkan_read_pixels(native, native.image, kWidth, kHeight)), 0u);
}

TEST_F(UsageChange, ReallocationForGlCopiesOnVulkanAndGlReadsTheCopy)
{
	// Memory negotiated with GL in mind from the start is what a new
	// consumer that needs another layout gets: here, any fresh set of
	// Vulkan and GL, filled by Vulkan from the old image.
	AllocationPtr allocation = allocate_for_vulkan();
	ASSERT_TRUE(allocation);
	const uda_vulkan_native native = vulkan_native(allocation.get());
	vulkan_upload_pattern(native, native.image, kWidth, kHeight);

	const uda_device_usage next[] = {{vulkan, &render}, {gl, &sampled}};
	const uda_reallocate_info info = {UDA_STRUCTURE_TYPE_REALLOCATE_INFO, nullptr, 2, next,
	                                  UDA_REALLOCATE_COPY_CONTENTS};
	uda_allocation *raw = nullptr;
	ASSERT_EQ(uda_allocation_reallocate(allocation.get(), &info, &raw), UDA_SUCCESS)
		<< uda_context_get_error(ctx.get());
	AllocationPtr fresh(raw);
	AllocationPtr in_gl = import_through_fd(ctx.get(), gl, fresh.get(), UDA_HANDLE_TYPE_OPAQUE_FD);
	ASSERT_TRUE(in_gl);
	EXPECT_EQ(gl_count_wrong_pixels(gl_native_of(in_gl.get()), kWidth, kHeight), 0u);
}

} // namespace
