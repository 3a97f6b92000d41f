/*
 * A V4L2 video node as a negotiating device. The usage names the queue
 * (a camera's or a decoder's capture queue, an encoder's output queue, a
 * converter's either); the sets are the driver's own answers for it
 * (v4l2_capabilities.c), each with a LOCAL capability that remembers the
 * queue, format and answer, so that allocation and import need not ask
 * again. Memory crosses as DMA-BUFs both ways: imports are queued as
 * V4L2_MEMORY_DMABUF by the program, and the node's own buffers come from
 * VIDIOC_CREATE_BUFS on the backend's fd and leave through VIDIOC_EXPBUF.
 */
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/dma-buf.h>
#include <linux/videodev2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <uda/uda_v4l2.h>

#include "v4l2_capabilities.h"
#include "v4l2_device.h"
#include "v4l2_format_view.h"
#include "v4l2_probe.h"

struct v4l2_device {
	const struct v4l2_io *io;
	/* Held while a buffer is made or freed: the queue's format and its
	 * buffers are the node's, and threads share the device. */
	pthread_mutex_t lock;
	char path[V4L2_IO_PATH_MAX];
	int fd;
	uint8_t uuid[UDA_UUID_SIZE];
	/* Buffers the device made and has not freed, per queue (capture,
	 * output): before Linux 6.10 a queue frees none until it has none
	 * in use, then all at once. */
	uint32_t live_mmap[2];
	bool stranded[2]; /* freed buffers the kernel could not remove */
	struct v4l2_probed_node node;
};

struct v4l2_allocation {
	struct v4l2_queue_params params;
	uint32_t memory; /* V4L2_MEMORY_MMAP: made here; DMABUF: imported */
	uint32_t index;  /* MMAP: on params.type's queue of the device's fd */
	int dma_buf;
	uint64_t size; /* the V4L2 buffer's length: what a program queues */
	/* The memory behind dma_buf: for a buffer made here, the exported
	 * file's own size, which vb2 rounds up to whole pages past the
	 * length (what an importer, a GPU whose images take whole pages,
	 * must be told). */
	uint64_t memory_size;
};

static const char *role_name(enum v4l2_node_role role)
{
	switch (role) {
	case V4L2_NODE_CAMERA:
		return "camera";
	case V4L2_NODE_OUTPUT:
		return "video output";
	case V4L2_NODE_DECODER:
		return "decoder";
	case V4L2_NODE_ENCODER:
		return "encoder";
	case V4L2_NODE_CONVERTER:
		return "converter";
	}
	return "node";
}

/* The queue of the node a usage atom names, or NULL. */
static const struct v4l2_probed_queue *atom_queue(const struct v4l2_device *device, const uda_usage_atom *atom)
{
	const struct v4l2_probed_node *node = &device->node;
	if (atom->vendor != UDA_VENDOR_NONE)
		return NULL;
	switch (atom->name) {
	case UDA_USAGE_CAMERA_CAPTURE:
		return node->role == V4L2_NODE_CAMERA ? &node->capture : NULL;
	case UDA_USAGE_VIDEO_DECODE:
		return node->role == V4L2_NODE_DECODER ? &node->capture : NULL;
	case UDA_USAGE_VIDEO_ENCODE:
		return node->role == V4L2_NODE_ENCODER ? &node->output : NULL;
	case UDA_USAGE_TRANSFER_DST: /* a converter writes its capture queue */
		return node->role == V4L2_NODE_CONVERTER ? &node->capture : NULL;
	case UDA_USAGE_TRANSFER_SRC:
		return node->role == V4L2_NODE_CONVERTER ? &node->output : NULL;
	case UDA_USAGE_SCANOUT: /* a video output shows what its output queue takes */
		return node->role == V4L2_NODE_OUTPUT ? &node->output : NULL;
	}
	return NULL;
}

static const char *codec_name(uint32_t codec)
{
	static const char *const names[] = {"?", "H.264", "H.265", "VP8", "VP9", "AV1", "MPEG-2", "JPEG"};
	return codec < sizeof(names) / sizeof(names[0]) ? names[codec] : "?";
}

/* Whether the node's profile menu control for the codec offers the
 * profile: within the control's range and not skipped (VIDIOC_QUERYMENU
 * answers the items a driver has). A node without the control says
 * nothing, and the profile is not held against it. */
static uda_result check_profile(const struct v4l2_device *device, uda_context *ctx, const uda_video_profile *profile,
                                const char *verb)
{
	struct v4l2_profile_item item;
	if (!profile->profile || !v4l2_profile_menu_item(profile->codec, profile->profile, &item))
		return UDA_SUCCESS;
	struct v4l2_queryctrl control = {.id = item.control};
	if (device->io->ioctl(device->io->data, device->fd, VIDIOC_QUERYCTRL, &control) != 0 ||
	    control.id != item.control || control.type != V4L2_CTRL_TYPE_MENU) {
		uda_context_log(ctx, UDA_LOG_DEBUG, "v4l2: %s has no %s profile control: profile not checked",
		                device->node.card, codec_name(profile->codec));
		return UDA_SUCCESS;
	}
	struct v4l2_querymenu menu = {.id = item.control, .index = (uint32_t)item.item};
	const bool offered = item.item >= control.minimum && item.item <= control.maximum &&
	                     device->io->ioctl(device->io->data, device->fd, VIDIOC_QUERYMENU, &menu) == 0 &&
	                     menu.id == item.control && menu.index == (uint32_t)item.item;
	if (!offered)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "v4l2: %s %s no %s %s (its menu: items %d..%d)",
		                             device->node.card, verb, codec_name(profile->codec), item.name,
		                             control.minimum, control.maximum);
	return UDA_SUCCESS;
}

