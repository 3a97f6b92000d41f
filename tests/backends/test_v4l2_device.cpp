// The v4l2 backend's devices (core/backends/v4l2/v4l2_device.c) over
// recorded drivers replayed through the ioctl seam
// (tests/backends/v4l2-fixtures/replay/*.v4l2, v4l2_replay.c): who they
// are, what each role answers, buffers the node makes and buffers it
// takes, and a camera, a GPU and a display agreeing on one buffer.
#include <drm_fourcc.h>
#include <fcntl.h>
#include <cstdio>
#include <gtest/gtest.h>

#include <algorithm>
#include <linux/videodev2.h>
#include <memory>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <uda/uda_v4l2.h>

#include "drm_fixture.hpp"
#include "fd_count.hpp"
#include "set_spec.hpp"
#include "test_device.h"

extern "C" {
#include "v4l2_device.h"
#include "v4l2_probe.h"
#include "v4l2_replay.h"
}

using namespace uda_test;

namespace
{

std::string recorded(const char *name)
{
	return std::string(UDA_TEST_V4L2_REPLAY_DIR) + "/" + name;
}

struct Replay {
	v4l2_replay *replay = nullptr;

	explicit Replay(const std::string &paths)
	{
		char why[256] = "";
		replay = v4l2_replay_create(paths.c_str(), why, sizeof(why));
		EXPECT_NE(replay, nullptr) << why;
	}
	~Replay() { v4l2_replay_destroy(replay); }
	const v4l2_io *io() const { return v4l2_replay_io(replay); }
	unsigned live_buffers() const { return v4l2_replay_live_buffers(replay); }
};

// A replay file written for one test, removed after it.
class Recording
{
public:
	explicit Recording(const std::string &text)
	{
		const int fd = mkstemp(path_);
		EXPECT_GE(fd, 0);
		EXPECT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
		close(fd);
	}
	~Recording() { unlink(path_); }
	const char *path() const { return path_; }
	// Its file name, which names its node ("replay:" and it).
	const char *name() const { return strrchr(path_, '/') + 1; }

private:
	char path_[32] = "/tmp/uda-v4l2-replay-XXXXXX";
};

// A context without backends whose INFO messages go into *infos.
ContextPtr context_keeping_infos(std::vector<std::string> *infos)
{
	uda_context_create_info info = bare_context_info();
	info.log_level = UDA_LOG_INFO;
	info.log_callback = [](uda_log_level level, const char *message, void *user_data) {
		if (level == UDA_LOG_INFO)
			static_cast<std::vector<std::string> *>(user_data)->push_back(message);
	};
	info.log_user_data = infos;
	uda_context *ctx = nullptr;
	EXPECT_EQ(uda_context_create(&info, &ctx), UDA_SUCCESS);
	return ContextPtr(ctx);
}

uda_device *add(uda_context *ctx, const Replay &replay, const char *file)
{
	uda_device *device = nullptr;
	const std::string path = std::string("replay:") + file;
	EXPECT_EQ(v4l2_device_add(ctx, path.c_str(), replay.io(), &device), UDA_SUCCESS) << uda_context_get_error(ctx);
	return device;
}

uda_usage_atom atom(uda_usage_name name)
{
	return {UDA_VENDOR_NONE, static_cast<uint16_t>(name), 0, nullptr};
}

struct Usage {
	uda_usage_atom atoms[1];
	uda_usage usage;
	explicit Usage(uda_usage_name name) : atoms{atom(name)}, usage{UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, atoms} {}
};

uda_assertion assertion(uint32_t width, uint32_t height, uint32_t format)
{
	return {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, width, height, format, 0};
}

// A negotiation of one device for one usage of its own.
struct Alone {
	uda_assertion a;
	Usage u;
	uda_device_usage parties[1];
	uda_negotiation_info info;

	Alone(uda_device *device, uint32_t width, uint32_t height, uint32_t format, uda_usage_name usage)
	    : a(assertion(width, height, format)), u(usage), parties{{device, &u.usage}},
	      info{UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &a, 1, parties}
	{
	}
	Alone(const Alone &) = delete;
	Alone &operator=(const Alone &) = delete;
};

uda_result sets_of(uda_device *device, uint32_t width, uint32_t height, uint32_t format, uda_usage_name usage,
                   ListPtr &out)
{
	const uda_assertion a = assertion(width, height, format);
	const Usage u(usage);
	uda_capability_set_list *list = nullptr;
	const uda_result r = uda_device_get_capability_sets(device, &a, &u.usage, &list);
	out.reset(list);
	return r;
}

uint64_t constraint(const uda_capability_set_list *list, uint32_t set, uda_constraint c)
{
	bool present = false;
	uint64_t value = 0;
	EXPECT_EQ(uda_capability_set_list_get_constraint(list, set, c, &present, &value), UDA_SUCCESS);
	return present ? value : 0;
}

std::string text_of(uda_context *ctx)
{
	return uda_context_get_error(ctx);
}

const char *const kAllRecorded[] = {"uvc-elp4k.v4l2", "vivid.v4l2", "hantro-rk3399-dec.v4l2",
                                    "hantro-rk3399-enc.v4l2", "bcm2835-codec-decode.v4l2"};

std::string all_recorded()
{
	std::string paths;
	for (const char *file : kAllRecorded)
		paths += (paths.empty() ? "" : ":") + recorded(file);
	return paths;
}

} // namespace

TEST(V4l2Device, EveryRecordedNodeBecomesADeviceNamedForWhatItDoes)
{
	Replay replay(all_recorded()); // outlives the context
	const ContextPtr ctx = make_context();
	ASSERT_EQ(v4l2_devices_add_all(ctx.get(), replay.io()), 5u);
	uint32_t count = 0;
	ASSERT_EQ(uda_context_enumerate_devices(ctx.get(), &count, nullptr), UDA_SUCCESS);
	std::vector<uda_device *> devices(count);
	ASSERT_EQ(uda_context_enumerate_devices(ctx.get(), &count, devices.data()), UDA_SUCCESS);
	std::vector<std::string> names;
	for (uda_device *device : devices) {
		uda_device_info info = {UDA_STRUCTURE_TYPE_DEVICE_INFO};
		ASSERT_EQ(uda_device_get_info(device, &info), UDA_SUCCESS);
		EXPECT_EQ(info.api, UDA_DEVICE_API_V4L2);
		EXPECT_STREQ(info.backend_name, "v4l2");
		EXPECT_STREQ(uda_device_api_to_string(info.api), "V4L2");
		names.push_back(info.name);
	}
	ASSERT_EQ(names.size(), 5u);
	EXPECT_EQ(names[0], "uvcvideo camera: HD USB CAMERA: HD USB CAMERA (replay:uvc-elp4k.v4l2)");
	EXPECT_EQ(names[2], "hantro-vpu decoder: rockchip,rk3399-vpu-dec (replay:hantro-rk3399-dec.v4l2)");
	EXPECT_EQ(names[3], "hantro-vpu encoder: rockchip,rk3399-vpu-enc (replay:hantro-rk3399-enc.v4l2)");
	EXPECT_EQ(names[4], "bcm2835-codec decoder: bcm2835-codec-decode (replay:bcm2835-codec-decode.v4l2)");
}

