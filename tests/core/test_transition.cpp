// uda_allocation_transition and uda_allocation_reallocate over test
// devices with host memory: what the core decides from capability sets
// and layouts, what the owner of a LOCAL capability adds, and the copy.
#include <drm_fourcc.h>

#include <cstring>
#include <unistd.h>

#include "set_spec.hpp"
#include "test_device.h"

using namespace uda_test;

namespace
{

constexpr uint16_t COMPRESSION = 7;
constexpr uint64_t TILED = fourcc_mod_code(AMD, 5);
constexpr uint32_t WIDTH = 64, HEIGHT = 32;

SetSpec linear_set(uda_handle_type handle, uint64_t pitch_alignment, std::vector<Cap> extra = {})
{
	SetSpec spec{{layout(DRM_FORMAT_MOD_LINEAR), common(UDA_CAPABILITY_HANDLE, handle),
	              common(UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE)},
	             {{UDA_CONSTRAINT_PITCH_ALIGNMENT, pitch_alignment}}};
	spec.caps.insert(spec.caps.end(), extra.begin(), extra.end());
	return spec;
}

class Transition : public ::testing::Test
{
      protected:
	ContextPtr ctx = make_context();
	uda_usage_atom render_atom = {UDA_VENDOR_NONE, UDA_USAGE_RENDER_TARGET, 0, nullptr};
	uda_usage_atom sampled_atom = {UDA_VENDOR_NONE, UDA_USAGE_SAMPLED, 0, nullptr};
	uda_usage_atom storage_atom = {UDA_VENDOR_NONE, UDA_USAGE_STORAGE, 0, nullptr};
	uda_usage render = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &render_atom};
	uda_usage sampled = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &sampled_atom};
	uda_usage storage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &storage_atom};
	uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, WIDTH, HEIGHT, DRM_FORMAT_XRGB8888, 0};

	struct test_device *owner_test = nullptr;
	// The owner keeps a compression only it understands.
	uda_device *owner = add(1, {linear_set(UDA_HANDLE_TYPE_MEMFD, 256,
	                                       {vendor_cap(TEST_VENDOR, COMPRESSION, {1}, UDA_CAPABILITY_FLAG_LOCAL)})},
	                        &owner_test);
	uda_device *reader = add(2, {linear_set(UDA_HANDLE_TYPE_MEMFD, 64)});
	uda_device *tiled_only = add(3, {{{layout(TILED), common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_MEMFD)}}});
	uda_device *wide_pitch = add(4, {linear_set(UDA_HANDLE_TYPE_MEMFD, 1024)});
	uda_device *dma_buf_only = add(5, {linear_set(UDA_HANDLE_TYPE_DMA_BUF, 64)});

	AllocationPtr allocation = allocate({{owner, &render}});

	uda_device *add(uint8_t id, const std::vector<SetSpec> &sets, struct test_device **test = nullptr)
	{
		uda_device *device = nullptr;
		std::string name = "device " + std::to_string(id);
		EXPECT_EQ(test_device_add_with_memory(ctx.get(), name.c_str(), id, make_list(ctx.get(), sets).release(),
		                                      &device, test),
		          UDA_SUCCESS);
		if (test && *test)
			(*test)->compression_name = COMPRESSION;
		return device;
	}

	AllocationPtr allocate(std::vector<uda_device_usage> devices)
	{
		uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion,
		                             static_cast<uint32_t>(devices.size()), devices.data()};
		uda_allocation *out = nullptr;
		EXPECT_EQ(uda_negotiate_allocate(ctx.get(), &info, &out, nullptr, nullptr), UDA_SUCCESS)
			<< uda_context_get_error(ctx.get());
		return AllocationPtr(out);
	}

	uda_result transition(std::vector<uda_device_usage> from, std::vector<uda_device_usage> to,
	                      uda_transition *out)
	{
		uda_transition_info info = {UDA_STRUCTURE_TYPE_TRANSITION_INFO, nullptr,
		                            static_cast<uint32_t>(from.size()), from.data(),
		                            static_cast<uint32_t>(to.size()), to.data()};
		*out = {};
		out->type = UDA_STRUCTURE_TYPE_TRANSITION;
		return uda_allocation_transition(allocation.get(), &info, out);
	}
};

