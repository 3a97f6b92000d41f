// Vulkan Video decode outputs and encode inputs as negotiated images
// (vulkan_video.c), over
// uda-mock-vulkan (tests/support/mock_vulkan): a test ICD with an NVIDIA
// GPU's video queues, DRM modifiers and multi-planar formats, loaded by
// the real loader under the Khronos validation layer, whose every message
// fails the test. The display is the recorded Intel Gen9 controller
// (UDA_DRM_REPLAY), so the three-way agreement is made, allocated and
// imported by real backends end to end.
//
// VulkanEncodeAndAv1.* and VulkanVp9.* need validation layers newer than
// Debian 12's (below); scripts/newer-vulkan.sh runs this program again
// under Debian testing's. VulkanVideoDriver.* runs on the machine's own drivers instead and skips,
// saying why, where no Vulkan device decodes (lavapipe has no video
// queue); tests/hardware/nvidia.sh runs it on NVIDIA's.
#include <drm_fourcc.h>
#include <gtest/gtest.h>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

#include <uda/uda_vulkan.h>
#include <vulkan/vulkan.h>

#include "backend_env.hpp"
#include "fd_count.hpp"
#include "set_spec.hpp"
#include "validation_log.hpp"

using namespace uda_test;

namespace
{

// A usage of one atom, its payload a video profile (with picture flags,
// where there are any) or nothing.
struct Usage {
	uint8_t payload[UDA_VIDEO_PROFILE_PICTURE_PAYLOAD_SIZE] = {};
	uda_usage_atom atom;
	uda_usage usage;

	explicit Usage(uda_usage_name name) : atom{UDA_VENDOR_NONE, static_cast<uint16_t>(name), 0, nullptr}
	{
		usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &atom};
	}
	Usage(uda_usage_name name, uint32_t codec, uint32_t profile, uint32_t bit_depth = 0, uint32_t chroma = 0,
	      uint32_t picture = 0)
	    : Usage(name)
	{
		const uda_video_profile p = {codec, profile, bit_depth, chroma};
		if (picture) {
			uda_video_profile_to_picture_payload(&p, picture, payload);
			atom.length = UDA_VIDEO_PROFILE_PICTURE_PAYLOAD_SIZE;
		} else {
			uda_video_profile_to_payload(&p, payload);
			atom.length = UDA_VIDEO_PROFILE_PAYLOAD_SIZE;
		}
		atom.payload = payload;
	}
	Usage(const Usage &) = delete;
	Usage &operator=(const Usage &) = delete;
};

uda_assertion assertion(uint32_t width, uint32_t height, uint32_t format)
{
	return {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, width, height, format, 0};
}

uint64_t modifier_of(const uda_capability_set_list *list, uint32_t set)
{
	uint64_t modifier = ~0ull;
	EXPECT_EQ(uda_capability_set_list_get_modifier(list, set, &modifier), UDA_SUCCESS);
	return modifier;
}

uint64_t modifier_of(const uda_allocation *allocation)
{
	const uda_capability_set_list *set = nullptr;
	EXPECT_EQ(uda_allocation_get_capability_set(allocation, &set), UDA_SUCCESS);
	return set ? modifier_of(set, 0) : ~0ull;
}

bool is_block_linear(uint64_t modifier)
{
	return (modifier >> 56) == DRM_FORMAT_MOD_VENDOR_NVIDIA && (modifier & 0x10);
}

// What one allocation's memory holds, the other's reads: a byte written
// at `offset` through the first's DMA-BUF is read through the second's.
void expect_one_memory(uda_allocation *writer, uda_allocation *reader, uint64_t size, uint64_t offset, uint8_t value)
{
	int written_fd = -1, read_fd = -1;
	ASSERT_EQ(uda_allocation_export(writer, UDA_HANDLE_TYPE_DMA_BUF, &written_fd), UDA_SUCCESS);
	ASSERT_EQ(uda_allocation_export(reader, UDA_HANDLE_TYPE_DMA_BUF, &read_fd), UDA_SUCCESS);
	auto *written = static_cast<uint8_t *>(mmap(nullptr, size, PROT_WRITE, MAP_SHARED, written_fd, 0));
	auto *read = static_cast<uint8_t *>(mmap(nullptr, size, PROT_READ, MAP_SHARED, read_fd, 0));
	EXPECT_NE(written, MAP_FAILED);
	EXPECT_NE(read, MAP_FAILED);
	if (written != MAP_FAILED && read != MAP_FAILED) {
		written[offset] = value;
		EXPECT_EQ(read[offset], value);
	}
	if (written != MAP_FAILED)
		munmap(written, size);
	if (read != MAP_FAILED)
		munmap(read, size);
	close(written_fd);
	close(read_fd);
}

// Extensions newer than a validation layer the tests may run under, and
// the layer version that knows them. Debian 12's layer (1.3.239) predates
// the final Vulkan Video encode (1.3.274), AV1 decode (1.3.277) and AV1
// encode (1.3.302) extensions, Debian 13's (1.4.309) VP9 decode
// (1.4.317): an older layer takes their structures for the application's
// errors and fails their queries, so the backend leaves them out while
// validating with it. Debian testing's (1.4.363) knows them all.
struct NewerVideo {
	uint32_t layer;
	const char *what;
};
constexpr NewerVideo encode_and_av1 = {VK_MAKE_API_VERSION(0, 1, 3, 302), "Vulkan Video encode and AV1"};
constexpr NewerVideo vp9_decode = {VK_MAKE_API_VERSION(0, 1, 4, 317), "VP9 decode"};

uint32_t validation_layer_version()
{
	uint32_t count = 0;
	if (vkEnumerateInstanceLayerProperties(&count, nullptr) != VK_SUCCESS)
		return 0;
	std::vector<VkLayerProperties> layers(count);
	if (vkEnumerateInstanceLayerProperties(&count, layers.data()) < 0)
		return 0;
	for (uint32_t i = 0; i < count; i++) {
		if (std::strcmp(layers[i].layerName, "VK_LAYER_KHRONOS_validation") == 0)
			return layers[i].specVersion;
	}
	return 0;
}

// A context over the build tree's backends with validation on; the mock
// and the recorded display where `mock`, the machine's drivers otherwise.
class VideoContext : public ::testing::Test
{
protected:
	ValidationLog log;
	ContextPtr ctx;
	std::vector<uda_device *> devices;

	// `newer`: the test uses extensions newer than some layers. Under a
	// layer that predates them it runs unvalidated, and says so; with
	// UDA_TEST_REQUIRE_VALIDATION=1 (scripts/newer-vulkan.sh) it fails
	// instead, so that the newer layer's run cannot pass unvalidated.
	void create_context(bool mock, const NewerVideo *newer = nullptr)
	{
		use_build_tree_backends();
		if (mock) {
			// The mock is the only Vulkan driver the loader sees.
			unsetenv("VK_ICD_FILENAMES");
			setenv("VK_DRIVER_FILES", UDA_TEST_MOCK_VULKAN_ICD, 1);
			setenv("UDA_DRM_REPLAY", UDA_TEST_DRM_FIXTURE_DIR "/intel-gen9.txt", 1);
			setenv("UDA_V4L2_REPLAY",
			       UDA_TEST_V4L2_REPLAY_DIR "/bcm2835-codec-decode.v4l2:" UDA_TEST_V4L2_REPLAY_DIR "/uvc-elp4k.v4l2",
			       1);
		}
		bool validate = true;
		if (newer) {
			const uint32_t version = validation_layer_version();
			const char *required = std::getenv("UDA_TEST_REQUIRE_VALIDATION");
			if (version < newer->layer) {
				ASSERT_FALSE(required && std::strcmp(required, "1") == 0)
				        << "the validation layer (" << VK_API_VERSION_MINOR(version) << "."
				        << VK_API_VERSION_PATCH(version) << ") predates " << newer->what;
				std::printf("[   NOTE   ] unvalidated: the validation layer (1.%u.%u) predates %s; "
				            "scripts/newer-vulkan.sh validates this test\n",
				            VK_API_VERSION_MINOR(version), VK_API_VERSION_PATCH(version), newer->what);
				validate = false;
			}
		}
		ctx = create_validated_context(log, validate);
		uda_context *raw = ctx.get();
		ASSERT_NE(raw, nullptr);
		uint32_t count = 0;
		ASSERT_EQ(uda_context_enumerate_devices(raw, &count, nullptr), UDA_SUCCESS);
		devices.resize(count);
		ASSERT_EQ(uda_context_enumerate_devices(raw, &count, devices.data()), UDA_SUCCESS);
	}

	std::vector<uda_device *> devices_of(uda_device_api api) const
	{
		std::vector<uda_device *> found;
		for (uda_device *device : devices) {
			uda_device_info info = {UDA_STRUCTURE_TYPE_DEVICE_INFO};
			if (uda_device_get_info(device, &info) == UDA_SUCCESS && info.api == api)
				found.push_back(device);
		}
		return found;
	}

	void TearDown() override
	{
		ctx.reset();
		std::lock_guard<std::mutex> guard(log.lock);
		for (const std::string &message : log.problems)
			ADD_FAILURE() << message;
		unsetenv("UDA_DRM_REPLAY");
		unsetenv("UDA_V4L2_REPLAY");
	}

	uda_result sets_of(uda_device *device, const uda_assertion &a, const Usage &u, ListPtr &out)
	{
		uda_capability_set_list *list = nullptr;
		const uda_result r = uda_device_get_capability_sets(device, &a, &u.usage, &list);
		out.reset(list);
		return r;
	}

	std::string error() const { return uda_context_get_error(ctx.get()); }

