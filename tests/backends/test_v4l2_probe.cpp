// A V4L2 node probed from its own answers (core/backends/v4l2/v4l2_probe.c)
// through the ioctl seam: fakes that answer as the recorded drivers did
// (tests/backends/v4l2-fixtures), and drivers that answer badly.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <gtest/gtest.h>
#include <linux/videodev2.h>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "v4l2_probe.h"

namespace
{

uint32_t fourcc(const char *chars)
{
	return v4l2_fourcc(chars[0], chars[1], chars[2], chars[3]);
}

struct FakeFormat {
	const char *code;
	bool compressed = false;
	std::vector<std::pair<uint32_t, uint32_t>> discrete;
	v4l2_frmsize_stepwise stepwise{}; // used when max_width is set
};

struct FakeDriver {
	const char *driver = "fake", *card = "fake card", *bus = "platform: fake";
	uint32_t caps = 0;
	uint32_t capture_type = 0, output_type = 0;
	std::vector<FakeFormat> capture, output;
	bool every_index_answers = false; // a driver that loops
	bool zero_size = false;           // answers 0x0 discrete sizes

	const std::vector<FakeFormat> *queue(uint32_t type) const
	{
		return type == capture_type ? &capture : type == output_type ? &output : nullptr;
	}

	const FakeFormat *format(uint32_t pixelformat) const
	{
		for (const auto *list : {&capture, &output}) {
			for (const FakeFormat &f : *list) {
				if (fourcc(f.code) == pixelformat)
					return &f;
			}
		}
		return nullptr;
	}

	int answer(unsigned long request, void *arg) const
	{
		if (request == VIDIOC_QUERYCAP) {
			auto *cap = static_cast<v4l2_capability *>(arg);
			// As a driver may: the whole field, with no NUL when the name fills it.
			fill(cap->driver, sizeof(cap->driver), driver);
			fill(cap->card, sizeof(cap->card), card);
			fill(cap->bus_info, sizeof(cap->bus_info), bus);
			cap->capabilities = caps | V4L2_CAP_DEVICE_CAPS;
			cap->device_caps = caps;
			return 0;
		}
		if (request == VIDIOC_ENUM_FMT) {
			auto *d = static_cast<v4l2_fmtdesc *>(arg);
			const auto *list = queue(d->type);
			if (!list || (!every_index_answers && d->index >= list->size())) {
				errno = EINVAL;
				return -1;
			}
			const FakeFormat &f = (*list)[d->index % list->size()];
			d->pixelformat = every_index_answers ? fourcc(f.code) + d->index : fourcc(f.code);
			d->flags = f.compressed ? V4L2_FMT_FLAG_COMPRESSED : 0;
			return 0;
		}
		if (request == VIDIOC_ENUM_FRAMESIZES) {
			auto *s = static_cast<v4l2_frmsizeenum *>(arg);
			const FakeFormat *f = format(s->pixel_format);
			if (!f) {
				errno = EINVAL;
				return -1;
			}
			if (f->stepwise.max_width) {
				if (s->index) {
					errno = EINVAL;
					return -1;
				}
				s->type = V4L2_FRMSIZE_TYPE_STEPWISE;
				s->stepwise = f->stepwise;
				return 0;
			}
			if (s->index >= f->discrete.size()) {
				errno = EINVAL;
				return -1;
			}
			s->type = V4L2_FRMSIZE_TYPE_DISCRETE;
			s->discrete.width = zero_size ? 0 : f->discrete[s->index].first;
			s->discrete.height = zero_size ? 0 : f->discrete[s->index].second;
			return 0;
		}
		errno = ENOTTY;
		return -1;
	}

	static void fill(uint8_t *field, size_t size, const char *name)
	{
		memset(field, 0, size);
		memcpy(field, name, std::min(size, strlen(name)));
	}

	static int ioctl(void *data, int, unsigned long request, void *arg)
	{
		return static_cast<const FakeDriver *>(data)->answer(request, arg);
	}
};

// uvcvideo, ELP 4K USB camera (uvcvideo-elp4k-list-formats-ext.txt): device
// caps 0x04200001, MJPG then YUYV, discrete sizes, one listed twice as UVC does.
FakeDriver uvc_camera()
{
	FakeDriver d;
	d.driver = "uvcvideo";
	d.card = "HD USB CAMERA: HD USB CAMERA";
	d.bus = "usb-xhci-hcd.0-1";
	d.caps = 0x04200001;
	d.capture_type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	d.capture = {{"MJPG", true, {{3840, 2160}, {1920, 1080}, {2592, 1944}}},
	             {"YUYV", false, {{640, 480}, {1920, 1080}, {640, 480}}}};
	return d;
}

// hantro, RK3399 decoder (hantro-rk3399-vpu-dec-formats.txt): device caps
// 0x04204000 (M2M multiplanar), NV12 out, three bitstreams in.
FakeDriver hantro_decoder()
{
	FakeDriver d;
	d.driver = "hantro-vpu";
	d.card = "rockchip,rk3399-vpu-dec";
	d.bus = "platform: hantro-vpu";
	d.caps = 0x04204000;
	d.capture_type = V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE;
	d.output_type = V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE;
	FakeFormat nv12{"NV12"};
	nv12.stepwise = {48, 1920, 16, 48, 1088, 16};
	d.capture = {nv12};
	d.output = {{"S264", true}, {"MG2S", true}, {"VP8F", true}};
	return d;
}

std::unique_ptr<v4l2_probed_node> probe(const FakeDriver &driver, bool expect_ok, std::string *why_out = nullptr)
{
	auto node = std::make_unique<v4l2_probed_node>();
	const v4l2_io io = {FakeDriver::ioctl, const_cast<FakeDriver *>(&driver)};
	char why[256] = "";
	EXPECT_EQ(v4l2_probe_node(&io, 3, node.get(), why, sizeof(why)), expect_ok) << why;
	if (why_out)
		*why_out = why;
	return node;
}

} // namespace

