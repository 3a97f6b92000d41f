// Building and reading capability sets.
#include <drm_fourcc.h>
#include <set>

#include "set_spec.hpp"

using namespace uda_test;

namespace
{

class CapabilitySet : public ::testing::Test
{
      protected:
	ContextPtr ctx = make_context();
	uda_capability_set_builder *builder = nullptr;
	uda_capability_set_list *list = nullptr;

	void SetUp() override
	{
		ASSERT_EQ(uda_capability_set_builder_create(ctx.get(), &builder), UDA_SUCCESS);
		ASSERT_EQ(uda_capability_set_list_create(ctx.get(), &list), UDA_SUCCESS);
	}
	void TearDown() override
	{
		uda_capability_set_builder_destroy(builder);
		uda_capability_set_list_destroy(list);
	}
	uda_result add(const Cap &cap)
	{
		uda_capability pub = to_public(cap);
		return uda_capability_set_builder_add_capability(builder, &pub);
	}
};

TEST_F(CapabilitySet, AccessorsReadBackWhatWasBuilt)
{
	ASSERT_EQ(uda_capability_set_builder_add_layout(builder, fourcc_mod_code(ARM, 3), UDA_CAPABILITY_FLAG_REQUIRED),
	          UDA_SUCCESS);
	ASSERT_EQ(uda_capability_set_builder_add_u32(builder, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF, 0),
	          UDA_SUCCESS);
	ASSERT_EQ(add(vendor_cap(0x13b5, 1, {5, 6, 7}, UDA_CAPABILITY_FLAG_LOCAL, 9)), UDA_SUCCESS);
	ASSERT_EQ(uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_PITCH_ALIGNMENT, 64), UDA_SUCCESS);
	ASSERT_EQ(uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_PITCH_ALIGNMENT, 128), UDA_SUCCESS);
	ASSERT_EQ(uda_capability_set_list_append_set(list, builder), UDA_SUCCESS);

	EXPECT_EQ(count_of(list), 1u);
	uint32_t caps = 0;
	ASSERT_EQ(uda_capability_set_list_get_capability_count(list, 0, &caps), UDA_SUCCESS);
	EXPECT_EQ(caps, 3u);
	bool present = false;
	uint64_t value = 0;
	ASSERT_EQ(uda_capability_set_list_get_constraint(list, 0, UDA_CONSTRAINT_PITCH_ALIGNMENT, &present, &value),
	          UDA_SUCCESS);
	EXPECT_TRUE(present);
	EXPECT_EQ(value, 128u); // replaced, not merged
	ASSERT_EQ(uda_capability_set_list_get_constraint(list, 0, UDA_CONSTRAINT_MAX_PITCH, &present, &value),
	          UDA_SUCCESS);
	EXPECT_FALSE(present);

	uda_capability layout_cap;
	ASSERT_EQ(uda_capability_set_list_get_layout(list, 0, &layout_cap), UDA_SUCCESS);
	EXPECT_EQ(layout_cap.name, UDA_CAPABILITY_LAYOUT);
	EXPECT_EQ(layout_cap.length, 8u);
	uint64_t modifier = 0;
	memcpy(&modifier, layout_cap.payload, 8); // little-endian host
	EXPECT_EQ(modifier, fourcc_mod_code(ARM, 3));
	modifier = 0;
	ASSERT_EQ(uda_capability_set_list_get_modifier(list, 0, &modifier), UDA_SUCCESS);
	EXPECT_EQ(modifier, fourcc_mod_code(ARM, 3));

	// Canonical order: shared capabilities by vendor and name, LOCAL last.
	SetSpec set = read_set(list, 0);
	EXPECT_EQ(set.caps[0].name, UDA_CAPABILITY_LAYOUT);
	EXPECT_EQ(set.caps[1].name, UDA_CAPABILITY_HANDLE);
	EXPECT_EQ(set.caps[2], vendor_cap(0x13b5, 1, {5, 6, 7}, UDA_CAPABILITY_FLAG_LOCAL, 9));
}

TEST_F(CapabilitySet, CanonicalOrderMakesInsertionOrderIrrelevant)
{
	auto one = make_list(ctx.get(), {{{vendor_cap(0x10de, 2, {1}), layout(0), common(UDA_CAPABILITY_HANDLE, 2)}}});
	auto two = make_list(ctx.get(), {{{common(UDA_CAPABILITY_HANDLE, 2), layout(0), vendor_cap(0x10de, 2, {1})}}});
	bool equal = false;
	ASSERT_EQ(uda_capability_set_list_sets_equal(one.get(), 0, two.get(), 0, &equal), UDA_SUCCESS);
	EXPECT_TRUE(equal);
	auto three =
	    make_list(ctx.get(), {{{layout(0, 0), common(UDA_CAPABILITY_HANDLE, 2), vendor_cap(0x10de, 2, {1})}}});
	ASSERT_EQ(uda_capability_set_list_sets_equal(one.get(), 0, three.get(), 0, &equal), UDA_SUCCESS);
	EXPECT_FALSE(equal) << "flags are part of set equality";
}