/* A decoder or encoder asked for a codec must have its bitstream on the
 * other queue (a decoder's output, what it reads; an encoder's capture)
 * and the profile in its profile menu. `bitstream` becomes the stream
 * format found; it is left alone where the usage names no codec. */
static uda_result check_codec(const struct v4l2_device *device, uda_context *ctx, const uda_usage_atom *atom,
                              uint32_t *bitstream)
{
	uda_video_profile profile;
	if (uda_video_profile_from_atom(atom, &profile) != UDA_SUCCESS)
		return UDA_SUCCESS; /* any bitstream */
	const bool decode = atom->name == UDA_USAGE_VIDEO_DECODE;
	const char *verb = decode ? "decodes" : "encodes";
	const struct v4l2_probed_queue *stream = decode ? &device->node.output : &device->node.capture;
	for (uint32_t i = 0; i < stream->format_count; i++) {
		if (v4l2_format_carries_codec(stream->formats[i].pixelformat, profile.codec)) {
			*bitstream = stream->formats[i].pixelformat;
			return check_profile(device, ctx, &profile, verb);
		}
	}
	return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "v4l2: %s %s no %s", device->node.card, verb,
	                             codec_name(profile.codec));
}

/* Whether `queue` is a decoder's pictures, which are asked for with a
 * bitstream on the decoder's OUTPUT queue. */
static bool decoder_pictures(const struct v4l2_device *device, const struct v4l2_probed_queue *queue)
{
	return device->node.role == V4L2_NODE_DECODER && queue == &device->node.capture &&
	       device->node.output.format_count > 0;
}

/* Sets a decoder's OUTPUT queue on `fd` to the bitstream at the
 * pictures' size, unless it holds that already: its pictures follow it
 * (hantro takes their size from it; others align to it). What it holds
 * is compared with what the driver makes of the request (VIDIOC_TRY_FMT:
 * a driver may store another size, or none, for a bitstream), so a second
 * allocation does not set it again, which a decoder holding pictures
 * refuses. 0, or VIDIOC_S_FMT's errno. */
static int set_bitstream(const struct v4l2_device *device, int fd, uint32_t bitstream, uint32_t width,
                         uint32_t height)
{
	const uint32_t type = device->node.output.type;
	const struct v4l2_format_view wanted = {.pixelformat = bitstream, .width = width, .height = height};
	struct v4l2_format format;
	v4l2_format_build(&format, type, &wanted);
	struct v4l2_format_view target = wanted;
	if (device->io->ioctl(device->io->data, fd, VIDIOC_TRY_FMT, &format) == 0 && format.type == type)
		target = v4l2_format_read(&format);
	memset(&format, 0, sizeof(format));
	format.type = type;
	if (device->io->ioctl(device->io->data, fd, VIDIOC_G_FMT, &format) == 0 && format.type == type) {
		const struct v4l2_format_view now = v4l2_format_read(&format);
		if (now.pixelformat == target.pixelformat && now.width == target.width && now.height == target.height)
			return 0;
	}
	v4l2_format_build(&format, type, &wanted);
	return device->io->ioctl(device->io->data, fd, VIDIOC_S_FMT, &format) == 0 ? 0 : (errno ? errno : EINVAL);
}

/* The sets of `queue` for the assertion. A decoder's pictures
 * (`bitstream` set) are asked for on an fd of their own whose OUTPUT
 * queue takes that bitstream at their size, as the decoding program's
 * will (the stateless decoder interface sets OUTPUT first): uda's fd may
 * hold buffers of another size. */
static uda_result queue_sets(const struct v4l2_device *device, uda_context *ctx, const struct v4l2_probed_queue *queue,
                             const uda_assertion *assertion, bool cpu, uint32_t bitstream,
                             uda_capability_set_list **out_sets)
{
	int fd = device->fd;
	if (bitstream) {
		fd = device->io->open ? device->io->open(device->io->data, device->path) : -ENOTTY;
		const int error = fd < 0 ? -fd : set_bitstream(device, fd, bitstream, assertion->width, assertion->height);
		if (error) {
			if (fd >= 0)
				device->io->close(device->io->data, fd);
			char bitstream_text[5];
			v4l2_fourcc_text(bitstream, bitstream_text);
			return uda_context_set_error(ctx, UDA_ERROR_BACKEND,
			                             "v4l2: %s: its bitstream queue cannot be set to %s at %ux%u (%s %s)",
			                             device->node.card, bitstream_text, assertion->width,
			                             assertion->height, fd < 0 ? "open:" : "VIDIOC_S_FMT:", strerror(error));
		}
	}
	const uda_result result = v4l2_capability_sets(ctx, device->io, fd, queue, assertion->width, assertion->height,
	                                               assertion->format, cpu, bitstream, out_sets);
	if (fd != device->fd)
		device->io->close(device->io->data, fd);
	return result;
}

