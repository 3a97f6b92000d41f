// uda_negotiate over test devices: the fold, the assertion filter, LOCAL
// tagging and the errors a caller sees.
#include <drm_fourcc.h>

#include "set_spec.hpp"
#include "test_device.h"

using namespace uda_test;

namespace
{

constexpr uint64_t TILED = fourcc_mod_code(AMD, 5);

class Negotiate : public ::testing::Test
{
      protected:
	ContextPtr ctx = make_context();
	uda_usage_atom render_atom = {UDA_VENDOR_NONE, UDA_USAGE_RENDER_TARGET, 0, nullptr};
	uda_usage render = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &render_atom};
	uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 1920, 1080, DRM_FORMAT_XRGB8888, 0};

	uda_device *add(uint8_t id, const std::vector<SetSpec> &sets, struct test_device **test = nullptr)
	{
		uda_device *dev = nullptr;
		std::string name = "test device " + std::to_string(id);
		EXPECT_EQ(
		    test_device_add(ctx.get(), name.c_str(), id, make_list(ctx.get(), sets).release(), &dev, test),
		    UDA_SUCCESS);
		return dev;
	}

	uda_result negotiate(std::vector<uda_device *> devices, ListPtr *out)
	{
		std::vector<uda_device_usage> entries;
		for (uda_device *d : devices)
			entries.push_back({d, &render});
		uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion,
		                             static_cast<uint32_t>(entries.size()), entries.data()};
		uda_capability_set_list *list = nullptr;
		uda_result r = uda_negotiate(ctx.get(), &info, &list);
		out->reset(list);
		if (r != UDA_SUCCESS) {
			EXPECT_EQ(list, nullptr);
		}
		return r;
	}
};

TEST_F(Negotiate, SingleDeviceGetsItsOwnSets)
{
	uda_device *gpu = add(1, {{{layout(TILED)}}, {{layout(DRM_FORMAT_MOD_LINEAR)}}});
	ListPtr out;
	ASSERT_EQ(negotiate({gpu}, &out), UDA_SUCCESS);
	EXPECT_EQ(modifiers_of(out.get()), (std::vector<uint64_t>{TILED, DRM_FORMAT_MOD_LINEAR}));
}

TEST_F(Negotiate, NWayEqualsPairwiseFold)
{
	std::vector<std::vector<SetSpec>> specs = {
	    {{{layout(TILED), common(UDA_CAPABILITY_HANDLE, 1)}, {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 256}}},
	     {{layout(DRM_FORMAT_MOD_LINEAR), common(UDA_CAPABILITY_HANDLE, 1)},
	      {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 64}}}},
	    {{{layout(DRM_FORMAT_MOD_LINEAR), common(UDA_CAPABILITY_HANDLE, 1)}, {{UDA_CONSTRAINT_MAX_PITCH, 1 << 15}}},
	     {{layout(TILED), common(UDA_CAPABILITY_HANDLE, 1)}, {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 512}}}},
	    {{{layout(DRM_FORMAT_MOD_LINEAR), common(UDA_CAPABILITY_HANDLE, 1)}, {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 48}}},
	     {{layout(TILED), common(UDA_CAPABILITY_HANDLE, 1)}}},
	};
	std::vector<uda_device *> devices;
	for (size_t i = 0; i < specs.size(); i++)
		devices.push_back(add(static_cast<uint8_t>(i + 1), specs[i]));
	ListPtr out;
	ASSERT_EQ(negotiate(devices, &out), UDA_SUCCESS) << uda_context_get_error(ctx.get());

	ListPtr fold = make_list(ctx.get(), specs[0]);
	for (size_t i = 1; i < specs.size(); i++)
		fold = intersect(fold.get(), make_list(ctx.get(), specs[i]).get());
	EXPECT_EQ(read_list(out.get()), read_list(fold.get()));
	ASSERT_EQ(count_of(out.get()), 2u);
	EXPECT_EQ(read_set(out.get(), 0).constraints[UDA_CONSTRAINT_PITCH_ALIGNMENT], 512u);
	EXPECT_EQ(read_set(out.get(), 1).constraints[UDA_CONSTRAINT_PITCH_ALIGNMENT], 192u);
}