TEST(V4l2Probe, AUvcCameraIsACameraWithItsFormatsAndSizes)
{
	const auto node = probe(uvc_camera(), true);
	EXPECT_EQ(node->role, V4L2_NODE_CAMERA);
	EXPECT_STREQ(node->driver, "uvcvideo");
	EXPECT_STREQ(node->bus_info, "usb-xhci-hcd.0-1");
	EXPECT_TRUE(node->capture.present);
	EXPECT_FALSE(node->output.present);
	ASSERT_EQ(node->capture.format_count, 2u);
	const v4l2_probed_format &mjpg = node->capture.formats[0], &yuyv = node->capture.formats[1];
	EXPECT_TRUE(mjpg.compressed);
	EXPECT_EQ(mjpg.image, nullptr);
	EXPECT_EQ(mjpg.size_count, 3u);
	ASSERT_NE(yuyv.image, nullptr);
	EXPECT_EQ(yuyv.image->v4l2, V4L2_PIX_FMT_YUYV);
	EXPECT_EQ(yuyv.size_count, 2u) << "640x480 is listed twice and kept once";
	EXPECT_FALSE(yuyv.stepwise);
}

TEST(V4l2Probe, AStatelessDecoderIsADecoderWithARangeOfSizes)
{
	const auto node = probe(hantro_decoder(), true);
	EXPECT_EQ(node->role, V4L2_NODE_DECODER);
	EXPECT_EQ(node->capture.type, (uint32_t)V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE);
	EXPECT_EQ(node->output.type, (uint32_t)V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE);
	ASSERT_EQ(node->capture.format_count, 1u);
	const v4l2_probed_format &nv12 = node->capture.formats[0];
	ASSERT_NE(nv12.image, nullptr);
	EXPECT_TRUE(nv12.stepwise);
	EXPECT_EQ(nv12.max_width, 1920u);
	EXPECT_EQ(nv12.step_height, 16u);
	EXPECT_EQ(node->output.format_count, 3u);
	EXPECT_EQ(node->output.formats[0].pixelformat, fourcc("S264"));
}

TEST(V4l2Probe, AnEncoderAndAConverterAreToldApart)
{
	FakeDriver encoder = hantro_decoder();
	std::swap(encoder.capture, encoder.output);
	EXPECT_EQ(probe(encoder, true)->role, V4L2_NODE_ENCODER);
	FakeDriver isp = hantro_decoder();
	isp.output = {{"YUYV"}, {"NV12"}};
	EXPECT_EQ(probe(isp, true)->role, V4L2_NODE_CONVERTER);
}

TEST(V4l2Probe, NodesThatAreNoVideoDeviceAreRefusedWithTheReason)
{
	FakeDriver metadata = uvc_camera();
	metadata.caps = 0x04a00000; // a UVC metadata node: Metadata Capture, Streaming
	std::string why;
	probe(metadata, false, &why);
	EXPECT_NE(why.find("not a video device"), std::string::npos) << why;
	FakeDriver no_streaming = uvc_camera();
	no_streaming.caps &= ~V4L2_CAP_STREAMING;
	probe(no_streaming, false, &why);
	EXPECT_NE(why.find("no streaming"), std::string::npos) << why;
	FakeDriver empty = uvc_camera();
	empty.capture.clear();
	probe(empty, false, &why);
	EXPECT_NE(why.find("no format"), std::string::npos) << why;
}

TEST(V4l2Probe, BadAnswersAreCutOrDropped)
{
	// A driver that answers every ENUM_FMT index: the probe stops at its limit.
	FakeDriver looping = uvc_camera();
	looping.every_index_answers = true;
	EXPECT_EQ(probe(looping, true)->capture.format_count, (uint32_t)V4L2_PROBE_MAX_FORMATS);
	// Sizes of 0x0 are no sizes.
	FakeDriver zero = uvc_camera();
	zero.zero_size = true;
	const auto node = probe(zero, true);
	EXPECT_EQ(node->capture.formats[1].size_count, 0u);
	// A range whose minimum passes its maximum is dropped.
	FakeDriver backwards = hantro_decoder();
	backwards.capture[0].stepwise = {1920, 48, 16, 48, 1088, 16};
	EXPECT_FALSE(probe(backwards, true)->capture.formats[0].stepwise);
	// Names that are not printable, or fill their field without a NUL.
	FakeDriver names = uvc_camera();
	names.card = "cam\x01\x7f" "era with a name longer than its thirty-two bytes";
	const auto named = probe(names, true);
	EXPECT_EQ(std::string(named->card).substr(0, 5), "cam??");
	EXPECT_EQ(strlen(named->card), 32u);
}