// The UUID comes from where the hardware sits and what it is, so another
// process (another context) names the same node alike; the decoder and
// the encoder of one hantro block differ.
TEST(V4l2Device, TheSameHardwareHasTheSameUuidInEveryContext)
{
	Replay replay(all_recorded());
	std::vector<std::vector<uint8_t>> uuids[2];
	for (auto &run : uuids) {
		const ContextPtr ctx = make_context();
		ASSERT_EQ(v4l2_devices_add_all(ctx.get(), replay.io()), 5u);
		uda_device *devices[5];
		uint32_t count = 5;
		ASSERT_EQ(uda_context_enumerate_devices(ctx.get(), &count, devices), UDA_SUCCESS);
		for (uda_device *device : devices) {
			uda_device_info info = {UDA_STRUCTURE_TYPE_DEVICE_INFO};
			uda_device_get_info(device, &info);
			run.emplace_back(info.device_uuid, info.device_uuid + UDA_UUID_SIZE);
		}
	}
	EXPECT_EQ(uuids[0], uuids[1]);
	EXPECT_NE(uuids[0][2], uuids[0][3]) << "decoder and encoder of one block";
}

TEST(V4l2Device, ANodeThatSharesNoBuffersIsNoDevice)
{
	// uvcvideo's metadata node (v4l2-fixtures/uvcvideo-c922-metadata-node.txt):
	// device caps 0x04a00000, metadata capture and streaming, no video.
	const std::string text = "driver uvcvideo\ncard C922 Pro Stream Webcam\nbus usb-5200000.usb-1\n"
	                         "device-caps 0x04a00000\nqueue capture\nformat UVCH compressed\n";
	const Recording recording(text);
	Replay replay(recording.path());
	const ContextPtr ctx = make_context();
	uda_device *device = nullptr;
	const std::string node = std::string("replay:") + recording.name();
	EXPECT_EQ(v4l2_device_add(ctx.get(), node.c_str(), replay.io(), &device), UDA_ERROR_UNSUPPORTED);
	EXPECT_NE(text_of(ctx.get()).find("not a video device"), std::string::npos) << text_of(ctx.get());
	EXPECT_EQ(v4l2_devices_add_all(ctx.get(), replay.io()), 0u);
}

// A picture format uda has no DRM format for (Y16I: a depth camera's
// interleaved infrared, listed by uvcvideo) is said where the device is
// added and is in no set; the camera's other formats serve as before.
TEST(V4l2Device, AFormatWithoutADrmFormatIsSaidAndLeftOut)
{
	const Recording recording("driver uvcvideo\ncard Depth Camera\nbus usb-0000:00:14.0-2\n"
	                          "device-caps 0x04200001\nqueue capture memory mmap,dmabuf\n"
	                          "format Y16I discrete 640x480 bpp 2\nformat YUYV discrete 640x480 bpp 2\n");
	Replay replay(recording.path());
	std::vector<std::string> infos;
	const ContextPtr ctx = context_keeping_infos(&infos);
	ASSERT_NE(ctx, nullptr);
	uda_device *camera = add(ctx.get(), replay, recording.name());
	ASSERT_NE(camera, nullptr);
	size_t said = 0;
	for (const std::string &message : infos)
		said += message.find("format Y16I (0x49363159) of its capture queue has no DRM format uda knows") !=
		        std::string::npos;
	EXPECT_EQ(said, 1u) << "said once, where the device is added";
	ListPtr sets;
	ASSERT_EQ(sets_of(camera, 640, 480, DRM_FORMAT_YUYV, UDA_USAGE_CAMERA_CAPTURE, sets), UDA_SUCCESS)
	        << text_of(ctx.get());
	EXPECT_EQ(constraint(sets.get(), 0, UDA_CONSTRAINT_MAX_PITCH), 1280u);
}

// An output-only node (a video output: vivid's second node, a TV or HDMI
// transmitter driven through V4L2) shows the frames its output queue
// takes: it negotiates for UDA_USAGE_SCANOUT, and nothing a camera does.
TEST(V4l2Device, AVideoOutputNegotiatesForScanout)
{
	// vivid's video output node as its device caps make it (VIDEO_OUTPUT,
	// EXT_PIX_FORMAT, STREAMING), with the capture node's YUYV.
	const Recording recording("driver vivid\ncard vivid\nbus platform:vivid-000\ndevice-caps 0x04200002\n"
	                          "queue output memory mmap,dmabuf\nformat YUYV stepwise 16x16 1920x1080 2x1 bpp 2\n");
	Replay replay(recording.path());
	const ContextPtr ctx = make_context();
	uda_device *output = add(ctx.get(), replay, recording.name());
	ASSERT_NE(output, nullptr);
	ListPtr sets;
	ASSERT_EQ(sets_of(output, 640, 480, DRM_FORMAT_YUYV, UDA_USAGE_SCANOUT, sets), UDA_SUCCESS)
	        << text_of(ctx.get());
	EXPECT_EQ(constraint(sets.get(), 0, UDA_CONSTRAINT_MAX_PITCH), 1280u);
	EXPECT_EQ(sets_of(output, 640, 480, DRM_FORMAT_YUYV, UDA_USAGE_CAMERA_CAPTURE, sets), UDA_ERROR_UNSUPPORTED);
	EXPECT_NE(text_of(ctx.get()).find("a video output, does not serve usage"), std::string::npos)
	        << text_of(ctx.get());
	// And it makes a buffer of its own, as a camera does.
	const Alone alone(output, 640, 480, DRM_FORMAT_YUYV, UDA_USAGE_SCANOUT);
	uda_allocation *frame = nullptr;
	ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &alone.info, &frame, nullptr, nullptr), UDA_SUCCESS)
	        << text_of(ctx.get());
	uda_allocation_destroy(frame);
}

