// Capability-set math: the rules of DESIGN.md, case by case.
#include <drm_fourcc.h>

#include "set_spec.hpp"

using namespace uda_test;

namespace
{

constexpr uint64_t TILED_X = fourcc_mod_code(INTEL, 1);
constexpr uint64_t TILED_Y = fourcc_mod_code(INTEL, 2);
constexpr uint64_t AMD_TILE = fourcc_mod_code(AMD, 7);

class Intersect : public ::testing::Test
{
      protected:
	ContextPtr ctx = make_context();

	// The canonical form of specs, as a list would hold them.
	std::vector<SetSpec> canonical(const std::vector<SetSpec> &specs)
	{
		return read_list(make_list(ctx.get(), specs).get());
	}
};

TEST_F(Intersect, CommonLayoutSurvivesAndAlignmentsMergeByLcm)
{
	auto a =
	    make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)},
	                           {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 256}, {UDA_CONSTRAINT_ADDRESS_ALIGNMENT, 256}}}});
	auto b = make_list(ctx.get(),
	                   {{{layout(DRM_FORMAT_MOD_LINEAR)},
	                     {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 4096}, {UDA_CONSTRAINT_ADDRESS_ALIGNMENT, 4096}}}});
	auto r = intersect(a.get(), b.get());
	ASSERT_EQ(count_of(r.get()), 1u);
	SetSpec set = read_set(r.get(), 0);
	EXPECT_EQ(set.constraints[UDA_CONSTRAINT_PITCH_ALIGNMENT], 4096u);
	EXPECT_EQ(set.constraints[UDA_CONSTRAINT_ADDRESS_ALIGNMENT], 4096u);
	EXPECT_EQ(set.caps, std::vector<Cap>{layout(DRM_FORMAT_MOD_LINEAR)});
}

TEST_F(Intersect, NonPowerOfTwoPitchAlignmentMergesToLcm)
{
	auto a = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 48}}}});
	auto b = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 64}}}});
	auto r = intersect(a.get(), b.get());
	ASSERT_EQ(count_of(r.get()), 1u);
	EXPECT_EQ(read_set(r.get(), 0).constraints[UDA_CONSTRAINT_PITCH_ALIGNMENT], 192u);
	// Offset alignment is declared non-power-of-two as well.
	a = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_OFFSET_ALIGNMENT, 6}}}});
	b = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_OFFSET_ALIGNMENT, 10}}}});
	r = intersect(a.get(), b.get());
	EXPECT_EQ(read_set(r.get(), 0).constraints[UDA_CONSTRAINT_OFFSET_ALIGNMENT], 30u);
}

TEST_F(Intersect, PowerOfTwoAlignmentsRejectOtherValues)
{
	uda_capability_set_builder *b = nullptr;
	ASSERT_EQ(uda_capability_set_builder_create(ctx.get(), &b), UDA_SUCCESS);
	for (uda_constraint c :
	     {UDA_CONSTRAINT_ADDRESS_ALIGNMENT, UDA_CONSTRAINT_SIZE_ALIGNMENT, UDA_CONSTRAINT_PLANE_ALIGNMENT}) {
		EXPECT_EQ(uda_capability_set_builder_set_constraint(b, c, 48), UDA_ERROR_INVALID_ARGUMENT);
		EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("power of two"), std::string::npos);
		EXPECT_EQ(uda_capability_set_builder_set_constraint(b, c, 64), UDA_SUCCESS);
	}
	EXPECT_EQ(uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_PITCH_ALIGNMENT, 0),
	          UDA_ERROR_INVALID_ARGUMENT);
	uda_capability_set_builder_destroy(b);
}

TEST_F(Intersect, LcmOverflowFailsThePair)
{
	const uint64_t big_a = (1ull << 62) - 57; // large, coprime to big_b
	const uint64_t big_b = (1ull << 61) - 1;
	auto a = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_PITCH_ALIGNMENT, big_a}}}});
	auto b = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_PITCH_ALIGNMENT, big_b}}}});
	EXPECT_EQ(count_of(intersect(a.get(), b.get()).get()), 0u);
}

TEST_F(Intersect, DisjointLayoutsGiveEmptyResult)
{
	auto a = make_list(ctx.get(), {{{layout(TILED_X)}}, {{layout(TILED_Y)}}});
	auto b = make_list(ctx.get(), {{{layout(AMD_TILE)}}, {{layout(DRM_FORMAT_MOD_LINEAR)}}});
	auto r = intersect(a.get(), b.get());
	ASSERT_NE(r, nullptr);
	EXPECT_EQ(count_of(r.get()), 0u);
}

