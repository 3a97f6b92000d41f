// Every public entry point with bad arguments: an error code, a message on
// the context where there is one, no crash, nothing written to outputs.
#include <drm_fourcc.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "set_spec.hpp"
#include "test_device.h"

using namespace uda_test;

namespace
{

void count_log(uda_log_level, const char *, void *user)
{
	++*static_cast<int *>(user);
}

class BadArguments : public ::testing::Test
{
      protected:
	int messages = 0;
	uda_context *ctx = nullptr;
	uda_context *other = nullptr;
	uda_capability_set_builder *builder = nullptr;
	uda_capability_set_list *list = nullptr;
	uda_device *device = nullptr;
	uda_usage_atom atom = {UDA_VENDOR_NONE, UDA_USAGE_SAMPLED, 0, nullptr};
	uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &atom};
	uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 64, 64, DRM_FORMAT_ARGB8888, 0};

	void SetUp() override
	{
		uda_context_create_info info = bare_context_info();
		info.log_level = UDA_LOG_DEBUG;
		info.log_callback = count_log;
		info.log_user_data = &messages;
		ASSERT_EQ(uda_context_create(&info, &ctx), UDA_SUCCESS);
		uda_context_create_info other_info = bare_context_info();
		ASSERT_EQ(uda_context_create(&other_info, &other), UDA_SUCCESS);
		ASSERT_EQ(uda_capability_set_builder_create(ctx, &builder), UDA_SUCCESS);
		ASSERT_EQ(uda_capability_set_builder_add_layout(builder, DRM_FORMAT_MOD_LINEAR, 0), UDA_SUCCESS);
		ASSERT_EQ(uda_capability_set_list_create(ctx, &list), UDA_SUCCESS);
		ASSERT_EQ(uda_capability_set_list_append_set(list, builder), UDA_SUCCESS);
		uda_capability_set_list *copy = nullptr;
		ASSERT_EQ(uda_capability_set_list_copy(list, &copy), UDA_SUCCESS);
		ASSERT_EQ(test_device_add(ctx, "dev", 1, copy, &device, nullptr), UDA_SUCCESS);
		messages = 0;
	}
	void TearDown() override
	{
		uda_capability_set_list_destroy(list);
		uda_capability_set_builder_destroy(builder);
		uda_context_destroy(ctx);
		uda_context_destroy(other);
	}
};

// The call fails with `code` and leaves a message on ctx.
#define EXPECT_FAILS_WITH_MESSAGE(call, code)                                                                          \
	do {                                                                                                           \
		int before = messages;                                                                                 \
		EXPECT_EQ((call), (code)) << #call;                                                                    \
		EXPECT_GT(messages, before) << "no message for " #call;                                                \
		EXPECT_STRNE(uda_context_get_error(ctx), "") << #call;                                                 \
	} while (0)

// Without a context (or object) to hold a message, only the code.
#define EXPECT_FAILS(call) EXPECT_EQ((call), UDA_ERROR_INVALID_ARGUMENT) << #call