TEST(V4l2Device, EachRoleAnswersItsOwnUsageOnly)
{
	Replay replay(all_recorded()); // outlives the context
	const ContextPtr ctx = make_context();
	uda_device *camera = add(ctx.get(), replay, "uvc-elp4k.v4l2");
	uda_device *decoder = add(ctx.get(), replay, "hantro-rk3399-dec.v4l2");
	uda_device *encoder = add(ctx.get(), replay, "hantro-rk3399-enc.v4l2");
	ListPtr sets;
	ASSERT_EQ(sets_of(camera, 1920, 1080, DRM_FORMAT_YUYV, UDA_USAGE_CAMERA_CAPTURE, sets), UDA_SUCCESS)
	        << text_of(ctx.get());
	EXPECT_EQ(constraint(sets.get(), 0, UDA_CONSTRAINT_MAX_PITCH), 3840u);
	EXPECT_EQ(sets_of(camera, 1920, 1080, DRM_FORMAT_YUYV, UDA_USAGE_VIDEO_DECODE, sets), UDA_ERROR_UNSUPPORTED);
	EXPECT_NE(text_of(ctx.get()).find("a camera, does not serve usage"), std::string::npos) << text_of(ctx.get());

	ASSERT_EQ(sets_of(decoder, 1280, 720, DRM_FORMAT_NV12, UDA_USAGE_VIDEO_DECODE, sets), UDA_SUCCESS)
	        << text_of(ctx.get());
	EXPECT_EQ(constraint(sets.get(), 0, UDA_CONSTRAINT_MAX_PITCH), 1280u);
	EXPECT_EQ(sets_of(decoder, 1280, 720, DRM_FORMAT_NV12, UDA_USAGE_VIDEO_ENCODE, sets), UDA_ERROR_UNSUPPORTED);

	// The encoder reads YUYV at 32-byte rows; NV12M is two buffers, which uda does not describe.
	ASSERT_EQ(sets_of(encoder, 1280, 720, DRM_FORMAT_YUYV, UDA_USAGE_VIDEO_ENCODE, sets), UDA_SUCCESS)
	        << text_of(ctx.get());
	EXPECT_EQ(constraint(sets.get(), 0, UDA_CONSTRAINT_MAX_PITCH), 2560u);
	EXPECT_NE(sets_of(encoder, 1280, 720, DRM_FORMAT_NV12, UDA_USAGE_VIDEO_ENCODE, sets), UDA_SUCCESS);
	EXPECT_NE(text_of(ctx.get()).find("separate buffers"), std::string::npos) << text_of(ctx.get());
}

// A decoder asked for a codec must read its bitstream, and the profile
// must be in its profile menu: the recorded hantro decodes H.264 (up to
// High, not High 10), MPEG-2 and VP8 slices, not H.265; the encoder
// writes JPEG.
TEST(V4l2Device, ADecoderAskedForACodecItCannotReadOffersNothing)
{
	Replay replay(all_recorded()); // outlives the context
	const ContextPtr ctx = make_context();
	uda_device *decoder = add(ctx.get(), replay, "hantro-rk3399-dec.v4l2");
	uda_device *encoder = add(ctx.get(), replay, "hantro-rk3399-enc.v4l2");
	const uda_assertion a = assertion(1280, 720, DRM_FORMAT_NV12);
	const struct {
		uda_device *device;
		uda_usage_name usage;
		uda_video_codec codec;
		bool offers;
		uint32_t profile;
	} cases[] = {
		{decoder, UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_H264, true},
		{decoder, UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_VP8, true},
		{decoder, UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_H265, false},
		// Its recorded h264_profile menu runs from Baseline to High.
		{decoder, UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_H264, true, 100},
		{decoder, UDA_USAGE_VIDEO_DECODE, UDA_VIDEO_CODEC_H264, false, 110},
		{encoder, UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_JPEG, true},
		{encoder, UDA_USAGE_VIDEO_ENCODE, UDA_VIDEO_CODEC_H264, false},
	};
	for (const auto &c : cases) {
		const uda_assertion yuyv = assertion(1280, 720, DRM_FORMAT_YUYV);
		const uda_video_profile profile = {static_cast<uint32_t>(c.codec), c.profile, 8, 420};
		uint8_t payload[UDA_VIDEO_PROFILE_PAYLOAD_SIZE];
		uda_video_profile_to_payload(&profile, payload);
		const uda_usage_atom video = {UDA_VENDOR_NONE, static_cast<uint16_t>(c.usage), sizeof(payload), payload};
		const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &video};
		uda_capability_set_list *sets = nullptr;
		const uda_result r = uda_device_get_capability_sets(c.device, c.device == encoder ? &yuyv : &a, &usage, &sets);
		EXPECT_EQ(r == UDA_SUCCESS, c.offers) << c.codec << ": " << text_of(ctx.get());
		if (!c.offers) {
			const char *why = c.device == encoder ? "encodes no H.264"
			                  : c.profile     ? "decodes no H.264 High 10 (its menu: items 0..4)"
			                                  : "decodes no H.265";
			EXPECT_NE(text_of(ctx.get()).find(why), std::string::npos) << text_of(ctx.get());
		}
		uda_capability_set_list_destroy(sets);
	}
}

// Pictures follow the bitstream the usage names; a usage naming none
// gets those of the bitstream whose pictures need the most memory (here
// all alike: the first), and the log says which.
TEST(V4l2Device, ADecodersPicturesAreSizedForTheCodecTheUsageNames)
{
	Replay replay(recorded("hantro-rk3399-dec.v4l2")); // outlives the context
	std::vector<std::string> infos;
	const ContextPtr ctx = context_keeping_infos(&infos);
	ASSERT_NE(ctx, nullptr);
	uda_device *decoder = add(ctx.get(), replay, "hantro-rk3399-dec.v4l2");
	const auto said_first = [&infos] {
		for (const std::string &message : infos)
			if (message.find("no codec named: pictures sized for S264, whose need the most memory of the 3 "
			                 "bitstreams") != std::string::npos)
				return true;
		return false;
	};

	ListPtr sets;
	ASSERT_EQ(sets_of(decoder, 1280, 720, DRM_FORMAT_NV12, UDA_USAGE_VIDEO_DECODE, sets), UDA_SUCCESS)
	        << text_of(ctx.get());
	EXPECT_TRUE(said_first());

	infos.clear();
	const uda_video_profile vp8 = {UDA_VIDEO_CODEC_VP8, 0, 8, 420};
	uint8_t payload[UDA_VIDEO_PROFILE_PAYLOAD_SIZE];
	uda_video_profile_to_payload(&vp8, payload);
	const uda_usage_atom video = {UDA_VENDOR_NONE, UDA_USAGE_VIDEO_DECODE, sizeof(payload), payload};
	const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &video};
	const uda_assertion a = assertion(1280, 720, DRM_FORMAT_NV12);
	uda_device_usage party = {decoder, &usage};
	const uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &a, 1, &party};
	uda_allocation *picture = nullptr;
	ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &negotiation, &picture, nullptr, nullptr), UDA_SUCCESS)
	        << text_of(ctx.get());
	const AllocationPtr owned(picture);
	EXPECT_FALSE(said_first());
	uda_v4l2_device_native device_native = {UDA_STRUCTURE_TYPE_V4L2_DEVICE_NATIVE};
	ASSERT_EQ(uda_device_get_native(decoder, &device_native), UDA_SUCCESS);
	v4l2_format bitstream = {};
	bitstream.type = device_native.output_type;
	ASSERT_EQ(replay.io()->ioctl(replay.io()->data, device_native.fd, VIDIOC_G_FMT, &bitstream), 0);
	EXPECT_EQ(bitstream.fmt.pix_mp.pixelformat, static_cast<uint32_t>(V4L2_PIX_FMT_VP8_FRAME));
}

