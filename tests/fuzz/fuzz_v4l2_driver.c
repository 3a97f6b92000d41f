/* libFuzzer target: the v4l2 backend against a driver that answers
 * anything. The input is the driver: each ioctl takes one byte (0: it
 * fails with EINVAL) and then as many bytes as its struct holds, written
 * over the struct as a driver could; the fds a driver hands out
 * (VIDIOC_EXPBUF) stay real ones, as the kernel's are. The node is
 * probed and registered, asked for sets as a camera, a decoder and an
 * encoder (of H.264 High) at a size and format the input picks, allocates, and takes a
 * DMA-BUF; no answer may crash it, leak a descriptor, or read past what
 * the driver filled. */
#include <drm_fourcc.h>
#include <errno.h>
#include <linux/videodev2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_context.h"
#include "v4l2_device.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct driver {
	const uint8_t *data;
	size_t size, at;
};

static size_t take(struct driver *d, void *out, size_t n)
{
	const size_t available = d->size - d->at < n ? d->size - d->at : n;
	memcpy(out, d->data + d->at, available);
	d->at += available;
	return available;
}

static int answer(void *data, int fd, unsigned long request, void *arg)
{
	struct driver *d = data;
	uint8_t succeed = 0;
	if (!take(d, &succeed, 1) || !succeed) {
		errno = EINVAL;
		return -1;
	}
	if (request == VIDIOC_EXPBUF) {
		struct v4l2_exportbuffer *e = arg;
		e->fd = memfd_create("fuzz-v4l2-buffer", MFD_CLOEXEC);
		uint16_t length = 0;
		take(d, &length, sizeof(length));
		if (e->fd >= 0 && ftruncate(e->fd, length) != 0) {
			close(e->fd);
			e->fd = -1;
		}
		return e->fd >= 0 ? 0 : -1;
	}
	if (request == VIDIOC_QUERYBUF) {
		/* The kernel writes the planes the caller points at, never the pointer. */
		struct v4l2_buffer *b = arg;
		struct v4l2_plane *planes = b->m.planes;
		const uint32_t length = b->length;
		take(d, b, sizeof(*b));
		if (b->type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE || b->type == V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE) {
			b->m.planes = planes;
			if (planes) {
				b->length = b->length < length ? b->length : length;
				take(d, planes, sizeof(*planes) * length);
			}
		}
		return 0;
	}
	take(d, arg, _IOC_SIZE(request));
	return 0;
}

static uint32_t list(void *data, char (*out)[V4L2_IO_PATH_MAX], uint32_t capacity)
{
	strcpy(out[0], "fuzz");
	return capacity ? 1 : 0;
}

static int open_node(void *data, const char *path)
{
	const int fd = memfd_create("fuzz-v4l2-node", MFD_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

static void close_node(void *data, int fd)
{
	close(fd);
}

static void ask(uda_context *ctx, uda_device *device, const uda_assertion *assertion, uda_usage_name name)
{
	/* Decoders and encoders are asked for H.264 High, which reads their
	 * bitstream formats and profile menu too. */
	const uda_video_profile high = {UDA_VIDEO_CODEC_H264, 100, 8, 420};
	uint8_t profile[UDA_VIDEO_PROFILE_PAYLOAD_SIZE];
	uda_video_profile_to_payload(&high, profile);
	const bool video = name == UDA_USAGE_VIDEO_DECODE || name == UDA_USAGE_VIDEO_ENCODE;
	const uda_usage_atom atom = {UDA_VENDOR_NONE, (uint16_t)name, video ? sizeof(profile) : 0, video ? profile : NULL};
	const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 1, &atom};
	const uda_device_usage party = {device, &usage};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, NULL, assertion, 1, &party};
	uda_capability_set_list *sets = NULL;
	uda_allocation *allocation = NULL;
	uint32_t index = 0;
	if (uda_negotiate_allocate(ctx, &info, &allocation, &sets, &index) == UDA_SUCCESS) {
		int fd = -1;
		if (uda_allocation_export(allocation, UDA_HANDLE_TYPE_DMA_BUF, &fd) == UDA_SUCCESS)
			close(fd);
		uda_allocation_destroy(allocation);
	}
	if (!sets)
		return;
	/* Memory another device made, at V4L2's packing. */
	uda_allocation_metadata m = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	m.width = assertion->width;
	m.height = assertion->height;
	m.format = assertion->format;
	m.handle_type = UDA_HANDLE_TYPE_DMA_BUF;
	m.plane_count = assertion->format == DRM_FORMAT_NV12 ? 2 : 1;
	const uint64_t pitch = assertion->format == DRM_FORMAT_NV12 ? assertion->width : assertion->width * 2ull;
	m.planes[0] = (uda_plane_layout){0, pitch};
	m.planes[1] = (uda_plane_layout){pitch * assertion->height, pitch};
	m.size = pitch * assertion->height * 2;
	const int memory = memfd_create("fuzz-dma-buf", MFD_CLOEXEC);
	if (memory >= 0 && ftruncate(memory, (off_t)m.size) == 0) {
		const uda_import_info import = {UDA_STRUCTURE_TYPE_IMPORT_INFO, NULL, device, memory, &m, sets, index, 0};
		uda_allocation *taken = NULL;
		if (uda_import(&import, &taken) == UDA_SUCCESS)
			uda_allocation_destroy(taken);
	}
	if (memory >= 0)
		close(memory);
	uda_capability_set_list_destroy(sets);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 5)
		return 0;
	const int fds_before = fuzz_open_fds();
	/* The first bytes pick the buffer: a size of 16..4111 x 16..4111, NV12 or YUYV. */
	const uda_assertion assertion = {
		UDA_STRUCTURE_TYPE_ASSERTION, NULL, 16u + (data[0] | (data[1] & 0x0f) << 8),
		16u + (data[2] | (data[3] & 0x0f) << 8), data[4] & 1 ? DRM_FORMAT_NV12 : DRM_FORMAT_YUYV, 0,
	};
	struct driver driver = {data + 5, size - 5, 0};
	const struct v4l2_io io = {answer, &driver, list, open_node, close_node};
	uda_context *ctx = fuzz_context_create();
	if (v4l2_devices_add_all(ctx, &io)) {
		uda_device *device = NULL;
		uint32_t count = 1;
		uda_context_enumerate_devices(ctx, &count, &device);
		ask(ctx, device, &assertion, UDA_USAGE_CAMERA_CAPTURE);
		ask(ctx, device, &assertion, UDA_USAGE_VIDEO_DECODE);
		ask(ctx, device, &assertion, UDA_USAGE_VIDEO_ENCODE);
	}
	uda_context_destroy(ctx);
	if (fuzz_open_fds() != fds_before)
		abort();
	return 0;
}