	// The frame the parties agree on, made by the first that can; null
	// (and a failure) where none does.
	AllocationPtr agree_and_allocate(const uda_assertion &a, std::vector<uda_device_usage> parties)
	{
		const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &a,
		                                   static_cast<uint32_t>(parties.size()), parties.data()};
		uda_allocation *raw = nullptr;
		EXPECT_EQ(uda_negotiate_allocate(ctx.get(), &info, &raw, nullptr, nullptr), UDA_SUCCESS) << error();
		return AllocationPtr(raw);
	}

	// A read-only import of `frame` on `device`, through `handle` (NONE:
	// whichever the frame's set names); null where the device refuses it
	// (error() says why). The result and the allocation must agree.
	AllocationPtr import_read_only(uda_allocation *frame, uda_device *device,
	                               uda_handle_type handle = UDA_HANDLE_TYPE_NONE)
	{
		const uda_allocation_import_info info = {UDA_STRUCTURE_TYPE_ALLOCATION_IMPORT_INFO, nullptr, frame, device,
		                                         handle, UDA_IMPORT_READ_ONLY};
		uda_allocation *raw = nullptr;
		const uda_result result = uda_import_allocation(&info, &raw);
		EXPECT_EQ(result == UDA_SUCCESS, raw != nullptr) << "a result of " << result << " with allocation " << raw;
		AllocationPtr view(raw);
		return result == UDA_SUCCESS ? std::move(view) : nullptr;
	}
};

class VulkanVideo : public VideoContext
{
protected:
	uda_device *gpu = nullptr;
	uda_device *display = nullptr;
	uda_device *v4l2_decoder = nullptr;
	uda_device *camera = nullptr;

	void SetUp() override { ASSERT_NO_FATAL_FAILURE(set_up(nullptr)); }

	void set_up(const NewerVideo *newer)
	{
		ASSERT_NO_FATAL_FAILURE(create_context(true, newer));
		const auto gpus = devices_of(UDA_DEVICE_API_VULKAN), displays = devices_of(UDA_DEVICE_API_DRM);
		ASSERT_EQ(gpus.size(), 1u) << "uda-mock-vulkan did not load, or not alone";
		ASSERT_EQ(displays.size(), 1u) << "the recorded display did not load";
		gpu = gpus[0];
		display = displays[0];
		for (uda_device *node : devices_of(UDA_DEVICE_API_V4L2)) {
			uda_device_info info = {UDA_STRUCTURE_TYPE_DEVICE_INFO};
			ASSERT_EQ(uda_device_get_info(node, &info), UDA_SUCCESS);
			if (std::strstr(info.name, "decoder"))
				v4l2_decoder = node;
			else if (std::strstr(info.name, "camera"))
				camera = node;
		}
		ASSERT_NE(v4l2_decoder, nullptr) << "the recorded bcm2835-codec decoder did not load";
		ASSERT_NE(camera, nullptr) << "the recorded UVC camera did not load";
	}

	void TearDown() override
	{
		VideoContext::TearDown();
		unsetenv("VK_DRIVER_FILES");
	}

	// The Vulkan device of another context (the mock, made with other
	// switches); null where it has none.
	static uda_device *vulkan_device_of(uda_context *other)
	{
		uint32_t count = 0;
		if (uda_context_enumerate_devices(other, &count, nullptr) != UDA_SUCCESS)
			return nullptr;
		std::vector<uda_device *> all(count);
		if (uda_context_enumerate_devices(other, &count, all.data()) != UDA_SUCCESS)
			return nullptr;
		for (uda_device *device : all) {
			uda_device_info info = {UDA_STRUCTURE_TYPE_DEVICE_INFO};
			if (uda_device_get_info(device, &info) == UDA_SUCCESS && info.api == UDA_DEVICE_API_VULKAN)
				return device;
		}
		return nullptr;
	}

	// A 1080p frame (1920x1080: whole 8x8 blocks) that the GPU decodes
	// for `codec`'s profile 0, the display scans out and the GPU samples,
	// allocated linear and imported by both, one memory; then that a
	// 10-bit profile (`ten_bit`) offers its eight sets in P010 at 4K.
	void expect_frame_decoded_shown_and_sampled(uint32_t codec, uint32_t ten_bit, uint8_t marker)
	{
		const int fds_before = open_fd_count();
		{
			const uda_assertion a = assertion(1920, 1080, DRM_FORMAT_NV12);
			const Usage decode(UDA_USAGE_VIDEO_DECODE, codec, 0);
			const Usage sampled(UDA_USAGE_SAMPLED), scanout(UDA_USAGE_SCANOUT);
			const AllocationPtr frame = agree_and_allocate(
			        a, {{gpu, &decode.usage}, {gpu, &sampled.usage}, {display, &scanout.usage}});
			ASSERT_NE(frame, nullptr);
			EXPECT_EQ(modifier_of(frame.get()), DRM_FORMAT_MOD_LINEAR);
			uda_vulkan_native native = {UDA_STRUCTURE_TYPE_VULKAN_NATIVE};
			ASSERT_EQ(uda_allocation_get_native(frame.get(), &native), UDA_SUCCESS);
			EXPECT_TRUE(native.usage & VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR) << std::hex << native.usage;
			uda_allocation_metadata m = {UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
			ASSERT_EQ(uda_allocation_get_metadata(frame.get(), &m), UDA_SUCCESS);
			const AllocationPtr display_view = import_read_only(frame.get(), display);
			ASSERT_NE(display_view, nullptr) << error();
			const AllocationPtr sampler_view = import_read_only(frame.get(), gpu);
			ASSERT_NE(sampler_view, nullptr) << error();
			expect_one_memory(frame.get(), sampler_view.get(), m.size, m.planes[1].offset, marker);
		}
		EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();

		const Usage deep(UDA_USAGE_VIDEO_DECODE, codec, ten_bit, 10);
		ListPtr sets;
		ASSERT_EQ(sets_of(gpu, assertion(3840, 2160, DRM_FORMAT_P010), deep, sets), UDA_SUCCESS) << error();
		EXPECT_EQ(count_of(sets.get()), 8u);
	}

	// The mock made with `feature_switch`=0 lists `extension` without its
	// device feature: `missing` must be refused, saying so, and `kept`
	// (another operation of the same queue) still offered; validated
	// where the layer knows `newer`.
	static void expect_refused_without_feature(const NewerVideo &newer, const char *feature_switch,
	                                           const char *extension, const uda_assertion &a, const Usage &missing,
	                                           const Usage &kept)
	{
		setenv(feature_switch, "0", 1);
		ValidationLog without_log;
		ContextPtr without = create_validated_context(without_log, validation_layer_version() >= newer.layer);
		unsetenv(feature_switch);
		ASSERT_NE(without, nullptr);
		uda_device *other_gpu = vulkan_device_of(without.get());
		ASSERT_NE(other_gpu, nullptr);
		uda_capability_set_list *none = nullptr;
		EXPECT_EQ(uda_device_get_capability_sets(other_gpu, &a, &missing.usage, &none), UDA_ERROR_UNSUPPORTED);
		uda_capability_set_list_destroy(none);
		EXPECT_NE(std::string(uda_context_get_error(without.get()))
		                  .find(std::string("lists ") + extension + " without its device feature"),
		          std::string::npos)
		        << uda_context_get_error(without.get());
		EXPECT_EQ(uda_device_get_capability_sets(other_gpu, &a, &kept.usage, &none), UDA_SUCCESS)
		        << uda_context_get_error(without.get());
		uda_capability_set_list_destroy(none);
		without.reset();
		std::lock_guard<std::mutex> guard(without_log.lock);
		for (const std::string &message : without_log.problems)
			ADD_FAILURE() << message;
	}

	// `sets`, as from another process with one field of its profile
	// (`written`: operation, std profile, chroma, depth, as the backend
	// writes them) changed to `value` in every set: each set's allocation
	// must fail with `result` and say `why`, before any image is made.
	void expect_tampered_profile_refused(const uda_assertion &a, const uda_capability_set_list *sets,
	                                     const std::vector<uint32_t> &written, uint32_t field, uint32_t value,
	                                     uda_result result, const char *why)
	{
		SCOPED_TRACE(why);
		size_t size = 0;
		ASSERT_EQ(uda_capability_set_list_serialize(sets, nullptr, 0, &size), UDA_SUCCESS);
		std::vector<uint8_t> bytes(size);
		ASSERT_EQ(uda_capability_set_list_serialize(sets, bytes.data(), size, &size), UDA_SUCCESS);
		const size_t length = written.size() * sizeof(uint32_t);
		size_t found = 0;
		for (size_t at = 0; at + length <= bytes.size(); at++) {
			if (memcmp(&bytes[at], written.data(), length) == 0) {
				memcpy(&bytes[at + 4 * field], &value, sizeof(value));
				found++;
			}
		}
		ASSERT_EQ(found, count_of(sets)) << "one profile in every set's image parameters";
		uda_capability_set_list *raw = nullptr;
		ASSERT_EQ(uda_capability_set_list_deserialize(ctx.get(), bytes.data(), bytes.size(), &raw), UDA_SUCCESS)
		        << error();
		const ListPtr tampered(raw);
		for (uint32_t set = 0; set < count_of(raw); set++) {
			const uda_allocation_create_info info = {UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO, nullptr, gpu, &a,
			                                         raw, set};
			uda_allocation *allocation = nullptr;
			EXPECT_EQ(uda_allocate(&info, &allocation), result) << set;
			EXPECT_EQ(allocation, nullptr);
			EXPECT_NE(error().find(why), std::string::npos) << error();
		}
	}
};

// The same, for tests of encode inputs and AV1 decode outputs.
class VulkanEncodeAndAv1 : public VulkanVideo
{
protected:
	void SetUp() override { ASSERT_NO_FATAL_FAILURE(set_up(&encode_and_av1)); }
};

// The same, for VP9 decode outputs.
class VulkanVp9 : public VulkanVideo
{
protected:
	void SetUp() override { ASSERT_NO_FATAL_FAILURE(set_up(&vp9_decode)); }
};

} // namespace