TEST_F(CapabilitySet, ExactlyOneLayoutIsRequired)
{
	ASSERT_EQ(add(common(UDA_CAPABILITY_HANDLE, 1)), UDA_SUCCESS);
	EXPECT_EQ(uda_capability_set_list_append_set(list, builder), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("no layout"), std::string::npos);
	ASSERT_EQ(add(layout(DRM_FORMAT_MOD_LINEAR)), UDA_SUCCESS);
	ASSERT_EQ(add(layout(fourcc_mod_code(INTEL, 1))), UDA_SUCCESS);
	EXPECT_EQ(uda_capability_set_list_append_set(list, builder), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("more than one layout"), std::string::npos);
	EXPECT_EQ(count_of(list), 0u);
	ASSERT_EQ(uda_capability_set_builder_reset(builder), UDA_SUCCESS);
	ASSERT_EQ(add(layout(DRM_FORMAT_MOD_LINEAR)), UDA_SUCCESS);
	EXPECT_EQ(uda_capability_set_list_append_set(list, builder), UDA_SUCCESS);
	// The builder is reusable: appending again adds an equal second set.
	EXPECT_EQ(uda_capability_set_list_append_set(list, builder), UDA_SUCCESS);
	EXPECT_EQ(count_of(list), 2u);
}

TEST_F(CapabilitySet, CapabilityShapesAreChecked)
{
	EXPECT_EQ(add(Cap{0, UDA_CAPABILITY_LAYOUT, 0, {1, 2, 3}}), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(add(Cap{0, UDA_CAPABILITY_LAYOUT_OPAQUE, 0, std::vector<uint8_t>(15)}), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(add(Cap{0, UDA_CAPABILITY_LAYOUT, UDA_CAPABILITY_FLAG_LOCAL, std::vector<uint8_t>(8)}),
	          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(add(Cap{0, UDA_CAPABILITY_HANDLE, 0, {1}}), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(add(Cap{0x10de, 1, 0x8, {}}), UDA_ERROR_INVALID_ARGUMENT); // unknown flag
	EXPECT_EQ(add(Cap{0x10de, 1, 0, std::vector<uint8_t>(UDA_MAX_PAYLOAD_SIZE + 1)}), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(add(Cap{0x10de, 1, 0, std::vector<uint8_t>(UDA_MAX_PAYLOAD_SIZE)}), UDA_SUCCESS);
	uda_capability null_payload = {0x10de, 2, 0, 4, nullptr, {}};
	EXPECT_EQ(uda_capability_set_builder_add_capability(builder, &null_payload), UDA_ERROR_INVALID_ARGUMENT);
}

TEST_F(CapabilitySet, DuplicateCapabilitiesAreRefused)
{
	ASSERT_EQ(add(vendor_cap(0x10de, 1, {1, 2})), UDA_SUCCESS);
	EXPECT_EQ(add(vendor_cap(0x10de, 1, {1, 2}, UDA_CAPABILITY_FLAG_REQUIRED)), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(add(vendor_cap(0x10de, 1, {1, 3})), UDA_SUCCESS);
	// LOCAL ones differ by owner.
	ASSERT_EQ(add(vendor_cap(0x10de, 1, {1, 2}, UDA_CAPABILITY_FLAG_LOCAL, 1)), UDA_SUCCESS);
	EXPECT_EQ(add(vendor_cap(0x10de, 1, {1, 2}, UDA_CAPABILITY_FLAG_LOCAL, 2)), UDA_SUCCESS);
	EXPECT_EQ(add(vendor_cap(0x10de, 1, {1, 2}, UDA_CAPABILITY_FLAG_LOCAL, 2)), UDA_ERROR_INVALID_ARGUMENT);
}

TEST_F(CapabilitySet, TooManyCapabilitiesOverflow)
{
	for (uint32_t i = 0; i < UDA_MAX_CAPABILITIES_PER_SET; i++)
		ASSERT_EQ(add(vendor_cap(0x10de, static_cast<uint16_t>(i), {})), UDA_SUCCESS);
	EXPECT_EQ(add(vendor_cap(0x10de, 999, {})), UDA_ERROR_OVERFLOW);
}

TEST_F(CapabilitySet, ContradictoryConstraintsAreRefused)
{
	ASSERT_EQ(add(layout(DRM_FORMAT_MOD_LINEAR)), UDA_SUCCESS);
	ASSERT_EQ(uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_MIN_PITCH, 1000), UDA_SUCCESS);
	ASSERT_EQ(uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_MAX_PITCH, 999), UDA_SUCCESS);
	EXPECT_EQ(uda_capability_set_list_append_set(list, builder), UDA_ERROR_INVALID_ARGUMENT);
	ASSERT_EQ(uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_MAX_PITCH, 1024), UDA_SUCCESS);
	ASSERT_EQ(uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_SIZE_ALIGNMENT, 4096), UDA_SUCCESS);
	ASSERT_EQ(uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_MAX_SIZE, 2048), UDA_SUCCESS);
	EXPECT_EQ(uda_capability_set_list_append_set(list, builder), UDA_ERROR_INVALID_ARGUMENT);
	ASSERT_EQ(uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_MAX_SIZE, 1 << 20), UDA_SUCCESS);
	EXPECT_EQ(uda_capability_set_list_append_set(list, builder), UDA_SUCCESS);
	EXPECT_EQ(uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_MAX_PLANES, UDA_MAX_PLANES + 1),
	          UDA_ERROR_INVALID_ARGUMENT);
}