TEST_F(Negotiate, StopsEarlyWhenNothingIsLeft)
{
	struct test_device *third = nullptr;
	uda_device *a = add(1, {{{layout(TILED)}}});
	uda_device *b = add(2, {{{layout(DRM_FORMAT_MOD_LINEAR)}}});
	uda_device *c = add(3, {{{layout(DRM_FORMAT_MOD_LINEAR)}}}, &third);
	ListPtr out;
	EXPECT_EQ(negotiate({a, b, c}, &out), UDA_ERROR_INCOMPATIBLE);
	std::string message = uda_context_get_error(ctx.get());
	EXPECT_NE(message.find("test device 2"), std::string::npos) << message;
	EXPECT_EQ(third->query_count, 0u);
}

TEST_F(Negotiate, SetsThatCannotHoldTheAssertionAreDropped)
{
	uda_device *d = add(1, {{{layout(TILED)}, {{UDA_CONSTRAINT_MAX_WIDTH, 1024}}},
	                        {{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_MAX_HEIGHT, 720}}},
	                        {{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_MAX_PITCH, 4096}}},
	                        {{layout(DRM_FORMAT_MOD_LINEAR)},
	                         {{UDA_CONSTRAINT_MAX_PITCH, 7680}, {UDA_CONSTRAINT_PITCH_ALIGNMENT, 7000}}},
	                        {{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_MAX_SIZE, 1920 * 4 * 1080 - 1}}},
	                        {{layout(DRM_FORMAT_MOD_LINEAR)},
	                         {{UDA_CONSTRAINT_MAX_PITCH, 7680}, {UDA_CONSTRAINT_MAX_SIZE, 7680 * 1080}}}});
	ListPtr out;
	ASSERT_EQ(negotiate({d}, &out), UDA_SUCCESS);
	ASSERT_EQ(count_of(out.get()), 1u);
	EXPECT_EQ(read_set(out.get(), 0).constraints[UDA_CONSTRAINT_MAX_SIZE], 7680u * 1080u);

	// A too-wide assertion leaves nothing: the error says why.
	assertion.width = 8192;
	EXPECT_EQ(negotiate({d}, &out), UDA_ERROR_INCOMPATIBLE);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("8192x1080"), std::string::npos);
}

TEST_F(Negotiate, MergedConstraintsAreCheckedAgainstTheAssertionAgain)
{
	// 1920x1080 XRGB8888 rows are 7680 bytes. Each device's set holds the
	// image on its own; merged, a pitch of 7680 is no multiple of 7000
	// (and 14000 exceeds the max pitch), and 1 MiB size alignment rounds
	// the size past the max size. Only the tiled set can hold it. (The
	// REQUIRED handle pairs the second linear sets only with each other.)
	Cap handle = common(UDA_CAPABILITY_HANDLE, 1, UDA_CAPABILITY_FLAG_REQUIRED);
	uda_device *a = add(1, {{{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_MAX_PITCH, 7680}}},
	                        {{layout(DRM_FORMAT_MOD_LINEAR), handle}, {{UDA_CONSTRAINT_MAX_SIZE, 7680 * 1080}}},
	                        {{layout(TILED), handle}}});
	uda_device *b = add(2, {{{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 7000}}},
	                        {{layout(DRM_FORMAT_MOD_LINEAR), handle}, {{UDA_CONSTRAINT_SIZE_ALIGNMENT, 1 << 20}}},
	                        {{layout(TILED), handle}}});
	ListPtr out;
	ASSERT_EQ(negotiate({a, b}, &out), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	EXPECT_EQ(modifiers_of(out.get()), std::vector<uint64_t>{TILED});

	// Without the tiled set nothing is left, and the device at which that
	// happened is named.
	struct test_device *third = nullptr;
	uda_device *c = add(3, {{{layout(DRM_FORMAT_MOD_LINEAR)}}});
	uda_device *d = add(4, {{{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 7000}}}});
	uda_device *e = add(5, {{{layout(DRM_FORMAT_MOD_LINEAR)}, {{UDA_CONSTRAINT_MAX_PITCH, 7680}}}});
	uda_device *f = add(6, {{{layout(DRM_FORMAT_MOD_LINEAR)}}}, &third);
	EXPECT_EQ(negotiate({c, d, e, f}, &out), UDA_ERROR_INCOMPATIBLE);
	std::string message = uda_context_get_error(ctx.get());
	EXPECT_NE(message.find("test device 5"), std::string::npos) << message;
	EXPECT_NE(message.find("1920x1080"), std::string::npos) << message;
	EXPECT_EQ(third->query_count, 0u);
}

