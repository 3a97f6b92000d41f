// Serialization: round trips, every truncation, and corrupted blobs.
#include <drm_fourcc.h>

#include <random>

#include "set_spec.hpp"

using namespace uda_test;

namespace
{

class Serialize : public ::testing::Test
{
      protected:
	ContextPtr ctx = make_context();

	ListPtr sample_list()
	{
		return make_list(
		    ctx.get(),
		    {{{layout(fourcc_mod_code(NVIDIA, 0x10)), common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF),
		       vendor_cap(0x10de, 4, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, UDA_CAPABILITY_FLAG_REQUIRED),
		       vendor_cap(0x10de, 5, {0xcc}, UDA_CAPABILITY_FLAG_LOCAL, 0x42)},
		      {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 256}, {UDA_CONSTRAINT_MAX_PITCH, 1 << 20}}},
		     {{layout(DRM_FORMAT_MOD_LINEAR), common(UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE)},
		      {{UDA_CONSTRAINT_ADDRESS_ALIGNMENT, 4096}, {UDA_CONSTRAINT_MIN_PITCH, 64}}}});
	}

	std::vector<uint8_t> serialize(const uda_capability_set_list *list)
	{
		size_t size = 0;
		EXPECT_EQ(uda_capability_set_list_serialize(list, nullptr, 0, &size), UDA_SUCCESS);
		std::vector<uint8_t> blob(size);
		EXPECT_EQ(uda_capability_set_list_serialize(list, blob.data(), blob.size(), &size), UDA_SUCCESS);
		EXPECT_EQ(size, blob.size());
		return blob;
	}

	uda_result deserialize(const std::vector<uint8_t> &blob, ListPtr *out = nullptr)
	{
		uda_capability_set_list *list = nullptr;
		uda_result r = uda_capability_set_list_deserialize(ctx.get(), blob.data(), blob.size(), &list);
		if (r == UDA_SUCCESS) {
			EXPECT_NE(list, nullptr);
			if (out)
				out->reset(list);
			else
				uda_capability_set_list_destroy(list);
		} else {
			EXPECT_EQ(list, nullptr);
			EXPECT_STRNE(uda_context_get_error(ctx.get()), "");
		}
		return r;
	}

	uda_allocation_metadata sample_metadata()
	{
		uda_allocation_metadata m = {};
		m.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA;
		m.width = 1920;
		m.height = 1080;
		m.format = DRM_FORMAT_NV12;
		m.handle_type = UDA_HANDLE_TYPE_DMA_BUF;
		m.plane_count = 2;
		m.planes[0] = {0, 2048};
		m.planes[1] = {2048 * 1080, 2048};
		m.size = 2048 * 1080 * 3 / 2;
		m.device_uuid[0] = 0xde;
		m.driver_uuid[0] = 0xd7;
		return m;
	}

	ListPtr linear_set()
	{
		return make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR), common(UDA_CAPABILITY_HANDLE, 1)},
		                              {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 256}}}});
	}

	std::vector<uint8_t> serialize_metadata(const uda_allocation_metadata &m, const uda_capability_set_list *set)
	{
		size_t size = 0;
		EXPECT_EQ(uda_allocation_metadata_serialize(ctx.get(), &m, set, 0, nullptr, 0, &size), UDA_SUCCESS)
		    << uda_context_get_error(ctx.get());
		std::vector<uint8_t> blob(size);
		EXPECT_EQ(uda_allocation_metadata_serialize(ctx.get(), &m, set, 0, blob.data(), blob.size(), &size),
		          UDA_SUCCESS);
		return blob;
	}

	uda_result deserialize_metadata(const std::vector<uint8_t> &blob, uda_allocation_metadata *m = nullptr,
	                                ListPtr *set = nullptr)
	{
		uda_allocation_metadata local;
		uda_capability_set_list *list = nullptr;
		uda_result r =
		    uda_allocation_metadata_deserialize(ctx.get(), blob.data(), blob.size(), m ? m : &local, &list);
		if (r == UDA_SUCCESS) {
			if (set)
				set->reset(list);
			else
				uda_capability_set_list_destroy(list);
		} else {
			EXPECT_EQ(list, nullptr);
		}
		return r;
	}
};