// hantro keeps a picture's motion vectors after it for some codecs, so
// many bytes per macroblock (the recording's mv-per-mb, constructed: the
// sizes of a G2 on a board are not recorded). Asked for no codec, the
// decoder's pictures are those of the bitstream that needs the most, not
// of its first: memory made for them serves any codec it decodes.
TEST(V4l2Device, PicturesOfNoCodecServeTheBitstreamThatNeedsTheMost)
{
	const Recording recording("driver hantro-vpu\ncard nxp,imx8mq-vpu-g2\nbus platform: hantro-vpu\n"
	                          "device-caps 0x04204000\nqueue capture-mplane memory mmap,dmabuf\n"
	                          "format NV12 pitch-align 16 size 3/2 follows-output 16 48x48 "
	                          "mv-per-mb S265 48 mv-per-mb VP9F 96\n"
	                          "queue output-mplane memory mmap,dmabuf\n"
	                          "format S265 compressed\nformat MG2S compressed\nformat VP9F compressed\n");
	Replay replay(recording.path());
	std::vector<std::string> infos;
	const ContextPtr ctx = context_keeping_infos(&infos);
	ASSERT_NE(ctx, nullptr);
	uda_device *decoder = add(ctx.get(), replay, recording.name());
	ASSERT_NE(decoder, nullptr);
	// 1920x1088: 120 x 68 macroblocks; NV12 1920 x 1088 x 3/2.
	const uint64_t planes = 1920ull * 1088 * 3 / 2, macroblocks = 120 * 68;
	ListPtr sets;
	ASSERT_EQ(sets_of(decoder, 1920, 1088, DRM_FORMAT_NV12, UDA_USAGE_VIDEO_DECODE, sets), UDA_SUCCESS)
	        << text_of(ctx.get());
	EXPECT_EQ(constraint(sets.get(), 0, UDA_CONSTRAINT_MIN_SIZE), planes + 96 * macroblocks);
	bool said = false;
	for (const std::string &message : infos)
		said = said || message.find("pictures sized for VP9F, whose need the most memory of the 3") !=
		                       std::string::npos;
	EXPECT_TRUE(said);
	// Naming HEVC sizes them for HEVC.
	const uda_video_profile hevc = {UDA_VIDEO_CODEC_H265, 1, 8, 420};
	uint8_t payload[UDA_VIDEO_PROFILE_PAYLOAD_SIZE];
	uda_video_profile_to_payload(&hevc, payload);
	const uda_usage_atom video = {UDA_VENDOR_NONE, UDA_USAGE_VIDEO_DECODE, sizeof(payload), payload};
	const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &video};
	const uda_assertion a = assertion(1920, 1088, DRM_FORMAT_NV12);
	uda_capability_set_list *named = nullptr;
	ASSERT_EQ(uda_device_get_capability_sets(decoder, &a, &usage, &named), UDA_SUCCESS) << text_of(ctx.get());
	const ListPtr named_sets(named);
	EXPECT_EQ(constraint(named_sets.get(), 0, UDA_CONSTRAINT_MIN_SIZE), planes + 48 * macroblocks);
	// Pictures none of them makes: said as one failure of all three.
	EXPECT_EQ(sets_of(decoder, 1920, 1088, DRM_FORMAT_YUYV, UDA_USAGE_VIDEO_DECODE, sets), UDA_ERROR_INCOMPATIBLE);
	EXPECT_NE(text_of(ctx.get()).find("pictures for none of the 3 bitstreams it reads; the last: v4l2: no set for "
	                                  "1920x1088"),
	          std::string::npos)
	        << text_of(ctx.get());
}

// A camera that makes its own buffers: VIDIOC_CREATE_BUFS on the backend's
// fd, exported with VIDIOC_EXPBUF, and gone from the queue when freed.
TEST(V4l2Device, ACameraMakesExportsAndFreesItsOwnBuffers)
{
	const int fds_before = open_fd_count();
	{
		Replay replay(recorded("vivid.v4l2")); // outlives the context
		const ContextPtr ctx = make_context();
		uda_device *camera = add(ctx.get(), replay, "vivid.v4l2");
		const Alone alone(camera, 640, 480, DRM_FORMAT_YUYV, UDA_USAGE_CAMERA_CAPTURE);
		const uda_negotiation_info &info = alone.info;
		uda_allocation *first = nullptr, *second = nullptr;
		ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &first, nullptr, nullptr), UDA_SUCCESS)
		        << text_of(ctx.get());
		ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &second, nullptr, nullptr), UDA_SUCCESS)
		        << text_of(ctx.get());
		EXPECT_EQ(replay.live_buffers(), 2u);

		uda_allocation_metadata m = {UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
		ASSERT_EQ(uda_allocation_get_metadata(first, &m), UDA_SUCCESS);
		EXPECT_EQ(m.plane_count, 1u);
		EXPECT_EQ(m.planes[0].pitch, 1280u) << "vivid's bytesperline, recorded";
		EXPECT_EQ(m.size, 614400u) << "vivid's sizeimage, recorded";
		uda_v4l2_native native = {UDA_STRUCTURE_TYPE_V4L2_NATIVE};
		ASSERT_EQ(uda_allocation_get_native(second, &native), UDA_SUCCESS);
		EXPECT_EQ(native.memory, static_cast<uint32_t>(V4L2_MEMORY_MMAP));
		EXPECT_EQ(native.buffer_type, static_cast<uint32_t>(V4L2_BUF_TYPE_VIDEO_CAPTURE));
		EXPECT_EQ(native.index, 1u);
		EXPECT_EQ(native.pixelformat, static_cast<uint32_t>(V4L2_PIX_FMT_YUYV));
		EXPECT_EQ(native.bytesperline, 1280u);
		EXPECT_GE(native.dma_buf, 0);
		uda_v4l2_device_native device_native = {UDA_STRUCTURE_TYPE_V4L2_DEVICE_NATIVE};
		ASSERT_EQ(uda_device_get_native(camera, &device_native), UDA_SUCCESS);
		EXPECT_EQ(device_native.capture_type, static_cast<uint32_t>(V4L2_BUF_TYPE_VIDEO_CAPTURE));
		EXPECT_EQ(device_native.output_type, 0u);
		EXPECT_GE(device_native.fd, 0);

		int exported = -1;
		ASSERT_EQ(uda_allocation_export(first, UDA_HANDLE_TYPE_DMA_BUF, &exported), UDA_SUCCESS);
		EXPECT_GE(lseek(exported, 0, SEEK_END), 614400);
		close(exported);
		EXPECT_EQ(uda_allocation_export(first, UDA_HANDLE_TYPE_OPAQUE_FD, &exported), UDA_ERROR_UNSUPPORTED);
		uda_allocation_destroy(first);
		EXPECT_EQ(replay.live_buffers(), 1u);
		uda_allocation_destroy(second);
		EXPECT_EQ(replay.live_buffers(), 0u);
	}
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
}