TEST_F(Intersect, OpaqueLayoutsMatchOnlyWithSameDriverBytes)
{
	std::vector<uint8_t> driver_a(16, 0xaa), driver_b(16, 0xbb);
	Cap opaque_a{UDA_VENDOR_NONE, UDA_CAPABILITY_LAYOUT_OPAQUE, UDA_CAPABILITY_FLAG_REQUIRED, driver_a};
	Cap opaque_b{UDA_VENDOR_NONE, UDA_CAPABILITY_LAYOUT_OPAQUE, UDA_CAPABILITY_FLAG_REQUIRED, driver_b};
	auto a = make_list(ctx.get(), {{{opaque_a}}});
	EXPECT_EQ(count_of(intersect(a.get(), make_list(ctx.get(), {{{opaque_a}}}).get()).get()), 1u);
	EXPECT_EQ(count_of(intersect(a.get(), make_list(ctx.get(), {{{opaque_b}}}).get()).get()), 0u);
}

TEST_F(Intersect, RequiredCapabilityOnOneSideFailsThePair)
{
	Cap compression = vendor_cap(0x10de, 7, {1, 2, 3, 4}, UDA_CAPABILITY_FLAG_REQUIRED);
	auto a = make_list(ctx.get(), {{{layout(TILED_X), compression}}, {{layout(DRM_FORMAT_MOD_LINEAR)}}});
	auto b = make_list(ctx.get(), {{{layout(TILED_X)}}, {{layout(DRM_FORMAT_MOD_LINEAR)}}});
	auto r = intersect(a.get(), b.get());
	EXPECT_EQ(modifiers_of(r.get()), std::vector<uint64_t>{DRM_FORMAT_MOD_LINEAR});
	// Order of the arguments does not matter for the failure.
	EXPECT_EQ(modifiers_of(intersect(b.get(), a.get()).get()), std::vector<uint64_t>{DRM_FORMAT_MOD_LINEAR});
}

TEST_F(Intersect, OptionalCapabilityOnOneSideIsDropped)
{
	Cap cache = vendor_cap(0x10de, 9, {9});
	auto a =
	    make_list(ctx.get(), {{{layout(TILED_X), cache, common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF)}}});
	auto b = make_list(ctx.get(), {{{layout(TILED_X), common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF)}}});
	auto r = intersect(a.get(), b.get());
	ASSERT_EQ(count_of(r.get()), 1u);
	EXPECT_EQ(read_set(r.get(), 0), canonical({{{layout(TILED_X), common(UDA_CAPABILITY_HANDLE, 1)}}})[0]);
}

TEST_F(Intersect, RequiredFlagIsKeptWhenEitherSideRequires)
{
	auto a = make_list(ctx.get(),
	                   {{{layout(TILED_X, 0), common(UDA_CAPABILITY_HANDLE, 1, UDA_CAPABILITY_FLAG_REQUIRED)}}});
	auto b =
	    make_list(ctx.get(), {{{layout(TILED_X, UDA_CAPABILITY_FLAG_REQUIRED), common(UDA_CAPABILITY_HANDLE, 1)}}});
	auto r = intersect(a.get(), b.get());
	ASSERT_EQ(count_of(r.get()), 1u);
	for (const Cap &cap : read_set(r.get(), 0).caps)
		EXPECT_EQ(cap.flags, UDA_CAPABILITY_FLAG_REQUIRED);
}

TEST_F(Intersect, LocalCapabilitySurvivesWithOwnerTag)
{
	Cap local = vendor_cap(0x1002, 3, {0xdc, 0xc0}, UDA_CAPABILITY_FLAG_LOCAL, /*owner=*/0x11);
	auto a = make_list(ctx.get(), {{{layout(AMD_TILE), local}}});
	auto b = make_list(ctx.get(), {{{layout(AMD_TILE)}}});
	for (auto *order : {&a, &b}) {
		auto r = order == &a ? intersect(a.get(), b.get()) : intersect(b.get(), a.get());
		ASSERT_EQ(count_of(r.get()), 1u);
		SetSpec set = read_set(r.get(), 0);
		ASSERT_EQ(set.caps.size(), 2u);
		EXPECT_EQ(set.caps[1], local);
		EXPECT_EQ(set.caps[1].owner, 0x11);
	}
}

