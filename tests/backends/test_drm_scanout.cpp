// The DRM backend's capability derivation on recorded displays: each
// fixture (drm-fixtures/*.txt) is written out as the IN_FORMATS blobs the
// kernel would hand over, parsed back by the backend's parser, and turned
// into scanout sets, which then negotiate with a GPU.
#include <cstring>
#include <drm_fourcc.h>
#include <string>
#include <vector>

#include "drm_fixture.hpp"
#include "set_spec.hpp"
#include "test_device.h"

using namespace uda_test;
using namespace uda_test::drm_fixture;

namespace
{

uda_usage_atom scanout_atom(uda_usage_name name)
{
	return {UDA_VENDOR_NONE, static_cast<uint16_t>(name), 0, nullptr};
}

class DrmScanout : public ::testing::Test
{
protected:
	ContextPtr ctx = make_context();

	uda_result sets_for(const Display &display, uint32_t width, uint32_t height, uint32_t format,
	                    std::vector<uda_usage_name> names, ListPtr *out)
	{
		std::vector<uda_usage_atom> atoms;
		for (uda_usage_name n : names)
			atoms.push_back(scanout_atom(n));
		const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, static_cast<uint32_t>(atoms.size()), atoms.data()};
		const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, width, height, format, 0};
		uda_capability_set_list *list = nullptr;
		EXPECT_EQ(uda_capability_set_list_create(ctx.get(), &list), UDA_SUCCESS);
		out->reset(list);
		return drm_scanout_capability_sets(&display.record, ctx.get(), &assertion, &usage, list);
	}
};

TEST_F(DrmScanout, BlobsParseIntoThePairsTheFixtureLists)
{
	for (const char *name : {"intel-gen9.txt", "amd-dcn.txt", "linear-only.txt"}) {
		Display display(name);
		for (uint32_t p = 0; p < display.record.plane_count; p++) {
			std::vector<std::pair<uint32_t, uint64_t>> expected, parsed;
			for (const auto &[modifier, formats] : display.fixture().planes[p].modifiers)
				for (uint32_t f : display.fixture().planes[p].formats)
					for (uint32_t g : formats)
						if (f == g)
							expected.emplace_back(f, modifier);
			const drm_in_formats &formats = display.record.planes[p].formats;
			for (uint32_t i = 0; i < formats.pair_count; i++)
				parsed.emplace_back(formats.pairs[i].format, formats.pairs[i].modifier);
			std::sort(expected.begin(), expected.end());
			std::sort(parsed.begin(), parsed.end());
			EXPECT_EQ(parsed, expected) << name << " plane " << p;
		}
	}
}

TEST_F(DrmScanout, MalformedBlobsAreRefused)
{
	FixturePlane plane;
	for (uint32_t i = 0; i < 70; i++) // two 64-format windows
		plane.formats.push_back(fourcc("XR24") + i);
	plane.modifiers.emplace_back(DRM_FORMAT_MOD_LINEAR, plane.formats);
	const std::vector<uint8_t> good = blob_of(plane);
	drm_in_formats out;
	ASSERT_EQ(drm_in_formats_parse(good.data(), good.size(), &out), nullptr);
	EXPECT_EQ(out.pair_count, 70u);
	drm_in_formats_finish(&out);

	// Every truncation cuts something a count promises.
	for (size_t size = 0; size < good.size(); size++) {
		EXPECT_NE(drm_in_formats_parse(good.data(), size, &out), nullptr) << "size " << size;
		EXPECT_EQ(out.pairs, nullptr);
	}
	EXPECT_NE(drm_in_formats_parse(nullptr, 64, &out), nullptr);

	auto patched = [&](size_t at, uint32_t value) {
		std::vector<uint8_t> b = good;
		put_u32(b, at, value);
		return b;
	};
	const size_t modifiers_offset = (sizeof(drm_format_modifier_blob) + 70 * 4 + 7) & ~size_t(7);
	const std::vector<std::vector<uint8_t>> bad = {
	    patched(offsetof(drm_format_modifier_blob, version), 2),
	    patched(offsetof(drm_format_modifier_blob, count_formats), 0),
	    patched(offsetof(drm_format_modifier_blob, count_formats), 1000),
	    patched(offsetof(drm_format_modifier_blob, count_formats), 0xffffffffu),
	    patched(offsetof(drm_format_modifier_blob, formats_offset), 4),
	    patched(offsetof(drm_format_modifier_blob, formats_offset), 0xfffffff0u),
	    patched(offsetof(drm_format_modifier_blob, count_modifiers), 3),
	    patched(offsetof(drm_format_modifier_blob, count_modifiers), 0x40000000u),
	    patched(offsetof(drm_format_modifier_blob, modifiers_offset), 0xffffffe0u),
	    patched(offsetof(drm_format_modifier_blob, modifiers_offset), 8),
	    // The second window's entry starting past the list.
	    patched(modifiers_offset + sizeof(drm_format_modifier) + offsetof(drm_format_modifier, offset), 70),
	    // Its mask naming formats 64+6 and beyond, past 70.
	    patched(modifiers_offset + sizeof(drm_format_modifier) + offsetof(drm_format_modifier, formats), 0xff),
	};
	for (size_t i = 0; i < bad.size(); i++) {
		EXPECT_NE(drm_in_formats_parse(bad[i].data(), bad[i].size(), &out), nullptr) << "case " << i;
		EXPECT_EQ(out.pairs, nullptr);
	}
}