TEST_F(Transition, SteadyStateAsksNoDevice)
{
	const unsigned queries = owner_test->query_count;
	uda_transition t;
	ASSERT_EQ(transition({{owner, &render}}, {{owner, &render}}, &t), UDA_SUCCESS);
	EXPECT_EQ(t.kind, UDA_TRANSITION_NONE);
	EXPECT_EQ(t.op_count, 0u);
	EXPECT_EQ(owner_test->query_count, queries);
	EXPECT_EQ(owner_test->transition_count, 0u);

	// Same devices and usages in another order, usages equal by value.
	uda_usage_atom render_copy = render_atom;
	uda_usage render_again = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &render_copy};
	ASSERT_EQ(transition({{owner, &render}, {reader, &sampled}}, {{reader, &sampled}, {owner, &render_again}}, &t),
	          UDA_SUCCESS);
	EXPECT_EQ(t.kind, UDA_TRANSITION_NONE);
	EXPECT_EQ(owner_test->query_count, queries);
}

TEST_F(Transition, SharingResolvesTheOwnersLocalCapabilityAndStoppingRestoresIt)
{
	const uda_capability_set_list *set = nullptr;
	ASSERT_EQ(uda_allocation_get_capability_set(allocation.get(), &set), UDA_SUCCESS);
	uint8_t owner_uuid[UDA_UUID_SIZE] = {};
	owner_uuid[15] = 1;
	uda_capability cap;
	ASSERT_TRUE(uda_backend_find_capability(set, 0, TEST_VENDOR, COMPRESSION, owner_uuid, &cap))
		<< "the allocation keeps its device's LOCAL capability";

	uda_transition t;
	ASSERT_EQ(transition({{owner, &render}}, {{owner, &render}, {reader, &sampled}}, &t), UDA_SUCCESS)
		<< uda_context_get_error(ctx.get());
	EXPECT_EQ(t.kind, UDA_TRANSITION_DEVICE_OPS) << t.reason;
	ASSERT_EQ(t.op_count, 1u);
	EXPECT_EQ(t.ops[0].kind, UDA_TRANSITION_OP_RELEASE);
	EXPECT_EQ(t.ops[0].device, owner);
	EXPECT_EQ(t.ops[0].capability_vendor, TEST_VENDOR);
	EXPECT_EQ(t.ops[0].capability_name, COMPRESSION);

	// The producer hands over and stops using it: still a release.
	ASSERT_EQ(transition({{owner, &render}}, {{reader, &sampled}}, &t), UDA_SUCCESS);
	EXPECT_EQ(t.kind, UDA_TRANSITION_DEVICE_OPS);
	ASSERT_EQ(t.op_count, 1u);
	EXPECT_EQ(t.ops[0].kind, UDA_TRANSITION_OP_RELEASE);

	ASSERT_EQ(transition({{owner, &render}, {reader, &sampled}}, {{owner, &render}}, &t), UDA_SUCCESS);
	EXPECT_EQ(t.kind, UDA_TRANSITION_DEVICE_OPS);
	ASSERT_EQ(t.op_count, 1u);
	EXPECT_EQ(t.ops[0].kind, UDA_TRANSITION_OP_ACQUIRE);

	// Other devices' usages change, the owner's share does not: nothing.
	ASSERT_EQ(transition({{owner, &render}, {reader, &sampled}}, {{owner, &render}, {reader, &render}}, &t),
	          UDA_SUCCESS);
	EXPECT_EQ(t.kind, UDA_TRANSITION_NONE);
}