static uint64_t largest_min_size(const uda_capability_set_list *sets)
{
	uint32_t count = 0;
	uint64_t largest = 0;
	uda_capability_set_list_get_count(sets, &count);
	for (uint32_t i = 0; i < count; i++) {
		bool present = false;
		uint64_t value = 0;
		if (uda_capability_set_list_get_constraint(sets, i, UDA_CONSTRAINT_MIN_SIZE, &present, &value) ==
		            UDA_SUCCESS &&
		    present && value > largest)
			largest = value;
	}
	return largest;
}

/* A decoder asked for pictures of no codec in particular: those of the
 * bitstream, among the first V4L2_MAX_BITSTREAMS_TRIED it reads, whose
 * pictures need the most memory (hantro keeps motion vectors after an
 * H.264, HEVC or VP9 picture, not after an MPEG-2 or VP8 one), so that
 * they serve whichever the program decodes; the first of equals. */
#define V4L2_MAX_BITSTREAMS_TRIED 8u

static uda_result sets_for_any_bitstream(const struct v4l2_device *device, uda_context *ctx,
                                         const struct v4l2_probed_queue *queue, const uda_assertion *assertion,
                                         bool cpu, uda_capability_set_list **out_sets)
{
	const struct v4l2_probed_queue *stream = &device->node.output;
	uda_capability_set_list *best = NULL;
	uint64_t best_size = 0;
	uint32_t best_bitstream = 0, tried = 0, served = 0;
	uda_result result = UDA_ERROR_UNSUPPORTED;
	for (uint32_t i = 0; i < stream->format_count && tried < V4L2_MAX_BITSTREAMS_TRIED; i++) {
		if (!stream->formats[i].compressed)
			continue;
		tried++;
		uda_capability_set_list *sets = NULL;
		result = queue_sets(device, ctx, queue, assertion, cpu, stream->formats[i].pixelformat, &sets);
		if (result == UDA_ERROR_OUT_OF_MEMORY) {
			uda_capability_set_list_destroy(best);
			return result;
		}
		if (result != UDA_SUCCESS)
			continue;
		served++;
		const uint64_t size = largest_min_size(sets);
		if (!best || size > best_size) {
			uda_capability_set_list_destroy(best);
			best = sets;
			best_size = size;
			best_bitstream = stream->formats[i].pixelformat;
		} else {
			uda_capability_set_list_destroy(sets);
		}
	}
	if (!best) {
		if (!tried)
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "v4l2: %s reads no bitstream format",
			                             device->node.card);
		/* The last bitstream's reason, said as one of all. */
		char last[256];
		snprintf(last, sizeof(last), "%s", uda_context_get_error(ctx));
		return uda_context_set_error(ctx, result, "v4l2: %s: pictures for none of the %u bitstreams it reads; the "
		                             "last: %s",
		                             device->node.card, tried, last);
	}
	if (served > 1) {
		char text[5];
		v4l2_fourcc_text(best_bitstream, text);
		uda_context_log(ctx, UDA_LOG_INFO,
		                "v4l2: %s: no codec named: pictures sized for %s, whose need the most memory of the %u "
		                "bitstreams it reads (%llu bytes); a usage naming the codec (uda_video_profile) sizes "
		                "them for that one",
		                device->node.card, text, served, (unsigned long long)best_size);
	}
	*out_sets = best;
	return UDA_SUCCESS;
}

static uda_result v4l2_get_capability_sets(void *data, uda_context *ctx, const uda_assertion *assertion,
                                           const uda_usage *usage, uda_capability_set_list *out)
{
	struct v4l2_device *device = data;
	const struct v4l2_probed_queue *queue = NULL;
	bool cpu = false;
	uint32_t named_bitstream = 0;
	for (uint32_t i = 0; i < usage->atom_count; i++) {
		const uda_usage_atom *atom = &usage->atoms[i];
		if (atom->vendor == UDA_VENDOR_NONE && (atom->name == UDA_USAGE_CPU_READ || atom->name == UDA_USAGE_CPU_WRITE)) {
			/* The CPU reads or writes the frames too (through the
			 * DMA-BUF's mapping): frequency NEVER asks nothing. */
			const uint8_t *frequency = atom->payload;
			cpu = cpu || frequency[0] != UDA_CPU_ACCESS_NEVER;
			continue;
		}
		const struct v4l2_probed_queue *named = atom_queue(device, atom);
		if (!named)
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "v4l2: %s, a %s, does not serve usage %04x:%u",
			                             device->node.card, role_name(device->node.role), atom->vendor,
			                             atom->name);
		if (queue && queue != named)
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
			                             "v4l2: one buffer cannot serve both queues of %s", device->node.card);
		const uda_result codec = check_codec(device, ctx, atom, &named_bitstream);
		if (codec != UDA_SUCCESS)
			return codec;
		queue = named;
	}
	if (!queue)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "v4l2: %s, a %s: no usage of a V4L2 queue asked",
		                             device->node.card, role_name(device->node.role));
	if (!(queue->memory_caps & (V4L2_BUF_CAP_SUPPORTS_DMABUF | V4L2_BUF_CAP_SUPPORTS_MMAP)))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "v4l2: %s's queue takes neither DMA-BUFs nor buffers it could export",
		                             device->node.card);
	uda_capability_set_list *sets;
	uda_result result;
	if (!decoder_pictures(device, queue))
		result = queue_sets(device, ctx, queue, assertion, cpu, 0, &sets);
	else if (named_bitstream)
		result = queue_sets(device, ctx, queue, assertion, cpu, named_bitstream, &sets);
	else
		result = sets_for_any_bitstream(device, ctx, queue, assertion, cpu, &sets);
	if (result != UDA_SUCCESS)
		return result;
	uint32_t count = 0;
	result = uda_capability_set_list_get_count(sets, &count);
	for (uint32_t i = 0; result == UDA_SUCCESS && i < count; i++)
		result = uda_capability_set_list_append_copy(out, sets, i);
	uda_capability_set_list_destroy(sets);
	return result;
}