TEST_F(BadArguments, Builders)
{
	uda_capability_set_builder *b = nullptr;
	EXPECT_FAILS(uda_capability_set_builder_create(nullptr, &b));
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_builder_create(ctx, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS(uda_capability_set_builder_reset(nullptr));
	EXPECT_FAILS(uda_capability_set_builder_set_constraint(nullptr, UDA_CONSTRAINT_MAX_PITCH, 1));
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_COUNT, 1),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(
	    uda_capability_set_builder_set_constraint(builder, static_cast<uda_constraint>(-3), 1),
	    UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS(uda_capability_set_builder_add_capability(nullptr, nullptr));
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_builder_add_capability(builder, nullptr),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS(uda_capability_set_builder_add_layout(nullptr, 0, 0));
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_builder_add_layout(builder, 0, 0x100), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS(uda_capability_set_builder_add_u32(nullptr, UDA_CAPABILITY_HANDLE, 1, 0));
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_builder_add_u32(builder, UDA_CAPABILITY_LAYOUT, 1, 0),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(b, nullptr);
}

TEST_F(BadArguments, Lists)
{
	uda_capability_set_list *out = nullptr;
	uint32_t count = 0;
	bool present = false;
	uint64_t value = 0;
	uda_capability cap;
	EXPECT_FAILS(uda_capability_set_list_create(nullptr, &out));
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_create(ctx, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS(uda_capability_set_list_append_set(nullptr, builder));
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_append_set(list, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	uda_capability_set_builder *foreign = nullptr;
	ASSERT_EQ(uda_capability_set_builder_create(other, &foreign), UDA_SUCCESS);
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_append_set(list, foreign), UDA_ERROR_INVALID_ARGUMENT);
	uda_capability_set_builder_destroy(foreign);
	EXPECT_FAILS(uda_capability_set_list_append_copy(nullptr, list, 0));
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_append_copy(list, nullptr, 0), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_append_copy(list, list, 7), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS(uda_capability_set_list_copy(nullptr, &out));
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_copy(list, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS(uda_capability_set_list_get_count(nullptr, &count));
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_get_count(list, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS(uda_capability_set_list_get_constraint(nullptr, 0, UDA_CONSTRAINT_MAX_PITCH, &present, &value));
	EXPECT_FAILS_WITH_MESSAGE(
	    uda_capability_set_list_get_constraint(list, 0, UDA_CONSTRAINT_MAX_PITCH, nullptr, &value),
	    UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(
	    uda_capability_set_list_get_constraint(list, 0, UDA_CONSTRAINT_COUNT, &present, &value),
	    UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(
	    uda_capability_set_list_get_constraint(list, 1, UDA_CONSTRAINT_MAX_PITCH, &present, &value),
	    UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS(uda_capability_set_list_get_capability_count(nullptr, 0, &count));
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_get_capability_count(list, UINT32_MAX, &count),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_get_capability_count(list, 0, nullptr),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS(uda_capability_set_list_get_capability(nullptr, 0, 0, &cap));
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_get_capability(list, 0, 1, &cap), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_get_capability(list, 1, 0, &cap), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_get_capability(list, 0, 0, nullptr),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS(uda_capability_set_list_get_layout(nullptr, 0, &cap));
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_get_layout(list, 3, &cap), UDA_ERROR_INVALID_ARGUMENT);
	uint64_t modifier;
	EXPECT_FAILS(uda_capability_set_list_get_modifier(nullptr, 0, &modifier));
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_get_modifier(list, 3, &modifier), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_get_modifier(list, 0, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	bool equal;
	EXPECT_FAILS(uda_capability_set_list_sets_equal(nullptr, 0, list, 0, &equal));
	EXPECT_FAILS(uda_capability_set_list_sets_equal(list, 0, nullptr, 0, &equal));
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_sets_equal(list, 0, list, 1, &equal),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_sets_equal(list, 0, list, 0, nullptr),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS(uda_capability_set_list_intersect(nullptr, list, &out));
	EXPECT_FAILS(uda_capability_set_list_intersect(list, nullptr, &out));
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_intersect(list, list, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(out, nullptr);
}

TEST_F(BadArguments, ListCountOverflow)
{
	uda_capability_set_list *big = nullptr;
	ASSERT_EQ(uda_capability_set_list_create(ctx, &big), UDA_SUCCESS);
	// Distinct sets (a list to serialize must not repeat one).
	for (uint32_t i = 0; i < UDA_MAX_SETS_PER_LIST; i++) {
		ASSERT_EQ(uda_capability_set_builder_set_constraint(builder, UDA_CONSTRAINT_MAX_WIDTH, i + 1),
		          UDA_SUCCESS);
		ASSERT_EQ(uda_capability_set_list_append_set(big, builder), UDA_SUCCESS);
	}
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_append_set(big, builder), UDA_ERROR_OVERFLOW);
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_append_copy(big, list, 0), UDA_ERROR_OVERFLOW);
	// The full list still serializes within bounds and reads back.
	size_t size = 0;
	ASSERT_EQ(uda_capability_set_list_serialize(big, nullptr, 0, &size), UDA_SUCCESS);
	std::vector<uint8_t> blob(size);
	ASSERT_EQ(uda_capability_set_list_serialize(big, blob.data(), blob.size(), &size), UDA_SUCCESS);
	uda_capability_set_list *back = nullptr;
	ASSERT_EQ(uda_capability_set_list_deserialize(ctx, blob.data(), blob.size(), &back), UDA_SUCCESS);
	uint32_t count = 0;
	EXPECT_EQ(uda_capability_set_list_get_count(back, &count), UDA_SUCCESS);
	EXPECT_EQ(count, UDA_MAX_SETS_PER_LIST);
	uda_capability_set_list_destroy(back);
	uda_capability_set_list_destroy(big);
}

TEST_F(BadArguments, Serialization)
{
	size_t size = 0;
	uint8_t buffer[64];
	uda_capability_set_list *out = nullptr;
	EXPECT_FAILS(uda_capability_set_list_serialize(nullptr, buffer, sizeof(buffer), &size));
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_serialize(list, buffer, sizeof(buffer), nullptr),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_serialize(list, nullptr, 16, &size),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS(uda_capability_set_list_deserialize(nullptr, buffer, 4, &out));
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_deserialize(ctx, nullptr, 4, &out),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_deserialize(ctx, buffer, 4, nullptr),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_capability_set_list_deserialize(ctx, nullptr, 0, &out), UDA_ERROR_INVALID_DATA);
	EXPECT_EQ(out, nullptr);

	uda_allocation_metadata m = {};
	m.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA;
	m.width = m.height = 64;
	m.format = DRM_FORMAT_ARGB8888;
	m.handle_type = UDA_HANDLE_TYPE_MEMFD;
	m.size = 64 * 256;
	m.plane_count = 1;
	m.planes[0].pitch = 256;
	ASSERT_EQ(uda_allocation_metadata_serialize(ctx, &m, list, 0, nullptr, 0, &size), UDA_SUCCESS);
	EXPECT_FAILS(uda_allocation_metadata_serialize(nullptr, &m, list, 0, nullptr, 0, &size));
	EXPECT_FAILS_WITH_MESSAGE(uda_allocation_metadata_serialize(ctx, nullptr, list, 0, nullptr, 0, &size),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_allocation_metadata_serialize(ctx, &m, nullptr, 0, nullptr, 0, &size),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_allocation_metadata_serialize(ctx, &m, list, 1, nullptr, 0, &size),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_allocation_metadata_serialize(ctx, &m, list, 0, nullptr, 0, nullptr),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_allocation_metadata_serialize(ctx, &m, list, 0, buffer, 4, &size),
	                          UDA_ERROR_BUFFER_TOO_SMALL);
	uda_capability_set_list *foreign = nullptr;
	ASSERT_EQ(uda_capability_set_list_create(other, &foreign), UDA_SUCCESS);
	EXPECT_FAILS_WITH_MESSAGE(uda_allocation_metadata_serialize(ctx, &m, foreign, 0, nullptr, 0, &size),
	                          UDA_ERROR_INVALID_ARGUMENT);
	uda_capability_set_list_destroy(foreign);
	m.type = UDA_STRUCTURE_TYPE_ASSERTION;
	EXPECT_FAILS_WITH_MESSAGE(uda_allocation_metadata_serialize(ctx, &m, list, 0, nullptr, 0, &size),
	                          UDA_ERROR_INVALID_ARGUMENT);

	uda_allocation_metadata back;
	EXPECT_FAILS(uda_allocation_metadata_deserialize(nullptr, buffer, 4, &back, &out));
	EXPECT_FAILS_WITH_MESSAGE(uda_allocation_metadata_deserialize(ctx, buffer, 4, nullptr, &out),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_allocation_metadata_deserialize(ctx, buffer, 4, &back, nullptr),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_allocation_metadata_deserialize(ctx, nullptr, 4, &back, &out),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_allocation_metadata_deserialize(ctx, buffer, 0, &back, &out),
	                          UDA_ERROR_INVALID_DATA);
}

TEST_F(BadArguments, Devices)
{
	uint32_t count = 0;
	uda_device *found = nullptr;
	uint8_t uuid[UDA_UUID_SIZE] = {};
	EXPECT_FAILS(uda_context_enumerate_devices(nullptr, &count, nullptr));
	EXPECT_FAILS_WITH_MESSAGE(uda_context_enumerate_devices(ctx, nullptr, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS(uda_context_find_device(nullptr, uuid, UDA_DEVICE_API_ANY, &found));
	EXPECT_FAILS_WITH_MESSAGE(uda_context_find_device(ctx, nullptr, UDA_DEVICE_API_ANY, &found), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_context_find_device(ctx, uuid, UDA_DEVICE_API_ANY, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	uda_device_info info = {};
	EXPECT_FAILS(uda_device_get_info(nullptr, &info));
	EXPECT_FAILS_WITH_MESSAGE(uda_device_get_info(device, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_device_get_info(device, &info), UDA_ERROR_INVALID_ARGUMENT); // type 0

	uda_capability_set_list *out = nullptr;
	EXPECT_FAILS(uda_device_get_capability_sets(nullptr, &assertion, &usage, &out));
	EXPECT_FAILS_WITH_MESSAGE(uda_device_get_capability_sets(device, &assertion, &usage, nullptr),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_device_get_capability_sets(device, nullptr, &usage, &out),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_device_get_capability_sets(device, &assertion, nullptr, &out),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(out, nullptr);
}

// Pointers that are not uda_devices, as they arrive untyped (EGL native
// displays) or by mistake: another uda object, or memory of zeros.
TEST_F(BadArguments, ThingsThatAreNotDevices)
{
	uint64_t zeros[8] = {};
	uda_device *fakes[] = {reinterpret_cast<uda_device *>(zeros), reinterpret_cast<uda_device *>(ctx),
	                       reinterpret_cast<uda_device *>(list)};
	for (uda_device *fake : fakes) {
		uda_device_info info = {UDA_STRUCTURE_TYPE_DEVICE_INFO};
		EXPECT_FAILS(uda_device_get_info(fake, &info));
		EXPECT_EQ(uda_device_get_context(fake), nullptr);
		EXPECT_FALSE(uda_device_same_hardware(fake, device));
		EXPECT_FALSE(uda_device_same_hardware(device, fake));
		int native = 0;
		EXPECT_FAILS(uda_device_get_native(fake, &native));
		uda_capability_set_list *out = nullptr;
		EXPECT_FAILS(uda_device_get_capability_sets(fake, &assertion, &usage, &out));
		uint32_t count = 0;
		EXPECT_FAILS(uda_device_get_formats(fake, &usage, &count, nullptr));
		uda_allocation *allocation = nullptr;
		EXPECT_FAILS(uda_import_serialized(fake, -1, nullptr, 0, &allocation));
		uda_allocation_create_info create = {UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO, nullptr, fake, &assertion,
		                                     list, 0};
		EXPECT_FAILS(uda_allocate(&create, &allocation));
		EXPECT_EQ(allocation, nullptr);

		uda_device_usage entries[] = {{device, &usage}, {fake, &usage}};
		uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 2, entries};
		EXPECT_FAILS_WITH_MESSAGE(uda_negotiate(ctx, &negotiation, &out), UDA_ERROR_INVALID_ARGUMENT);
		EXPECT_EQ(out, nullptr);
	}
}

TEST_F(BadArguments, Assertions)
{
	uda_capability_set_list *out = nullptr;
	auto with = [&](auto mutate) {
		uda_assertion a = assertion;
		mutate(a);
		return uda_device_get_capability_sets(device, &a, &usage, &out);
	};
	int extension = 0;
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_assertion &a) { a.type = UDA_STRUCTURE_TYPE_USAGE; }),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([&](uda_assertion &a) { a.next = &extension; }), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_assertion &a) { a.width = 0; }), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_assertion &a) { a.height = 0; }), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_assertion &a) { a.width = UDA_MAX_DIMENSION + 1; }),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_assertion &a) { a.format = fourcc_code('N', 'O', 'P', 'E'); }),
	                          UDA_ERROR_UNSUPPORTED);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_assertion &a) { a.plane_count_hint = 5; }), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(out, nullptr);
}