TEST_F(Transition, EveryReasonToReallocateIsNamed)
{
	struct Case {
		uda_device *device;
		const char *words;
	} cases[] = {
		{tiled_only, "shares no capability set"},
		{wide_pitch, "layout breaks its constraints"},
		{dma_buf_only, "no handle type"},
	};
	for (const Case &c : cases) {
		uda_transition t;
		ASSERT_EQ(transition({{owner, &render}}, {{owner, &render}, {c.device, &sampled}}, &t), UDA_SUCCESS);
		EXPECT_EQ(t.kind, UDA_TRANSITION_REALLOCATE);
		std::string reason = t.reason;
		EXPECT_NE(reason.find(c.words), std::string::npos) << reason;
		uda_device_info info = {UDA_STRUCTURE_TYPE_DEVICE_INFO};
		ASSERT_EQ(uda_device_get_info(c.device, &info), UDA_SUCCESS);
		EXPECT_NE(reason.find(info.name), std::string::npos) << reason;
		// The owner still resolves its compression, for the copy.
		ASSERT_EQ(t.op_count, 1u);
		EXPECT_EQ(t.ops[0].kind, UDA_TRANSITION_OP_RELEASE);
	}

	// A device that never imports.
	uda_device *no_import = nullptr;
	ASSERT_EQ(test_device_add(ctx.get(), "no import", 9,
	                          make_list(ctx.get(), {linear_set(UDA_HANDLE_TYPE_MEMFD, 64)}).release(), &no_import,
	                          nullptr),
	          UDA_SUCCESS);
	uda_transition t;
	ASSERT_EQ(transition({{owner, &render}}, {{no_import, &sampled}}, &t), UDA_SUCCESS);
	EXPECT_EQ(t.kind, UDA_TRANSITION_REALLOCATE);
	EXPECT_NE(std::string(t.reason).find("does not import"), std::string::npos) << t.reason;
}

TEST_F(Transition, TheOwnerRefusesAUsageItsLocalCapabilityCannotServe)
{
	uda_transition t;
	ASSERT_EQ(transition({{owner, &render}}, {{owner, &storage}}, &t), UDA_SUCCESS);
	EXPECT_EQ(t.kind, UDA_TRANSITION_REALLOCATE);
	EXPECT_NE(std::string(t.reason).find("storage"), std::string::npos) << t.reason;
	ASSERT_EQ(t.op_count, 1u);
	EXPECT_EQ(t.ops[0].kind, UDA_TRANSITION_OP_RELEASE);
}