/* V4L2's layout of a buffer of one memory plane: every plane's rows at
 * bytesperline, each plane right after the last row of the one before
 * (NV12's chroma at bytesperline x height). */
static uda_result packed_layout(uda_context *ctx, uint32_t height, const struct v4l2_queue_params *params,
                                uint32_t drm_format, uda_allocation_metadata *out)
{
	const struct v4l2_format_map *map = v4l2_format_lookup(params->pixelformat);
	uda_format_info info;
	if (!map || map->drm != drm_format || map->memory_planes != 1 || map->column_height_in_bytesperline ||
	    uda_format_get_info(drm_format, &info) != UDA_SUCCESS)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "v4l2: no layout of rows for V4L2 format 0x%08x as 0x%08x",
		                             params->pixelformat, drm_format);
	uint64_t offset = 0;
	out->plane_count = info.plane_count;
	for (uint32_t p = 0; p < info.plane_count; p++) {
		const uint32_t rows = (height + info.planes[p].vertical_subsampling - 1) / info.planes[p].vertical_subsampling;
		out->planes[p] = (uda_plane_layout){offset, params->bytesperline};
		offset += (uint64_t)params->bytesperline * rows;
	}
	if (offset > params->sizeimage)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "v4l2: the planes take %llu bytes, sizeimage %u",
		                             (unsigned long long)offset, params->sizeimage);
	return UDA_SUCCESS;
}

static struct v4l2_allocation *allocation_new(uda_context *ctx, const struct v4l2_queue_params *params,
                                              uint32_t memory)
{
	struct v4l2_allocation *a = calloc(1, sizeof(*a));
	if (!a) {
		uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
		return NULL;
	}
	a->params = *params;
	a->memory = memory;
	a->dma_buf = -1;
	return a;
}

static int queue_slot(uint32_t type)
{
	return type == V4L2_BUF_TYPE_VIDEO_CAPTURE || type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE ? 0 : 1;
}

/* Takes buffers [index, index + count) off the queue; with the lock held. */
static void remove_buffers_locked(struct v4l2_device *device, uint32_t type, uint32_t index, uint32_t count)
{
	const int slot = queue_slot(type);
	struct v4l2_remove_buffers remove = {.index = index, .count = count, .type = type};
	if (device->io->ioctl(device->io->data, device->fd, VIDIOC_REMOVE_BUFS, &remove) != 0)
		device->stranded[slot] = true;
	/* Before Linux 6.10 a buffer leaves its queue only with all the
	 * others: when the last one in use goes, they all go, so that
	 * allocating and freeing never fills the queue. */
	if (device->live_mmap[slot] == 0 && device->stranded[slot]) {
		struct v4l2_requestbuffers none = {.count = 0, .type = type, .memory = V4L2_MEMORY_MMAP};
		if (device->io->ioctl(device->io->data, device->fd, VIDIOC_REQBUFS, &none) == 0)
			device->stranded[slot] = false;
	}
}

/* Frees an allocation; with the lock held. */
static void free_locked(struct v4l2_device *device, struct v4l2_allocation *a)
{
	if (a->dma_buf >= 0)
		close(a->dma_buf);
	if (a->memory == V4L2_MEMORY_MMAP) {
		device->live_mmap[queue_slot(a->params.type)]--;
		remove_buffers_locked(device, a->params.type, a->index, 1);
	}
	free(a);
}

static void v4l2_free(void *data, void *allocation)
{
	struct v4l2_device *device = data;
	pthread_mutex_lock(&device->lock);
	free_locked(device, allocation);
	pthread_mutex_unlock(&device->lock);
}

/* Whether a queue's format is the one wanted, in one buffer of at least
 * `sizeimage` bytes. */
static bool format_holds(const struct v4l2_format *format, const struct v4l2_format_view *wanted, uint32_t sizeimage)
{
	const struct v4l2_format_view got = v4l2_format_read(format);
	return got.pixelformat == wanted->pixelformat && got.width == wanted->width && got.height == wanted->height &&
	       got.num_planes == 1 && got.bytesperline == wanted->bytesperline && got.sizeimage >= sizeimage;
}

/* Puts the negotiated format on the queue of the backend's fd, unless it
 * is there: buffers are made for the queue's format, which a queue
 * holding buffers keeps (EBUSY). The driver's answer must be the set's. */