TEST_F(BadArguments, Usages)
{
	uda_capability_set_list *out = nullptr;
	auto with_atoms = [&](std::vector<uda_usage_atom> atoms) {
		uda_usage u = {UDA_STRUCTURE_TYPE_USAGE, nullptr, static_cast<uint32_t>(atoms.size()), atoms.data()};
		return uda_device_get_capability_sets(device, &assertion, &u, &out);
	};
	uint8_t often[4] = {UDA_CPU_ACCESS_OFTEN, 0, 0, 0};
	uint8_t bogus[4] = {7, 0, 0, 0};
	EXPECT_FAILS_WITH_MESSAGE(with_atoms({}), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with_atoms(std::vector<uda_usage_atom>(UDA_MAX_USAGE_ATOMS + 1, atom)),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with_atoms({{UDA_VENDOR_NONE, 99, 0, nullptr}}), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with_atoms({{UDA_VENDOR_NONE, UDA_USAGE_CPU_READ, 0, nullptr}}),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with_atoms({{UDA_VENDOR_NONE, UDA_USAGE_CPU_READ, 4, bogus}}),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with_atoms({{UDA_VENDOR_NONE, UDA_USAGE_SCANOUT, 4, often}}),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with_atoms({{0x10de, 1, 4, nullptr}}), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with_atoms({{0x10de, 1, UDA_MAX_PAYLOAD_SIZE + 1, often}}),
	                          UDA_ERROR_INVALID_ARGUMENT);
	uda_usage null_atoms = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, nullptr};
	EXPECT_FAILS_WITH_MESSAGE(uda_device_get_capability_sets(device, &assertion, &null_atoms, &out),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(out, nullptr);
	// Video atoms: no payload, or a profile uda can read.
	uint8_t profile[UDA_VIDEO_PROFILE_PAYLOAD_SIZE];
	const uda_video_profile bad_profiles[] = {{0, 0, 8, 420}, {8, 0, 8, 420}, {1, 0, 9, 420}, {1, 0, 8, 421},
	                                          {1, 256, 8, 420}};
	for (const uda_video_profile &bad : bad_profiles) {
		uda_video_profile_to_payload(&bad, profile);
		EXPECT_FAILS_WITH_MESSAGE(with_atoms({{UDA_VENDOR_NONE, UDA_USAGE_VIDEO_DECODE, sizeof(profile), profile}}),
		                          UDA_ERROR_INVALID_ARGUMENT);
		const uda_usage_atom video = {UDA_VENDOR_NONE, UDA_USAGE_VIDEO_DECODE, sizeof(profile), profile};
		uda_video_profile read = {};
		EXPECT_EQ(uda_video_profile_from_atom(&video, &read), UDA_ERROR_INVALID_ARGUMENT);
	}
	EXPECT_FAILS_WITH_MESSAGE(with_atoms({{UDA_VENDOR_NONE, UDA_USAGE_VIDEO_ENCODE, 4, often}}),
	                          UDA_ERROR_INVALID_ARGUMENT);
	const uda_video_profile main10 = {UDA_VIDEO_CODEC_H265, 2, 10, 420};
	uda_video_profile_to_payload(&main10, profile);
	const uda_usage_atom video = {UDA_VENDOR_NONE, UDA_USAGE_VIDEO_DECODE, sizeof(profile), profile};
	uda_video_profile read = {};
	ASSERT_EQ(uda_video_profile_from_atom(&video, &read), UDA_SUCCESS);
	EXPECT_EQ(read.codec, static_cast<uint32_t>(UDA_VIDEO_CODEC_H265));
	EXPECT_EQ(read.profile, 2u);
	EXPECT_EQ(read.bit_depth, 10u);
	EXPECT_EQ(read.chroma, 420u);
	const uda_usage_atom plain = {UDA_VENDOR_NONE, UDA_USAGE_VIDEO_DECODE, 0, nullptr};
	EXPECT_EQ(uda_video_profile_from_atom(&plain, &read), UDA_ERROR_NOT_FOUND);
	EXPECT_EQ(uda_video_profile_from_atom(nullptr, &read), UDA_ERROR_INVALID_ARGUMENT);
	// Vendor atoms with any payload, valid CPU atoms and video profiles pass.
	ASSERT_EQ(with_atoms({{0x10de, 1, 4, bogus}, {UDA_VENDOR_NONE, UDA_USAGE_CPU_WRITE, 4, often}, video}), UDA_SUCCESS);
	uda_capability_set_list_destroy(out);
	out = nullptr;

	// Picture flags: known ones, each with its codec.
	uint8_t picture[UDA_VIDEO_PROFILE_PICTURE_PAYLOAD_SIZE];
	const uda_video_profile h264 = {UDA_VIDEO_CODEC_H264, 100, 8, 420}, av1 = {UDA_VIDEO_CODEC_AV1, 0, 10, 420};
	const struct {
		const uda_video_profile *profile;
		uint32_t flags;
	} bad_pictures[] = {{&h264, 1u << 2}, {&av1, UDA_VIDEO_PICTURE_INTERLACED}, {&h264, UDA_VIDEO_PICTURE_FILM_GRAIN}};
	for (const auto &bad : bad_pictures) {
		uda_video_profile_to_picture_payload(bad.profile, bad.flags, picture);
		const uda_usage_atom wrong = {UDA_VENDOR_NONE, UDA_USAGE_VIDEO_DECODE, sizeof(picture), picture};
		EXPECT_FAILS_WITH_MESSAGE(with_atoms({wrong}), UDA_ERROR_INVALID_ARGUMENT);
		uint32_t flags = 99;
		EXPECT_EQ(uda_video_profile_picture_flags_from_atom(&wrong, &flags), UDA_ERROR_INVALID_ARGUMENT);
		EXPECT_EQ(uda_video_profile_from_atom(&wrong, &read), UDA_ERROR_INVALID_ARGUMENT);
	}
	uda_video_profile_to_picture_payload(&av1, UDA_VIDEO_PICTURE_FILM_GRAIN, picture);
	const uda_usage_atom grained = {UDA_VENDOR_NONE, UDA_USAGE_VIDEO_DECODE, sizeof(picture), picture};
	uint32_t flags = 0;
	ASSERT_EQ(uda_video_profile_picture_flags_from_atom(&grained, &flags), UDA_SUCCESS);
	EXPECT_EQ(flags, static_cast<uint32_t>(UDA_VIDEO_PICTURE_FILM_GRAIN));
	ASSERT_EQ(uda_video_profile_from_atom(&grained, &read), UDA_SUCCESS);
	EXPECT_EQ(read.codec, static_cast<uint32_t>(UDA_VIDEO_CODEC_AV1));
	EXPECT_EQ(read.bit_depth, 10u);
	ASSERT_EQ(uda_video_profile_picture_flags_from_atom(&video, &flags), UDA_SUCCESS);
	EXPECT_EQ(flags, 0u) << "a profile without picture flags";
	EXPECT_EQ(uda_video_profile_picture_flags_from_atom(&plain, &flags), UDA_ERROR_NOT_FOUND);
	EXPECT_EQ(uda_video_profile_picture_flags_from_atom(&grained, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	// 17 to 19 bytes are neither.
	const uda_usage_atom cut = {UDA_VENDOR_NONE, UDA_USAGE_VIDEO_DECODE, 18, picture};
	EXPECT_FAILS_WITH_MESSAGE(with_atoms({cut}), UDA_ERROR_INVALID_ARGUMENT);
	ASSERT_EQ(with_atoms({grained}), UDA_SUCCESS);
	uda_capability_set_list_destroy(out);
}

uda_result never_called(void *, uda_context *, const uda_assertion *, const uda_usage *, uda_capability_set_list *)
{
	return UDA_ERROR_BACKEND;
}

TEST_F(BadArguments, DeviceRegistration)
{
	static const uda_device_interface good = {UDA_DEVICE_INTERFACE_VERSION_1, never_called, nullptr};
	static const uda_device_interface no_entry = {UDA_DEVICE_INTERFACE_VERSION_1, nullptr, nullptr};
	static const uda_device_interface version_zero = {0, never_called, nullptr};
	uda_device_create_info info = {};
	info.type = UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
	info.name = "x";
	info.backend_name = "y";
	info.interface = &good;
	info.api = UDA_DEVICE_API_OTHER;
	info.device_uuid[0] = 0x77;
	auto with = [&](auto mutate) {
		uda_device_create_info i = info;
		mutate(i);
		return uda_context_add_device(ctx, &i, nullptr);
	};
	std::string long_name(300, 'n');
	EXPECT_FAILS(uda_context_add_device(nullptr, &info, nullptr));
	EXPECT_FAILS_WITH_MESSAGE(uda_context_add_device(ctx, nullptr, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_device_create_info &i) { i.type = UDA_STRUCTURE_TYPE_DEVICE_INFO; }),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_device_create_info &i) { i.name = nullptr; }),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_device_create_info &i) { i.name = ""; }), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([&](uda_device_create_info &i) { i.name = long_name.c_str(); }),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_device_create_info &i) { i.backend_name = nullptr; }),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_device_create_info &i) { i.interface = nullptr; }),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_device_create_info &i) { i.interface = &no_entry; }),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_device_create_info &i) { i.interface = &version_zero; }),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_device_create_info &i) { i.api = UDA_DEVICE_API_ANY; }),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_device_create_info &i) { i.api = static_cast<uda_device_api>(99); }),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(with([](uda_device_create_info &) {}), UDA_SUCCESS);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_device_create_info &) {}), UDA_ERROR_EXISTS);
	// The same hardware through another API is another device.
	EXPECT_EQ(with([](uda_device_create_info &i) { i.api = UDA_DEVICE_API_GL; }), UDA_SUCCESS);
}

