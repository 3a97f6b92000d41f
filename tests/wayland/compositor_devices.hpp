// Test devices standing for a compositor's hardware: a GPU on 226:128
// (compressed, tiled and linear DMA-BUFs, and a layout of its own that
// never leaves it; it imports clients' DMA-BUFs, memfds standing in), a display on 226:0 (linear and tiled) and a display
// on 226:1 that shares nothing with the GPU.
#pragma once

#include <drm_fourcc.h>
#include <gtest/gtest.h>
#include <vector>

#include "set_spec.hpp"
#include "test_device.h"

namespace uda_test
{

constexpr uint64_t GPU_CCS = I915_FORMAT_MOD_Y_TILED_CCS, GPU_TILED = I915_FORMAT_MOD_Y_TILED;

struct CompositorDevices {
	uda_device *gpu = nullptr, *display = nullptr, *stranger = nullptr;
};

inline Cap dma_buf_handle()
{
	return common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF);
}

inline void add_compositor_devices(uda_context *ctx, CompositorDevices &out)
{
	const Cap opaque{UDA_VENDOR_NONE, UDA_CAPABILITY_LAYOUT_OPAQUE, UDA_CAPABILITY_FLAG_REQUIRED,
	                 std::vector<uint8_t>(17, 0x5a)};
	const test_device_node gpu_node = {UDA_DEVICE_API_VULKAN, 226, 128, true};
	ASSERT_EQ(test_device_add_on_node(ctx, "gpu", 1,
	                                  make_list(ctx, {{{layout(GPU_CCS, 0), dma_buf_handle()}},
	                                                  {{layout(GPU_TILED, 0), dma_buf_handle()}},
	                                                  {{layout(DRM_FORMAT_MOD_LINEAR, 0), dma_buf_handle()}},
	                                                  {{opaque, common(UDA_CAPABILITY_HANDLE,
	                                                                   UDA_HANDLE_TYPE_OPAQUE_FD)}}})
	                                          .release(),
	                                  &gpu_node, &out.gpu),
	          UDA_SUCCESS);
	const test_device_node display_node = {UDA_DEVICE_API_DRM, 226, 0};
	ASSERT_EQ(test_device_add_on_node(ctx, "display", 2,
	                                  make_list(ctx, {{{layout(DRM_FORMAT_MOD_LINEAR, 0), dma_buf_handle()}},
	                                                  {{layout(GPU_TILED, 0), dma_buf_handle()}}})
	                                          .release(),
	                                  &display_node, &out.display),
	          UDA_SUCCESS);
	const test_device_node other_node = {UDA_DEVICE_API_DRM, 226, 1};
	ASSERT_EQ(test_device_add_on_node(
	                  ctx, "stranger", 3,
	                  make_list(ctx, {{{layout(fourcc_mod_code(NVIDIA, 3), 0), dma_buf_handle()}}}).release(),
	                  &other_node, &out.stranger),
	          UDA_SUCCESS);
}

} // namespace uda_test