TEST_F(Intersect, LocalCapabilitiesOfTwoOwnersBothSurvive)
{
	Cap mine = vendor_cap(0x1002, 3, {1}, UDA_CAPABILITY_FLAG_LOCAL, 0x11);
	Cap theirs = vendor_cap(0x1002, 3, {1}, UDA_CAPABILITY_FLAG_LOCAL, 0x22);
	auto a = make_list(ctx.get(), {{{layout(AMD_TILE), mine}}});
	auto b = make_list(ctx.get(), {{{layout(AMD_TILE), theirs}}});
	auto r = intersect(a.get(), b.get());
	ASSERT_EQ(count_of(r.get()), 1u);
	EXPECT_EQ(read_set(r.get(), 0).caps, (std::vector<Cap>{layout(AMD_TILE), mine, theirs}));
	// The same LOCAL capability of the same owner on both sides stays one.
	auto self = intersect(a.get(), a.get());
	EXPECT_EQ(read_set(self.get(), 0).caps, (std::vector<Cap>{layout(AMD_TILE), mine}));
}

// A set with `shared` capabilities both sides have (layout included) and
// `local` LOCAL ones of `owner`.
SetSpec set_with(uint32_t shared, uint32_t local, uint8_t owner)
{
	SetSpec spec{{layout(AMD_TILE)}};
	for (uint32_t i = 1; i < shared; i++)
		spec.caps.push_back(vendor_cap(0x1002, static_cast<uint16_t>(i), {}));
	for (uint32_t i = 0; i < local; i++)
		spec.caps.push_back(
		    vendor_cap(0x1002, static_cast<uint16_t>(1000 + i), {}, UDA_CAPABILITY_FLAG_LOCAL, owner));
	return spec;
}

TEST_F(Intersect, PairsBeyondTheCapabilityLimitFail)
{
	// LOCAL capabilities of both sides add up: 1 + 127 + 128 is the
	// limit, one more is over it.
	ASSERT_EQ(UDA_MAX_CAPABILITIES_PER_SET, 256u);
	auto a = make_list(ctx.get(), {set_with(1, 127, 0x11), set_with(1, 200, 0x11)});
	auto b = make_list(ctx.get(), {set_with(1, 128, 0x22), set_with(1, 129, 0x22)});
	auto r = intersect(a.get(), b.get());
	ASSERT_EQ(count_of(r.get()), 1u);
	uint32_t caps = 0;
	ASSERT_EQ(uda_capability_set_list_get_capability_count(r.get(), 0, &caps), UDA_SUCCESS);
	EXPECT_EQ(caps, UDA_MAX_CAPABILITIES_PER_SET);

	// What intersection produces can always be sent and received.
	size_t size = 0;
	ASSERT_EQ(uda_capability_set_list_serialize(r.get(), nullptr, 0, &size), UDA_SUCCESS);
	std::vector<uint8_t> blob(size);
	ASSERT_EQ(uda_capability_set_list_serialize(r.get(), blob.data(), blob.size(), &size), UDA_SUCCESS);
	uda_capability_set_list *back = nullptr;
	ASSERT_EQ(uda_capability_set_list_deserialize(ctx.get(), blob.data(), blob.size(), &back), UDA_SUCCESS)
	    << uda_context_get_error(ctx.get());
	ListPtr back_list(back);
	EXPECT_EQ(read_list(back), read_list(r.get()));

	// Shared capabilities count too: 200 + 50 + 6 fits, 200 + 50 + 7 not.
	auto c = make_list(ctx.get(), {set_with(200, 50, 0x11)});
	auto d = make_list(ctx.get(), {set_with(200, 7, 0x22), set_with(200, 6, 0x22)});
	auto cd = intersect(c.get(), d.get());
	ASSERT_EQ(count_of(cd.get()), 1u);
	EXPECT_EQ(read_set(cd.get(), 0).caps.size(), UDA_MAX_CAPABILITIES_PER_SET);
}