TEST_F(Negotiate, MaxPlanesIsCheckedAgainstTheFormat)
{
	assertion.format = DRM_FORMAT_NV12;
	uda_device *d =
	    add(1, {{{layout(TILED)}, {{UDA_CONSTRAINT_MAX_PLANES, 1}}}, {{layout(DRM_FORMAT_MOD_LINEAR)}}});
	ListPtr out;
	ASSERT_EQ(negotiate({d}, &out), UDA_SUCCESS);
	EXPECT_EQ(modifiers_of(out.get()), std::vector<uint64_t>{DRM_FORMAT_MOD_LINEAR});
	assertion.plane_count_hint = 1; // both planes in one memory plane
	ASSERT_EQ(negotiate({d}, &out), UDA_SUCCESS);
	EXPECT_EQ(count_of(out.get()), 2u);
}

TEST_F(Negotiate, LocalCapabilitiesAreTaggedWithTheirDevice)
{
	// The backend claims another owner (0x99): the core overrides it.
	Cap compression = vendor_cap(0x1002, 1, {3}, UDA_CAPABILITY_FLAG_LOCAL, 0x99);
	Cap dma_buf = common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF);
	uda_device *gpu = add(1, {{{layout(TILED), dma_buf, compression}}});
	uda_device *display = add(2, {{{layout(TILED), dma_buf}}});
	ListPtr out;
	ASSERT_EQ(negotiate({display, gpu}, &out), UDA_SUCCESS);
	ASSERT_EQ(count_of(out.get()), 1u);
	SetSpec set = read_set(out.get(), 0);
	ASSERT_EQ(set.caps.size(), 3u);
	EXPECT_EQ(set.caps[2].owner, 1);

	uda_capability_set_list *own = nullptr;
	ASSERT_EQ(uda_device_get_capability_sets(gpu, &assertion, &render, &own), UDA_SUCCESS);
	ListPtr own_list(own);
	EXPECT_EQ(read_set(own, 0).caps[2].owner, 1);
}

TEST_F(Negotiate, SharedMemoryNeedsAHandleEveryDeviceAccepts)
{
	Cap dma_buf = common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF);
	Cap opaque = common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_OPAQUE_FD);
	// The tiled sets agree on everything but the handle: no way across.
	uda_device *a = add(1, {{{layout(TILED), opaque}}, {{layout(DRM_FORMAT_MOD_LINEAR), dma_buf}}});
	uda_device *b = add(2, {{{layout(TILED), dma_buf}}, {{layout(DRM_FORMAT_MOD_LINEAR), dma_buf}}});
	ListPtr out;
	ASSERT_EQ(negotiate({a, b}, &out), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	EXPECT_EQ(modifiers_of(out.get()), std::vector<uint64_t>{DRM_FORMAT_MOD_LINEAR});

	uda_device *c = add(3, {{{layout(TILED), opaque}}});
	EXPECT_EQ(negotiate({b, c}, &out), UDA_ERROR_INCOMPATIBLE);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("no handle type"), std::string::npos);
	// One device alone never exports: no handle needed.
	uda_device *lonely = add(4, {{{layout(TILED)}}});
	ASSERT_EQ(negotiate({lonely}, &out), UDA_SUCCESS);
	// Nor when the same device is listed twice (two uses of one device).
	ASSERT_EQ(negotiate({lonely, lonely}, &out), UDA_SUCCESS);
}