TEST_F(Transition, ReallocateCopiesThePixelsIntoTheNewLayout)
{
	uda_color_info color = {UDA_STRUCTURE_TYPE_COLOR_INFO};
	color.primaries = UDA_COLOR_PRIMARIES_BT2020;
	color.transfer = UDA_TRANSFER_FUNCTION_PQ;
	ASSERT_EQ(uda_allocation_set_color_info(allocation.get(), &color), UDA_SUCCESS);
	uda_allocation_metadata before;
	ASSERT_EQ(uda_allocation_get_metadata(allocation.get(), &before), UDA_SUCCESS);
	void *pointer = nullptr;
	ASSERT_EQ(uda_allocation_map(allocation.get(), UDA_ACCESS_WRITE, &pointer), UDA_SUCCESS);
	for (uint32_t y = 0; y < HEIGHT; y++)
		for (uint32_t x = 0; x < WIDTH; x++) {
			const uint32_t pixel = x | y << 8 | 0x5a << 16;
			std::memcpy(static_cast<uint8_t *>(pointer) + y * before.planes[0].pitch + x * 4, &pixel, 4);
		}
	ASSERT_EQ(uda_allocation_unmap(allocation.get()), UDA_SUCCESS);

	std::vector<uda_device_usage> next = {{owner, &render}, {wide_pitch, &sampled}};
	uda_reallocate_info info = {UDA_STRUCTURE_TYPE_REALLOCATE_INFO, nullptr, 2, next.data(),
	                            UDA_REALLOCATE_COPY_CONTENTS};
	uda_allocation *raw = nullptr;
	ASSERT_EQ(uda_allocation_reallocate(allocation.get(), &info, &raw), UDA_SUCCESS)
		<< uda_context_get_error(ctx.get());
	AllocationPtr fresh(raw);

	uda_allocation_metadata after;
	ASSERT_EQ(uda_allocation_get_metadata(fresh.get(), &after), UDA_SUCCESS);
	EXPECT_EQ(after.planes[0].pitch % 1024, 0u);
	EXPECT_NE(after.planes[0].pitch, before.planes[0].pitch);
	uda_color_info kept = {UDA_STRUCTURE_TYPE_COLOR_INFO};
	ASSERT_EQ(uda_allocation_get_color_info(fresh.get(), &kept), UDA_SUCCESS);
	EXPECT_EQ(kept.primaries, UDA_COLOR_PRIMARIES_BT2020);
	EXPECT_EQ(kept.transfer, UDA_TRANSFER_FUNCTION_PQ);

	ASSERT_EQ(uda_allocation_map(fresh.get(), UDA_ACCESS_READ, &pointer), UDA_SUCCESS);
	size_t wrong = 0;
	for (uint32_t y = 0; y < HEIGHT; y++)
		for (uint32_t x = 0; x < WIDTH; x++) {
			uint32_t pixel;
			std::memcpy(&pixel, static_cast<const uint8_t *>(pointer) + y * after.planes[0].pitch + x * 4, 4);
			wrong += pixel != (x | y << 8 | 0x5a << 16);
		}
	ASSERT_EQ(uda_allocation_unmap(fresh.get()), UDA_SUCCESS);
	EXPECT_EQ(wrong, 0u);

	// The new memory serves the new usages as it is.
	uda_transition t;
	uda_transition_info check = {UDA_STRUCTURE_TYPE_TRANSITION_INFO, nullptr, 1, next.data(), 2, next.data()};
	t = {};
	t.type = UDA_STRUCTURE_TYPE_TRANSITION;
	check.from_count = 1; // only the owner before: the reader joins
	ASSERT_EQ(uda_allocation_transition(fresh.get(), &check, &t), UDA_SUCCESS);
	EXPECT_NE(t.kind, UDA_TRANSITION_REALLOCATE) << t.reason;
}

TEST_F(Transition, ReallocateWithoutCopyLeavesTheOldAllocationAlone)
{
	std::vector<uda_device_usage> next = {{tiled_only, &sampled}};
	uda_reallocate_info info = {UDA_STRUCTURE_TYPE_REALLOCATE_INFO, nullptr, 1, next.data(), 0};
	uda_allocation *raw = nullptr;
	ASSERT_EQ(uda_allocation_reallocate(allocation.get(), &info, &raw), UDA_SUCCESS)
		<< uda_context_get_error(ctx.get());
	AllocationPtr fresh(raw);
	const uda_capability_set_list *set = nullptr;
	ASSERT_EQ(uda_allocation_get_capability_set(fresh.get(), &set), UDA_SUCCESS);
	EXPECT_EQ(modifiers_of(set), std::vector<uint64_t>{TILED});
	uda_device *device = nullptr;
	ASSERT_EQ(uda_allocation_get_device(allocation.get(), &device), UDA_SUCCESS);
	EXPECT_EQ(device, owner);
}

TEST_F(Transition, ReallocateReportsWhatCannotBeCopied)
{
	// Tiled memory has no rows the CPU knows, and no device copies.
	AllocationPtr tiled = allocate({{tiled_only, &sampled}});
	std::vector<uda_device_usage> next = {{owner, &render}};
	uda_reallocate_info info = {UDA_STRUCTURE_TYPE_REALLOCATE_INFO, nullptr, 1, next.data(),
	                            UDA_REALLOCATE_COPY_CONTENTS};
	uda_allocation *raw = reinterpret_cast<uda_allocation *>(0x1);
	EXPECT_EQ(uda_allocation_reallocate(tiled.get(), &info, &raw), UDA_ERROR_UNSUPPORTED);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("no device can read both"), std::string::npos)
		<< uda_context_get_error(ctx.get());
}