// A device that reads past the planes (a decoder's motion vectors: a
// MIN_SIZE above the image's) on memory the GPU makes. Where the driver
// only prefers dedicated memory for a DMA-BUF image (the mock's prefer
// mode), the GPU allocates it larger, not dedicated, under validation;
// where it requires it (NVIDIA's, the mock's default) the GPU refuses and
// says why, and another device allocates.
TEST_F(VulkanVideo, MemoryLargerThanTheImageWhereTheDriverAllowsIt)
{
	const uda_assertion a = assertion(1920, 1080, DRM_FORMAT_XRGB8888);
	const uint64_t min_size = 1920ull * 1080 * 4 + 522240;
	SetSpec reader{{layout(DRM_FORMAT_MOD_LINEAR), common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF)}};
	reader.constraints[UDA_CONSTRAINT_MIN_SIZE] = min_size;
	const ListPtr peer_sets = make_list(ctx.get(), {reader});
	const uda_negotiation_peer_info peer = {UDA_STRUCTURE_TYPE_NEGOTIATION_PEER_INFO, nullptr, peer_sets.get()};
	const Usage render(UDA_USAGE_RENDER_TARGET);
	const uda_device_usage party = {gpu, &render.usage};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, &peer, &a, 1, &party};
	uda_capability_set_list *raw_sets = nullptr;
	ASSERT_EQ(uda_negotiate(ctx.get(), &info, &raw_sets), UDA_SUCCESS) << error();
	const ListPtr sets(raw_sets);
	const uda_allocation_create_info create = {UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO, nullptr, gpu, &a,
	                                           sets.get(), 0};
	uda_allocation *raw = nullptr;
	EXPECT_EQ(uda_allocate(&create, &raw), UDA_ERROR_UNSUPPORTED);
	EXPECT_NE(error().find("must be dedicated, of the image's size (the driver requires it)"), std::string::npos)
	        << error();

	// The driver that only prefers dedicated memory (the mock reads the
	// switch at each query), in a context of its own, since answers are
	// cached per device.
	setenv("UDA_MOCK_VULKAN_DEDICATED", "prefer", 1);
	ValidationLog other_log;
	ContextPtr other = create_validated_context(other_log);
	unsetenv("UDA_MOCK_VULKAN_DEDICATED");
	ASSERT_NE(other, nullptr);
	uda_device *preferring_gpu = vulkan_device_of(other.get());
	ASSERT_NE(preferring_gpu, nullptr);
	const ListPtr other_peer_sets = make_list(other.get(), {reader});
	const uda_negotiation_peer_info other_peer = {UDA_STRUCTURE_TYPE_NEGOTIATION_PEER_INFO, nullptr,
	                                              other_peer_sets.get()};
	const uda_device_usage other_party = {preferring_gpu, &render.usage};
	const uda_negotiation_info other_info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, &other_peer, &a, 1, &other_party};
	setenv("UDA_MOCK_VULKAN_DEDICATED", "prefer", 1);
	uda_allocation *made = nullptr;
	const uda_result result = uda_negotiate_allocate(other.get(), &other_info, &made, nullptr, nullptr);
	unsetenv("UDA_MOCK_VULKAN_DEDICATED");
	ASSERT_EQ(result, UDA_SUCCESS) << uda_context_get_error(other.get());
	{
		const AllocationPtr frame(made);
		uda_allocation_metadata m = {UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
		ASSERT_EQ(uda_allocation_get_metadata(frame.get(), &m), UDA_SUCCESS);
		EXPECT_GE(m.size, min_size);
		int fd = -1;
		ASSERT_EQ(uda_allocation_export(frame.get(), UDA_HANDLE_TYPE_DMA_BUF, &fd), UDA_SUCCESS)
		        << uda_context_get_error(other.get());
		EXPECT_GE(lseek(fd, 0, SEEK_END), static_cast<off_t>(min_size)) << "the memory the reader is given";
		close(fd);
	}
	other.reset();
	std::lock_guard<std::mutex> guard(other_log.lock);
	for (const std::string &message : other_log.problems)
		ADD_FAILURE() << message;
}

TEST_F(VulkanVideo, ADecodeOutputOffersWhatTheDriverListsForItsProfile)
{
	const Usage decode(UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_H264, 100 /* High */);
	ListPtr sets;
	ASSERT_EQ(sets_of(gpu, assertion(1920, 1088, DRM_FORMAT_NV12), decode, sets), UDA_SUCCESS) << error();
	// Six block-linear heights and LINEAR over DMA_BUF, then the
	// driver's own tiling for itself: the two tilings the driver lists
	// for the profile's pictures.
	ASSERT_EQ(count_of(sets.get()), 8u);
	for (uint32_t i = 0; i < 6; i++)
		EXPECT_TRUE(is_block_linear(modifier_of(sets.get(), i))) << i;
	EXPECT_EQ(modifier_of(sets.get(), 6), DRM_FORMAT_MOD_LINEAR);
	uda_capability layout;
	ASSERT_EQ(uda_capability_set_list_get_layout(sets.get(), 7, &layout), UDA_SUCCESS);
	EXPECT_EQ(layout.name, UDA_CAPABILITY_LAYOUT_OPAQUE);
	bool present = false;
	uint64_t planes = 0;
	ASSERT_EQ(uda_capability_set_list_get_constraint(sets.get(), 6, UDA_CONSTRAINT_MAX_PLANES, &present, &planes),
	          UDA_SUCCESS);
	EXPECT_EQ(planes, 2u) << "NV12's luma and chroma planes";

	// P010 for a 10-bit profile.
	const Usage main10(UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_H265, 2 /* Main 10 */, 10);
	ASSERT_EQ(sets_of(gpu, assertion(3840, 2160, DRM_FORMAT_P010), main10, sets), UDA_SUCCESS) << error();
	EXPECT_EQ(count_of(sets.get()), 8u);
}

TEST_F(VulkanVideo, AProfileTheDriverCannotDecodeOffersNothingAndSaysWhy)
{
	ListPtr sets;
	const uda_assertion nv12 = assertion(1920, 1088, DRM_FORMAT_NV12);
	const struct {
		uint32_t codec, profile, bit_depth;
		uda_assertion a;
		const char *why;
	} cases[] = {
		{UDA_VIDEO_CODEC_H264, 244, 0, nv12, "does not decode H.264 profile 244"},
		{UDA_VIDEO_CODEC_H264, 0, 0, nv12,
		 "name the H.264 profile: a Vulkan video session takes only images made for its profile"},
		{UDA_VIDEO_CODEC_H264, 110, 0, nv12, "H.264 has no profile 110 in Vulkan"},
		{UDA_VIDEO_CODEC_H264, 100, 0, assertion(1920, 1080, DRM_FORMAT_NV12),
		 "H.264 pictures are whole 16x16 blocks: ask for 1920x1088 and show 1920x1080 of it"},
		{UDA_VIDEO_CODEC_H265, 2, 10, nv12, "10-bit 420 profile's pictures do not fit"},
		{UDA_VIDEO_CODEC_VP8, 0, 0, nv12, "codec 3 is not one the vulkan backend can decode (H.264, H.265, AV1, VP9)"},
		{UDA_VIDEO_CODEC_H264, 100, 0, assertion(8192, 4320, DRM_FORMAT_NV12),
		 "decodes H.264 profile 100 from 48x16 to 4096x4096, not 8192x4320"},
		{UDA_VIDEO_CODEC_H264, 100, 0, assertion(64, 64, DRM_FORMAT_ABGR8888), "not a video format"},
	};
	for (const auto &c : cases) {
		const Usage u(UDA_USAGE_VIDEO_DECODE, c.codec, c.profile, c.bit_depth);
		EXPECT_EQ(sets_of(gpu, c.a, u, sets), UDA_ERROR_UNSUPPORTED) << c.why;
		EXPECT_NE(error().find(c.why), std::string::npos) << error();
	}
	const Usage any(UDA_USAGE_VIDEO_DECODE);
	EXPECT_EQ(sets_of(gpu, nv12, any, sets), UDA_ERROR_UNSUPPORTED);
	EXPECT_NE(error().find("the VIDEO_DECODE usage needs a uda_video_profile naming the codec and its profile"),
	          std::string::npos)
	        << error();
}

TEST_F(VulkanVideo, ADecoderAndASamplerOfOneGpuKeepItsBlockLinearLayout)
{
	const int fds_before = open_fd_count();
	{
		const uda_assertion a = assertion(1920, 1080, DRM_FORMAT_NV12);
		const Usage decode(UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_H265, 1 /* Main */);
		const Usage sampled(UDA_USAGE_SAMPLED);
		const AllocationPtr frame = agree_and_allocate(a, {{gpu, &decode.usage}, {gpu, &sampled.usage}});
		ASSERT_NE(frame, nullptr);
		uda_allocation_metadata m = {UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
		ASSERT_EQ(uda_allocation_get_metadata(frame.get(), &m), UDA_SUCCESS);
		EXPECT_TRUE(is_block_linear(modifier_of(frame.get()))) << std::hex << modifier_of(frame.get());
		EXPECT_EQ(m.plane_count, 2u);
		EXPECT_EQ(m.planes[1].offset % 4096, 0u);

		// The sampler's import is an image made for the decoder's
		// profile too: without it, validation fails the test.
		const AllocationPtr sampler_view = import_read_only(frame.get(), gpu, UDA_HANDLE_TYPE_DMA_BUF);
		ASSERT_NE(sampler_view, nullptr) << error();
		uda_vulkan_native native = {UDA_STRUCTURE_TYPE_VULKAN_NATIVE};
		ASSERT_EQ(uda_allocation_get_native(sampler_view.get(), &native), UDA_SUCCESS);
		EXPECT_EQ(native.format, VK_FORMAT_G8_B8R8_2PLANE_420_UNORM);
		EXPECT_EQ(native.tiling, VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT);
		EXPECT_EQ(native.usage & (VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR | VK_IMAGE_USAGE_SAMPLED_BIT),
		          VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR | VK_IMAGE_USAGE_SAMPLED_BIT);
	}
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
}

// Drivers differ in how they write pictures (UDA_MOCK_VULKAN_DECODE switches
// the mock): one that writes outputs only in its own tiling offers only
// the opaque set, and a display cannot take part; one whose outputs are
// its reference pictures makes them DPB images.
TEST_F(VulkanVideo, WhereTheDriverWritesItsPicturesDecidesWhatIsOffered)
{
	const uda_assertion a = assertion(1920, 1088, DRM_FORMAT_NV12);
	const Usage decode(UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_H264, 100);
	const Usage scanout(UDA_USAGE_SCANOUT);
	for (const char *mode : {"optimal", "coincide"}) {
		SCOPED_TRACE(mode);
		setenv("UDA_MOCK_VULKAN_DECODE", mode, 1);
		ListPtr sets;
		ASSERT_EQ(sets_of(gpu, a, decode, sets), UDA_SUCCESS) << error();
		ASSERT_EQ(count_of(sets.get()), 1u);
		uda_capability layout;
		ASSERT_EQ(uda_capability_set_list_get_layout(sets.get(), 0, &layout), UDA_SUCCESS);
		EXPECT_EQ(layout.name, UDA_CAPABILITY_LAYOUT_OPAQUE);
		const uda_allocation_create_info info = {UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO, nullptr, gpu, &a,
		                                         sets.get(), 0};
		uda_allocation *raw = nullptr;
		ASSERT_EQ(uda_allocate(&info, &raw), UDA_SUCCESS) << error();
		const AllocationPtr frame(raw);
		uda_vulkan_native native = {UDA_STRUCTURE_TYPE_VULKAN_NATIVE};
		ASSERT_EQ(uda_allocation_get_native(frame.get(), &native), UDA_SUCCESS);
		EXPECT_EQ((native.usage & VK_IMAGE_USAGE_VIDEO_DECODE_DPB_BIT_KHR) != 0, std::string(mode) == "coincide");

		const uda_device_usage parties[] = {{gpu, &decode.usage}, {display, &scanout.usage}};
		const uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &a, 2, parties};
		uda_capability_set_list *agreed = nullptr;
		EXPECT_EQ(uda_negotiate(ctx.get(), &negotiation, &agreed), UDA_ERROR_INCOMPATIBLE);
		uda_capability_set_list_destroy(agreed);
	}
	unsetenv("UDA_MOCK_VULKAN_DECODE");
}