TEST_F(CapabilitySet, CopiesAreDeepAndIndependent)
{
	auto source = make_list(ctx.get(), {{{layout(1), vendor_cap(0x10de, 3, {1, 2, 3})}},
	                                    {{layout(2)}, {{UDA_CONSTRAINT_MAX_WIDTH, 4096}}}});
	uda_capability_set_list *copy = nullptr;
	ASSERT_EQ(uda_capability_set_list_copy(source.get(), &copy), UDA_SUCCESS);
	std::vector<SetSpec> expected = read_list(source.get());
	ASSERT_EQ(uda_capability_set_list_append_copy(list, source.get(), 1), UDA_SUCCESS);
	ASSERT_EQ(uda_capability_set_list_append_copy(list, source.get(), 0), UDA_SUCCESS);
	EXPECT_EQ(uda_capability_set_list_append_copy(list, source.get(), 2), UDA_ERROR_INVALID_ARGUMENT);
	source.reset();
	EXPECT_EQ(read_list(copy), expected);
	EXPECT_EQ(read_list(list), (std::vector<SetSpec>{expected[1], expected[0]}));
	uda_capability_set_list_destroy(copy);
}

// A driver-private layout has no modifier, and no LAYOUT may claim the
// value that says so.
TEST_F(CapabilitySet, OpaqueLayoutsReadAsTheInvalidModifier)
{
	std::vector<uint8_t> driver(UDA_UUID_SIZE + 4, 7);
	uda_capability opaque = {UDA_VENDOR_NONE, UDA_CAPABILITY_LAYOUT_OPAQUE, UDA_CAPABILITY_FLAG_REQUIRED,
	                         static_cast<uint32_t>(driver.size()), driver.data(), {}};
	ASSERT_EQ(uda_capability_set_builder_add_capability(builder, &opaque), UDA_SUCCESS);
	ASSERT_EQ(uda_capability_set_list_append_set(list, builder), UDA_SUCCESS);
	uint64_t modifier = 0;
	ASSERT_EQ(uda_capability_set_list_get_modifier(list, 0, &modifier), UDA_SUCCESS);
	EXPECT_EQ(modifier, DRM_FORMAT_MOD_INVALID);

	ASSERT_EQ(uda_capability_set_builder_reset(builder), UDA_SUCCESS);
	EXPECT_EQ(uda_capability_set_builder_add_layout(builder, DRM_FORMAT_MOD_INVALID, 0), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("DRM_FORMAT_MOD_INVALID"), std::string::npos);
	EXPECT_EQ(uda_capability_set_builder_add_layout(builder, DRM_FORMAT_MOD_LINEAR, 0), UDA_SUCCESS);
}

TEST_F(CapabilitySet, ACopyGrowsPastTheRoomItWasMadeWith)
{
	// A copy is made with room for exactly what it holds; appending to
	// it, even from itself, must move its arrays and keep every byte.
	auto source = make_list(ctx.get(), {{{layout(1), vendor_cap(0x10de, 3, {1, 2, 3})}},
	                                    {{layout(2)}, {{UDA_CONSTRAINT_MAX_WIDTH, 4096}}}});
	uda_capability_set_list *copy = nullptr;
	ASSERT_EQ(uda_capability_set_list_copy(source.get(), &copy), UDA_SUCCESS);
	ListPtr owned(copy);
	ASSERT_EQ(uda_capability_set_list_append_copy(copy, copy, 0), UDA_SUCCESS);
	ASSERT_EQ(add(layout(3)), UDA_SUCCESS);
	ASSERT_EQ(add(vendor_cap(0x1002, 9, {9, 8, 7, 6, 5, 4, 3, 2, 1})), UDA_SUCCESS);
	ASSERT_EQ(uda_capability_set_list_append_set(copy, builder), UDA_SUCCESS);
	std::vector<SetSpec> expected = read_list(source.get());
	expected.push_back(expected[0]);
	expected.push_back({{layout(3), vendor_cap(0x1002, 9, {9, 8, 7, 6, 5, 4, 3, 2, 1})}});
	EXPECT_EQ(read_list(copy), expected);
	// And an empty list's copy is a list too.
	uda_capability_set_list *empty = nullptr;
	ASSERT_EQ(uda_capability_set_list_copy(list, &empty), UDA_SUCCESS);
	ListPtr owned_empty(empty);
	ASSERT_EQ(uda_capability_set_list_append_copy(empty, source.get(), 1), UDA_SUCCESS);
	EXPECT_EQ(read_list(empty), std::vector<SetSpec>{read_list(source.get())[1]});
}