// Freed buffers leave the queue one by one (Linux 6.10), and their slots
// serve again: allocating and freeing many times never fills the queue,
// from several threads at once too.
TEST(V4l2Device, BuffersComeAndGoFromManyThreadsWithoutFillingTheQueue)
{
	Replay replay(recorded("vivid.v4l2")); // outlives the context
	const ContextPtr ctx = make_context();
	uda_device *camera = add(ctx.get(), replay, "vivid.v4l2");
	const Alone alone(camera, 640, 480, DRM_FORMAT_YUYV, UDA_USAGE_CAMERA_CAPTURE);
	const uda_negotiation_info &info = alone.info;
	std::vector<std::thread> threads;
	std::vector<int> failures(4, 0);
	for (int t = 0; t < 4; t++) {
		threads.emplace_back([&, t] {
			for (int round = 0; round < 25; round++) { // 100 in all, more than a queue holds
				uda_allocation *frames[2] = {};
				for (uda_allocation *&frame : frames)
					failures[t] += uda_negotiate_allocate(ctx.get(), &info, &frame, nullptr, nullptr) != UDA_SUCCESS;
				for (uda_allocation *frame : frames)
					uda_allocation_destroy(frame);
			}
		});
	}
	for (std::thread &thread : threads)
		thread.join();
	for (int t = 0; t < 4; t++)
		EXPECT_EQ(failures[t], 0) << "thread " << t;
	EXPECT_EQ(replay.live_buffers(), 0u);
}

// Before Linux 6.10 a queue frees its buffers only all at once: freed
// ones stay on it until the last in use goes, then the queue lets go of
// them all, so that allocating and freeing never fills it.
TEST(V4l2Device, OnAKernelBefore610FreedBuffersLeaveWithTheLast)
{
	const std::string text = "driver vivid\ncard vivid\nbus platform:vivid-000\ndevice-caps 0x05230005\n"
	                         "no-remove-bufs\nqueue capture\nformat YUYV discrete 640x480 bpp 2\n";
	const Recording recording(text);
	Replay replay(recording.path()); // outlives the context
	const ContextPtr ctx = make_context();
	uda_device *camera = add(ctx.get(), replay, recording.name());
	ASSERT_NE(camera, nullptr);
	const Alone alone(camera, 640, 480, DRM_FORMAT_YUYV, UDA_USAGE_CAMERA_CAPTURE);
	const uda_negotiation_info &info = alone.info;
	for (int round = 0; round < 40; round++) { // more than a queue holds
		uda_allocation *frames[3] = {};
		for (uda_allocation *&frame : frames)
			ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &frame, nullptr, nullptr), UDA_SUCCESS)
			        << "round " << round << ": " << text_of(ctx.get());
		uda_allocation_destroy(frames[0]);
		uda_allocation_destroy(frames[1]);
		EXPECT_EQ(replay.live_buffers(), 3u) << "freed, but the kernel cannot take them off yet";
		uda_allocation_destroy(frames[2]);
		EXPECT_EQ(replay.live_buffers(), 0u);
	}
}

// A camera's frames read by the CPU too: the sets say the memory maps
// (CPU_ACCESS MAPPABLE, required), and the mapping is the DMA-BUF's, so
// what the camera wrote is what the CPU reads.
TEST(V4l2Device, TheCpuReadsACamerasFramesThroughTheirDmaBuf)
{
	Replay replay(recorded("vivid.v4l2")); // outlives the context
	const ContextPtr ctx = make_context();
	uda_device *camera = add(ctx.get(), replay, "vivid.v4l2");
	const uda_assertion a = assertion(640, 480, DRM_FORMAT_YUYV);
	const uint8_t often[4] = {UDA_CPU_ACCESS_OFTEN, 0, 0, 0};
	const uda_usage_atom atoms[] = {atom(UDA_USAGE_CAMERA_CAPTURE),
	                                {UDA_VENDOR_NONE, UDA_USAGE_CPU_READ, sizeof(often), often}};
	const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 2, atoms};
	const uda_device_usage parties[] = {{camera, &usage}};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &a, 1, parties};
	uda_allocation *frame = nullptr;
	uda_capability_set_list *agreed = nullptr;
	uint32_t index = 0;
	ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &frame, &agreed, &index), UDA_SUCCESS) << text_of(ctx.get());
	EXPECT_TRUE(uda_backend_set_has_u32(agreed, index, UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE));
	uda_capability_set_list_destroy(agreed);
	uda_v4l2_native native = {UDA_STRUCTURE_TYPE_V4L2_NATIVE};
	ASSERT_EQ(uda_allocation_get_native(frame, &native), UDA_SUCCESS);
	const char written[] = "a frame's first bytes";
	ASSERT_EQ(pwrite(native.dma_buf, written, sizeof(written), 0), static_cast<ssize_t>(sizeof(written)));
	void *pointer = nullptr;
	ASSERT_EQ(uda_allocation_map(frame, UDA_ACCESS_READ, &pointer), UDA_SUCCESS) << text_of(ctx.get());
	ASSERT_EQ(uda_allocation_begin_cpu_access(frame, UDA_ACCESS_READ), UDA_SUCCESS) << text_of(ctx.get());
	EXPECT_EQ(memcmp(pointer, written, sizeof(written)), 0);
	EXPECT_EQ(uda_allocation_end_cpu_access(frame, UDA_ACCESS_READ), UDA_SUCCESS);
	EXPECT_EQ(uda_allocation_unmap(frame), UDA_SUCCESS);
	uda_allocation_destroy(frame);
}