static uda_result set_queue_format(struct v4l2_device *device, uda_context *ctx, uint32_t width, uint32_t height,
                                   const struct v4l2_queue_params *params, struct v4l2_format *out)
{
	const struct v4l2_format_view wanted = {params->pixelformat, width, height, params->bytesperline, 0, 1};
	/* A decoder's pictures: its bitstream first, as they were asked
	 * for, and before any buffer is made (hantro refuses a new OUTPUT
	 * format while CAPTURE holds buffers). */
	const int error = params->bitstream ? set_bitstream(device, device->fd, params->bitstream, width, height) : 0;
	if (error) {
		char bitstream_text[5];
		v4l2_fourcc_text(params->bitstream, bitstream_text);
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND,
		                             "v4l2: %s: VIDIOC_S_FMT of the bitstream %s at %ux%u: %s%s", device->path,
		                             bitstream_text, width, height, strerror(error),
		                             error == EBUSY ? " (the decoder is busy: it holds pictures, or streams)" : "");
	}
	memset(out, 0, sizeof(*out));
	out->type = params->type;
	if (device->io->ioctl(device->io->data, device->fd, VIDIOC_G_FMT, out) == 0) {
		if (format_holds(out, &wanted, params->sizeimage))
			return UDA_SUCCESS;
	}
	v4l2_format_build(out, params->type, &wanted);
	if (device->io->ioctl(device->io->data, device->fd, VIDIOC_S_FMT, out) != 0)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "v4l2: %s: VIDIOC_S_FMT: %s%s", device->path,
		                             strerror(errno),
		                             errno == EBUSY ? " (the queue holds buffers of another format)" : "");
	if (!format_holds(out, &wanted, params->sizeimage))
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND,
		                             "v4l2: %s: VIDIOC_S_FMT set another format than VIDIOC_TRY_FMT answered",
		                             device->path);
	return UDA_SUCCESS;
}

/* One MMAP buffer on the queue, its length, exported as a DMA-BUF; with
 * the lock held. */
static uda_result create_buffer_locked(struct v4l2_device *device, uda_context *ctx, struct v4l2_format *format,
                                       struct v4l2_allocation *a)
{
	const struct v4l2_io *io = device->io;
	struct v4l2_create_buffers create = {.count = 1, .memory = V4L2_MEMORY_MMAP, .format = *format};
	if (io->ioctl(io->data, device->fd, VIDIOC_CREATE_BUFS, &create) != 0)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "v4l2: %s: VIDIOC_CREATE_BUFS: %s", device->path,
		                             strerror(errno));
	if (create.count != 1) {
		/* Made none, or more than asked: whatever it made goes back. */
		if (create.count)
			remove_buffers_locked(device, a->params.type, create.index, create.count);
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "v4l2: %s: VIDIOC_CREATE_BUFS made %u buffers",
		                             device->path, create.count);
	}
	a->memory = V4L2_MEMORY_MMAP; /* from here on freeing removes it */
	a->index = create.index;
	device->live_mmap[queue_slot(a->params.type)]++;
	struct v4l2_plane plane;
	memset(&plane, 0, sizeof(plane));
	struct v4l2_buffer buffer = {.index = a->index, .type = a->params.type, .memory = V4L2_MEMORY_MMAP};
	if (v4l2_buffer_type_is_mplane(a->params.type)) {
		buffer.m.planes = &plane;
		buffer.length = 1;
	}
	if (io->ioctl(io->data, device->fd, VIDIOC_QUERYBUF, &buffer) != 0)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "v4l2: %s: VIDIOC_QUERYBUF: %s", device->path,
		                             strerror(errno));
	a->size = v4l2_buffer_type_is_mplane(a->params.type) ? plane.length : buffer.length;
	if (a->size < a->params.sizeimage)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "v4l2: %s: a buffer of %llu bytes for sizeimage %u",
		                             device->path, (unsigned long long)a->size, a->params.sizeimage);
	struct v4l2_exportbuffer export = {.type = a->params.type, .index = a->index, .flags = O_RDWR | O_CLOEXEC};
	if (io->ioctl(io->data, device->fd, VIDIOC_EXPBUF, &export) != 0)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "v4l2: %s: VIDIOC_EXPBUF: %s", device->path,
		                             strerror(errno));
	if (export.fd < 0)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "v4l2: %s: VIDIOC_EXPBUF answered fd %d",
		                             device->path, export.fd);
	a->dma_buf = export.fd;
	/* The memory itself must hold what the driver said the buffer holds:
	 * the importers map and read that many bytes. */
	const off_t end = lseek(export.fd, 0, SEEK_END);
	if (end < 0 || (uint64_t)end < a->size)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND,
		                             "v4l2: %s: the exported buffer holds %lld bytes, the driver said %llu",
		                             device->path, (long long)end, (unsigned long long)a->size);
	a->memory_size = (uint64_t)end;
	return UDA_SUCCESS;
}

/* Whether the layout keeps the set's plane and offset alignments: V4L2
 * places the planes, so a merged set that asks for more is refused. */