// The driver's own tiling: an opaque NV12 output, shared only with
// devices of this driver, its metadata still naming both planes.
TEST_F(VulkanVideo, AnOpaqueOutputNamesItsPlanesAndImportsOnItsOwnDriver)
{
	const uda_assertion a = assertion(1280, 720, DRM_FORMAT_NV12);
	const Usage decode(UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_H264, 77 /* Main */);
	ListPtr sets;
	ASSERT_EQ(sets_of(gpu, a, decode, sets), UDA_SUCCESS) << error();
	const uint32_t opaque = count_of(sets.get()) - 1;
	uda_capability layout;
	ASSERT_EQ(uda_capability_set_list_get_layout(sets.get(), opaque, &layout), UDA_SUCCESS);
	ASSERT_EQ(layout.name, UDA_CAPABILITY_LAYOUT_OPAQUE);
	const uda_allocation_create_info info = {UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO, nullptr, gpu, &a,
	                                         sets.get(), opaque};
	uda_allocation *raw = nullptr;
	ASSERT_EQ(uda_allocate(&info, &raw), UDA_SUCCESS) << error();
	const AllocationPtr frame(raw);
	uda_allocation_metadata m = {UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	ASSERT_EQ(uda_allocation_get_metadata(frame.get(), &m), UDA_SUCCESS);
	ASSERT_EQ(m.plane_count, 2u);
	EXPECT_EQ(m.planes[1].offset, 1280u * 720u) << "nominal: the planes one after another";
	const AllocationPtr view = import_read_only(frame.get(), gpu, UDA_HANDLE_TYPE_OPAQUE_FD);
	ASSERT_NE(view, nullptr) << error();
	uda_vulkan_native native = {UDA_STRUCTURE_TYPE_VULKAN_NATIVE};
	ASSERT_EQ(uda_allocation_get_native(view.get(), &native), UDA_SUCCESS);
	EXPECT_EQ(native.tiling, VK_IMAGE_TILING_OPTIMAL);
	EXPECT_TRUE(native.usage & VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR);
	// The display reads no driver-private layout.
	EXPECT_EQ(import_read_only(frame.get(), display), nullptr);
}

// The pipeline a player builds: the GPU decodes H.264 into a frame the
// display scans out and the GPU samples. Intel's planes read linear or
// Intel-tiled NV12, the GPU writes linear or block-linear: linear it is,
// at rows both accept, and all three hold the same memory.
TEST_F(VulkanVideo, ADecoderAGpuAndADisplayAgreeOnOneFrame)
{
	const int fds_before = open_fd_count();
	{
		// 1080p H.264 is coded 1920x1088; the display shows 1080 rows.
		const uda_assertion a = assertion(1920, 1088, DRM_FORMAT_NV12);
		const Usage decode(UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_H264, 100);
		const Usage sampled(UDA_USAGE_SAMPLED), scanout(UDA_USAGE_SCANOUT);
		const AllocationPtr frame =
		        agree_and_allocate(a, {{gpu, &decode.usage}, {gpu, &sampled.usage}, {display, &scanout.usage}});
		ASSERT_NE(frame, nullptr);
		uda_device *allocator = nullptr;
		uda_allocation_get_device(frame.get(), &allocator);
		EXPECT_EQ(allocator, gpu) << "the decoder writes it, so the decoder makes it";
		uda_allocation_metadata m = {UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
		ASSERT_EQ(uda_allocation_get_metadata(frame.get(), &m), UDA_SUCCESS);
		EXPECT_EQ(modifier_of(frame.get()), DRM_FORMAT_MOD_LINEAR);
		ASSERT_EQ(m.plane_count, 2u);
		EXPECT_EQ(m.planes[0].pitch % 256, 0u) << "the GPU's linear rows";
		EXPECT_GE(m.planes[1].offset, m.planes[0].pitch * 1088);

		const AllocationPtr display_view = import_read_only(frame.get(), display);
		ASSERT_NE(display_view, nullptr) << error();
		const AllocationPtr sampler_view = import_read_only(frame.get(), gpu);
		ASSERT_NE(sampler_view, nullptr) << error();

		// One memory: what the decoder's memory holds, the sampler's
		// import reads.
		expect_one_memory(frame.get(), sampler_view.get(), m.size, m.planes[1].offset, 0x5a);
	}
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
}

// A hardware decoder of another kind feeding the GPU and the display: the
// recorded bcm2835-codec writes 720p NV12 at 1280-byte rows into buffers of
// its own; the GPU samples them at that explicit layout (LINEAR, two
// planes), the display scans them out. The buffer's memory is whole pages,
// as vb2 exports it, which the GPU's image needs.
TEST_F(VulkanVideo, AV4l2DecoderTheGpuAndTheDisplayShareOneFrame)
{
	const int fds_before = open_fd_count();
	{
		const uda_assertion a = assertion(1280, 720, DRM_FORMAT_NV12);
		const Usage decode(UDA_USAGE_VIDEO_DECODE), sampled(UDA_USAGE_SAMPLED), scanout(UDA_USAGE_SCANOUT);
		const AllocationPtr frame = agree_and_allocate(
		        a, {{v4l2_decoder, &decode.usage}, {gpu, &sampled.usage}, {display, &scanout.usage}});
		ASSERT_NE(frame, nullptr);
		uda_device *maker = nullptr;
		uda_allocation_get_device(frame.get(), &maker);
		EXPECT_EQ(maker, v4l2_decoder);
		uda_allocation_metadata m = {UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
		ASSERT_EQ(uda_allocation_get_metadata(frame.get(), &m), UDA_SUCCESS);
		EXPECT_EQ(m.planes[0].pitch, 1280u);
		EXPECT_EQ(m.planes[1].offset, 1280u * 720u);
		EXPECT_EQ(m.size % 4096, 0u) << "the DMA-BUF's whole pages, not the driver's sizeimage";

		const AllocationPtr gpu_view = import_read_only(frame.get(), gpu);
		ASSERT_NE(gpu_view, nullptr) << error();
		const AllocationPtr display_view = import_read_only(frame.get(), display);
		ASSERT_NE(display_view, nullptr) << error();
		uda_vulkan_native native = {UDA_STRUCTURE_TYPE_VULKAN_NATIVE};
		ASSERT_EQ(uda_allocation_get_native(gpu_view.get(), &native), UDA_SUCCESS);
		EXPECT_EQ(native.tiling, VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT);

		// What the decoder writes, the GPU's import reads.
		expect_one_memory(frame.get(), gpu_view.get(), m.size, m.planes[1].offset + 1, 0xa5);
	}
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
}

// A video call's path: the recorded UVC camera captures 1080p YUYV into
// buffers of its own, the GPU samples them at the camera's rows (3840
// bytes, a multiple of its 256), the display scans them out; the same
// three that test-v4l2-device agrees with a modelled GPU, here with the
// vulkan backend importing.
TEST_F(VulkanVideo, ACameraTheGpuAndTheDisplayShareOneFrame)
{
	const uda_assertion a = assertion(1920, 1080, DRM_FORMAT_YUYV);
	const Usage capture(UDA_USAGE_CAMERA_CAPTURE), sampled(UDA_USAGE_SAMPLED), scanout(UDA_USAGE_SCANOUT);
	const AllocationPtr frame =
	        agree_and_allocate(a, {{camera, &capture.usage}, {gpu, &sampled.usage}, {display, &scanout.usage}});
	ASSERT_NE(frame, nullptr);
	uda_device *maker = nullptr;
	uda_allocation_get_device(frame.get(), &maker);
	EXPECT_EQ(maker, camera);
	uda_allocation_metadata m = {UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	ASSERT_EQ(uda_allocation_get_metadata(frame.get(), &m), UDA_SUCCESS);
	EXPECT_EQ(m.planes[0].pitch, 3840u);
	const AllocationPtr gpu_view = import_read_only(frame.get(), gpu);
	ASSERT_NE(gpu_view, nullptr) << error();
	const AllocationPtr display_view = import_read_only(frame.get(), display);
	ASSERT_NE(display_view, nullptr) << error();
	uda_vulkan_native native = {UDA_STRUCTURE_TYPE_VULKAN_NATIVE};
	ASSERT_EQ(uda_allocation_get_native(gpu_view.get(), &native), UDA_SUCCESS);
	EXPECT_EQ(native.format, VK_FORMAT_G8B8G8R8_422_UNORM);
	expect_one_memory(frame.get(), gpu_view.get(), m.size, 3840u * 540u, 0x3c);
}

// Decode outputs made, shared and freed from four threads at once: the
// profile's queries, the image checks and the query cache under load (and
// under TSan, scripts/tsan.sh).
TEST_F(VulkanVideo, DecodeOutputsComeAndGoFromManyThreads)
{
	const uda_assertion a = assertion(1280, 720, DRM_FORMAT_NV12);
	const Usage decode(UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_H265, 1 /* Main */);
	const Usage sampled(UDA_USAGE_SAMPLED);
	const uda_device_usage parties[] = {{gpu, &decode.usage}, {gpu, &sampled.usage}};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &a, 2, parties};
	// One output stays alive throughout. The validation layer (1.3.239,
	// and its later VideoProfileDesc::Cache alike) finds a cached profile
	// by raw pointer and revives it with shared_from_this(), which throws
	// std::bad_weak_ptr when the profile's last image goes on one thread
	// while another thread looks the profile up. Keeping one image of the
	// profile keeps its entry alive, as a player keeps its outputs.
	const AllocationPtr keeper = agree_and_allocate(a, {parties[0], parties[1]});
	ASSERT_NE(keeper, nullptr);
	const char *rounds_text = std::getenv("UDA_TEST_THREAD_ITERATIONS");
	const int rounds = rounds_text ? std::atoi(rounds_text) / 4 + 1 : 25;
	std::vector<std::thread> threads;
	std::vector<int> failures(4, 0);
	for (int t = 0; t < 4; t++) {
		threads.emplace_back([&, t] {
			for (int round = 0; round < rounds; round++) {
				uda_allocation *frame = nullptr;
				failures[t] += uda_negotiate_allocate(ctx.get(), &info, &frame, nullptr, nullptr) != UDA_SUCCESS;
				failures[t] += frame && !import_read_only(frame, gpu);
				uda_allocation_destroy(frame);
			}
		});
	}
	for (std::thread &thread : threads)
		thread.join();
	for (int t = 0; t < 4; t++)
		EXPECT_EQ(failures[t], 0) << "thread " << t;
}

// A set that crossed a process boundary is untrusted: a decode profile in
// its image parameters that this driver could not have written (an encode
// operation on a decode output, one it does not have), or one its format
// cannot hold (10-bit pictures in NV12), is refused before any image is
// made of it.
TEST_F(VulkanVideo, AProfileInASetFromAnotherProcessIsChecked)
{
	const uda_assertion a = assertion(1280, 720, DRM_FORMAT_NV12);
	const Usage decode(UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_H264, 77 /* Main */);
	ListPtr sets;
	ASSERT_EQ(sets_of(gpu, a, decode, sets), UDA_SUCCESS) << error();
	// The profile as the backend wrote it: operation, profile_idc 77,
	// 4:2:0, 8 bits.
	const std::vector<uint32_t> written = {VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR, 77,
	                                       VK_VIDEO_CHROMA_SUBSAMPLING_420_BIT_KHR,
	                                       VK_VIDEO_COMPONENT_BIT_DEPTH_8_BIT_KHR};
	// H.264 encode, which the mock has, but on a decode output.
	expect_tampered_profile_refused(a, sets.get(), written, 0, VK_VIDEO_CODEC_OPERATION_ENCODE_H264_BIT_KHR,
	                                UDA_ERROR_INVALID_ARGUMENT,
	                                "name a video profile (operation 0x10000, profile 77) and usage 0x");
	// AV1 encode with H.264's profile number, which AV1 has not.
	expect_tampered_profile_refused(a, sets.get(), written, 0, VK_VIDEO_CODEC_OPERATION_ENCODE_AV1_BIT_KHR,
	                                UDA_ERROR_INVALID_ARGUMENT,
	                                "name a video profile (operation 0x40000, profile 77) and usage 0x");
	expect_tampered_profile_refused(a, sets.get(), written, 3, VK_VIDEO_COMPONENT_BIT_DEPTH_10_BIT_KHR,
	                                UDA_ERROR_UNSUPPORTED, "vkCreateImage");
}

// Interlaced H.264 (UDA_VIDEO_PICTURE_INTERLACED): the output is made
// for the profile with interleaved fields, and the image parameters say
// so (28 bytes), so that every import makes it the same way. A
// progressive decoder cannot share it, and flags that are not the
// profile's, from another process, are refused.
TEST_F(VulkanVideo, AnInterlacedH264OutputIsMadeForItsLayout)
{
	const int fds_before = open_fd_count();
	{
		const uda_assertion a = assertion(1920, 1088, DRM_FORMAT_NV12);
		const Usage interlaced(UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_H264, 100, 0, 0, UDA_VIDEO_PICTURE_INTERLACED);
		ListPtr sets;
		ASSERT_EQ(sets_of(gpu, a, interlaced, sets), UDA_SUCCESS) << error();
		ASSERT_EQ(count_of(sets.get()), 8u);
		uint32_t count = 0;
		ASSERT_EQ(uda_capability_set_list_get_capability_count(sets.get(), 0, &count), UDA_SUCCESS);
		uint32_t params_length = 0;
		for (uint32_t c = 0; c < count; c++) {
			uda_capability capability;
			if (uda_capability_set_list_get_capability(sets.get(), 0, c, &capability) == UDA_SUCCESS &&
			    capability.vendor == UDA_VENDOR_API_BACKEND)
				params_length = capability.length;
		}
		EXPECT_EQ(params_length, 28u) << "usage, flags, the profile and its picture flags";

		const Usage sampled(UDA_USAGE_SAMPLED);
		const AllocationPtr frame = agree_and_allocate(a, {{gpu, &interlaced.usage}, {gpu, &sampled.usage}});
		ASSERT_NE(frame, nullptr);
		const AllocationPtr view = import_read_only(frame.get(), gpu);
		ASSERT_NE(view, nullptr) << error();

		const Usage progressive(UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_H264, 100);
		const uda_device_usage both[] = {{gpu, &interlaced.usage}, {gpu, &progressive.usage}};
		const uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &a, 2, both};
		uda_allocation *shared = nullptr;
		EXPECT_NE(uda_negotiate_allocate(ctx.get(), &negotiation, &shared, nullptr, nullptr), UDA_SUCCESS);
		EXPECT_EQ(shared, nullptr);

		// Film grain on an H.264 output: not a flag this profile has.
		const std::vector<uint32_t> written = {VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR, 100,
		                                       VK_VIDEO_CHROMA_SUBSAMPLING_420_BIT_KHR,
		                                       VK_VIDEO_COMPONENT_BIT_DEPTH_8_BIT_KHR, UDA_VIDEO_PICTURE_INTERLACED};
		expect_tampered_profile_refused(a, sets.get(), written, 4, UDA_VIDEO_PICTURE_FILM_GRAIN,
		                                UDA_ERROR_INVALID_ARGUMENT, "this device does not decode or encode");
		expect_tampered_profile_refused(a, sets.get(), written, 4, 0, UDA_ERROR_INVALID_ARGUMENT,
		                                "image parameters with picture flags 0");
	}
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
}

// Not video, but the mock's: a linear image is made for OPAQUE_FD and
// DMA_BUF together only where the driver says the two are compatible
// (VUID-VkImageCreateInfo-pNext-00990). Where they are not, the
// linear-tiling set carries OPAQUE_FD alone (the LINEAR modifier's set
// carries the DMA-BUF); a set naming both that reaches such a device is
// refused at allocation, not made half-exportable.
TEST_F(VulkanVideo, OneLinearImageServesBothHandlesOnlyWhereTheDriverSaysSo)
{
	const uda_assertion a = assertion(256, 256, DRM_FORMAT_ABGR8888);
	const Usage render(UDA_USAGE_RENDER_TARGET);
	// The handles of each set of LINEAR layout, in order.
	const auto linear_sets = [&](const uda_capability_set_list *list) {
		std::vector<std::vector<uint32_t>> found;
		for (uint32_t i = 0; i < count_of(list); i++) {
			uint64_t modifier = ~0ull;
			if (uda_capability_set_list_get_modifier(list, i, &modifier) != UDA_SUCCESS || modifier != 0)
				continue;
			std::vector<uint32_t> handles;
			for (uint32_t h : {UDA_HANDLE_TYPE_OPAQUE_FD, UDA_HANDLE_TYPE_DMA_BUF}) {
				if (uda_backend_set_has_u32(list, i, UDA_CAPABILITY_HANDLE, h))
					handles.push_back(h);
			}
			found.push_back(handles);
		}
		return found;
	};
	ListPtr apart;
	ASSERT_EQ(sets_of(gpu, a, render, apart), UDA_SUCCESS) << error();
	const std::vector<std::vector<uint32_t>> separate = {{UDA_HANDLE_TYPE_DMA_BUF}, {UDA_HANDLE_TYPE_OPAQUE_FD}};
	EXPECT_EQ(linear_sets(apart.get()), separate) << "the LINEAR modifier's set, then linear tiling's";

	// The driver that says they go together (the mock reads the switch
	// at each query), in a context of its own, since answers are cached
	// per device: one set, both handles, and an image that exports both.
	setenv("UDA_MOCK_VULKAN_HANDLES", "together", 1);
	std::unique_ptr<const char, void (*)(const char *)> unset_at_end("UDA_MOCK_VULKAN_HANDLES",
	                                                                      [](const char *name) { unsetenv(name); });
	ValidationLog other_log;
	ContextPtr other = create_validated_context(other_log);
	ASSERT_NE(other, nullptr);
	uda_device *together_gpu = vulkan_device_of(other.get());
	ASSERT_NE(together_gpu, nullptr);
	uda_capability_set_list *raw = nullptr;
	ASSERT_EQ(uda_device_get_capability_sets(together_gpu, &a, &render.usage, &raw), UDA_SUCCESS);
	ListPtr together(raw);
	const std::vector<std::vector<uint32_t>> joined = {{UDA_HANDLE_TYPE_DMA_BUF},
	                                                   {UDA_HANDLE_TYPE_OPAQUE_FD, UDA_HANDLE_TYPE_DMA_BUF}};
	EXPECT_EQ(linear_sets(together.get()), joined);
	uint32_t both_at = UINT32_MAX;
	for (uint32_t i = 0; i < count_of(together.get()) && both_at == UINT32_MAX; i++) {
		if (uda_backend_set_has_u32(together.get(), i, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_OPAQUE_FD) &&
		    uda_backend_set_has_u32(together.get(), i, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF))
			both_at = i;
	}
	ASSERT_NE(both_at, UINT32_MAX) << "one linear set with both handles";
	{
		const uda_allocation_create_info info = {UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO, nullptr, together_gpu,
		                                         &a, together.get(), both_at};
		uda_allocation *made = nullptr;
		ASSERT_EQ(uda_allocate(&info, &made), UDA_SUCCESS) << uda_context_get_error(other.get());
		const AllocationPtr image(made);
		for (uda_handle_type h : {UDA_HANDLE_TYPE_OPAQUE_FD, UDA_HANDLE_TYPE_DMA_BUF}) {
			int fd = -1;
			EXPECT_EQ(uda_allocation_export(image.get(), h, &fd), UDA_SUCCESS) << h;
			if (fd >= 0)
				close(fd);
		}
	}

	unset_at_end.reset();

	// That set, carried to this context's device, whose driver says the
	// two do not go together: refused, with the reason.
	size_t size = 0;
	ASSERT_EQ(uda_capability_set_list_serialize(together.get(), nullptr, 0, &size), UDA_SUCCESS);
	std::vector<uint8_t> bytes(size);
	ASSERT_EQ(uda_capability_set_list_serialize(together.get(), bytes.data(), size, &size), UDA_SUCCESS);
	raw = nullptr;
	ASSERT_EQ(uda_capability_set_list_deserialize(ctx.get(), bytes.data(), size, &raw), UDA_SUCCESS) << error();
	const ListPtr carried(raw);
	const uda_allocation_create_info info = {UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO, nullptr, gpu, &a,
	                                         carried.get(), both_at};
	uda_allocation *refused = nullptr;
	EXPECT_EQ(uda_allocate(&info, &refused), UDA_ERROR_UNSUPPORTED);
	EXPECT_EQ(refused, nullptr);
	EXPECT_NE(error().find("makes no one image for both OPAQUE_FD and DMA_BUF"), std::string::npos) << error();
	{
		std::lock_guard<std::mutex> guard(other_log.lock);
		for (const std::string &message : other_log.problems)
			ADD_FAILURE() << message;
	}
}

// An encode input: what the driver lists for the profile's input
// pictures, every modifier over DMA_BUF and its own tiling; an image made
// for the profile's encoder, P010 for a 10-bit profile.
TEST_F(VulkanEncodeAndAv1, AnEncodeInputOffersWhatTheDriverListsForItsProfile)
{
	const Usage encode(UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_H264, 100 /* High */);
	ListPtr sets;
	ASSERT_EQ(sets_of(gpu, assertion(1920, 1088, DRM_FORMAT_NV12), encode, sets), UDA_SUCCESS) << error();
	ASSERT_EQ(count_of(sets.get()), 8u);
	for (uint32_t i = 0; i < 6; i++)
		EXPECT_TRUE(is_block_linear(modifier_of(sets.get(), i))) << i;
	EXPECT_EQ(modifier_of(sets.get(), 6), DRM_FORMAT_MOD_LINEAR);
	uda_capability layout;
	ASSERT_EQ(uda_capability_set_list_get_layout(sets.get(), 7, &layout), UDA_SUCCESS);
	EXPECT_EQ(layout.name, UDA_CAPABILITY_LAYOUT_OPAQUE);

	const uda_assertion a = assertion(1920, 1088, DRM_FORMAT_NV12);
	for (uint32_t set : {0u, 6u, 7u}) {
		SCOPED_TRACE(set);
		const uda_allocation_create_info info = {UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO, nullptr, gpu, &a,
		                                         sets.get(), set};
		uda_allocation *raw = nullptr;
		ASSERT_EQ(uda_allocate(&info, &raw), UDA_SUCCESS) << error();
		const AllocationPtr input(raw);
		uda_vulkan_native native = {UDA_STRUCTURE_TYPE_VULKAN_NATIVE};
		ASSERT_EQ(uda_allocation_get_native(input.get(), &native), UDA_SUCCESS);
		EXPECT_TRUE(native.usage & VK_IMAGE_USAGE_VIDEO_ENCODE_SRC_BIT_KHR);
		EXPECT_FALSE(native.usage & (VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR | VK_IMAGE_USAGE_VIDEO_DECODE_DPB_BIT_KHR));
	}

	const Usage main10(UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_H265, 2 /* Main 10 */, 10);
	ASSERT_EQ(sets_of(gpu, assertion(3840, 2176, DRM_FORMAT_P010), main10, sets), UDA_SUCCESS) << error();
	EXPECT_EQ(count_of(sets.get()), 8u);
}

// AV1 encode is a device feature as well as an extension: the device is
// created with videoEncodeAV1, without which no image may be made for an
// AV1 encode profile (the mock refuses one, as the layer does). Where the
// driver lists the extension without the feature, AV1 encode is not
// offered, and the device says why.
TEST_F(VulkanEncodeAndAv1, AnAv1EncodeInputNeedsTheDevicesFeature)
{
	const uda_assertion a = assertion(1920, 1088, DRM_FORMAT_NV12);
	const Usage encode(UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_AV1, 0 /* Main */);
	ListPtr sets;
	ASSERT_EQ(sets_of(gpu, a, encode, sets), UDA_SUCCESS) << error();
	ASSERT_EQ(count_of(sets.get()), 8u);
	const uda_allocation_create_info info = {UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO, nullptr, gpu, &a, sets.get(),
	                                         6 /* linear */};
	uda_allocation *raw = nullptr;
	ASSERT_EQ(uda_allocate(&info, &raw), UDA_SUCCESS) << error();
	const AllocationPtr input(raw);
	const AllocationPtr view = import_read_only(input.get(), gpu);
	EXPECT_NE(view, nullptr) << error();

	const Usage h264(UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_H264, 100);
	expect_refused_without_feature(encode_and_av1, "UDA_MOCK_VULKAN_AV1_ENCODE", "VK_KHR_video_encode_av1", a, encode,
	                               h264);
}

TEST_F(VulkanEncodeAndAv1, AProfileTheDriverCannotEncodeOrDecodeOffersNothingAndSaysWhy)
{
	ListPtr sets;
	const uda_assertion nv12 = assertion(1920, 1088, DRM_FORMAT_NV12);
	const struct {
		uda_usage_name name;
		uint32_t codec, profile, bit_depth;
		uda_assertion a;
		const char *why;
	} cases[] = {
		// The encoder reads whole granules of its input.
		{UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_H264, 100, 0, assertion(1920, 1080, DRM_FORMAT_NV12),
		 "H.264 encoder input is read in whole 16x16 blocks: ask for 1920x1088 and fill 1920x1080 of it"},
		{UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_H265, 1, 0, assertion(1280, 720, DRM_FORMAT_NV12),
		 "H.265 encoder input is read in whole 32x32 blocks: ask for 1280x736 and fill 1280x720 of it"},
		{UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_H265, 1, 0, assertion(8192, 4352, DRM_FORMAT_NV12),
		 "encodes H.265 profile 1 from 160x64 to 4096x4096, not 8192x4352"},
		{UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_H264, 0, 0, nv12, "name the H.264 profile"},
		{UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_H264, 244, 0, nv12, "does not encode H.264 profile 244"},
		{UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_AV1, 1, 0, nv12, "does not encode AV1 profile 1"},
		{UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_AV1, 0, 0, assertion(1920, 1080, DRM_FORMAT_NV12),
		 "AV1 encoder input is read in whole 16x16 blocks: ask for 1920x1088"},
		{UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_VP8, 0, 0, nv12,
		 "codec 3 is not one the vulkan backend can encode (H.264, H.265, AV1)"},
		{UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_H265, 2, 10, nv12, "10-bit 420 profile's pictures do not fit"},
		// AV1 High (4:4:4) is not decoded by the mock; AV1's profile 0
		// is its Main, named as it is.
		{UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_AV1, 1, 0, nv12, "does not decode AV1 profile 1"},
		{UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_AV1, 3, 0, nv12, "AV1 has no profile 3 in Vulkan"},
		{UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_AV1, 0, 0, assertion(1920, 1084, DRM_FORMAT_NV12),
		 "AV1 pictures are whole 8x8 blocks: ask for 1920x1088 and show 1920x1084 of it"},
	};
	for (const auto &c : cases) {
		const Usage u(c.name, c.codec, c.profile, c.bit_depth);
		EXPECT_EQ(sets_of(gpu, c.a, u, sets), UDA_ERROR_UNSUPPORTED) << c.why;
		EXPECT_NE(error().find(c.why), std::string::npos) << error();
	}
	const Usage any(UDA_USAGE_VIDEO_ENCODE);
	EXPECT_EQ(sets_of(gpu, nv12, any, sets), UDA_ERROR_UNSUPPORTED);
	EXPECT_NE(error().find("the VIDEO_ENCODE usage needs a uda_video_profile naming the codec and its profile"),
	          std::string::npos)
	        << error();

	// One image is made for one profile here: a picture decoded and
	// then encoded in place (a transcode) is refused with the reason.
	const Usage decode(UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_H264, 100);
	const Usage encode(UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_H265, 1);
	const uda_usage_atom both_atoms[] = {decode.atom, encode.atom};
	const uda_usage both = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 2, both_atoms};
	uda_capability_set_list *raw = nullptr;
	EXPECT_EQ(uda_device_get_capability_sets(gpu, &nv12, &both, &raw), UDA_ERROR_UNSUPPORTED);
	sets.reset(raw);
	EXPECT_NE(error().find("one image is made for one video profile here, and this usage names two"),
	          std::string::npos)
	        << error();
	// Nor across parties: the decoder's output and the encoder's input
	// are two images, with a copy between them.
	const uda_device_usage parties[] = {{gpu, &decode.usage}, {gpu, &encode.usage}};
	const uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &nv12, 2, parties};
	uda_allocation *frame = nullptr;
	EXPECT_NE(uda_negotiate_allocate(ctx.get(), &negotiation, &frame, nullptr, nullptr), UDA_SUCCESS);
	EXPECT_EQ(frame, nullptr);
	uda_allocation_destroy(frame);
}