TEST_F(BadArguments, DeviceLookup)
{
	uint8_t uuid[UDA_UUID_SIZE] = {};
	uda_device *found = nullptr;
	EXPECT_FAILS_WITH_MESSAGE(uda_context_find_device(ctx, uuid, static_cast<uda_device_api>(42), &found),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS(uda_context_find_device_by_drm_fd(nullptr, 0, UDA_DEVICE_API_ANY, &found));
	EXPECT_FAILS_WITH_MESSAGE(uda_context_find_device_by_drm_fd(ctx, -1, UDA_DEVICE_API_ANY, &found),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_context_find_device_by_drm_fd(ctx, 0, UDA_DEVICE_API_ANY, nullptr),
	                          UDA_ERROR_INVALID_ARGUMENT);
	int pipe_fds[2];
	ASSERT_EQ(pipe(pipe_fds), 0);
	EXPECT_FAILS_WITH_MESSAGE(uda_context_find_device_by_drm_fd(ctx, pipe_fds[0], UDA_DEVICE_API_ANY, &found),
	                          UDA_ERROR_INVALID_ARGUMENT);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	// Found through its node's device number; /dev/null stands in for a
	// DRM node, the lookup only compares st_rdev.
	static const uda_device_interface good = {UDA_DEVICE_INTERFACE_VERSION_1, never_called, nullptr};
	uda_device_create_info info = {};
	info.type = UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
	info.name = "node";
	info.backend_name = "test";
	info.api = UDA_DEVICE_API_DRM;
	info.interface = &good;
	info.device_uuid[0] = 0x99;
	struct stat st;
	ASSERT_EQ(stat("/dev/null", &st), 0);
	info.drm_render = {true, major(st.st_rdev), minor(st.st_rdev)};
	uda_device *node_device = nullptr;
	ASSERT_EQ(uda_context_add_device(ctx, &info, &node_device), UDA_SUCCESS);
	int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(null_fd, 0);
	EXPECT_EQ(uda_context_find_device_by_drm_fd(ctx, null_fd, UDA_DEVICE_API_ANY, &found), UDA_SUCCESS);
	EXPECT_EQ(found, node_device);
	EXPECT_EQ(uda_context_find_device_by_drm_fd(ctx, null_fd, UDA_DEVICE_API_VULKAN, &found), UDA_ERROR_NOT_FOUND);
	close(null_fd);
	uda_device_info out_info = {};
	out_info.type = UDA_STRUCTURE_TYPE_DEVICE_INFO;
	ASSERT_EQ(uda_device_get_info(node_device, &out_info), UDA_SUCCESS);
	EXPECT_EQ(out_info.api, UDA_DEVICE_API_DRM);
	EXPECT_TRUE(out_info.drm_render.present);
	EXPECT_FALSE(out_info.drm_primary.present);

	EXPECT_FALSE(uda_device_same_hardware(nullptr, device));
	EXPECT_TRUE(uda_device_same_hardware(device, device));
	EXPECT_FAILS(uda_allocation_get_native(nullptr, &found));
}

TEST_F(BadArguments, Negotiation)
{
	uda_capability_set_list *out = nullptr;
	uda_device_usage entry = {device, &usage};
	uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &assertion, 1, &entry};
	ASSERT_EQ(uda_negotiate(ctx, &info, &out), UDA_SUCCESS);
	uda_capability_set_list_destroy(out);
	out = nullptr;

	auto with = [&](auto mutate) {
		uda_negotiation_info i = info;
		mutate(i);
		return uda_negotiate(ctx, &i, &out);
	};
	EXPECT_FAILS(uda_negotiate(nullptr, &info, &out));
	EXPECT_FAILS_WITH_MESSAGE(uda_negotiate(ctx, nullptr, &out), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(uda_negotiate(ctx, &info, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_negotiation_info &i) { i.type = UDA_STRUCTURE_TYPE_USAGE; }),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_negotiation_info &i) { i.device_count = 0; }),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(
	    with([](uda_negotiation_info &i) { i.device_count = UDA_MAX_NEGOTIATION_DEVICES + 1; }),
	    UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_negotiation_info &i) { i.devices = nullptr; }),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FAILS_WITH_MESSAGE(with([](uda_negotiation_info &i) { i.assertion = nullptr; }),
	                          UDA_ERROR_INVALID_ARGUMENT);
	uda_device_usage null_device = {nullptr, &usage};
	EXPECT_FAILS_WITH_MESSAGE(with([&](uda_negotiation_info &i) { i.devices = &null_device; }),
	                          UDA_ERROR_INVALID_ARGUMENT);
	uda_device_usage null_usage = {device, nullptr};
	EXPECT_FAILS_WITH_MESSAGE(with([&](uda_negotiation_info &i) { i.devices = &null_usage; }),
	                          UDA_ERROR_INVALID_ARGUMENT);
	// A device of another context.
	uda_device *foreign = nullptr;
	uda_capability_set_list *sets = nullptr;
	ASSERT_EQ(uda_capability_set_list_create(other, &sets), UDA_SUCCESS);
	ASSERT_EQ(test_device_add(other, "foreign", 9, sets, &foreign, nullptr), UDA_SUCCESS);
	uda_device_usage foreign_entry = {foreign, &usage};
	EXPECT_FAILS_WITH_MESSAGE(with([&](uda_negotiation_info &i) { i.devices = &foreign_entry; }),
	                          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(out, nullptr);
}

} // namespace