TEST_F(Negotiate, DeviceListsNeverRepeatASet)
{
	// A backend may list a set twice, and two sets that differ only in
	// the owner of a LOCAL capability become equal once the core makes the
	// device their owner. Only the first of equal sets is kept, so the
	// result can be serialized.
	Cap claimed_a = vendor_cap(0x1002, 1, {3}, UDA_CAPABILITY_FLAG_LOCAL, 0x98);
	Cap claimed_b = vendor_cap(0x1002, 1, {3}, UDA_CAPABILITY_FLAG_LOCAL, 0x99);
	uda_device *gpu = add(1, {{{layout(TILED), claimed_a}},
	                          {{layout(DRM_FORMAT_MOD_LINEAR)}},
	                          {{layout(TILED), claimed_b}},
	                          {{layout(DRM_FORMAT_MOD_LINEAR)}}});
	ListPtr out;
	ASSERT_EQ(negotiate({gpu}, &out), UDA_SUCCESS);
	EXPECT_EQ(modifiers_of(out.get()), (std::vector<uint64_t>{TILED, DRM_FORMAT_MOD_LINEAR}));
	size_t size = 0;
	EXPECT_EQ(uda_capability_set_list_serialize(out.get(), nullptr, 0, &size), UDA_SUCCESS)
	    << uda_context_get_error(ctx.get());

	uda_capability_set_list *own = nullptr;
	ASSERT_EQ(uda_device_get_capability_sets(gpu, &assertion, &render, &own), UDA_SUCCESS);
	ListPtr own_list(own);
	EXPECT_EQ(count_of(own), 2u);
}

TEST_F(Negotiate, DeviceFailureIsReported)
{
	struct test_device *broken = nullptr;
	uda_device *a = add(1, {{{layout(TILED)}}});
	uda_device *b = add(2, {{{layout(TILED)}}}, &broken);
	broken->fail_with = UDA_ERROR_BACKEND;
	ListPtr out;
	EXPECT_EQ(negotiate({a, b}, &out), UDA_ERROR_BACKEND);
	EXPECT_STREQ(uda_context_get_error(ctx.get()), "test device told to fail");
	// A device with nothing to offer is UNSUPPORTED, not an empty success.
	uda_device *empty = add(3, {});
	EXPECT_EQ(negotiate({a, empty}, &out), UDA_ERROR_UNSUPPORTED);
}

TEST_F(Negotiate, DevicesAreFoundByUuidAndDestroyedWithTheContext)
{
	unsigned destroyed = 0;
	struct test_device *t1 = nullptr, *t2 = nullptr;
	uda_device *a = add(1, {{{layout(TILED)}}}, &t1);
	uda_device *b = add(2, {{{layout(TILED)}}}, &t2);
	t1->destroyed = t2->destroyed = &destroyed;

	uint8_t uuid[UDA_UUID_SIZE] = {};
	uuid[15] = 2;
	uda_device *found = nullptr;
	ASSERT_EQ(uda_context_find_device(ctx.get(), uuid, UDA_DEVICE_API_ANY, &found), UDA_SUCCESS);
	EXPECT_EQ(found, b);
	uuid[15] = 7;
	EXPECT_EQ(uda_context_find_device(ctx.get(), uuid, UDA_DEVICE_API_ANY, &found), UDA_ERROR_NOT_FOUND);

	uint32_t count = 0;
	ASSERT_EQ(uda_context_enumerate_devices(ctx.get(), &count, nullptr), UDA_SUCCESS);
	ASSERT_EQ(count, 2u);
	uda_device *devices[2] = {};
	ASSERT_EQ(uda_context_enumerate_devices(ctx.get(), &count, devices), UDA_SUCCESS);
	EXPECT_EQ(devices[0], a);
	EXPECT_EQ(devices[1], b);
	count = 1;
	EXPECT_EQ(uda_context_enumerate_devices(ctx.get(), &count, devices), UDA_ERROR_BUFFER_TOO_SMALL);
	EXPECT_EQ(count, 1u);

	uda_device_info info = {};
	info.type = UDA_STRUCTURE_TYPE_DEVICE_INFO;
	ASSERT_EQ(uda_device_get_info(a, &info), UDA_SUCCESS);
	EXPECT_STREQ(info.name, "test device 1");
	EXPECT_STREQ(info.backend_name, "test");
	EXPECT_EQ(info.device_uuid[15], 1);
	EXPECT_EQ(info.driver_uuid[0], 0xd0);

	// A second device with the same UUID is refused and not taken over.
	uda_device *dup = nullptr;
	EXPECT_EQ(test_device_add(ctx.get(), "dup", 1, make_list(ctx.get(), {}).release(), &dup, nullptr),
	          UDA_ERROR_EXISTS);
	EXPECT_EQ(dup, nullptr);

	ctx.reset();
	EXPECT_EQ(destroyed, 2u);
}

