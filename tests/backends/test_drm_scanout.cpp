// The DRM backend's capability derivation on recorded displays: each
// fixture (drm-fixtures/*.txt) is written out as the IN_FORMATS blobs the
// kernel would hand over, parsed back by the backend's parser, and turned
// into scanout sets, which then negotiate with a GPU.
#include <cstring>
#include <drm_fourcc.h>
#include <drm_mode.h>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include <xf86drmMode.h>

extern "C" {
#include "drm_in_formats.h"
#include "drm_scanout.h"
}
#include "set_spec.hpp"
#include "test_device.h"

using namespace uda_test;

namespace
{

const uint64_t kAmd64kS = AMD_FMT_MOD | AMD_FMT_MOD_SET(TILE_VERSION, AMD_FMT_MOD_TILE_VER_GFX9) |
                          AMD_FMT_MOD_SET(TILE, AMD_FMT_MOD_TILE_GFX9_64K_S);
const uint64_t kAmd64kD = AMD_FMT_MOD | AMD_FMT_MOD_SET(TILE_VERSION, AMD_FMT_MOD_TILE_VER_GFX9) |
                          AMD_FMT_MOD_SET(TILE, AMD_FMT_MOD_TILE_GFX9_64K_D);
const uint64_t kAmd64kSX = AMD_FMT_MOD | AMD_FMT_MOD_SET(TILE_VERSION, AMD_FMT_MOD_TILE_VER_GFX9) |
                           AMD_FMT_MOD_SET(TILE, AMD_FMT_MOD_TILE_GFX9_64K_S_X);

const std::map<std::string, uint64_t> kModifiers = {
    {"LINEAR", DRM_FORMAT_MOD_LINEAR},
    {"I915_X_TILED", I915_FORMAT_MOD_X_TILED},
    {"I915_Y_TILED", I915_FORMAT_MOD_Y_TILED},
    {"I915_Yf_TILED", I915_FORMAT_MOD_Yf_TILED},
    {"I915_Y_TILED_CCS", I915_FORMAT_MOD_Y_TILED_CCS},
    {"I915_Yf_TILED_CCS", I915_FORMAT_MOD_Yf_TILED_CCS},
    {"AMD_GFX9_64K_S", kAmd64kS},
    {"AMD_GFX9_64K_D", kAmd64kD},
    {"AMD_GFX9_64K_S_X", kAmd64kSX},
};

uint32_t fourcc(const std::string &code)
{
	std::string padded = code + "    ";
	return fourcc_code(padded[0], padded[1], padded[2], padded[3]);
}

struct FixturePlane {
	uint32_t type = DRM_PLANE_TYPE_PRIMARY;
	std::vector<uint32_t> formats;
	std::vector<std::pair<uint64_t, std::vector<uint32_t>>> modifiers; // modifier, its formats
};

struct Fixture {
	uint32_t max_width = 0, max_height = 0, cursor_width = 0, cursor_height = 0, pitch_alignment = 0;
	std::vector<FixturePlane> planes;
};

Fixture load(const std::string &name)
{
	std::ifstream in(std::string(UDA_TEST_DRM_FIXTURE_DIR) + "/" + name);
	EXPECT_TRUE(in.good()) << name;
	Fixture f;
	std::string line;
	while (std::getline(in, line)) {
		std::istringstream words(line);
		std::string word;
		if (!(words >> word) || word[0] == '#')
			continue;
		if (word == "display") {
			std::string key;
			while (words >> key) {
				if (key == "max")
					words >> f.max_width >> f.max_height;
				else if (key == "cursor")
					words >> f.cursor_width >> f.cursor_height;
				else if (key == "pitch-alignment")
					words >> f.pitch_alignment;
			}
		} else if (word == "plane") {
			std::string type;
			words >> type;
			f.planes.emplace_back();
			f.planes.back().type = type == "primary"  ? DRM_PLANE_TYPE_PRIMARY
			                       : type == "cursor" ? DRM_PLANE_TYPE_CURSOR
			                                          : DRM_PLANE_TYPE_OVERLAY;
		} else if (word == "formats") {
			while (words >> word)
				f.planes.back().formats.push_back(fourcc(word));
		} else if (word == "modifier") {
			words >> word;
			EXPECT_TRUE(kModifiers.count(word)) << "unknown modifier " << word;
			std::vector<uint32_t> formats;
			std::string code;
			while (words >> code)
				formats.push_back(fourcc(code));
			f.planes.back().modifiers.emplace_back(kModifiers.at(word), formats);
		}
	}
	return f;
}

void put_u32(std::vector<uint8_t> &b, size_t at, uint32_t v)
{
	std::memcpy(b.data() + at, &v, 4);
}
void put_u64(std::vector<uint8_t> &b, size_t at, uint64_t v)
{
	std::memcpy(b.data() + at, &v, 8);
}

// The blob as the kernel lays it out (drm_plane.c, create_in_format_blob):
// header, the format list, then one entry per modifier and 64-format
// window it applies to.
std::vector<uint8_t> blob_of(const FixturePlane &plane)
{
	struct Entry {
		uint64_t mask;
		uint32_t offset;
		uint64_t modifier;
	};
	std::vector<Entry> entries;
	for (const auto &[modifier, formats] : plane.modifiers) {
		for (uint32_t window = 0; window < plane.formats.size(); window += 64) {
			uint64_t mask = 0;
			for (uint32_t format : formats) {
				for (uint32_t i = window; i < plane.formats.size() && i < window + 64; i++)
					if (plane.formats[i] == format)
						mask |= 1ull << (i - window);
			}
			if (mask)
				entries.push_back({mask, window, modifier});
		}
	}
	const size_t formats_offset = sizeof(drm_format_modifier_blob);
	const size_t modifiers_offset = (formats_offset + plane.formats.size() * 4 + 7) & ~size_t(7);
	std::vector<uint8_t> b(modifiers_offset + entries.size() * sizeof(drm_format_modifier), 0);
	put_u32(b, offsetof(drm_format_modifier_blob, version), FORMAT_BLOB_CURRENT);
	put_u32(b, offsetof(drm_format_modifier_blob, count_formats), static_cast<uint32_t>(plane.formats.size()));
	put_u32(b, offsetof(drm_format_modifier_blob, formats_offset), static_cast<uint32_t>(formats_offset));
	put_u32(b, offsetof(drm_format_modifier_blob, count_modifiers), static_cast<uint32_t>(entries.size()));
	put_u32(b, offsetof(drm_format_modifier_blob, modifiers_offset), static_cast<uint32_t>(modifiers_offset));
	for (size_t i = 0; i < plane.formats.size(); i++)
		put_u32(b, formats_offset + i * 4, plane.formats[i]);
	for (size_t i = 0; i < entries.size(); i++) {
		const size_t at = modifiers_offset + i * sizeof(drm_format_modifier);
		put_u64(b, at + offsetof(drm_format_modifier, formats), entries[i].mask);
		put_u32(b, at + offsetof(drm_format_modifier, offset), entries[i].offset);
		put_u64(b, at + offsetof(drm_format_modifier, modifier), entries[i].modifier);
	}
	return b;
}

// A display record of a fixture, its planes' blobs parsed by the backend.
class Display
{
public:
	explicit Display(const std::string &name)
	{
		fixture_ = load(name);
		planes_.resize(fixture_.planes.size());
		for (size_t i = 0; i < planes_.size(); i++) {
			std::vector<uint8_t> blob = blob_of(fixture_.planes[i]);
			planes_[i].type = fixture_.planes[i].type;
			const char *why = drm_in_formats_parse(blob.data(), blob.size(), &planes_[i].formats);
			EXPECT_EQ(why, nullptr) << name << ": " << why;
		}
		record.max_width = fixture_.max_width;
		record.max_height = fixture_.max_height;
		record.cursor_width = fixture_.cursor_width;
		record.cursor_height = fixture_.cursor_height;
		record.pitch_alignment = fixture_.pitch_alignment;
		record.plane_count = static_cast<uint32_t>(planes_.size());
		record.planes = planes_.data();
	}
	~Display()
	{
		for (auto &plane : planes_)
			drm_in_formats_finish(&plane.formats);
	}
	const Fixture &fixture() const { return fixture_; }
	drm_display_record record = {};

private:
	Fixture fixture_;
	std::vector<drm_plane_record> planes_;
};

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