TEST_F(Transition, MetadataForAnotherDeviceLeavesTheOwnersLocalCapabilitiesOut)
{
	AllocationPtr shared = allocate({{owner, &render}, {reader, &sampled}});
	ASSERT_TRUE(shared);
	uint8_t owner_uuid[UDA_UUID_SIZE] = {}, reader_uuid[UDA_UUID_SIZE] = {};
	owner_uuid[15] = 1;
	reader_uuid[15] = 2;
	uda_capability cap;
	const uda_capability_set_list *set = nullptr;
	ASSERT_EQ(uda_allocation_get_capability_set(shared.get(), &set), UDA_SUCCESS);
	ASSERT_TRUE(uda_backend_find_capability(set, 0, TEST_VENDOR, COMPRESSION, owner_uuid, &cap))
		<< "the negotiated set keeps the owner's LOCAL capability";

	auto metadata_for = [&](const uint8_t *uuid) {
		size_t size = 0;
		EXPECT_EQ(uda_allocation_serialize_metadata_for(shared.get(), UDA_HANDLE_TYPE_MEMFD, uuid, nullptr, 0,
		                                                &size),
		          UDA_SUCCESS);
		std::vector<uint8_t> bytes(size);
		EXPECT_EQ(uda_allocation_serialize_metadata_for(shared.get(), UDA_HANDLE_TYPE_MEMFD, uuid, bytes.data(),
		                                                size, &size),
		          UDA_SUCCESS)
			<< uda_context_get_error(ctx.get());
		return bytes;
	};
	auto import_on = [&](uda_device *device, const std::vector<uint8_t> &bytes) {
		int fd = -1;
		EXPECT_EQ(uda_allocation_export(shared.get(), UDA_HANDLE_TYPE_MEMFD, &fd), UDA_SUCCESS);
		uda_allocation *imported = nullptr;
		EXPECT_EQ(uda_import_serialized(device, fd, bytes.data(), bytes.size(), &imported), UDA_SUCCESS)
			<< uda_context_get_error(ctx.get());
		close(fd);
		return AllocationPtr(imported);
	};

	const std::vector<uint8_t> for_reader = metadata_for(reader_uuid);
	const std::vector<uint8_t> for_owner = metadata_for(owner_uuid);
	EXPECT_LT(for_reader.size(), for_owner.size());
	AllocationPtr in_reader = import_on(reader, for_reader);
	ASSERT_TRUE(in_reader);
	ASSERT_EQ(uda_allocation_get_capability_set(in_reader.get(), &set), UDA_SUCCESS);
	EXPECT_FALSE(uda_backend_find_capability(set, 0, TEST_VENDOR, COMPRESSION, owner_uuid, &cap));
	uint32_t caps = 0;
	ASSERT_EQ(uda_capability_set_list_get_capability_count(set, 0, &caps), UDA_SUCCESS);
	for (uint32_t i = 0; i < caps; i++) {
		ASSERT_EQ(uda_capability_set_list_get_capability(set, 0, i, &cap), UDA_SUCCESS);
		EXPECT_FALSE(cap.flags & UDA_CAPABILITY_FLAG_LOCAL) << "capability " << cap.name;
	}

	// The owner (another process of the same hardware, say) sees it.
	AllocationPtr in_owner = import_on(owner, for_owner);
	ASSERT_TRUE(in_owner);
	ASSERT_EQ(uda_allocation_get_capability_set(in_owner.get(), &set), UDA_SUCCESS);
	EXPECT_TRUE(uda_backend_find_capability(set, 0, TEST_VENDOR, COMPRESSION, owner_uuid, &cap));

	uda_transition t;
	uda_transition_info info = {UDA_STRUCTURE_TYPE_TRANSITION_INFO};
	std::vector<uda_device_usage> from = {{reader, &sampled}}, to = {{reader, &sampled}, {owner, &render}};
	info.from_count = 1;
	info.from = from.data();
	info.to_count = 2;
	info.to = to.data();
	t = {};
	t.type = UDA_STRUCTURE_TYPE_TRANSITION;
	// The reader's import has no LOCAL capability to act on.
	ASSERT_EQ(uda_allocation_transition(in_reader.get(), &info, &t), UDA_SUCCESS);
	EXPECT_EQ(t.kind, UDA_TRANSITION_NONE) << t.reason;

	EXPECT_EQ(uda_allocation_serialize_metadata_for(shared.get(), UDA_HANDLE_TYPE_MEMFD, nullptr, nullptr, 0,
	                                                nullptr),
	          UDA_ERROR_INVALID_ARGUMENT);
}