TEST_F(Negotiate, EnumerationIntoATooSmallArrayFillsItAndSaysWhy)
{
	uda_device *a = add(1, {{{layout(TILED)}}});
	add(2, {{{layout(TILED)}}});
	add(3, {{{layout(TILED)}}});
	uda_device *devices[2] = {};
	uint32_t count = 1;
	EXPECT_EQ(uda_context_enumerate_devices(ctx.get(), &count, devices), UDA_ERROR_BUFFER_TOO_SMALL);
	EXPECT_EQ(count, 1u);
	EXPECT_EQ(devices[0], a);
	EXPECT_EQ(devices[1], nullptr);
	std::string message = uda_context_get_error(ctx.get());
	EXPECT_NE(message.find("3 devices"), std::string::npos) << message;
}

} // namespace

namespace
{

// A peer's list (a compositor's, deserialized) folds in after the devices.
TEST_F(Negotiate, PeerListsFoldInAfterTheDevices)
{
	uda_device *gpu = add(1, {{{layout(TILED), common(UDA_CAPABILITY_HANDLE, 1)}},
	                          {{layout(DRM_FORMAT_MOD_LINEAR), common(UDA_CAPABILITY_HANDLE, 1)},
	                           {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 64}}}});
	ListPtr peer = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR), common(UDA_CAPABILITY_HANDLE, 1)},
	                                      {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 256}}}});
	uda_negotiation_peer_info peer_info = {UDA_STRUCTURE_TYPE_NEGOTIATION_PEER_INFO, nullptr, peer.get()};
	uda_device_usage entry = {gpu, &render};
	uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, &peer_info, &assertion, 1, &entry};
	uda_capability_set_list *raw = nullptr;
	ASSERT_EQ(uda_negotiate(ctx.get(), &info, &raw), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	ListPtr out(raw);
	EXPECT_EQ(modifiers_of(out.get()), (std::vector<uint64_t>{DRM_FORMAT_MOD_LINEAR}));
	EXPECT_EQ(read_set(out.get(), 0).constraints[UDA_CONSTRAINT_PITCH_ALIGNMENT], 256u);

	// A peer sharing nothing is named in the error.
	ListPtr stranger = make_list(ctx.get(), {{{layout(fourcc_mod_code(NVIDIA, 1)), common(UDA_CAPABILITY_HANDLE, 1)}}});
	peer_info.sets = stranger.get();
	EXPECT_EQ(uda_negotiate(ctx.get(), &info, &raw), UDA_ERROR_INCOMPATIBLE);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("peer"), std::string::npos);

	// Only peer structs belong in the chain, and they need sets.
	peer_info.sets = nullptr;
	EXPECT_EQ(uda_negotiate(ctx.get(), &info, &raw), UDA_ERROR_INVALID_ARGUMENT);
	uda_assertion stray = assertion;
	info.next = &stray;
	EXPECT_EQ(uda_negotiate(ctx.get(), &info, &raw), UDA_ERROR_INVALID_ARGUMENT);
}

