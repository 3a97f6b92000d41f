// Recorded displays (tests/backends/drm-fixtures/*.txt) as the drm
// backend reads them: each fixture written out as the IN_FORMATS blobs the
// kernel would hand over and parsed back by the backend's own parser into
// a display record, for the scanout tests and the V4L2 pipelines.
#pragma once

#include <cstddef>
#include <cstring>
#include <drm_fourcc.h>
#include <drm_mode.h>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include <xf86drmMode.h>

#include <gtest/gtest.h>

extern "C" {
#include "drm_in_formats.h"
#include "drm_scanout.h"
}

namespace uda_test
{
namespace drm_fixture
{

inline const uint64_t kAmd64kS = AMD_FMT_MOD | AMD_FMT_MOD_SET(TILE_VERSION, AMD_FMT_MOD_TILE_VER_GFX9) |
                          AMD_FMT_MOD_SET(TILE, AMD_FMT_MOD_TILE_GFX9_64K_S);
inline const uint64_t kAmd64kD = AMD_FMT_MOD | AMD_FMT_MOD_SET(TILE_VERSION, AMD_FMT_MOD_TILE_VER_GFX9) |
                          AMD_FMT_MOD_SET(TILE, AMD_FMT_MOD_TILE_GFX9_64K_D);
inline const uint64_t kAmd64kSX = AMD_FMT_MOD | AMD_FMT_MOD_SET(TILE_VERSION, AMD_FMT_MOD_TILE_VER_GFX9) |
                           AMD_FMT_MOD_SET(TILE, AMD_FMT_MOD_TILE_GFX9_64K_S_X);

inline const std::map<std::string, uint64_t> kModifiers = {
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

inline uint32_t fourcc(const std::string &code)
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

inline Fixture load(const std::string &name)
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

inline void put_u32(std::vector<uint8_t> &b, size_t at, uint32_t v)
{
	std::memcpy(b.data() + at, &v, 4);
}
inline void put_u64(std::vector<uint8_t> &b, size_t at, uint64_t v)
{
	std::memcpy(b.data() + at, &v, 8);
}

// The blob as the kernel lays it out (drm_plane.c, create_in_format_blob):
// header, the format list, then one entry per modifier and 64-format
// window it applies to.
inline std::vector<uint8_t> blob_of(const FixturePlane &plane)
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

} // namespace drm_fixture
} // namespace uda_test