TEST_F(DrmScanout, TiledModifiersComeFirstAndLinearLast)
{
	Display intel("intel-gen9.txt");
	ListPtr sets;
	ASSERT_EQ(sets_for(intel, 1920, 1080, DRM_FORMAT_XRGB8888, {UDA_USAGE_SCANOUT}, &sets), UDA_SUCCESS)
	    << uda_context_get_error(ctx.get());
	EXPECT_EQ(modifiers_of(sets.get()),
	          (std::vector<uint64_t>{I915_FORMAT_MOD_X_TILED, I915_FORMAT_MOD_Y_TILED, I915_FORMAT_MOD_Yf_TILED,
	                                 I915_FORMAT_MOD_Y_TILED_CCS, I915_FORMAT_MOD_Yf_TILED_CCS,
	                                 DRM_FORMAT_MOD_LINEAR}));
	const SetSpec linear = read_set(sets.get(), 5);
	EXPECT_EQ(linear.constraints.at(UDA_CONSTRAINT_MAX_WIDTH), 8192u);
	EXPECT_EQ(linear.constraints.at(UDA_CONSTRAINT_PITCH_ALIGNMENT), 64u);
	EXPECT_EQ(linear.constraints.at(UDA_CONSTRAINT_MAX_PLANES), 1u);
	EXPECT_EQ(linear.caps[1], common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF, UDA_CAPABILITY_FLAG_REQUIRED));

	// 10-bit has no CCS; the overlay plane knows no Yf.
	ASSERT_EQ(sets_for(intel, 64, 64, DRM_FORMAT_XRGB2101010, {UDA_USAGE_SCANOUT}, &sets), UDA_SUCCESS);
	EXPECT_EQ(modifiers_of(sets.get()), (std::vector<uint64_t>{I915_FORMAT_MOD_X_TILED, I915_FORMAT_MOD_Y_TILED,
	                                                           I915_FORMAT_MOD_Yf_TILED, DRM_FORMAT_MOD_LINEAR}));
	ASSERT_EQ(sets_for(intel, 64, 64, DRM_FORMAT_XRGB8888, {UDA_USAGE_SCANOUT, UDA_USAGE_SCANOUT_OVERLAY}, &sets),
	          UDA_SUCCESS);
	EXPECT_EQ(modifiers_of(sets.get()),
	          (std::vector<uint64_t>{I915_FORMAT_MOD_X_TILED, I915_FORMAT_MOD_Y_TILED, DRM_FORMAT_MOD_LINEAR}));

	// Cursors: linear ARGB at the cursor size limit.
	ASSERT_EQ(sets_for(intel, 64, 64, DRM_FORMAT_ARGB8888, {UDA_USAGE_SCANOUT_CURSOR}, &sets), UDA_SUCCESS);
	EXPECT_EQ(modifiers_of(sets.get()), (std::vector<uint64_t>{DRM_FORMAT_MOD_LINEAR}));
	EXPECT_EQ(read_set(sets.get(), 0).constraints.at(UDA_CONSTRAINT_MAX_WIDTH), 256u);
	EXPECT_EQ(sets_for(intel, 64, 64, DRM_FORMAT_XRGB8888, {UDA_USAGE_SCANOUT_CURSOR}, &sets), UDA_ERROR_UNSUPPORTED);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("cursor"), std::string::npos);

	// A display does not render.
	EXPECT_EQ(sets_for(intel, 64, 64, DRM_FORMAT_XRGB8888, {UDA_USAGE_RENDER_TARGET}, &sets), UDA_ERROR_UNSUPPORTED);
}