TEST_F(Intersect, MaxPitchTakesMinimumAndMinPitchMaximum)
{
	auto a = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)},
	                                {{UDA_CONSTRAINT_MAX_PITCH, 65536},
	                                 {UDA_CONSTRAINT_MIN_PITCH, 64},
	                                 {UDA_CONSTRAINT_MAX_WIDTH, 8192},
	                                 {UDA_CONSTRAINT_MAX_PLANES, 4}}}});
	auto b = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)},
	                                {{UDA_CONSTRAINT_MAX_PITCH, 32768},
	                                 {UDA_CONSTRAINT_MIN_PITCH, 256},
	                                 {UDA_CONSTRAINT_MAX_WIDTH, 16384},
	                                 {UDA_CONSTRAINT_MAX_PLANES, 2}}}});
	SetSpec set = read_set(intersect(a.get(), b.get()).get(), 0);
	EXPECT_EQ(set.constraints[UDA_CONSTRAINT_MAX_PITCH], 32768u);
	EXPECT_EQ(set.constraints[UDA_CONSTRAINT_MIN_PITCH], 256u);
	EXPECT_EQ(set.constraints[UDA_CONSTRAINT_MAX_WIDTH], 8192u);
	EXPECT_EQ(set.constraints[UDA_CONSTRAINT_MAX_PLANES], 2u);
}

TEST_F(Intersect, ContradictoryMergedPitchBoundsFailThePair)
{
	auto a = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_MIN_PITCH, 8192}}}});
	auto b = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_MAX_PITCH, 4096}}}});
	EXPECT_EQ(count_of(intersect(a.get(), b.get()).get()), 0u);
	// An alignment whose first multiple above the minimum passes the max.
	a = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 3000}}}});
	b = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)},
	                           {{UDA_CONSTRAINT_MAX_PITCH, 5000}, {UDA_CONSTRAINT_MIN_PITCH, 3001}}}});
	EXPECT_EQ(count_of(intersect(a.get(), b.get()).get()), 0u);
	b = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)},
	                           {{UDA_CONSTRAINT_MAX_PITCH, 6000}, {UDA_CONSTRAINT_MIN_PITCH, 3001}}}});
	EXPECT_EQ(count_of(intersect(a.get(), b.get()).get()), 1u);
}

// A device that reads past the planes (a V4L2 decoder's sizeimage) asks
// for a minimum size: the larger one holds, and a maximum below it (once
// aligned) leaves nothing.
TEST_F(Intersect, MinSizeTakesTheMaximumAndMustFitTheMaxSize)
{
	auto decoder = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_MIN_SIZE, 3133440}}}});
	auto encoder = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_MIN_SIZE, 3110400}}}});
	SetSpec set = read_set(intersect(decoder.get(), encoder.get()).get(), 0);
	EXPECT_EQ(set.constraints[UDA_CONSTRAINT_MIN_SIZE], 3133440u);
	auto small = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_MAX_SIZE, 3110400}}}});
	EXPECT_EQ(count_of(intersect(decoder.get(), small.get()).get()), 0u);
	auto aligned = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)},
	                                      {{UDA_CONSTRAINT_MAX_SIZE, 3140000}, {UDA_CONSTRAINT_SIZE_ALIGNMENT, 65536}}}});
	EXPECT_EQ(count_of(intersect(decoder.get(), aligned.get()).get()), 0u)
	        << "3133440 rounds up to 3145728, past the max";
	auto roomy = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)},
	                                    {{UDA_CONSTRAINT_MAX_SIZE, 3145728}, {UDA_CONSTRAINT_SIZE_ALIGNMENT, 65536}}}});
	EXPECT_EQ(count_of(intersect(decoder.get(), roomy.get()).get()), 1u);
}

TEST_F(Intersect, OneSidedConstraintsPassThrough)
{
	auto a = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_SIZE_ALIGNMENT, 4096}}}});
	auto b = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_MAX_HEIGHT, 2160}}}});
	SetSpec set = read_set(intersect(a.get(), b.get()).get(), 0);
	EXPECT_EQ(set.constraints, (std::map<uda_constraint, uint64_t>{{UDA_CONSTRAINT_SIZE_ALIGNMENT, 4096},
	                                                               {UDA_CONSTRAINT_MAX_HEIGHT, 2160}}));
}