// Memory another device made, taken by the decoder's capture queue as
// V4L2_MEMORY_DMABUF: only where V4L2 puts the planes, at the driver's
// pitch, and large enough for its sizeimage.
TEST(V4l2Device, ADecoderTakesMemoryOnlyAtTheLayoutItsDriverReads)
{
	Replay replay(recorded("hantro-rk3399-dec.v4l2")); // outlives the context
	const ContextPtr ctx = make_context();
	uda_device *decoder = add(ctx.get(), replay, "hantro-rk3399-dec.v4l2");
	const Alone alone(decoder, 1280, 720, DRM_FORMAT_NV12, UDA_USAGE_VIDEO_DECODE);
	const uda_negotiation_info &info = alone.info;
	uda_capability_set_list *agreed = nullptr;
	ASSERT_EQ(uda_negotiate(ctx.get(), &info, &agreed), UDA_SUCCESS) << text_of(ctx.get());
	const ListPtr agreed_owner(agreed);

	const uint32_t sizeimage = 1280 * 720 * 3 / 2;
	const int memory = memfd_create("stand-in-dma-buf", MFD_CLOEXEC);
	ASSERT_EQ(ftruncate(memory, sizeimage), 0);
	uda_allocation_metadata m = {UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	m.width = 1280;
	m.height = 720;
	m.format = DRM_FORMAT_NV12;
	m.handle_type = UDA_HANDLE_TYPE_DMA_BUF;
	m.size = sizeimage;
	m.plane_count = 2;
	m.planes[0] = {0, 1280};
	m.planes[1] = {1280 * 720, 1280};
	uda_import_info import = {UDA_STRUCTURE_TYPE_IMPORT_INFO, nullptr, decoder, memory, &m, agreed, 0, 0};
	uda_allocation *taken = nullptr;
	ASSERT_EQ(uda_import(&import, &taken), UDA_SUCCESS) << text_of(ctx.get());
	uda_v4l2_native native = {UDA_STRUCTURE_TYPE_V4L2_NATIVE};
	ASSERT_EQ(uda_allocation_get_native(taken, &native), UDA_SUCCESS);
	EXPECT_EQ(native.memory, static_cast<uint32_t>(V4L2_MEMORY_DMABUF));
	EXPECT_EQ(native.buffer_type, static_cast<uint32_t>(V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE));
	EXPECT_EQ(native.pixelformat, static_cast<uint32_t>(V4L2_PIX_FMT_NV12));
	EXPECT_NE(native.dma_buf, memory) << "uda keeps its own fd";
	uda_allocation_destroy(taken);
	EXPECT_EQ(replay.live_buffers(), 0u) << "an import makes no buffer on the queue";

	// Chroma where a GPU that pads the luma to 16-row tiles would put it.
	ASSERT_EQ(ftruncate(memory, 1280 * 736 * 3 / 2), 0);
	m.size = 1280 * 736 * 3 / 2;
	m.planes[1].offset = 1280 * 736;
	EXPECT_EQ(uda_import(&import, &taken), UDA_ERROR_INCOMPATIBLE);
	EXPECT_NE(text_of(ctx.get()).find("the driver reads it at 921600"), std::string::npos) << text_of(ctx.get());
	close(memory);
}

// A decoder's pictures follow its bitstream: hantro ignores the size asked
// of its CAPTURE queue and answers its OUTPUT queue's, in whole
// macroblocks, so the pictures are asked for on an fd whose OUTPUT queue
// takes the bitstream at their size (as the stateless interface orders),
// 1080p is refused with the size to ask for, and the buffers the decoder
// makes are made after its bitstream queue is set on uda's fd, where the
// program decodes into them.
TEST(V4l2Device, ADecodersPicturesFollowItsBitstreamInWholeMacroblocks)
{
	Replay replay(recorded("hantro-rk3399-dec.v4l2")); // outlives the context
	const ContextPtr ctx = make_context();
	uda_device *decoder = add(ctx.get(), replay, "hantro-rk3399-dec.v4l2");
	uda_capability_set_list *agreed = nullptr;
	{
		const Alone shown(decoder, 1920, 1080, DRM_FORMAT_NV12, UDA_USAGE_VIDEO_DECODE);
		EXPECT_EQ(uda_negotiate(ctx.get(), &shown.info, &agreed), UDA_ERROR_INCOMPATIBLE);
		EXPECT_NE(text_of(ctx.get()).find("the driver writes 1920x1088 pictures: ask for 1920x1088 and show "
		                                  "1920x1080 of it"),
		          std::string::npos)
		        << text_of(ctx.get());
	}
	const Alone coded(decoder, 1920, 1088, DRM_FORMAT_NV12, UDA_USAGE_VIDEO_DECODE);
	uda_allocation *raw = nullptr;
	ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &coded.info, &raw, nullptr, nullptr), UDA_SUCCESS)
	        << text_of(ctx.get());
	const AllocationPtr picture(raw);
	uda_v4l2_native native = {UDA_STRUCTURE_TYPE_V4L2_NATIVE};
	ASSERT_EQ(uda_allocation_get_native(picture.get(), &native), UDA_SUCCESS);
	EXPECT_EQ(native.memory, static_cast<uint32_t>(V4L2_MEMORY_MMAP));
	EXPECT_EQ(native.bytesperline, 1920u);
	uda_v4l2_device_native device_native = {UDA_STRUCTURE_TYPE_V4L2_DEVICE_NATIVE};
	ASSERT_EQ(uda_device_get_native(decoder, &device_native), UDA_SUCCESS);
	v4l2_format bitstream = {};
	bitstream.type = device_native.output_type;
	ASSERT_EQ(replay.io()->ioctl(replay.io()->data, device_native.fd, VIDIOC_G_FMT, &bitstream), 0);
	EXPECT_EQ(bitstream.fmt.pix_mp.pixelformat, static_cast<uint32_t>(V4L2_PIX_FMT_H264_SLICE));
	EXPECT_EQ(bitstream.fmt.pix_mp.width, 1920u);
	EXPECT_EQ(bitstream.fmt.pix_mp.height, 1088u);

	// A second picture of the stream: the bitstream queue is left as it
	// is (hantro refuses a new OUTPUT format while CAPTURE holds
	// buffers, which the replay does too). Pictures of another size
	// while these live are that refusal, said.
	uda_allocation *second = nullptr;
	ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &coded.info, &second, nullptr, nullptr), UDA_SUCCESS)
	        << text_of(ctx.get());
	const AllocationPtr second_picture(second);
	const Alone smaller(decoder, 1280, 720, DRM_FORMAT_NV12, UDA_USAGE_VIDEO_DECODE);
	uda_allocation *other = nullptr;
	EXPECT_EQ(uda_negotiate_allocate(ctx.get(), &smaller.info, &other, nullptr, nullptr), UDA_ERROR_BACKEND);
	EXPECT_NE(text_of(ctx.get()).find("the decoder is busy"), std::string::npos) << text_of(ctx.get());
}

TEST(V4l2Device, AQueueThatTakesNoDmaBufsMakesTheBufferItself)
{
	const std::string text = "driver vivid\ncard vivid\nbus platform:vivid-000\ndevice-caps 0x05230005\n"
	                         "queue capture memory mmap\nformat YUYV discrete 640x480 bpp 2\n";
	const Recording recording(text);
	Replay replay(recording.path());
	const ContextPtr ctx = make_context();
	uda_device *camera = add(ctx.get(), replay, recording.name());
	ASSERT_NE(camera, nullptr);
	const Alone alone(camera, 640, 480, DRM_FORMAT_YUYV, UDA_USAGE_CAMERA_CAPTURE);
	const uda_negotiation_info &info = alone.info;
	uda_allocation *own = nullptr;
	ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &own, nullptr, nullptr), UDA_SUCCESS) << text_of(ctx.get());
	uda_allocation *again = nullptr;
	const uda_allocation_import_info import = {UDA_STRUCTURE_TYPE_ALLOCATION_IMPORT_INFO, nullptr, own, camera,
	                                           UDA_HANDLE_TYPE_DMA_BUF, 0};
	EXPECT_EQ(uda_import_allocation(&import, &again), UDA_ERROR_UNSUPPORTED);
	EXPECT_NE(text_of(ctx.get()).find("takes no DMA-BUFs: it must allocate"), std::string::npos)
	        << text_of(ctx.get());
	uda_allocation_destroy(own);
}

