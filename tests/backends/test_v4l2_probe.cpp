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

#include "v4l2_fake_driver.hpp"
#include "v4l2_probe.h"

namespace
{

using namespace uda_test;

std::unique_ptr<v4l2_probed_node> probe(const FakeDriver &driver, bool expect_ok, std::string *why_out = nullptr)
{
	auto node = std::make_unique<v4l2_probed_node>();
	const v4l2_io io = {FakeDriver::ioctl, const_cast<FakeDriver *>(&driver), nullptr, nullptr, nullptr};
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