// A game streamed and shown: the GPU copies its frame, converted to NV12,
// into a buffer the display scans out and the GPU's encoder reads. Intel's
// planes read linear NV12, the encoder reads any tiling its driver lists:
// linear it is, and the encoder's import is an image made for its profile.
TEST_F(VulkanEncodeAndAv1, AGpuFrameTheDisplayShowsAndTheEncoderReads)
{
	const int fds_before = open_fd_count();
	{
		const uda_assertion a = assertion(1920, 1088, DRM_FORMAT_NV12);
		const Usage copy(UDA_USAGE_TRANSFER_DST), scanout(UDA_USAGE_SCANOUT);
		const Usage encode(UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_H264, 100);
		const AllocationPtr frame =
		        agree_and_allocate(a, {{gpu, &copy.usage}, {display, &scanout.usage}, {gpu, &encode.usage}});
		ASSERT_NE(frame, nullptr);
		EXPECT_EQ(modifier_of(frame.get()), DRM_FORMAT_MOD_LINEAR);
		uda_allocation_metadata m = {UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
		ASSERT_EQ(uda_allocation_get_metadata(frame.get(), &m), UDA_SUCCESS);
		ASSERT_EQ(m.plane_count, 2u);
		EXPECT_EQ(m.planes[0].pitch % 256, 0u);
		uda_vulkan_native native = {UDA_STRUCTURE_TYPE_VULKAN_NATIVE};
		ASSERT_EQ(uda_allocation_get_native(frame.get(), &native), UDA_SUCCESS);
		EXPECT_EQ(native.usage & (VK_IMAGE_USAGE_VIDEO_ENCODE_SRC_BIT_KHR | VK_IMAGE_USAGE_TRANSFER_DST_BIT),
		          VK_IMAGE_USAGE_VIDEO_ENCODE_SRC_BIT_KHR | VK_IMAGE_USAGE_TRANSFER_DST_BIT);

		const AllocationPtr display_view = import_read_only(frame.get(), display);
		ASSERT_NE(display_view, nullptr) << error();
		const AllocationPtr encoder_view = import_read_only(frame.get(), gpu, UDA_HANDLE_TYPE_DMA_BUF);
		ASSERT_NE(encoder_view, nullptr) << error();
		expect_one_memory(frame.get(), encoder_view.get(), m.size, m.planes[1].offset + 7, 0x96);
	}
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
}

// Transcoding across devices: the recorded bcm2835-codec decodes 720p into
// NV12 buffers of its own (1280-byte rows), the GPU's encoder reads them
// as they are, imported at the decoder's layout with the encoder's
// profile, and the display shows them.
TEST_F(VulkanEncodeAndAv1, AV4l2DecoderFeedsTheVulkanEncoderAndTheDisplay)
{
	const int fds_before = open_fd_count();
	{
		const uda_assertion a = assertion(1280, 720, DRM_FORMAT_NV12);
		const Usage decode(UDA_USAGE_VIDEO_DECODE), scanout(UDA_USAGE_SCANOUT);
		const Usage encode(UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_H264, 77 /* Main */);
		const AllocationPtr frame = agree_and_allocate(
		        a, {{v4l2_decoder, &decode.usage}, {gpu, &encode.usage}, {display, &scanout.usage}});
		ASSERT_NE(frame, nullptr);
		uda_device *maker = nullptr;
		uda_allocation_get_device(frame.get(), &maker);
		EXPECT_EQ(maker, v4l2_decoder);
		uda_allocation_metadata m = {UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
		ASSERT_EQ(uda_allocation_get_metadata(frame.get(), &m), UDA_SUCCESS);
		EXPECT_EQ(m.planes[0].pitch, 1280u);

		const AllocationPtr encoder_view = import_read_only(frame.get(), gpu);
		ASSERT_NE(encoder_view, nullptr) << error();
		uda_vulkan_native native = {UDA_STRUCTURE_TYPE_VULKAN_NATIVE};
		ASSERT_EQ(uda_allocation_get_native(encoder_view.get(), &native), UDA_SUCCESS);
		EXPECT_EQ(native.tiling, VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT);
		EXPECT_TRUE(native.usage & VK_IMAGE_USAGE_VIDEO_ENCODE_SRC_BIT_KHR);
		const AllocationPtr display_view = import_read_only(frame.get(), display);
		ASSERT_NE(display_view, nullptr) << error();
		expect_one_memory(frame.get(), encoder_view.get(), m.size, m.planes[1].offset + 3, 0x69);
	}
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
}

// AV1 decoded by the GPU into a frame the display scans out and the GPU
// samples: AV1's pictures are whole 8x8 blocks, so 1080p is asked for as
// it is; 10-bit Main goes to P010.
TEST_F(VulkanEncodeAndAv1, AnAv1FrameGoesToTheDisplayAndTheSampler)
{
	expect_frame_decoded_shown_and_sampled(UDA_VIDEO_CODEC_AV1, 0 /* Main, 10-bit */, 0xa1);
}

// AV1 film grain (UDA_VIDEO_PICTURE_FILM_GRAIN): the output is made for a
// profile with filmGrainSupport, where the decoder writes the grained
// picture apart from its reference pictures; a decoder whose outputs are
// its reference pictures has no such profile. Vulkan encodes neither
// grain nor fields.
TEST_F(VulkanEncodeAndAv1, AnAv1OutputWithFilmGrainStandsApartFromTheReferencePictures)
{
	const uda_assertion a = assertion(1920, 1080, DRM_FORMAT_NV12);
	const Usage grained(UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_AV1, 0, 0, 0, UDA_VIDEO_PICTURE_FILM_GRAIN);
	const Usage scanout(UDA_USAGE_SCANOUT);
	const AllocationPtr frame = agree_and_allocate(a, {{gpu, &grained.usage}, {display, &scanout.usage}});
	ASSERT_NE(frame, nullptr);
	uda_vulkan_native native = {UDA_STRUCTURE_TYPE_VULKAN_NATIVE};
	ASSERT_EQ(uda_allocation_get_native(frame.get(), &native), UDA_SUCCESS);
	EXPECT_EQ(native.usage & VK_IMAGE_USAGE_VIDEO_DECODE_DPB_BIT_KHR, 0u);
	const AllocationPtr view = import_read_only(frame.get(), display);
	EXPECT_NE(view, nullptr) << error();

	setenv("UDA_MOCK_VULKAN_DECODE", "coincide", 1);
	ListPtr sets;
	EXPECT_EQ(sets_of(gpu, a, grained, sets), UDA_ERROR_UNSUPPORTED);
	EXPECT_NE(error().find("does not decode AV1 profile 0"), std::string::npos) << error();
	unsetenv("UDA_MOCK_VULKAN_DECODE");

	const Usage interlaced_encode(UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_H264, 100, 0, 0,
	                              UDA_VIDEO_PICTURE_INTERLACED);
	EXPECT_EQ(sets_of(gpu, assertion(1920, 1088, DRM_FORMAT_NV12), interlaced_encode, sets), UDA_ERROR_UNSUPPORTED);
	EXPECT_NE(error().find("Vulkan encodes no interlaced pictures"), std::string::npos) << error();
}

// An encode input from another process is checked as a decode output is:
// a decode operation beside an encode use, or an operation the driver
// does not have, is refused before any image is made.
TEST_F(VulkanEncodeAndAv1, AnEncodeProfileInASetFromAnotherProcessIsChecked)
{
	const uda_assertion a = assertion(1280, 736, DRM_FORMAT_NV12);
	const Usage encode(UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_H265, 1 /* Main */);
	ListPtr sets;
	ASSERT_EQ(sets_of(gpu, a, encode, sets), UDA_SUCCESS) << error();
	const std::vector<uint32_t> written = {VK_VIDEO_CODEC_OPERATION_ENCODE_H265_BIT_KHR, 1,
	                                       VK_VIDEO_CHROMA_SUBSAMPLING_420_BIT_KHR,
	                                       VK_VIDEO_COMPONENT_BIT_DEPTH_8_BIT_KHR};
	// A decode operation on an encode input; an operation Vulkan does
	// not have.
	for (uint32_t operation : {uint32_t(VK_VIDEO_CODEC_OPERATION_DECODE_H265_BIT_KHR), 0x100u})
		expect_tampered_profile_refused(a, sets.get(), written, 0, operation, UDA_ERROR_INVALID_ARGUMENT,
		                                "this device does not decode or encode");
}

// VP9 decoded by the GPU into a frame the display scans out and the GPU
// samples, as AV1 is: pictures of whole 8x8 blocks, Profile 0 in NV12 and
// 10-bit Profile 2 in P010.
TEST_F(VulkanVp9, AVp9FrameGoesToTheDisplayAndTheSampler)
{
	expect_frame_decoded_shown_and_sampled(UDA_VIDEO_CODEC_VP9, 2 /* Profile 2 */, 0x09);
}

// What the VP9 decoder does not take is refused with the reason: a
// profile it lacks (1, 4:4:4 and 4:2:2), one VP9 does not have, a size
// that is not whole blocks or is below its least, encoding (Vulkan has no
// VP9 encode); and a driver that lists the extension without its
// videoDecodeVP9 feature decodes no VP9 at all.
TEST_F(VulkanVp9, AVp9OutputNeedsAProfileTheDecoderHasAndItsFeature)
{
	ListPtr sets;
	const uda_assertion nv12 = assertion(1920, 1080, DRM_FORMAT_NV12);
	const struct {
		uda_usage_name name;
		uint32_t profile;
		uda_assertion a;
		const char *why;
	} cases[] = {
		{UDA_USAGE_VIDEO_DECODE, 1, nv12, "does not decode VP9 profile 1"},
		{UDA_USAGE_VIDEO_DECODE, 4, nv12, "VP9 has no profile 4 in Vulkan"},
		{UDA_USAGE_VIDEO_DECODE, 0, assertion(1920, 1084, DRM_FORMAT_NV12),
		 "VP9 pictures are whole 8x8 blocks: ask for 1920x1088 and show 1920x1084 of it"},
		{UDA_USAGE_VIDEO_DECODE, 0, assertion(64, 64, DRM_FORMAT_NV12),
		 "decodes VP9 profile 0 from 128x128 to 8192x8192, not 64x64"},
		{UDA_USAGE_VIDEO_ENCODE, 0, nv12, "codec 4 is not one the vulkan backend can encode (H.264, H.265, AV1)"},
	};
	for (const auto &c : cases) {
		const Usage u(c.name, UDA_VIDEO_CODEC_VP9, c.profile);
		EXPECT_EQ(sets_of(gpu, c.a, u, sets), UDA_ERROR_UNSUPPORTED) << c.why;
		EXPECT_NE(error().find(c.why), std::string::npos) << error();
	}

	// H.265 decode (whole 8x8 blocks too) is still there.
	const Usage vp9(UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_VP9, 0);
	const Usage h265(UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_H265, 1);
	expect_refused_without_feature(vp9_decode, "UDA_MOCK_VULKAN_VP9_DECODE", "VK_KHR_video_decode_vp9", nv12, vp9,
	                               h265);
}

// Validated by a layer older than an operation's extension, the backend
// leaves the operation out and says why; by one that knows it, the
// operation is there. The system's layer and scripts/newer-vulkan.sh's
// take the two sides. The same holds where the loader's environment
// (VK_INSTANCE_LAYERS, VK_LOADER_LAYERS_ENABLE) enables the layer rather
// than uda.
TEST_F(VulkanVideo, AnOperationNewerThanTheValidationLayerIsLeftOutAndSaysWhy)
{
	const uint32_t layer = validation_layer_version();
	ASSERT_NE(layer, 0u) << "these tests run validated";
	const struct {
		const NewerVideo &newer;
		Usage usage;
		uda_assertion a;
		const char *operation, *extension;
	} cases[] = {
		{encode_and_av1, Usage(UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_AV1, 0), assertion(1920, 1088, DRM_FORMAT_NV12),
		 "AV1 encode", "VK_KHR_video_encode_av1"},
		{vp9_decode, Usage(UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_VP9, 0), assertion(1920, 1080, DRM_FORMAT_NV12),
		 "VP9 decode", "VK_KHR_video_decode_vp9"},
	};
	const auto expect_per_layer = [&](uda_device *device, uda_context *context, const char *how) {
		for (const auto &c : cases) {
			SCOPED_TRACE(std::string(c.operation) + ", " + how);
			uda_capability_set_list *sets = nullptr;
			const uda_result result = uda_device_get_capability_sets(device, &c.a, &c.usage.usage, &sets);
			uda_capability_set_list_destroy(sets);
			const std::string why = uda_context_get_error(context);
			if (layer >= c.newer.layer) {
				EXPECT_EQ(result, UDA_SUCCESS) << why;
				continue;
			}
			EXPECT_EQ(result, UDA_ERROR_UNSUPPORTED);
			EXPECT_NE(why.find(std::string("leaves ") + c.operation +
			                   " out while validating: the validation layer is older than " + c.extension),
			          std::string::npos)
			        << why;
		}
	};
	expect_per_layer(gpu, ctx.get(), "UDA_VULKAN_VALIDATION=1");
	const struct {
		const char *variable, *value;
	} loader_switches[] = {
		{"VK_INSTANCE_LAYERS", "VK_LAYER_KHRONOS_validation"},
		{"VK_LOADER_LAYERS_ENABLE", "VK_LAYER_LUNARG_api_dump_missing,*_validation"},
	};
	for (const auto &loader_switch : loader_switches) {
		setenv(loader_switch.variable, loader_switch.value, 1);
		ValidationLog loader_log;
		ContextPtr by_loader = create_validated_context(loader_log, false);
		unsetenv(loader_switch.variable);
		ASSERT_NE(by_loader, nullptr);
		uda_device *other_gpu = vulkan_device_of(by_loader.get());
		ASSERT_NE(other_gpu, nullptr);
		expect_per_layer(other_gpu, by_loader.get(), loader_switch.variable);
		by_loader.reset();
		std::lock_guard<std::mutex> guard(loader_log.lock);
		for (const std::string &message : loader_log.problems)
			ADD_FAILURE() << message;
	}
}

// The machine's own drivers (tests/hardware/nvidia.sh runs these on
// NVIDIA's; ctest on the mock). Each Vulkan device of the machine with a queue for `video`'s profile
// makes a 1080p NV12 picture (1920x1088: whole macroblocks) that its own
// sampler and, where GL samples NV12, GL import, and prints what it made
// ("<what> made: ..."), an image of `video_use`; a device without such a
// queue must say only that: it has none of the direction (`no_queue`) or
// none for the codec ("has no queue that <codec_use>"). Skips, saying why, where none has one.
class VulkanVideoDriver : public VideoContext
{
protected:
	void SetUp() override { ASSERT_NO_FATAL_FAILURE(create_context(false, newer_video())); }
	virtual const NewerVideo *newer_video() const { return nullptr; }

	void each_device_makes_and_shares(const Usage &video, const char *what, const char *no_queue,
	                                  const char *codec_use, VkImageUsageFlags video_use)
	{
		const uda_assertion a = assertion(1920, 1088, DRM_FORMAT_NV12);
		const Usage sampled(UDA_USAGE_SAMPLED);
		std::string why_none;
		unsigned made = 0;
		for (uda_device *gpu : devices_of(UDA_DEVICE_API_VULKAN)) {
			uda_device_info info = {UDA_STRUCTURE_TYPE_DEVICE_INFO};
			uda_device_get_info(gpu, &info);
			ListPtr sets;
			if (sets_of(gpu, a, video, sets) != UDA_SUCCESS) {
				// Only a device without the codec's queue may pass
				// without a picture: any other refusal is a failure.
				const std::string why = error();
				EXPECT_TRUE(why.find(no_queue) != std::string::npos ||
				            why.find(std::string("has no queue that ") + codec_use) != std::string::npos)
				        << info.name << ": " << why;
				why_none += std::string(info.name) + ": " + why + "; ";
				continue;
			}
			made++;
			std::vector<uda_device_usage> parties = {{gpu, &video.usage}, {gpu, &sampled.usage}};
			// GL takes part where it samples NV12 at all (through an
			// external image); where it does not, it says why and the
			// GPU goes alone.
			for (uda_device *gl : devices_of(UDA_DEVICE_API_GL)) {
				ListPtr gl_sets;
				if (sets_of(gl, a, sampled, gl_sets) == UDA_SUCCESS)
					parties.push_back({gl, &sampled.usage});
				else
					std::printf("GL offers nothing for NV12: %s\n", error().c_str());
			}
			const uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &a,
			                                          static_cast<uint32_t>(parties.size()), parties.data()};
			uda_allocation *raw = nullptr;
			ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &negotiation, &raw, nullptr, nullptr), UDA_SUCCESS)
			        << info.name << ": " << error();
			const AllocationPtr frame(raw);
			uda_allocation_metadata m = {UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
			ASSERT_EQ(uda_allocation_get_metadata(frame.get(), &m), UDA_SUCCESS);
			uda_vulkan_native native = {UDA_STRUCTURE_TYPE_VULKAN_NATIVE};
			ASSERT_EQ(uda_allocation_get_native(frame.get(), &native), UDA_SUCCESS);
			EXPECT_TRUE(native.usage & video_use) << std::hex << native.usage;
			char tiling[64] = "the driver's own tiling (opaque)";
			if (native.tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT)
				std::snprintf(tiling, sizeof(tiling), "modifier 0x%016llx",
				              static_cast<unsigned long long>(modifier_of(frame.get())));
			std::printf("%s: %s made: %s, %u planes, pitch %llu, %llu bytes\n", info.name, what, tiling,
			            m.plane_count, static_cast<unsigned long long>(m.planes[0].pitch),
			            static_cast<unsigned long long>(m.size));
			for (size_t i = 1; i < parties.size(); i++) {
				const AllocationPtr imported = import_read_only(frame.get(), parties[i].device);
				EXPECT_NE(imported, nullptr) << error();
				uda_device_info importer = {UDA_STRUCTURE_TYPE_DEVICE_INFO};
				uda_device_get_info(parties[i].device, &importer);
				if (imported)
					std::printf("  imported by %s\n", importer.name);
			}
		}
		if (!made)
			GTEST_SKIP() << "no Vulkan device here has a queue for it (" << why_none
			             << "lavapipe has no video queue): the real-device run needs a GPU with one";
	}
};