static uda_result layout_fits(uda_context *ctx, const uda_capability_set_list *sets, uint32_t index,
                              const uda_allocation_metadata *layout)
{
	uint64_t plane_alignment = 1, offset_alignment = 1, max_size = UINT64_MAX;
	uda_backend_get_constraint(sets, index, UDA_CONSTRAINT_PLANE_ALIGNMENT, 1, &plane_alignment);
	uda_backend_get_constraint(sets, index, UDA_CONSTRAINT_OFFSET_ALIGNMENT, 1, &offset_alignment);
	uda_backend_get_constraint(sets, index, UDA_CONSTRAINT_MAX_SIZE, UINT64_MAX, &max_size);
	for (uint32_t p = 0; p < layout->plane_count; p++) {
		if (layout->planes[p].offset % plane_alignment || layout->planes[p].offset % offset_alignment)
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
			                             "v4l2: plane %u starts at %llu, which the set's alignments (%llu, %llu) "
			                             "do not allow",
			                             p, (unsigned long long)layout->planes[p].offset,
			                             (unsigned long long)plane_alignment, (unsigned long long)offset_alignment);
	}
	if (layout->size > max_size)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "v4l2: %llu bytes, over the set's maximum %llu",
		                             (unsigned long long)layout->size, (unsigned long long)max_size);
	return UDA_SUCCESS;
}

static uda_result v4l2_allocate(void *data, uda_context *ctx, const uda_assertion *assertion,
                                const uda_capability_set_list *sets, uint32_t index, uda_backend_allocation *out)
{
	struct v4l2_device *device = data;
	struct v4l2_queue_params params;
	if (!v4l2_queue_params_find(sets, index, device->uuid, &params))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "v4l2: %s did not answer this set",
		                             device->path);
	const struct v4l2_probed_queue *queue =
	        params.type == device->node.capture.type ? &device->node.capture : &device->node.output;
	if (!(queue->memory_caps & V4L2_BUF_CAP_SUPPORTS_MMAP))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "v4l2: %s makes no buffers of its own (no MMAP)",
		                             device->path);
	if (!uda_backend_set_has_u32(sets, index, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF) ||
	    uda_backend_set_required_placement(sets, index))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "v4l2: its buffers travel as DMA-BUFs, with no placement to choose");
	uda_result result = packed_layout(ctx, assertion->height, &params, assertion->format, &out->metadata);
	out->metadata.size = params.sizeimage;
	if (result == UDA_SUCCESS)
		result = layout_fits(ctx, sets, index, &out->metadata);
	if (result != UDA_SUCCESS)
		return result;
	struct v4l2_allocation *a = allocation_new(ctx, &params, 0);
	if (!a)
		return UDA_ERROR_OUT_OF_MEMORY;
	struct v4l2_format format;
	pthread_mutex_lock(&device->lock);
	result = set_queue_format(device, ctx, assertion->width, assertion->height, &params, &format);
	if (result == UDA_SUCCESS)
		result = create_buffer_locked(device, ctx, &format, a);
	if (result != UDA_SUCCESS)
		free_locked(device, a);
	pthread_mutex_unlock(&device->lock);
	if (result != UDA_SUCCESS)
		return result;
	out->data = a;
	out->metadata.size = a->memory_size;
	return UDA_SUCCESS;
}

static uda_result v4l2_import(void *data, uda_context *ctx, int fd, bool take_fd, const uda_allocation_metadata *m,
                              const uda_capability_set_list *sets, const void *next, uda_backend_allocation *out)
{
	struct v4l2_device *device = data;
	if (next)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "v4l2: no import extension structs");
	if (m->handle_type != UDA_HANDLE_TYPE_DMA_BUF)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "v4l2: queues take DMA-BUFs only");
	uint32_t set_count = 0;
	uda_capability_set_list_get_count(sets, &set_count);
	struct v4l2_queue_params params;
	if (!set_count || !v4l2_queue_params_find(sets, 0, device->uuid, &params))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "v4l2: the memory was not negotiated with %s", device->path);
	const struct v4l2_probed_queue *queue =
	        params.type == device->node.capture.type ? &device->node.capture : &device->node.output;
	if (!(queue->memory_caps & V4L2_BUF_CAP_SUPPORTS_DMABUF))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "v4l2: %s's queue takes no DMA-BUFs: it must allocate the buffer",
		                             device->path);
	/* The driver reads the planes where V4L2 puts them, at its pitch. */
	uda_allocation_metadata expected = *m;
	uda_result result = packed_layout(ctx, m->height, &params, m->format, &expected);
	if (result != UDA_SUCCESS)
		return result;
	if (m->plane_count != expected.plane_count)
		return uda_context_set_error(ctx, UDA_ERROR_INCOMPATIBLE, "v4l2: %u planes, V4L2 lays out %u",
		                             m->plane_count, expected.plane_count);
	for (uint32_t p = 0; p < m->plane_count; p++) {
		if (m->planes[p].offset != expected.planes[p].offset || m->planes[p].pitch != expected.planes[p].pitch)
			return uda_context_set_error(ctx, UDA_ERROR_INCOMPATIBLE,
			                             "v4l2: plane %u at %llu, pitch %llu; the driver reads it at %llu, "
			                             "pitch %llu",
			                             p, (unsigned long long)m->planes[p].offset,
			                             (unsigned long long)m->planes[p].pitch,
			                             (unsigned long long)expected.planes[p].offset,
			                             (unsigned long long)expected.planes[p].pitch);
	}
	if (m->size < params.sizeimage)
		return uda_context_set_error(ctx, UDA_ERROR_INCOMPATIBLE, "v4l2: %llu bytes, the driver needs %u",
		                             (unsigned long long)m->size, params.sizeimage);
	struct v4l2_allocation *a = allocation_new(ctx, &params, V4L2_MEMORY_DMABUF);
	if (!a)
		return UDA_ERROR_OUT_OF_MEMORY;
	a->size = a->memory_size = m->size;
	a->dma_buf = take_fd ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (a->dma_buf < 0) {
		free(a);
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "v4l2: dup: %s", strerror(errno));
	}
	out->took_fd = take_fd;
	out->data = a;
	return UDA_SUCCESS;
}