// The pipeline the issue names, on recorded answers: a UVC camera's
// 1080p YUYV frames, sampled by a GPU (64-byte linear rows, DMA-BUF
// imports: Intel's, modelled) and scanned out by a recorded Intel Gen9
// display, in one buffer the camera makes and the GPU imports.
TEST(V4l2Device, ACameraAGpuAndADisplayAgreeOnOneBuffer)
{
	Replay replay(recorded("uvc-elp4k.v4l2")); // outlives the context
	const ContextPtr ctx = make_context();
	uda_device *camera = add(ctx.get(), replay, "uvc-elp4k.v4l2");
	const uda_assertion a = assertion(1920, 1080, DRM_FORMAT_YUYV);

	uda_device *gpu = nullptr;
	const test_device_node gpu_node = {UDA_DEVICE_API_OTHER, 226, 128, true};
	ASSERT_EQ(test_device_add_on_node(ctx.get(), "GPU (64-byte rows)", 0x61,
	                                  make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR, 0),
	                                                          common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF)},
	                                                         {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 64}}}})
	                                          .release(),
	                                  &gpu_node, &gpu),
	          UDA_SUCCESS);

	drm_fixture::Display display_record("intel-gen9.txt");
	uda_capability_set_list *scanout_sets = nullptr;
	ASSERT_EQ(uda_capability_set_list_create(ctx.get(), &scanout_sets), UDA_SUCCESS);
	const Usage scanout(UDA_USAGE_SCANOUT);
	ASSERT_EQ(drm_scanout_capability_sets(&display_record.record, ctx.get(), &a, &scanout.usage, scanout_sets),
	          UDA_SUCCESS)
	        << text_of(ctx.get());
	uda_device *display = nullptr;
	ASSERT_EQ(test_device_add(ctx.get(), "Intel Gen9 display (recorded)", 0x62, scanout_sets, &display, nullptr),
	          UDA_SUCCESS);

	const Usage capture(UDA_USAGE_CAMERA_CAPTURE), sampled(UDA_USAGE_SAMPLED);
	const uda_device_usage parties[] = {{camera, &capture.usage}, {gpu, &sampled.usage}, {display, &scanout.usage}};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &a, 3, parties};
	uda_allocation *frame = nullptr;
	uda_capability_set_list *agreed = nullptr;
	uint32_t index = 0;
	ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &frame, &agreed, &index), UDA_SUCCESS) << text_of(ctx.get());
	const ListPtr agreed_owner(agreed);
	EXPECT_EQ(count_of(agreed), 1u) << "the camera's linear rows; the display's tiled layouts the camera cannot write";
	EXPECT_EQ(constraint(agreed, index, UDA_CONSTRAINT_MAX_PITCH), 3840u);
	uda_device *allocator = nullptr;
	uda_allocation_get_device(frame, &allocator);
	EXPECT_EQ(allocator, camera);
	uda_allocation *sampled_frame = nullptr;
	const uda_allocation_import_info import = {UDA_STRUCTURE_TYPE_ALLOCATION_IMPORT_INFO, nullptr, frame, gpu,
	                                           UDA_HANDLE_TYPE_NONE, UDA_IMPORT_READ_ONLY};
	EXPECT_EQ(uda_import_allocation(&import, &sampled_frame), UDA_SUCCESS) << text_of(ctx.get());
	uda_allocation_destroy(sampled_frame);
	uda_allocation_destroy(frame);
}

// The guess a player makes today, answered: the recorded decoder writes
// 1080p NV12 (1920x1088, whole macroblocks) at its 1920-byte rows, a GPU samples rows of 256-byte
// multiples; nothing is common, and the message says at which device.
TEST(V4l2Device, ADecoderAndAGpuThatCannotAgreeAreToldWhere)
{
	Replay replay(recorded("hantro-rk3399-dec.v4l2")); // outlives the context
	const ContextPtr ctx = make_context();
	uda_device *decoder = add(ctx.get(), replay, "hantro-rk3399-dec.v4l2");
	uda_device *gpu = nullptr;
	ASSERT_EQ(test_device_add(ctx.get(), "GPU (256-byte rows)", 0x63,
	                          make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR, 0),
	                                                  common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF)},
	                                                 {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 256}}}})
	                                  .release(),
	                          &gpu, nullptr),
	          UDA_SUCCESS);
	const uda_assertion a = assertion(1920, 1088, DRM_FORMAT_NV12);
	const Usage decode(UDA_USAGE_VIDEO_DECODE), sampled(UDA_USAGE_SAMPLED);
	const uda_device_usage parties[] = {{decoder, &decode.usage}, {gpu, &sampled.usage}};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &a, 2, parties};
	uda_capability_set_list *agreed = nullptr;
	EXPECT_EQ(uda_negotiate(ctx.get(), &info, &agreed), UDA_ERROR_INCOMPATIBLE);
	EXPECT_NE(text_of(ctx.get()).find("GPU (256-byte rows)"), std::string::npos) << text_of(ctx.get());
}