TEST_F(Intersect, ResultIsOrderedByFirstListThenSecond)
{
	// a prefers X then linear then Y; b prefers linear then Y then X.
	auto a = make_list(ctx.get(), {{{layout(TILED_X)}}, {{layout(DRM_FORMAT_MOD_LINEAR)}}, {{layout(TILED_Y)}}});
	auto b = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR)}}, {{layout(TILED_Y)}}, {{layout(TILED_X)}}});
	EXPECT_EQ(modifiers_of(intersect(a.get(), b.get()).get()),
	          (std::vector<uint64_t>{TILED_X, DRM_FORMAT_MOD_LINEAR, TILED_Y}));
	EXPECT_EQ(modifiers_of(intersect(b.get(), a.get()).get()),
	          (std::vector<uint64_t>{DRM_FORMAT_MOD_LINEAR, TILED_Y, TILED_X}));
	// Within one set of a, b's sets of the same layout keep b's order.
	auto b2 = make_list(ctx.get(), {{{layout(TILED_X)}, {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 512}}},
	                                {{layout(DRM_FORMAT_MOD_LINEAR)}},
	                                {{layout(TILED_X)}, {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 128}}}});
	auto r = intersect(a.get(), b2.get());
	ASSERT_EQ(count_of(r.get()), 3u);
	EXPECT_EQ(read_set(r.get(), 0).constraints[UDA_CONSTRAINT_PITCH_ALIGNMENT], 512u);
	EXPECT_EQ(read_set(r.get(), 1).constraints[UDA_CONSTRAINT_PITCH_ALIGNMENT], 128u);
	EXPECT_EQ(modifiers_of(r.get())[2], DRM_FORMAT_MOD_LINEAR);
}

TEST_F(Intersect, DuplicatesAreRemovedKeepingFirst)
{
	// Both sets of a meet b's one set in the same result.
	auto a = make_list(ctx.get(), {{{layout(TILED_X), vendor_cap(0x8086, 1, {1})}},
	                               {{layout(TILED_X), vendor_cap(0x8086, 1, {2})}},
	                               {{layout(DRM_FORMAT_MOD_LINEAR)}}});
	auto b = make_list(ctx.get(), {{{layout(TILED_X)}}, {{layout(DRM_FORMAT_MOD_LINEAR)}}});
	auto r = intersect(a.get(), b.get());
	EXPECT_EQ(modifiers_of(r.get()), (std::vector<uint64_t>{TILED_X, DRM_FORMAT_MOD_LINEAR}));
}

TEST_F(Intersect, ListWithItselfKeepsEverySet)
{
	auto a =
	    make_list(ctx.get(),
	              {{{layout(TILED_X), common(UDA_CAPABILITY_HANDLE, 1)}, {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 64}}},
	               {{layout(TILED_X), common(UDA_CAPABILITY_HANDLE, 2)}, {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 64}}},
	               {{layout(DRM_FORMAT_MOD_LINEAR), vendor_cap(0x10de, 2, {1, 2, 3}, UDA_CAPABILITY_FLAG_LOCAL, 5)},
	                {{UDA_CONSTRAINT_MAX_PITCH, 1 << 16}}}});
	auto r = intersect(a.get(), a.get());
	// Pairs (0,1) and (1,0) differ in HANDLE and fail no REQUIRED cap, so
	// they yield {layout X} which is new: self-intersection keeps every
	// original set, in order, and may add such meets after them.
	std::vector<SetSpec> expected = read_list(a.get());
	std::vector<SetSpec> got = read_list(r.get());
	ASSERT_GE(got.size(), expected.size());
	EXPECT_EQ(got[0], expected[0]);
	EXPECT_EQ(got[2], expected[1]);
	for (const SetSpec &set : expected)
		EXPECT_NE(std::find(got.begin(), got.end(), set), got.end());
}

TEST_F(Intersect, EmptyInputGivesEmptyResult)
{
	auto a = make_list(ctx.get(), {});
	auto b = make_list(ctx.get(), {{{layout(TILED_X)}}});
	EXPECT_EQ(count_of(intersect(a.get(), b.get()).get()), 0u);
	EXPECT_EQ(count_of(intersect(b.get(), a.get()).get()), 0u);
}

TEST_F(Intersect, ListsOfDifferentContextsAreRejected)
{
	ContextPtr other = make_context();
	auto a = make_list(ctx.get(), {{{layout(TILED_X)}}});
	auto b = make_list(other.get(), {{{layout(TILED_X)}}});
	uda_capability_set_list *out = nullptr;
	EXPECT_EQ(uda_capability_set_list_intersect(a.get(), b.get(), &out), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(out, nullptr);
}

} // namespace