static uda_result v4l2_export_fd(void *data, uda_context *ctx, void *allocation, uda_handle_type type, int *out_fd)
{
	struct v4l2_allocation *a = allocation;
	if (type != UDA_HANDLE_TYPE_DMA_BUF)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "v4l2: exports DMA-BUFs only");
	*out_fd = fcntl(a->dma_buf, F_DUPFD_CLOEXEC, 0);
	if (*out_fd < 0)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "v4l2: dup: %s", strerror(errno));
	return UDA_SUCCESS;
}

/* The CPU reaches the memory through its DMA-BUF: vb2's exported
 * buffers map, as do other devices' DMA-BUFs imported here. */
static uda_result v4l2_map(void *data, uda_context *ctx, void *allocation, uint32_t access, void **out_pointer)
{
	struct v4l2_allocation *a = allocation;
	const int protection =
	        ((access & UDA_ACCESS_READ) ? PROT_READ : 0) | ((access & UDA_ACCESS_WRITE) ? PROT_WRITE : 0);
	void *pointer = mmap(NULL, a->size, protection, MAP_SHARED, a->dma_buf, 0);
	if (pointer == MAP_FAILED)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "v4l2: the DMA-BUF does not map: %s",
		                             strerror(errno));
	*out_pointer = pointer;
	return UDA_SUCCESS;
}

static void v4l2_unmap(void *data, void *allocation, void *pointer)
{
	const struct v4l2_allocation *a = allocation;
	munmap(pointer, a->size);
}

/* DMA_BUF_IOCTL_SYNC brackets CPU access, so that caches are right for
 * the device after it. Memory that is no DMA-BUF (the replay's memfds)
 * answers ENOTTY and needs nothing. */
static uda_result cpu_access(uda_context *ctx, const struct v4l2_allocation *a, uint32_t access, bool start)
{
	struct dma_buf_sync sync = {
		.flags = (start ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) |
		         ((access & UDA_ACCESS_READ) ? DMA_BUF_SYNC_READ : 0) |
		         ((access & UDA_ACCESS_WRITE) ? DMA_BUF_SYNC_WRITE : 0),
	};
	int result;
	do
		result = ioctl(a->dma_buf, DMA_BUF_IOCTL_SYNC, &sync);
	while (result != 0 && (errno == EINTR || errno == EAGAIN));
	if (result != 0 && errno != ENOTTY)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "v4l2: DMA_BUF_IOCTL_SYNC: %s", strerror(errno));
	return UDA_SUCCESS;
}

static uda_result v4l2_begin_cpu_access(void *data, uda_context *ctx, void *allocation, uint32_t access)
{
	return cpu_access(ctx, allocation, access, true);
}

static uda_result v4l2_end_cpu_access(void *data, uda_context *ctx, void *allocation, uint32_t access)
{
	return cpu_access(ctx, allocation, access, false);
}

static uda_result v4l2_get_native(void *data, uda_context *ctx, void *allocation, void *out_native)
{
	const struct v4l2_allocation *a = allocation;
	uda_v4l2_native *native = out_native;
	if (native->type != UDA_STRUCTURE_TYPE_V4L2_NATIVE || native->next)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "v4l2: native objects are uda_v4l2_native");
	native->buffer_type = a->params.type;
	native->memory = a->memory;
	native->index = a->memory == V4L2_MEMORY_MMAP ? a->index : 0;
	native->dma_buf = a->dma_buf;
	native->size = a->size;
	native->pixelformat = a->params.pixelformat;
	native->bytesperline = a->params.bytesperline;
	return UDA_SUCCESS;
}

static uda_result v4l2_get_device_native(void *data, uda_context *ctx, void *out_native)
{
	const struct v4l2_device *device = data;
	uda_v4l2_device_native *native = out_native;
	if (native->type != UDA_STRUCTURE_TYPE_V4L2_DEVICE_NATIVE || native->next)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "v4l2: the device's native objects are uda_v4l2_device_native");
	native->fd = device->fd;
	native->device_caps = device->node.device_caps;
	native->capture_type = device->node.capture.present ? device->node.capture.type : 0;
	native->output_type = device->node.output.present ? device->node.output.type : 0;
	return UDA_SUCCESS;
}

static void v4l2_destroy(void *data)
{
	struct v4l2_device *device = data;
	/* Every allocation is freed by now; closing the fd lets go of
	 * whatever its queues still hold, as vb2 does for a closed file. */
	device->io->close(device->io->data, device->fd);
	pthread_mutex_destroy(&device->lock);
	free(device);
}

