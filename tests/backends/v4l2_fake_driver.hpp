// A V4L2 driver that answers through uda's ioctl seam
// (core/backends/v4l2/v4l2_io.h) as the recorded drivers did
// (tests/backends/v4l2-fixtures), or badly, on purpose.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <linux/videodev2.h>
#include <string>
#include <utility>
#include <vector>

namespace uda_test
{

inline uint32_t fourcc(const char *chars)
{
	return v4l2_fourcc(chars[0], chars[1], chars[2], chars[3]);
}

struct FakeFormat {
	const char *code;
	bool compressed = false;
	std::vector<std::pair<uint32_t, uint32_t>> discrete;
	v4l2_frmsize_stepwise stepwise{}; // used when max_width is set
	// VIDIOC_TRY_FMT: bytesperline = the row (width x bytes_per_pixel)
	// rounded up to pitch_alignment; sizeimage = bytesperline x height x
	// size_num / size_den (+ size_extra), as the recorded drivers answer.
	uint32_t bytes_per_pixel = 1, pitch_alignment = 1, size_num = 1, size_den = 1, size_extra = 0;
	enum Lie { Honest, ShortPitch, ShortSize, OtherSize } lie = Honest;
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
		if (request == VIDIOC_TRY_FMT) {
			auto *f = static_cast<v4l2_format *>(arg);
			const bool mplane = f->type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE ||
			                    f->type == V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE;
			// (pix_mp is packed: its fields are copied, not referred to.)
			uint32_t width = mplane ? f->fmt.pix_mp.width : f->fmt.pix.width;
			const uint32_t height = mplane ? f->fmt.pix_mp.height : f->fmt.pix.height;
			const FakeFormat *format = this->format(mplane ? f->fmt.pix_mp.pixelformat : f->fmt.pix.pixelformat);
			if (!queue(f->type) || !format) {
				errno = EINVAL;
				return -1;
			}
			if (format->lie == FakeFormat::OtherSize) {
				width += 16;
				if (mplane)
					f->fmt.pix_mp.width = width;
				else
					f->fmt.pix.width = width;
			}
			uint32_t pitch = (width * format->bytes_per_pixel + format->pitch_alignment - 1) /
			                 format->pitch_alignment * format->pitch_alignment;
			uint32_t size = pitch * height * format->size_num / format->size_den + format->size_extra;
			if (format->lie == FakeFormat::ShortPitch)
				pitch = width * format->bytes_per_pixel / 2;
			if (format->lie == FakeFormat::ShortSize)
				size = pitch * height / 2;
			if (mplane) {
				f->fmt.pix_mp.num_planes = 1;
				f->fmt.pix_mp.plane_fmt[0].bytesperline = pitch;
				f->fmt.pix_mp.plane_fmt[0].sizeimage = size;
			} else {
				f->fmt.pix.bytesperline = pitch;
				f->fmt.pix.sizeimage = size;
			}
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
inline FakeDriver uvc_camera()
{
	FakeDriver d;
	d.driver = "uvcvideo";
	d.card = "HD USB CAMERA: HD USB CAMERA";
	d.bus = "usb-xhci-hcd.0-1";
	d.caps = 0x04200001;
	d.capture_type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	d.capture = {{"MJPG", true, {{3840, 2160}, {1920, 1080}, {2592, 1944}}},
	             {"YUYV", false, {{640, 480}, {1920, 1080}, {640, 480}}}};
	d.capture[1].bytes_per_pixel = 2; // bytesperline 2 x width, sizeimage bytesperline x height

	return d;
}

// hantro, RK3399 decoder (hantro-rk3399-vpu-dec-formats.txt): device caps
// 0x04204000 (M2M multiplanar), NV12 out, three bitstreams in.
inline FakeDriver hantro_decoder()
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
	nv12.pitch_alignment = 16; // sizeimage bytesperline x height x 3 / 2 (G1 at 48x48: 48, 3456)
	nv12.size_num = 3;
	nv12.size_den = 2;
	d.capture = {nv12};
	d.output = {{"S264", true}, {"MG2S", true}, {"VP8F", true}};
	return d;
}

} // namespace uda_test