// A caller's own rules: an explicit modifier list (GBM's, a client's) and
// a preferred handle type, applied to the negotiated sets.
TEST_F(Negotiate, LayoutFilterKeepsTheCallersModifiersAndPrefersItsHandle)
{
	constexpr uint32_t DMA_BUF = UDA_HANDLE_TYPE_DMA_BUF, OPAQUE = UDA_HANDLE_TYPE_OPAQUE_FD;
	const Cap opaque{UDA_VENDOR_NONE, UDA_CAPABILITY_LAYOUT_OPAQUE, UDA_CAPABILITY_FLAG_REQUIRED,
	                 std::vector<uint8_t>(17, 0x5a)};
	uda_device *gpu = add(1, {{{opaque, common(UDA_CAPABILITY_HANDLE, OPAQUE)}},
	                          {{layout(TILED), common(UDA_CAPABILITY_HANDLE, OPAQUE)}},
	                          {{layout(DRM_FORMAT_MOD_LINEAR), common(UDA_CAPABILITY_HANDLE, OPAQUE)}},
	                          {{layout(TILED), common(UDA_CAPABILITY_HANDLE, DMA_BUF)}},
	                          {{layout(DRM_FORMAT_MOD_LINEAR), common(UDA_CAPABILITY_HANDLE, DMA_BUF)}}});
	uda_device_usage entry = {gpu, &render};
	const uint64_t allowed[] = {DRM_FORMAT_MOD_LINEAR, fourcc_mod_code(NVIDIA, 7), TILED};
	uda_negotiation_layout_filter filter = {UDA_STRUCTURE_TYPE_NEGOTIATION_LAYOUT_FILTER, nullptr, 3, allowed,
	                                        UDA_HANDLE_TYPE_DMA_BUF};
	uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, &filter, &assertion, 1, &entry};
	uda_capability_set_list *raw = nullptr;
	ASSERT_EQ(uda_negotiate(ctx.get(), &info, &raw), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	ListPtr out(raw);
	// The opaque layout is gone; DMA-BUF sets lead, each group in the
	// device's order.
	EXPECT_EQ(modifiers_of(out.get()),
	          (std::vector<uint64_t>{TILED, DRM_FORMAT_MOD_LINEAR, TILED, DRM_FORMAT_MOD_LINEAR}));
	EXPECT_EQ(read_set(out.get(), 0).caps[1], common(UDA_CAPABILITY_HANDLE, DMA_BUF));
	EXPECT_EQ(read_set(out.get(), 2).caps[1], common(UDA_CAPABILITY_HANDLE, OPAQUE));

	// No modifiers: every layout stays, only the order changes.
	filter.modifier_count = 0;
	ASSERT_EQ(uda_negotiate(ctx.get(), &info, &raw), UDA_SUCCESS);
	out.reset(raw);
	ASSERT_EQ(count_of(out.get()), 5u);
	EXPECT_EQ(read_set(out.get(), 0).caps[1], common(UDA_CAPABILITY_HANDLE, DMA_BUF));
	EXPECT_EQ(read_set(out.get(), 2).caps[0], opaque);

	// Nothing allowed is shared: incompatible, and said so.
	const uint64_t foreign[] = {fourcc_mod_code(NVIDIA, 7)};
	filter.modifier_count = 1;
	filter.modifiers = foreign;
	EXPECT_EQ(uda_negotiate(ctx.get(), &info, &raw), UDA_ERROR_INCOMPATIBLE);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("modifiers the caller allows"), std::string::npos);

	// Bad filters: no array, too many, an unknown handle, two filters.
	filter.modifiers = nullptr;
	EXPECT_EQ(uda_negotiate(ctx.get(), &info, &raw), UDA_ERROR_INVALID_ARGUMENT);
	filter.modifiers = foreign;
	filter.modifier_count = UDA_MAX_FILTER_MODIFIERS + 1;
	EXPECT_EQ(uda_negotiate(ctx.get(), &info, &raw), UDA_ERROR_INVALID_ARGUMENT);
	filter.modifier_count = 1;
	filter.preferred_handle_type = static_cast<uda_handle_type>(99);
	EXPECT_EQ(uda_negotiate(ctx.get(), &info, &raw), UDA_ERROR_INVALID_ARGUMENT);
	filter.preferred_handle_type = UDA_HANDLE_TYPE_NONE;
	uda_negotiation_layout_filter second = filter;
	filter.next = &second;
	EXPECT_EQ(uda_negotiate(ctx.get(), &info, &raw), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("more than one layout filter"), std::string::npos);
}