TEST_F(Serialize, ListRoundTrips)
{
	auto list = sample_list();
	std::vector<uint8_t> blob = serialize(list.get());
	ListPtr back;
	ASSERT_EQ(deserialize(blob, &back), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	EXPECT_EQ(read_list(back.get()), read_list(list.get()));
	for (uint32_t i = 0; i < count_of(list.get()); i++) {
		bool equal = false;
		EXPECT_EQ(uda_capability_set_list_sets_equal(list.get(), i, back.get(), i, &equal), UDA_SUCCESS);
		EXPECT_TRUE(equal);
	}
	// Serializing again gives the same bytes.
	EXPECT_EQ(serialize(back.get()), blob);
}

TEST_F(Serialize, EmptyListRoundTrips)
{
	auto list = make_list(ctx.get(), {});
	ListPtr back;
	ASSERT_EQ(deserialize(serialize(list.get()), &back), UDA_SUCCESS);
	EXPECT_EQ(count_of(back.get()), 0u);
}

TEST_F(Serialize, FormatIsLittleEndianWithHeader)
{
	std::vector<uint8_t> blob = serialize(sample_list().get());
	ASSERT_GE(blob.size(), 16u);
	EXPECT_EQ(std::string(blob.begin(), blob.begin() + 4), "UDAL");
	EXPECT_EQ(blob[4] | blob[5] << 8, 1);                                                  // version
	EXPECT_EQ(blob[8] | blob[9] << 8 | blob[10] << 16 | blob[11] << 24, (int)blob.size()); // total size
	EXPECT_EQ(blob[12], 2);                                                                // set count
}

TEST_F(Serialize, TooSmallBufferReportsNeededSize)
{
	auto list = sample_list();
	size_t needed = 0;
	ASSERT_EQ(uda_capability_set_list_serialize(list.get(), nullptr, 0, &needed), UDA_SUCCESS);
	std::vector<uint8_t> small(needed - 1);
	size_t size = 0;
	EXPECT_EQ(uda_capability_set_list_serialize(list.get(), small.data(), small.size(), &size),
	          UDA_ERROR_BUFFER_TOO_SMALL);
	EXPECT_EQ(size, needed);
}

TEST_F(Serialize, EveryTruncationIsRejected)
{
	std::vector<uint8_t> blob = serialize(sample_list().get());
	for (size_t n = 0; n < blob.size(); n++) {
		std::vector<uint8_t> cut(blob.begin(), blob.begin() + n);
		EXPECT_EQ(deserialize(cut), UDA_ERROR_INVALID_DATA) << "length " << n;
	}
	// Also with the size field patched to claim the truncated length.
	for (size_t n = 16; n < blob.size(); n++) {
		std::vector<uint8_t> cut(blob.begin(), blob.begin() + n);
		for (int i = 0; i < 4; i++)
			cut[8 + i] = static_cast<uint8_t>(n >> (8 * i));
		EXPECT_EQ(deserialize(cut), UDA_ERROR_INVALID_DATA) << "length " << n;
	}
}

TEST_F(Serialize, CorruptedBlobsAreRejected)
{
	const std::vector<uint8_t> good = serialize(sample_list().get());
	auto patched = [&](size_t offset, std::vector<uint8_t> bytes) {
		std::vector<uint8_t> b = good;
		std::copy(bytes.begin(), bytes.end(), b.begin() + offset);
		return b;
	};
	EXPECT_EQ(deserialize(patched(0, {'X'})), UDA_ERROR_INVALID_DATA);                     // magic
	EXPECT_EQ(deserialize(patched(4, {2, 0})), UDA_ERROR_INVALID_DATA);                    // version
	EXPECT_EQ(deserialize(patched(6, {1, 0})), UDA_ERROR_INVALID_DATA);                    // reserved
	EXPECT_EQ(deserialize(patched(8, {0xff, 0xff, 0xff, 0x7f})), UDA_ERROR_INVALID_DATA);  // size too big
	EXPECT_EQ(deserialize(patched(8, {4, 0, 0, 0})), UDA_ERROR_INVALID_DATA);              // size too small
	EXPECT_EQ(deserialize(patched(12, {0xff, 0xff, 0xff, 0xff})), UDA_ERROR_INVALID_DATA); // set count
	EXPECT_EQ(deserialize(patched(12, {3, 0, 0, 0})), UDA_ERROR_INVALID_DATA);             // one set more
	EXPECT_EQ(deserialize(patched(12, {1, 0, 0, 0})), UDA_ERROR_INVALID_DATA);             // trailing set
	EXPECT_EQ(deserialize(patched(16, {0xff, 0xff})), UDA_ERROR_INVALID_DATA);             // constraint count
	EXPECT_EQ(deserialize(patched(18, {0xff, 0xff})), UDA_ERROR_INVALID_DATA);             // capability count
	EXPECT_EQ(deserialize(patched(20, {99, 0})), UDA_ERROR_INVALID_DATA);                  // unknown constraint
	EXPECT_EQ(deserialize(patched(22, {1, 0})), UDA_ERROR_INVALID_DATA);                   // constraint reserved
	EXPECT_EQ(deserialize(patched(24, {0, 0, 0, 0, 0, 0, 0, 0})), UDA_ERROR_INVALID_DATA); // alignment 0

	// Trailing garbage after a valid list, with and without a matching size.
	std::vector<uint8_t> longer = good;
	longer.push_back(0);
	EXPECT_EQ(deserialize(longer), UDA_ERROR_INVALID_DATA);
	for (int i = 0; i < 4; i++)
		longer[8 + i] = static_cast<uint8_t>(longer.size() >> (8 * i));
	EXPECT_EQ(deserialize(longer), UDA_ERROR_INVALID_DATA);
}

TEST_F(Serialize, InconsistentSetsAreRejected)
{
	auto blob_of_set = [&](std::vector<uint8_t> set_bytes) {
		std::vector<uint8_t> b = {'U', 'D', 'A', 'L', 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
		b.insert(b.end(), set_bytes.begin(), set_bytes.end());
		for (int i = 0; i < 4; i++)
			b[8 + i] = static_cast<uint8_t>(b.size() >> (8 * i));
		return b;
	};
	std::vector<uint8_t> linear_layout = {0, 0, 1, 0, 1, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	// A valid one-layout set first, to show the framing is right.
	std::vector<uint8_t> ok = {0, 0, 1, 0};
	ok.insert(ok.end(), linear_layout.begin(), linear_layout.end());
	EXPECT_EQ(deserialize(blob_of_set(ok)), UDA_SUCCESS) << uda_context_get_error(ctx.get());

	std::vector<uint8_t> no_layout = {0, 0, 1, 0, 0x34, 0x12, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	EXPECT_EQ(deserialize(blob_of_set(no_layout)), UDA_ERROR_INVALID_DATA);

	std::vector<uint8_t> two_layouts = {0, 0, 2, 0};
	two_layouts.insert(two_layouts.end(), linear_layout.begin(), linear_layout.end());
	std::vector<uint8_t> other = linear_layout;
	other[12] = 1;
	two_layouts.insert(two_layouts.end(), other.begin(), other.end());
	EXPECT_EQ(deserialize(blob_of_set(two_layouts)), UDA_ERROR_INVALID_DATA);

	std::vector<uint8_t> duplicate = {0, 0, 2, 0};
	duplicate.insert(duplicate.end(), linear_layout.begin(), linear_layout.end());
	duplicate.insert(duplicate.end(), linear_layout.begin(), linear_layout.end());
	EXPECT_EQ(deserialize(blob_of_set(duplicate)), UDA_ERROR_INVALID_DATA);

	std::vector<uint8_t> bad_flags = ok;
	bad_flags[8] = 0x80;
	EXPECT_EQ(deserialize(blob_of_set(bad_flags)), UDA_ERROR_INVALID_DATA);

	std::vector<uint8_t> short_layout = {0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0};
	EXPECT_EQ(deserialize(blob_of_set(short_layout)), UDA_ERROR_INVALID_DATA);

	std::vector<uint8_t> huge_payload = {0, 0, 1, 0, 0x34, 0x12, 1, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
	EXPECT_EQ(deserialize(blob_of_set(huge_payload)), UDA_ERROR_INVALID_DATA);

	// min pitch 8192 with max pitch 4096.
	std::vector<uint8_t> contradiction = {2, 0, 1, 0, 10, 0, 0, 0,    0, 0x20, 0, 0, 0, 0,
	                                      0, 0, 5, 0, 0,  0, 0, 0x10, 0, 0,    0, 0, 0, 0};
	contradiction.insert(contradiction.end(), linear_layout.begin(), linear_layout.end());
	EXPECT_EQ(deserialize(blob_of_set(contradiction)), UDA_ERROR_INVALID_DATA);

	std::vector<uint8_t> repeated_constraint = {2, 0, 1, 0, 5, 0, 0, 0,    0, 0x10, 0, 0, 0, 0,
	                                            0, 0, 5, 0, 0, 0, 0, 0x10, 0, 0,    0, 0, 0, 0};
	repeated_constraint.insert(repeated_constraint.end(), linear_layout.begin(), linear_layout.end());
	EXPECT_EQ(deserialize(blob_of_set(repeated_constraint)), UDA_ERROR_INVALID_DATA);
}

// A list blob made of the given serialized sets, in order.
std::vector<uint8_t> blob_of_sets(const std::vector<std::vector<uint8_t>> &sets)
{
	std::vector<uint8_t> b = {'U', 'D', 'A', 'L', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	for (const auto &set : sets)
		b.insert(b.end(), set.begin(), set.end());
	for (int i = 0; i < 4; i++) {
		b[8 + i] = static_cast<uint8_t>(b.size() >> (8 * i));
		b[12 + i] = static_cast<uint8_t>(sets.size() >> (8 * i));
	}
	return b;
}

TEST_F(Serialize, RepeatedSetsAreRejected)
{
	// The two sets of sample_list(), cut out of its serialized form.
	std::vector<uint8_t> both = serialize(sample_list().get());
	std::vector<uint8_t> one = serialize(make_list(ctx.get(), {read_set(sample_list().get(), 0)}).get());
	std::vector<uint8_t> s0(one.begin() + 16, one.end());
	std::vector<uint8_t> s1(both.begin() + 16 + static_cast<long>(s0.size()), both.end());
	ASSERT_EQ(deserialize(blob_of_sets({s0, s1})), UDA_SUCCESS) << uda_context_get_error(ctx.get());

	EXPECT_EQ(deserialize(blob_of_sets({s0, s1, s0})), UDA_ERROR_INVALID_DATA);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("set 2 repeats set 0"), std::string::npos)
	    << uda_context_get_error(ctx.get());
	EXPECT_EQ(deserialize(blob_of_sets({s1, s1})), UDA_ERROR_INVALID_DATA);

	// The shape of the attack: many copies of one small set, each of which
	// would pair with every copy on the other side of an intersection.
	std::vector<std::vector<uint8_t>> copies(UDA_MAX_SETS_PER_LIST, s0);
	EXPECT_EQ(deserialize(blob_of_sets(copies)), UDA_ERROR_INVALID_DATA);
}

TEST_F(Serialize, ListsWithRepeatedSetsAreNotWritten)
{
	// Appending does not deduplicate; serializing refuses what the reader
	// would refuse.
	auto list = sample_list();
	ASSERT_EQ(uda_capability_set_list_append_copy(list.get(), list.get(), 0), UDA_SUCCESS);
	size_t size = 0;
	EXPECT_EQ(uda_capability_set_list_serialize(list.get(), nullptr, 0, &size), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("set 2 repeats set 0"), std::string::npos)
	    << uda_context_get_error(ctx.get());
	// Intersecting removes the repeat.
	ListPtr self = intersect(list.get(), list.get());
	EXPECT_EQ(count_of(self.get()), 2u);
	EXPECT_EQ(uda_capability_set_list_serialize(self.get(), nullptr, 0, &size), UDA_SUCCESS);
}

TEST_F(Serialize, RandomByteFlipsNeverCrash)
{
	const std::vector<uint8_t> good = serialize(sample_list().get());
	std::mt19937 rng(1234);
	int accepted = 0;
	for (int i = 0; i < 20000; i++) {
		std::vector<uint8_t> b = good;
		int flips = 1 + static_cast<int>(rng() % 4);
		for (int f = 0; f < flips; f++)
			b[rng() % b.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
		uda_result r = deserialize(b);
		EXPECT_TRUE(r == UDA_SUCCESS || r == UDA_ERROR_INVALID_DATA);
		accepted += r == UDA_SUCCESS;
	}
	// Flips inside payloads are legitimately accepted; most others not.
	EXPECT_LT(accepted, 20000);
}

TEST_F(Serialize, OversizedInputIsRejectedBeforeParsing)
{
	std::vector<uint8_t> huge(UDA_MAX_SERIALIZED_SIZE + 1, 0);
	EXPECT_EQ(deserialize(huge), UDA_ERROR_INVALID_DATA);
}

TEST_F(Serialize, MetadataRoundTrips)
{
	auto set = linear_set();
	uda_allocation_metadata m = sample_metadata();
	std::vector<uint8_t> blob = serialize_metadata(m, set.get());
	uda_allocation_metadata back;
	ListPtr back_set;
	ASSERT_EQ(deserialize_metadata(blob, &back, &back_set), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	EXPECT_EQ(back.type, UDA_STRUCTURE_TYPE_ALLOCATION_METADATA);
	EXPECT_EQ(back.next, nullptr);
	EXPECT_EQ(back.width, m.width);
	EXPECT_EQ(back.height, m.height);
	EXPECT_EQ(back.format, m.format);
	EXPECT_EQ(back.handle_type, m.handle_type);
	EXPECT_EQ(back.size, m.size);
	ASSERT_EQ(back.plane_count, 2u);
	EXPECT_EQ(back.planes[1].offset, m.planes[1].offset);
	EXPECT_EQ(back.planes[1].pitch, m.planes[1].pitch);
	EXPECT_EQ(0, memcmp(back.device_uuid, m.device_uuid, UDA_UUID_SIZE));
	EXPECT_EQ(0, memcmp(back.driver_uuid, m.driver_uuid, UDA_UUID_SIZE));
	EXPECT_EQ(read_list(back_set.get()), read_list(set.get()));
}

TEST_F(Serialize, InconsistentMetadataIsRefusedOnBothSides)
{
	auto set = linear_set();
	struct Case {
		const char *what;
		void (*mutate)(uda_allocation_metadata &);
	};
	const Case cases[] = {
	    {"plane past the end", [](uda_allocation_metadata &m) { m.planes[1].offset = m.size; }},
	    {"rows past the end", [](uda_allocation_metadata &m) { m.size = m.planes[1].offset + 2048 * 539 + 1919; }},
	    {"pitch below a row", [](uda_allocation_metadata &m) { m.planes[0].pitch = 1792; }},
	    {"pitch off alignment", [](uda_allocation_metadata &m) { m.planes[0].pitch = 2000; }},
	    {"too few planes", [](uda_allocation_metadata &m) { m.plane_count = 1; }},
	    {"too many planes", [](uda_allocation_metadata &m) { m.plane_count = 5; }},
	    {"zero size", [](uda_allocation_metadata &m) { m.size = 0; }},
	    {"unknown fourcc", [](uda_allocation_metadata &m) { m.format = 0x12345678; }},
	    {"no handle", [](uda_allocation_metadata &m) { m.handle_type = UDA_HANDLE_TYPE_NONE; }},
	    {"zero width", [](uda_allocation_metadata &m) { m.width = 0; }},
	    {"offset overflow", [](uda_allocation_metadata &m) { m.planes[1].pitch = UINT64_MAX / 256 * 256; }},
	};
	const std::vector<uint8_t> good = serialize_metadata(sample_metadata(), set.get());
	for (const Case &c : cases) {
		uda_allocation_metadata m = sample_metadata();
		c.mutate(m);
		size_t size = 0;
		EXPECT_NE(uda_allocation_metadata_serialize(ctx.get(), &m, set.get(), 0, nullptr, 0, &size),
		          UDA_SUCCESS)
		    << c.what;
		// The same lie arriving from another process.
		std::vector<uint8_t> blob = good;
		uda_allocation_metadata orig = sample_metadata();
		auto put32 = [&](size_t off, uint32_t v) {
			for (int i = 0; i < 4; i++)
				blob[off + i] = static_cast<uint8_t>(v >> (8 * i));
		};
		auto put64 = [&](size_t off, uint64_t v) {
			for (int i = 0; i < 8; i++)
				blob[off + i] = static_cast<uint8_t>(v >> (8 * i));
		};
		if (m.plane_count != orig.plane_count)
			continue; // changes the framing; covered by truncation tests
		put32(12, m.width);
		put32(16, m.height);
		put32(20, m.format);
		put32(24, m.handle_type);
		put64(28, m.size);
		for (uint32_t p = 0; p < 2; p++) {
			put64(40 + 16 * p, m.planes[p].offset);
			put64(48 + 16 * p, m.planes[p].pitch);
		}
		EXPECT_EQ(deserialize_metadata(blob), UDA_ERROR_INVALID_DATA) << c.what;
	}
	// A handle type this library does not know, as raw bytes.
	std::vector<uint8_t> blob = good;
	blob[24] = 9;
	EXPECT_EQ(deserialize_metadata(blob), UDA_ERROR_INVALID_DATA);
}

TEST_F(Serialize, MetadataTruncationsAndFlipsAreRejected)
{
	auto set = linear_set();
	const std::vector<uint8_t> good = serialize_metadata(sample_metadata(), set.get());
	ASSERT_EQ(deserialize_metadata(good), UDA_SUCCESS);
	for (size_t n = 0; n < good.size(); n++)
		EXPECT_EQ(deserialize_metadata(std::vector<uint8_t>(good.begin(), good.begin() + n)),
		          UDA_ERROR_INVALID_DATA)
		    << "length " << n;
	std::mt19937 rng(99);
	for (int i = 0; i < 20000; i++) {
		std::vector<uint8_t> b = good;
		b[rng() % b.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
		uda_result r = deserialize_metadata(b);
		EXPECT_TRUE(r == UDA_SUCCESS || r == UDA_ERROR_INVALID_DATA);
	}
}

uda_color_info hdr10_color()
{
	uda_color_info c = {};
	c.type = UDA_STRUCTURE_TYPE_COLOR_INFO;
	c.primaries = UDA_COLOR_PRIMARIES_BT2020;
	c.transfer = UDA_TRANSFER_FUNCTION_PQ;
	// A DCI-P3 D65 mastering display, 1000 cd/m^2 down to 0.005.
	const uint16_t x[3] = {34000, 13250, 7500}, y[3] = {16000, 34500, 3000};
	for (int i = 0; i < 3; i++) {
		c.display_primaries_x[i] = x[i];
		c.display_primaries_y[i] = y[i];
	}
	c.white_point_x = 15635;
	c.white_point_y = 16450;
	c.max_display_mastering_luminance = 1000;
	c.min_display_mastering_luminance = 50;
	c.max_content_light_level = 800;
	c.max_frame_average_light_level = 400;
	return c;
}

// HDR static metadata travels with the allocation metadata (version 2);
// without colour information the bytes stay version 1.
TEST_F(Serialize, ColorInformationTravelsWithTheMetadata)
{
	auto set = linear_set();
	uda_allocation_metadata m = sample_metadata();
	const std::vector<uint8_t> plain = serialize_metadata(m, set.get());
	EXPECT_EQ(plain[4], 1u) << "version 1 without colour";
	uda_color_info back = {};
	EXPECT_EQ(uda_allocation_metadata_deserialize_color_info(ctx.get(), plain.data(), plain.size(), &back),
	          UDA_ERROR_NOT_FOUND);

	const uda_color_info color = hdr10_color();
	m.next = &color;
	const std::vector<uint8_t> blob = serialize_metadata(m, set.get());
	EXPECT_EQ(blob[4], 2u);
	EXPECT_EQ(blob.size(), plain.size() + 44);
	uda_allocation_metadata back_metadata;
	ListPtr back_set;
	ASSERT_EQ(deserialize_metadata(blob, &back_metadata, &back_set), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	EXPECT_EQ(back_metadata.next, nullptr);
	EXPECT_EQ(back_metadata.size, m.size);
	ASSERT_EQ(uda_allocation_metadata_deserialize_color_info(ctx.get(), blob.data(), blob.size(), &back),
	          UDA_SUCCESS);
	EXPECT_EQ(0, memcmp(&back, &color, sizeof(color)));

	// Out-of-range values are refused on both sides.
	uda_color_info bad = color;
	bad.white_point_x = 50001;
	m.next = &bad;
	size_t size = 0;
	EXPECT_EQ(uda_allocation_metadata_serialize(ctx.get(), &m, set.get(), 0, nullptr, 0, &size),
	          UDA_ERROR_INVALID_ARGUMENT);
	bad = color;
	bad.transfer = static_cast<uda_transfer_function>(9);
	EXPECT_EQ(uda_allocation_metadata_serialize(ctx.get(), &m, set.get(), 0, nullptr, 0, &size),
	          UDA_ERROR_INVALID_ARGUMENT);
	std::vector<uint8_t> corrupt = blob;
	corrupt[blob.size() - 44 + 24] = 0xff; // white point x
	corrupt[blob.size() - 44 + 25] = 0xff;
	EXPECT_EQ(deserialize_metadata(corrupt), UDA_ERROR_INVALID_DATA);
	corrupt = blob;
	corrupt[blob.size() - 44] ^= 1; // the colour block's magic
	EXPECT_EQ(deserialize_metadata(corrupt), UDA_ERROR_INVALID_DATA);
	for (size_t n = plain.size(); n < blob.size(); n++)
		EXPECT_EQ(deserialize_metadata(std::vector<uint8_t>(blob.begin(), blob.begin() + n)), UDA_ERROR_INVALID_DATA)
			<< "length " << n;
	// Any other struct chained to the metadata is refused.
	const uda_assertion stray = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 1, 1, 0, 0};
	m.next = &stray;
	EXPECT_EQ(uda_allocation_metadata_serialize(ctx.get(), &m, set.get(), 0, nullptr, 0, &size),
	          UDA_ERROR_INVALID_ARGUMENT);
}

TEST_F(Serialize, MetadataNeedsExactlyOneSet)
{
	auto set = linear_set();
	std::vector<uint8_t> blob = serialize_metadata(sample_metadata(), set.get());
	// The embedded list starts after header (12), 7 fields (28), 2 planes
	// (32) and two UUIDs (32); its set count sits 12 bytes in.
	const size_t list_offset = 12 + 28 + 32 + 32;
	ASSERT_EQ(std::string(blob.begin() + list_offset, blob.begin() + list_offset + 4), "UDAL");
	blob[list_offset + 12] = 0;
	EXPECT_EQ(deserialize_metadata(blob), UDA_ERROR_INVALID_DATA);
}

} // namespace