// hantro keeps an H.264 picture's motion vectors after it: its sizeimage
// runs past the planes (64 bytes a macroblock, 522240 at 1920x1088). A
// GPU that allocates for both makes memory of that size, which the
// decoder then takes; memory of the planes alone it would refuse.
TEST(V4l2Device, MemoryMadeElsewhereHoldsWhatTheDecoderReadsPastThePlanes)
{
	const Recording recording("driver hantro-vpu\ncard rockchip,rk3399-vpu-dec\nbus platform: hantro-vpu\n"
	                          "device-caps 0x04204000\nqueue capture-mplane memory mmap,dmabuf\n"
	                          "format NV12 pitch-align 16 size 3/2 extra 522240 follows-output 16 48x48\n"
	                          "queue output-mplane memory mmap,dmabuf\nformat S264 compressed\n");
	Replay replay(recording.path()); // outlives the context
	const ContextPtr ctx = make_context();
	uda_device *decoder = add(ctx.get(), replay, recording.name());
	uda_device *gpu = nullptr;
	ASSERT_EQ(test_device_add_with_memory(ctx.get(), "GPU (64-byte rows)", 0x64,
	                          make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR, 0),
	                                                  common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF)},
	                                                 {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 64}}}})
	                                  .release(),
	                          &gpu, nullptr),
	          UDA_SUCCESS);
	const uda_assertion a = assertion(1920, 1088, DRM_FORMAT_NV12);
	const uint64_t planes = 1920ull * 1088 * 3 / 2, sizeimage = planes + 522240;
	const Usage decode(UDA_USAGE_VIDEO_DECODE), sampled(UDA_USAGE_SAMPLED);
	// The GPU first: it allocates.
	const uda_device_usage parties[] = {{gpu, &sampled.usage}, {decoder, &decode.usage}};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, nullptr, &a, 2, parties};
	uda_allocation *raw = nullptr;
	uda_capability_set_list *agreed = nullptr;
	uint32_t index = 0;
	ASSERT_EQ(uda_negotiate_allocate(ctx.get(), &info, &raw, &agreed, &index), UDA_SUCCESS) << text_of(ctx.get());
	const AllocationPtr picture(raw);
	const ListPtr agreed_owner(agreed);
	EXPECT_EQ(constraint(agreed, index, UDA_CONSTRAINT_MIN_SIZE), sizeimage);
	uda_device *allocator = nullptr;
	uda_allocation_get_device(picture.get(), &allocator);
	EXPECT_EQ(allocator, gpu);
	uda_allocation_metadata m = {UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	ASSERT_EQ(uda_allocation_get_metadata(picture.get(), &m), UDA_SUCCESS);
	EXPECT_GE(m.size, sizeimage);
	// The decoder takes memory of that size as a DMA-BUF (a memfd stands
	// in for the GPU's, as the replay's queue takes any file).
	const auto import_as_dma_buf = [&](uint64_t size, uda_allocation **out) {
		const int fd = memfd_create("uda-test-gpu-memory", MFD_CLOEXEC);
		EXPECT_EQ(ftruncate(fd, static_cast<off_t>(size)), 0);
		uda_allocation_metadata as_dma_buf = m;
		as_dma_buf.handle_type = UDA_HANDLE_TYPE_DMA_BUF;
		as_dma_buf.size = size;
		const uda_import_info import = {UDA_STRUCTURE_TYPE_IMPORT_INFO, nullptr, decoder, fd, &as_dma_buf,
		                              agreed, index, UDA_IMPORT_TAKE_FD};
		return uda_import(&import, out);
	};
	uda_allocation *queued = nullptr;
	ASSERT_EQ(import_as_dma_buf(m.size, &queued), UDA_SUCCESS) << text_of(ctx.get());
	uda_allocation_destroy(queued);
	// Memory of the planes alone is refused by the set before the driver
	// sees it.
	EXPECT_EQ(import_as_dma_buf(planes, &queued), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_NE(text_of(ctx.get()).find("below the set's min size"), std::string::npos) << text_of(ctx.get());
}

TEST(V4l2Device, ARecordingThatDoesNotParseIsRefusedWithItsLine)
{
	const std::string text = "driver vivid\nqueue capture\nformat YUYV discrete 640by480\n";
	const Recording recording(text);
	char why[256] = "";
	EXPECT_EQ(v4l2_replay_create(recording.path(), why, sizeof(why)), nullptr);
	EXPECT_NE(std::string(why).find(":3: not understood"), std::string::npos) << why;
	EXPECT_EQ(v4l2_replay_create("/nonexistent/recording.v4l2", why, sizeof(why)), nullptr);
	const Recording no_formats("driver vivid\nqueue capture\n");
	EXPECT_EQ(v4l2_replay_create(no_formats.path(), why, sizeof(why)), nullptr);
	EXPECT_NE(std::string(why).find("a queue without formats"), std::string::npos) << why;
}

// The kernel's own nodes, where there are any (a camera, or vivid:
// modprobe vivid): every node probes, and each camera makes, exports and
// frees a buffer of its first image format at its first size.
TEST(V4l2Kernel, EveryVideoNodeIsADeviceAndACameraMakesABuffer)
{
	char paths[V4L2_IO_MAX_NODES][V4L2_IO_PATH_MAX];
	const uint32_t found = v4l2_io_kernel.list(nullptr, paths, V4L2_IO_MAX_NODES);
	const uint32_t nodes = std::min<uint32_t>(found, V4L2_IO_MAX_NODES); // the first ones, as the backend takes
	if (!nodes)
		GTEST_SKIP() << "no /dev/video* on this machine: the real-device test needs a camera or vivid "
		                "(modprobe vivid)";
	const ContextPtr ctx = make_context();
	unsigned cameras = 0;
	for (uint32_t n = 0; n < nodes; n++) {
		const int fd = v4l2_io_kernel.open(nullptr, paths[n]);
		if (fd < 0)
			continue; // no permission: the backend skips it alike
		auto node = std::make_unique<v4l2_probed_node>();
		char why[160] = "";
		const bool video = v4l2_probe_node(&v4l2_io_kernel, fd, node.get(), why, sizeof(why));
		v4l2_io_kernel.close(nullptr, fd);
		uda_device *device = nullptr;
		const uda_result added = v4l2_device_add(ctx.get(), paths[n], &v4l2_io_kernel, &device);
		EXPECT_EQ(added == UDA_SUCCESS, video) << paths[n] << ": " << why << " / " << text_of(ctx.get());
		if (!video || node->role != V4L2_NODE_CAMERA)
			continue;
		const v4l2_probed_format *format = nullptr;
		for (uint32_t i = 0; i < node->capture.format_count && !format; i++) {
			if (node->capture.formats[i].image && node->capture.formats[i].image->memory_planes == 1)
				format = &node->capture.formats[i];
		}
		if (!format)
			continue;
		const uint32_t width = format->stepwise ? format->min_width : format->size_count ? format->sizes[0][0] : 640;
		const uint32_t height = format->stepwise ? format->min_height : format->size_count ? format->sizes[0][1] : 480;
		const Alone alone(device, width, height, format->image->drm, UDA_USAGE_CAMERA_CAPTURE);
		const uda_negotiation_info &info = alone.info;
		uda_allocation *frame = nullptr;
		if (uda_negotiate_allocate(ctx.get(), &info, &frame, nullptr, nullptr) != UDA_SUCCESS) {
			ADD_FAILURE() << paths[n] << " " << width << "x" << height << ": " << text_of(ctx.get());
			continue;
		}
		int exported = -1;
		EXPECT_EQ(uda_allocation_export(frame, UDA_HANDLE_TYPE_DMA_BUF, &exported), UDA_SUCCESS) << text_of(ctx.get());
		if (exported >= 0)
			close(exported);
		uda_allocation_destroy(frame);
		cameras++;
		std::printf("%s: %s at %ux%u made, exported, freed\n", paths[n], node->card, width, height);
	}
	if (!cameras)
		GTEST_SKIP() << "video nodes, but no camera among them to make a buffer";
}