// A consumer's order of layouts (a compositor's feedback tranches): sets
// move stably into rank order, unranked ones last; the ranking survives
// beside a filter, and bad rankings are refused.
TEST_F(Negotiate, LayoutRankingOrdersTheSetsAsTheConsumerPrefers)
{
	constexpr uint64_t X_TILED = I915_FORMAT_MOD_X_TILED, CCS = I915_FORMAT_MOD_Y_TILED_CCS;
	uda_device *gpu = add(1, {{{layout(CCS), common(UDA_CAPABILITY_HANDLE, 1)}},
	                          {{layout(TILED), common(UDA_CAPABILITY_HANDLE, 1)}},
	                          {{layout(X_TILED), common(UDA_CAPABILITY_HANDLE, 1)}},
	                          {{layout(DRM_FORMAT_MOD_LINEAR), common(UDA_CAPABILITY_HANDLE, 1)}}});
	uda_device_usage entry = {gpu, &render};
	// A scanout tranche of X_TILED (rank 0), then a render tranche of
	// TILED and CCS (rank 1); LINEAR unranked.
	const uint64_t modifiers[] = {X_TILED, TILED, CCS};
	const uint32_t ranks[] = {0, 1, 1};
	uda_negotiation_layout_ranking ranking = {UDA_STRUCTURE_TYPE_NEGOTIATION_LAYOUT_RANKING, nullptr, 3, modifiers,
	                                          ranks};
	uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, &ranking, &assertion, 1, &entry};
	uda_capability_set_list *raw = nullptr;
	ASSERT_EQ(uda_negotiate(ctx.get(), &info, &raw), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	ListPtr out(raw);
	EXPECT_EQ(modifiers_of(out.get()), (std::vector<uint64_t>{X_TILED, CCS, TILED, DRM_FORMAT_MOD_LINEAR}));

	// With a filter in the same chain: the filter keeps, the ranking orders.
	const uint64_t allowed[] = {TILED, X_TILED};
	uda_negotiation_layout_filter filter = {UDA_STRUCTURE_TYPE_NEGOTIATION_LAYOUT_FILTER, &ranking, 2, allowed,
	                                        UDA_HANDLE_TYPE_NONE};
	info.next = &filter;
	ASSERT_EQ(uda_negotiate(ctx.get(), &info, &raw), UDA_SUCCESS);
	out.reset(raw);
	EXPECT_EQ(modifiers_of(out.get()), (std::vector<uint64_t>{X_TILED, TILED}));

	// Bad rankings: empty, no arrays, too long, two of them.
	info.next = &ranking;
	ranking.count = 0;
	EXPECT_EQ(uda_negotiate(ctx.get(), &info, &raw), UDA_ERROR_INVALID_ARGUMENT);
	ranking.count = 3;
	ranking.ranks = nullptr;
	EXPECT_EQ(uda_negotiate(ctx.get(), &info, &raw), UDA_ERROR_INVALID_ARGUMENT);
	ranking.ranks = ranks;
	ranking.count = UDA_MAX_FILTER_MODIFIERS + 1;
	EXPECT_EQ(uda_negotiate(ctx.get(), &info, &raw), UDA_ERROR_INVALID_ARGUMENT);
	ranking.count = 3;
	uda_negotiation_layout_ranking second = ranking;
	ranking.next = &second;
	EXPECT_EQ(uda_negotiate(ctx.get(), &info, &raw), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("more than one layout ranking"), std::string::npos);
}

} // namespace