TEST_F(VulkanVideoDriver, EachDecoderMakesAnOutputItsSamplerAndGlImport)
{
	const Usage decode(UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_H264, 100 /* High */);
	each_device_makes_and_shares(decode, "decode output", "has no video decode queue", "decodes H.264",
	                             VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR);
}

// The same for encoding, H.264 High: the sampler a preview. Under a
// validation layer older than encode it runs unvalidated and says so.
class VulkanVideoEncodeDriver : public VulkanVideoDriver
{
protected:
	const NewerVideo *newer_video() const override { return &encode_and_av1; }
};

TEST_F(VulkanVideoEncodeDriver, EachEncoderMakesAnInputItsSamplerAndGlImport)
{
	const Usage encode(UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_H264, 100 /* High */);
	each_device_makes_and_shares(encode, "encode input", "has no video encode queue", "encodes H.264",
	                             VK_IMAGE_USAGE_VIDEO_ENCODE_SRC_BIT_KHR);
}

// The same for VP9 Profile 0 decode (1920x1088 is whole 8x8 blocks too).
// A device whose driver lists the extension without its videoDecodeVP9
// feature fails it, saying so: that is what the real run is to find out.
class VulkanVideoVp9Driver : public VulkanVideoDriver
{
protected:
	const NewerVideo *newer_video() const override { return &vp9_decode; }
};

TEST_F(VulkanVideoVp9Driver, EachVp9DecoderMakesAnOutputItsSamplerAndGlImport)
{
	const Usage decode(UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_VP9, 0 /* Profile 0 */);
	each_device_makes_and_shares(decode, "VP9 decode output", "has no video decode queue", "decodes VP9",
	                             VK_IMAGE_USAGE_VIDEO_DECODE_DST_BIT_KHR);
}