static const uda_device_interface v4l2_device_interface = {
	.version = UDA_DEVICE_INTERFACE_VERSION_2,
	.get_capability_sets = v4l2_get_capability_sets,
	.destroy = v4l2_destroy,
	.allocate = v4l2_allocate,
	.import = v4l2_import,
	.free = v4l2_free,
	.export_fd = v4l2_export_fd,
	.map = v4l2_map,
	.unmap = v4l2_unmap,
	.begin_cpu_access = v4l2_begin_cpu_access,
	.end_cpu_access = v4l2_end_cpu_access,
	.get_native = v4l2_get_native,
	.get_device_native = v4l2_get_device_native,
};

static uda_result register_device(uda_context *ctx, struct v4l2_device *device, uda_device **out_device)
{
	const struct v4l2_probed_node *node = &device->node;
	char name[160], identity[160], driver_key[48];
	snprintf(name, sizeof(name), "%s %s: %s (%s)", node->driver, role_name(node->role), node->card, device->path);
	snprintf(driver_key, sizeof(driver_key), "v4l2-driver:%s", node->driver);
	uda_device_create_info info = {
		.type = UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.name = name,
		.backend_name = V4L2_BACKEND_NAME,
		.api = UDA_DEVICE_API_V4L2,
		.interface = &v4l2_device_interface,
		.device_data = device,
	};
	uda_backend_uuid_from_name(driver_key, info.driver_uuid);
	/* The hardware by where it sits (bus info), what it is (card) and
	 * which of its functions the node serves: the same in every process.
	 * Two nodes alike in all three (two capture nodes of one chip) are
	 * told apart by their paths. */
	snprintf(identity, sizeof(identity), "v4l2:%s:%s:%s", node->bus_info, node->card, role_name(node->role));
	uda_backend_uuid_from_name(identity, info.device_uuid);
	uda_device *added = NULL;
	uda_result result = uda_context_add_device(ctx, &info, &added);
	if (result == UDA_ERROR_EXISTS) {
		snprintf(identity, sizeof(identity), "v4l2:%s:%s:%s:%s", node->bus_info, node->card, role_name(node->role),
		         device->path);
		uda_backend_uuid_from_name(identity, info.device_uuid);
		result = uda_context_add_device(ctx, &info, &added);
	}
	if (result != UDA_SUCCESS)
		return result;
	uda_device_info added_info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
	uda_device_get_info(added, &added_info);
	memcpy(device->uuid, added_info.device_uuid, UDA_UUID_SIZE);
	if (out_device)
		*out_device = added;
	return UDA_SUCCESS;
}

/* Picture formats the driver lists that uda has no DRM format for take
 * part in no set: said once, where the device is added, so that a
 * camera offering only such formats is understood. */
static void log_unknown_formats(uda_context *ctx, const struct v4l2_device *device)
{
	const struct v4l2_probed_queue *queues[] = {&device->node.capture, &device->node.output};
	for (int q = 0; q < 2; q++) {
		for (uint32_t i = 0; queues[q]->present && i < queues[q]->format_count; i++) {
			const struct v4l2_probed_format *format = &queues[q]->formats[i];
			if (format->compressed || format->image)
				continue;
			char text[5];
			v4l2_fourcc_text(format->pixelformat, text);
			uda_context_log(ctx, UDA_LOG_INFO,
			                "v4l2: %s: format %s (0x%08x) of its %s queue has no DRM format uda knows: left out",
			                device->path, text, format->pixelformat, q ? "output" : "capture");
		}
	}
}

uda_result v4l2_device_add(uda_context *ctx, const char *path, const struct v4l2_io *io, uda_device **out_device)
{
	struct v4l2_device *device = calloc(1, sizeof(*device));
	if (!device)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	device->io = io;
	pthread_mutex_init(&device->lock, NULL);
	snprintf(device->path, sizeof(device->path), "%s", path);
	device->fd = io->open(io->data, path);
	if (device->fd < 0) {
		const int error = -device->fd;
		pthread_mutex_destroy(&device->lock);
		free(device);
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "v4l2: %s: %s", path, strerror(error));
	}
	char why[160] = "";
	if (!v4l2_probe_node(io, device->fd, &device->node, why, sizeof(why))) {
		io->close(io->data, device->fd);
		pthread_mutex_destroy(&device->lock);
		free(device);
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "v4l2: %s: %s", path, why);
	}
	log_unknown_formats(ctx, device);
	const uda_result result = register_device(ctx, device, out_device);
	if (result != UDA_SUCCESS)
		v4l2_destroy(device);
	return result;
}

uint32_t v4l2_devices_add_all(uda_context *ctx, const struct v4l2_io *io)
{
	char paths[V4L2_IO_MAX_NODES][V4L2_IO_PATH_MAX];
	const uint32_t found = io->list(io->data, paths, V4L2_IO_MAX_NODES);
	const uint32_t count = found < V4L2_IO_MAX_NODES ? found : V4L2_IO_MAX_NODES;
	if (found > count)
		uda_context_log(ctx, UDA_LOG_WARNING, "v4l2: %u video nodes, the first %u taken (up to %s)", found, count,
		                paths[count - 1]);
	uint32_t added = 0;
	for (uint32_t i = 0; i < count; i++) {
		if (v4l2_device_add(ctx, paths[i], io, NULL) == UDA_SUCCESS)
			added++;
		else
			uda_context_log(ctx, UDA_LOG_INFO, "%s", uda_context_get_error(ctx));
	}
	return added;
}