// Render on a GPU, scan out on a display: the negotiation finds what both
// take, with the stricter constraints.
class DrmMultiGpu : public DrmScanout
{
protected:
	uda_usage_atom render_atom = {UDA_VENDOR_NONE, UDA_USAGE_RENDER_TARGET, 0, nullptr};
	uda_usage render = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &render_atom};
	uda_usage_atom scanout_atom_ = {UDA_VENDOR_NONE, UDA_USAGE_SCANOUT, 0, nullptr};
	uda_usage scanout = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &scanout_atom_};

	uda_result negotiate_with(const Display &display, ListPtr *out)
	{
		// A GPU that renders Y-tiled and AMD-tiled (as two drivers of
		// one test would) or linear at 64-byte strides, all DMA-BUF.
		const uint32_t dma_buf = UDA_HANDLE_TYPE_DMA_BUF;
		uda_device *gpu = nullptr;
		EXPECT_EQ(test_device_add(ctx.get(), "gpu", 1,
		                          make_list(ctx.get(), {{{layout(I915_FORMAT_MOD_Y_TILED), common(UDA_CAPABILITY_HANDLE, dma_buf)},
		                                                 {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 128}}},
		                                                {{layout(kAmd64kS), common(UDA_CAPABILITY_HANDLE, dma_buf)}},
		                                                {{layout(DRM_FORMAT_MOD_LINEAR), common(UDA_CAPABILITY_HANDLE, dma_buf)},
		                                                 {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 64}}}})
		                              .release(),
		                          &gpu, nullptr),
		          UDA_SUCCESS);
		ListPtr display_sets;
		EXPECT_EQ(sets_for(display, 1920, 1080, DRM_FORMAT_XRGB8888, {UDA_USAGE_SCANOUT}, &display_sets),
		          UDA_SUCCESS);
		uda_device *kms = nullptr;
		EXPECT_EQ(test_device_add(ctx.get(), "display", 2, display_sets.release(), &kms, nullptr), UDA_SUCCESS);
		const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 1920, 1080, DRM_FORMAT_XRGB8888, 0};
		const uda_device_usage devices[] = {{gpu, &render}, {kms, &scanout}};
		const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 2, devices};
		uda_capability_set_list *list = nullptr;
		uda_result result = uda_negotiate(ctx.get(), &info, &list);
		out->reset(list);
		return result;
	}
};

TEST_F(DrmMultiGpu, ALinearOnlyDisplayGetsLinearAtTheStricterPitch)
{
	Display display("linear-only.txt");
	ListPtr sets;
	ASSERT_EQ(negotiate_with(display, &sets), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	EXPECT_EQ(modifiers_of(sets.get()), (std::vector<uint64_t>{DRM_FORMAT_MOD_LINEAR}));
	EXPECT_EQ(read_set(sets.get(), 0).constraints.at(UDA_CONSTRAINT_PITCH_ALIGNMENT), 256u);
	EXPECT_EQ(read_set(sets.get(), 0).constraints.at(UDA_CONSTRAINT_MAX_WIDTH), 2048u);
}

TEST_F(DrmMultiGpu, ADisplaySharingATiledModifierGetsIt)
{
	Display intel("intel-gen9.txt");
	ListPtr sets;
	ASSERT_EQ(negotiate_with(intel, &sets), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	EXPECT_EQ(modifiers_of(sets.get()), (std::vector<uint64_t>{I915_FORMAT_MOD_Y_TILED, DRM_FORMAT_MOD_LINEAR}));
	EXPECT_EQ(read_set(sets.get(), 0).constraints.at(UDA_CONSTRAINT_PITCH_ALIGNMENT), 128u); // lcm(128, 64)
	EXPECT_EQ(read_set(sets.get(), 1).constraints.at(UDA_CONSTRAINT_PITCH_ALIGNMENT), 64u);
}

TEST_F(DrmMultiGpu, AnAmdDisplayGetsTheGpusAmdTileThenLinear)
{
	Display amd("amd-dcn.txt");
	ListPtr sets;
	ASSERT_EQ(negotiate_with(amd, &sets), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	EXPECT_EQ(modifiers_of(sets.get()), (std::vector<uint64_t>{kAmd64kS, DRM_FORMAT_MOD_LINEAR}));
	EXPECT_EQ(read_set(sets.get(), 1).constraints.at(UDA_CONSTRAINT_PITCH_ALIGNMENT), 256u); // lcm(64, 256)
}

} // namespace