TEST_F(CapabilitySet, AppendCopyFromTheSameListSurvivesGrowth)
{
	// Sixteen sets fill the set array's first allocation exactly, so the
	// copy has to grow the very array it copies from.
	std::vector<SetSpec> specs;
	for (uint16_t i = 0; i < 16; i++)
		specs.push_back({{layout(fourcc_mod_code(NVIDIA, i)), vendor_cap(0x10de, 7, {1, 2, 3, 4, 5})},
		                 {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 64u + i}}});
	ListPtr grown = make_list(ctx.get(), specs);
	for (uint32_t i = 0; i < 16; i++)
		ASSERT_EQ(uda_capability_set_list_append_copy(grown.get(), grown.get(), i), UDA_SUCCESS)
		    << uda_context_get_error(ctx.get());
	ASSERT_EQ(count_of(grown.get()), 32u);
	for (uint32_t i = 0; i < 16; i++) {
		EXPECT_EQ(read_set(grown.get(), 16 + i), specs[i]) << "copy of set " << i;
		bool equal = false;
		ASSERT_EQ(uda_capability_set_list_sets_equal(grown.get(), i, grown.get(), 16 + i, &equal), UDA_SUCCESS);
		EXPECT_TRUE(equal);
	}
}

} // namespace

namespace
{

// Several devices of one GPU (a client's and a compositor's) each leave a
// LOCAL capability with the same owner: the owner's backend reads them all.
TEST(BackendHelpers, FindCapabilitiesReturnsEveryMatch)
{
	uda_test::ContextPtr ctx = uda_test::make_context();
	const uint16_t vendor = UDA_VENDOR_API_BACKEND, name = UDA_CAPABILITY_VULKAN_IMAGE_PARAMS;
	uda_test::Cap first{vendor, name, UDA_CAPABILITY_FLAG_LOCAL, uda_test::le_bytes(0x11, 8), 7};
	uda_test::Cap second{vendor, name, UDA_CAPABILITY_FLAG_LOCAL, uda_test::le_bytes(0x22, 8), 7};
	uda_test::Cap other_owner{vendor, name, UDA_CAPABILITY_FLAG_LOCAL, uda_test::le_bytes(0x33, 8), 8};
	uda_test::ListPtr list = uda_test::make_list(
		ctx.get(), {{{uda_test::layout(DRM_FORMAT_MOD_LINEAR), first, second, other_owner}}});
	uint8_t owner[UDA_UUID_SIZE] = {0};
	owner[15] = 7;

	uda_capability found[4];
	ASSERT_EQ(uda_backend_find_capabilities(list.get(), 0, vendor, name, owner, found, 4), 2u);
	// In the set's canonical order, which is not the order of building.
	std::set<uint8_t> payloads = {static_cast<const uint8_t *>(found[0].payload)[0],
	                              static_cast<const uint8_t *>(found[1].payload)[0]};
	EXPECT_EQ(payloads, (std::set<uint8_t>{0x11, 0x22}));
	EXPECT_EQ(found[0].owner_uuid[15], 7);
	EXPECT_EQ(found[1].owner_uuid[15], 7);
	// The count is the whole count, whatever fits.
	EXPECT_EQ(uda_backend_find_capabilities(list.get(), 0, vendor, name, owner, found, 1), 2u);
	EXPECT_EQ(uda_backend_find_capabilities(list.get(), 0, vendor, name, owner, nullptr, 0), 2u);
	owner[15] = 8;
	EXPECT_EQ(uda_backend_find_capabilities(list.get(), 0, vendor, name, owner, found, 4), 1u);
	// Without an owner only non-LOCAL capabilities match: none here.
	EXPECT_EQ(uda_backend_find_capabilities(list.get(), 0, vendor, name, nullptr, found, 4), 0u);
	EXPECT_EQ(uda_backend_find_capabilities(list.get(), 1, vendor, name, owner, found, 4), 0u);
	EXPECT_EQ(uda_backend_find_capabilities(nullptr, 0, vendor, name, owner, found, 4), 0u);
}

} // namespace