TEST_F(Transition, BadArgumentsAreRefused)
{
	std::vector<uda_device_usage> one = {{owner, &render}};
	std::vector<uda_device_usage> twice = {{owner, &render}, {owner, &sampled}};
	uda_transition t = {};
	t.type = UDA_STRUCTURE_TYPE_TRANSITION;
	uda_transition_info info = {UDA_STRUCTURE_TYPE_TRANSITION_INFO, nullptr, 1, one.data(), 1, one.data()};
	EXPECT_EQ(uda_allocation_transition(nullptr, &info, &t), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_allocation_transition(allocation.get(), nullptr, &t), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_allocation_transition(allocation.get(), &info, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	uda_transition wrong_type = {};
	EXPECT_EQ(uda_allocation_transition(allocation.get(), &info, &wrong_type), UDA_ERROR_INVALID_ARGUMENT);

	uda_transition_info bad = info;
	bad.to_count = 0;
	EXPECT_EQ(uda_allocation_transition(allocation.get(), &bad, &t), UDA_ERROR_INVALID_ARGUMENT);
	bad = info;
	bad.to = twice.data();
	bad.to_count = 2;
	EXPECT_EQ(uda_allocation_transition(allocation.get(), &bad, &t), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("twice"), std::string::npos);
	bad = info;
	bad.from = nullptr;
	EXPECT_EQ(uda_allocation_transition(allocation.get(), &bad, &t), UDA_ERROR_INVALID_ARGUMENT);
	uda_usage empty = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 0, nullptr};
	std::vector<uda_device_usage> empty_usage = {{owner, &empty}};
	bad = info;
	bad.to = empty_usage.data();
	EXPECT_EQ(uda_allocation_transition(allocation.get(), &bad, &t), UDA_ERROR_INVALID_ARGUMENT);

	// A device of another context.
	ContextPtr other = make_context();
	uda_device *stranger = nullptr;
	ASSERT_EQ(test_device_add(other.get(), "stranger", 1,
	                          make_list(other.get(), {linear_set(UDA_HANDLE_TYPE_MEMFD, 64)}).release(), &stranger,
	                          nullptr),
	          UDA_SUCCESS);
	std::vector<uda_device_usage> foreign = {{stranger, &render}};
	bad = info;
	bad.to = foreign.data();
	EXPECT_EQ(uda_allocation_transition(allocation.get(), &bad, &t), UDA_ERROR_INVALID_ARGUMENT);

	// Output structs nobody fills.
	std::vector<uda_device_usage> shared = {{owner, &render}, {reader, &sampled}};
	info.to = shared.data();
	info.to_count = 2;
	uda_color_info stray = {UDA_STRUCTURE_TYPE_COLOR_INFO};
	t.next = &stray;
	EXPECT_EQ(uda_allocation_transition(allocation.get(), &info, &t), UDA_ERROR_UNSUPPORTED);

	uda_allocation *out = nullptr;
	uda_reallocate_info realloc = {UDA_STRUCTURE_TYPE_REALLOCATE_INFO, nullptr, 1, one.data(), 0x80};
	EXPECT_EQ(uda_allocation_reallocate(allocation.get(), &realloc, &out), UDA_ERROR_INVALID_ARGUMENT);
	realloc.flags = 0;
	EXPECT_EQ(uda_allocation_reallocate(nullptr, &realloc, &out), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_allocation_reallocate(allocation.get(), nullptr, &out), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_allocation_reallocate(allocation.get(), &realloc, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	realloc.device_count = 0;
	EXPECT_EQ(uda_allocation_reallocate(allocation.get(), &realloc, &out), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(out, nullptr);
}

} // namespace
