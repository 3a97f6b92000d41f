/* v4l2_replay.h */
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "v4l2_format_view.h"
#include "v4l2_replay.h"

#define REPLAY_MAX_FORMATS 32
#define REPLAY_MAX_SIZES 16
#define REPLAY_MAX_OPEN 64
#define REPLAY_MAX_BUFFERS 32
#define REPLAY_LINE_MAX 512
#define REPLAY_MAX_CONTROLS 8

/* A format and the rule of the driver's TRY_FMT for it: bytesperline is
 * the row (width x bytes_per_pixel) rounded up to pitch_alignment,
 * sizeimage bytesperline x height x size_num / size_den + size_extra.
 * A decoder's picture size is its own: the height it answers is rounded
 * up to height_alignment (bcm2835-codec), or the size is the bitstream's
 * on the OUTPUT queue of the same fd rounded up to follows_output
 * (hantro: the CAPTURE size asked is ignored), follows_default before
 * one is set. mv_per_mb: hantro's motion vectors, kept after a picture
 * of some codecs, so many bytes per 16x16 macroblock where that fd's
 * OUTPUT queue holds the bitstream named. */
#define REPLAY_MAX_MV_RULES 4
struct replay_format {
	uint32_t pixelformat;
	bool compressed;
	uint32_t size_count;
	uint32_t sizes[REPLAY_MAX_SIZES][2];
	bool stepwise;
	struct v4l2_frmsize_stepwise range;
	uint32_t bytes_per_pixel, pitch_alignment, height_alignment, size_num, size_den, size_extra;
	uint32_t follows_output, follows_default[2];
	uint32_t mv_rule_count;
	struct {
		uint32_t bitstream, bytes_per_mb;
	} mv_per_mb[REPLAY_MAX_MV_RULES];
};

struct replay_queue {
	uint32_t type;
	uint32_t memory_caps;
	uint32_t format_count;
	struct replay_format formats[REPLAY_MAX_FORMATS];
};

/* A menu control (a codec's profile menu): its range, and the items in
 * it the driver skips (a bit per item, up to 63). */
struct replay_control {
	uint32_t id;
	int32_t minimum, maximum;
	uint64_t skipped;
};

struct replay_node {
	char path[V4L2_IO_PATH_MAX];
	uint32_t control_count;
	struct replay_control controls[REPLAY_MAX_CONTROLS];
	char driver[16], card[32], bus[32];
	uint32_t device_caps;
	bool no_remove_bufs; /* a kernel before 6.10: VIDIOC_REMOVE_BUFS is ENOTTY */
	uint32_t queue_count;
	struct replay_queue queues[2];
};

struct replay_buffer {
	int memfd; /* -1: removed */
	uint32_t length;
};

/* One open file of a node, with what V4L2 keeps per file handle. */
struct replay_file {
	int fd; /* -1: free slot */
	const struct replay_node *node;
	struct v4l2_format current[2];
	bool has_current[2];
	uint32_t buffer_count[2];
	struct replay_buffer buffers[2][REPLAY_MAX_BUFFERS];
};

struct v4l2_replay {
	struct v4l2_io io;
	pthread_mutex_t lock;
	uint32_t node_count;
	struct replay_node nodes[V4L2_IO_MAX_NODES];
	struct replay_file files[REPLAY_MAX_OPEN];
};

/* ------------------------------------------------------------------------ */
/* Reading                                                                   */

static bool fail(char *why, size_t why_size, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	vsnprintf(why, why_size, format, args);
	va_end(args);
	return false;
}

static bool parse_u32(const char *text, int base, uint32_t *out)
{
	char *end;
	errno = 0;
	const unsigned long value = strtoul(text, &end, base);
	if (errno || end == text || *end || value > UINT32_MAX)
		return false;
	*out = (uint32_t)value;
	return true;
}

static bool parse_size(const char *text, uint32_t *w, uint32_t *h)
{
	char width[16];
	const char *x = strchr(text, 'x');
	if (!x || (size_t)(x - text) >= sizeof(width))
		return false;
	memcpy(width, text, (size_t)(x - text));
	width[x - text] = '\0';
	return parse_u32(width, 10, w) && parse_u32(x + 1, 10, h) && *w && *h;
}

static bool parse_queue(struct replay_node *node, char **words, int count)
{
	static const struct {
		const char *name;
		uint32_t type;
	} types[] = {
		{"capture", V4L2_BUF_TYPE_VIDEO_CAPTURE},
		{"output", V4L2_BUF_TYPE_VIDEO_OUTPUT},
		{"capture-mplane", V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE},
		{"output-mplane", V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE},
	};
	if (count < 2 || node->queue_count == 2)
		return false;
	struct replay_queue *queue = &node->queues[node->queue_count];
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (!strcmp(words[1], types[i].name))
			queue->type = types[i].type;
	}
	if (!queue->type)
		return false;
	queue->memory_caps = V4L2_BUF_CAP_SUPPORTS_MMAP | V4L2_BUF_CAP_SUPPORTS_DMABUF;
	if (count >= 4 && !strcmp(words[2], "memory")) {
		queue->memory_caps = 0;
		char *save = NULL;
		for (char *m = strtok_r(words[3], ",", &save); m; m = strtok_r(NULL, ",", &save)) {
			if (!strcmp(m, "mmap"))
				queue->memory_caps |= V4L2_BUF_CAP_SUPPORTS_MMAP;
			else if (!strcmp(m, "dmabuf"))
				queue->memory_caps |= V4L2_BUF_CAP_SUPPORTS_DMABUF;
			else
				return false;
		}
	} else if (count != 2) {
		return false;
	}
	node->queue_count++;
	return true;
}

static bool parse_format(struct replay_node *node, char **words, int count)
{
	if (!node->queue_count || count < 2 || strlen(words[1]) != 4)
		return false;
	struct replay_queue *queue = &node->queues[node->queue_count - 1];
	if (queue->format_count == REPLAY_MAX_FORMATS)
		return false;
	struct replay_format *f = &queue->formats[queue->format_count];
	memset(f, 0, sizeof(*f));
	f->pixelformat = v4l2_fourcc(words[1][0], words[1][1], words[1][2], words[1][3]);
	f->bytes_per_pixel = f->pitch_alignment = f->height_alignment = f->size_num = f->size_den = 1;
	for (int i = 2; i < count; i++) {
		const char *key = words[i];
		if (!strcmp(key, "compressed")) {
			f->compressed = true;
			continue;
		}
		if (i + 1 >= count)
			return false;
		if (!strcmp(key, "discrete")) {
			char *save = NULL;
			for (char *size = strtok_r(words[++i], ",", &save); size; size = strtok_r(NULL, ",", &save)) {
				if (f->size_count == REPLAY_MAX_SIZES ||
				    !parse_size(size, &f->sizes[f->size_count][0], &f->sizes[f->size_count][1]))
					return false;
				f->size_count++;
			}
		} else if (!strcmp(key, "stepwise")) {
			/* stepwise MINxMIN MAXxMAX STEPxSTEP */
			if (i + 3 >= count || !parse_size(words[i + 1], &f->range.min_width, &f->range.min_height) ||
			    !parse_size(words[i + 2], &f->range.max_width, &f->range.max_height) ||
			    !parse_size(words[i + 3], &f->range.step_width, &f->range.step_height))
				return false;
			f->stepwise = true;
			i += 3;
		} else if (!strcmp(key, "bpp")) {
			if (!parse_u32(words[++i], 10, &f->bytes_per_pixel) || !f->bytes_per_pixel)
				return false;
		} else if (!strcmp(key, "pitch-align")) {
			if (!parse_u32(words[++i], 10, &f->pitch_alignment) || !f->pitch_alignment)
				return false;
		} else if (!strcmp(key, "height-align")) {
			if (!parse_u32(words[++i], 10, &f->height_alignment) || !f->height_alignment)
				return false;
		} else if (!strcmp(key, "follows-output")) {
			/* follows-output ALIGN DEFAULTxSIZE */
			if (i + 2 >= count || !parse_u32(words[i + 1], 10, &f->follows_output) || !f->follows_output ||
			    f->follows_output > 256 || !parse_size(words[i + 2], &f->follows_default[0], &f->follows_default[1]))
				return false;
			i += 2;
		} else if (!strcmp(key, "size")) {
			char *slash = strchr(words[++i], '/');
			if (!slash)
				return false;
			*slash = '\0';
			/* Planes add up to a few times the first, at most. */
			if (!parse_u32(words[i], 10, &f->size_num) || !parse_u32(slash + 1, 10, &f->size_den) ||
			    !f->size_den || f->size_num > 16 || f->size_den > 16)
				return false;
		} else if (!strcmp(key, "extra")) {
			if (!parse_u32(words[++i], 10, &f->size_extra))
				return false;
		} else if (!strcmp(key, "mv-per-mb")) {
			/* mv-per-mb FOURCC BYTES */
			if (i + 2 >= count || f->mv_rule_count == REPLAY_MAX_MV_RULES || strlen(words[i + 1]) != 4 ||
			    !parse_u32(words[i + 2], 10, &f->mv_per_mb[f->mv_rule_count].bytes_per_mb) ||
			    f->mv_per_mb[f->mv_rule_count].bytes_per_mb > 4096)
				return false;
			const char *code = words[i + 1];
			f->mv_per_mb[f->mv_rule_count++].bitstream = v4l2_fourcc(code[0], code[1], code[2], code[3]);
			i += 2;
		} else {
			return false;
		}
	}
	queue->format_count++;
	return true;
}

/* control ID menu MIN MAX [skip I,J,...] */
static bool parse_control(struct replay_node *node, char **words, int count)
{
	if (node->control_count == REPLAY_MAX_CONTROLS || (count != 5 && count != 7) || strcmp(words[2], "menu") != 0)
		return false;
	struct replay_control *c = &node->controls[node->control_count];
	uint32_t minimum, maximum;
	if (!parse_u32(words[1], 16, &c->id) || !parse_u32(words[3], 10, &minimum) || !parse_u32(words[4], 10, &maximum) ||
	    minimum > maximum || maximum > 63)
		return false;
	c->minimum = (int32_t)minimum;
	c->maximum = (int32_t)maximum;
	c->skipped = 0;
	if (count == 7) {
		if (strcmp(words[5], "skip") != 0)
			return false;
		char *save = NULL;
		for (char *item = strtok_r(words[6], ",", &save); item; item = strtok_r(NULL, ",", &save)) {
			uint32_t index;
			if (!parse_u32(item, 10, &index) || index > 63)
				return false;
			c->skipped |= 1ull << index;
		}
	}
	node->control_count++;
	return true;
}

static void copy_text(char *to, size_t size, const char *from)
{
	snprintf(to, size, "%s", from);
}

static bool parse_line(struct replay_node *node, char *line)
{
	char *rest = line + strcspn(line, " \t");
	if (*rest)
		*rest++ = '\0';
	rest += strspn(rest, " \t");
	if (!strcmp(line, "driver"))
		copy_text(node->driver, sizeof(node->driver), rest);
	else if (!strcmp(line, "card"))
		copy_text(node->card, sizeof(node->card), rest);
	else if (!strcmp(line, "bus"))
		copy_text(node->bus, sizeof(node->bus), rest);
	else if (!strcmp(line, "device-caps"))
		return parse_u32(rest, 16, &node->device_caps);
	else if (!strcmp(line, "no-remove-bufs") && !*rest)
		node->no_remove_bufs = true;
	else {
		char *words[24] = {line};
		int count = 1;
		char *save = NULL;
		for (char *w = strtok_r(rest, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
			if (count == 24)
				return false; /* more words than any line has */
			words[count++] = w;
		}
		if (!strcmp(line, "queue"))
			return parse_queue(node, words, count);
		if (!strcmp(line, "format"))
			return parse_format(node, words, count);
		if (!strcmp(line, "control"))
			return parse_control(node, words, count);
		return false;
	}
	return true;
}

static bool read_node(const char *path, struct replay_node *node, char *why, size_t why_size)
{
	FILE *file = fopen(path, "re");
	if (!file)
		return fail(why, why_size, "%s: %s", path, strerror(errno));
	memset(node, 0, sizeof(*node));
	const char *base = strrchr(path, '/');
	snprintf(node->path, sizeof(node->path), "replay:%.48s", base ? base + 1 : path);
	char line[REPLAY_LINE_MAX];
	unsigned number = 0;
	bool ok = true;
	while (ok && fgets(line, sizeof(line), file)) {
		number++;
		line[strcspn(line, "\r\n")] = '\0';
		const char *start = line + strspn(line, " \t");
		if (!*start || *start == '#')
			continue;
		ok = parse_line(node, (char *)start);
		if (!ok)
			fail(why, why_size, "%s:%u: not understood", path, number);
	}
	fclose(file);
	if (ok && (!node->driver[0] || !node->queue_count))
		ok = fail(why, why_size, "%s: no driver or no queue", path);
	for (uint32_t q = 0; ok && q < node->queue_count; q++) {
		if (!node->queues[q].format_count)
			ok = fail(why, why_size, "%s: a queue without formats", path);
	}
	return ok;
}

/* ------------------------------------------------------------------------ */
/* Answering                                                                 */

static struct replay_file *file_of(struct v4l2_replay *replay, int fd)
{
	for (int i = 0; i < REPLAY_MAX_OPEN; i++) {
		if (replay->files[i].fd == fd && fd >= 0)
			return &replay->files[i];
	}
	return NULL;
}

static int queue_index(const struct replay_node *node, uint32_t type)
{
	for (uint32_t i = 0; i < node->queue_count; i++) {
		if (node->queues[i].type == type)
			return (int)i;
	}
	return -1;
}

static const struct replay_format *find_format(const struct replay_queue *queue, uint32_t pixelformat)
{
	for (uint32_t i = 0; i < queue->format_count; i++) {
		if (queue->formats[i].pixelformat == pixelformat)
			return &queue->formats[i];
	}
	return NULL;
}

static int error(int code)
{
	errno = code;
	return -1;
}

static uint32_t align_up(uint32_t value, uint32_t alignment)
{
	const uint64_t aligned = ((uint64_t)value + alignment - 1) / alignment * alignment;
	return aligned > UINT32_MAX ? UINT32_MAX : (uint32_t)aligned;
}

/* TRY_FMT by the format's rule, on `file` (a decoder's picture size
 * follows the bitstream set on that fd); the size kept within the
 * driver's range or snapped to its first discrete size, as drivers
 * adjust. */
static int try_format(const struct replay_file *file, struct v4l2_format *f)
{
	const struct replay_node *node = file->node;
	const int q = queue_index(node, f->type);
	if (q < 0)
		return error(EINVAL);
	const struct replay_queue *queue = &node->queues[q];
	const struct v4l2_format_view asked = v4l2_format_read(f);
	uint32_t width = asked.width, height = asked.height;
	const struct replay_format *format = find_format(queue, asked.pixelformat);
	if (!format)
		format = &queue->formats[0]; /* drivers answer a format they have */
	uint32_t mv_bytes_per_mb = 0;
	if (format->follows_output) {
		const int other = 1 - q;
		width = format->follows_default[0];
		height = format->follows_default[1];
		if (other < (int)node->queue_count && file->has_current[other]) {
			const struct v4l2_format_view bitstream = v4l2_format_read(&file->current[other]);
			width = align_up(bitstream.width, format->follows_output);
			height = align_up(bitstream.height, format->follows_output);
			for (uint32_t i = 0; i < format->mv_rule_count; i++) {
				if (format->mv_per_mb[i].bitstream == bitstream.pixelformat)
					mv_bytes_per_mb = format->mv_per_mb[i].bytes_per_mb;
			}
		}
	}
	height = align_up(height, format->height_alignment);
	if (format->stepwise) {
		const struct v4l2_frmsize_stepwise *r = &format->range;
		width = width < r->min_width ? r->min_width : width > r->max_width ? r->max_width : width;
		height = height < r->min_height ? r->min_height : height > r->max_height ? r->max_height : height;
		width -= (width - r->min_width) % (r->step_width ? r->step_width : 1);
		height -= (height - r->min_height) % (r->step_height ? r->step_height : 1);
	} else if (format->size_count) {
		bool listed = false;
		for (uint32_t i = 0; i < format->size_count && !listed; i++)
			listed = format->sizes[i][0] == width && format->sizes[i][1] == height;
		if (!listed) {
			width = format->sizes[0][0];
			height = format->sizes[0][1];
		}
	}
	uint32_t pitch = 0;
	uint64_t size = (uint64_t)width * height; /* a bitstream buffer: one byte a pixel */
	if (!format->compressed) {
		const uint64_t row = (uint64_t)width * format->bytes_per_pixel;
		const uint64_t aligned = (row + format->pitch_alignment - 1) / format->pitch_alignment * format->pitch_alignment;
		if (aligned > UINT32_MAX || (aligned && height > UINT32_MAX / aligned))
			return error(EINVAL); /* no driver answers a buffer past 4 GiB */
		pitch = (uint32_t)aligned;
		/* pitch x height is under 2^32 (the guard above), times 16 at
		 * most; the motion vectors are checked to stay under 2^32 too,
		 * so the sum cannot wrap. */
		const uint64_t macroblocks = (((uint64_t)width + 15) / 16) * (((uint64_t)height + 15) / 16);
		uint64_t vectors = 0;
		if (__builtin_mul_overflow((uint64_t)mv_bytes_per_mb, macroblocks, &vectors) || vectors > UINT32_MAX)
			return error(EINVAL);
		size = (uint64_t)pitch * height * format->size_num / format->size_den + format->size_extra + vectors;
	}
	if (size > UINT32_MAX)
		return error(EINVAL);
	const struct v4l2_format_view answer = {format->pixelformat, width, height, pitch, (uint32_t)size, 1};
	v4l2_format_build(f, f->type, &answer);
	return 0;
}

static uint32_t live_buffers(const struct replay_file *file, int q)
{
	uint32_t live = 0;
	for (uint32_t i = 0; i < file->buffer_count[q]; i++)
		live += file->buffers[q][i].memfd >= 0;
	return live;
}

/* Whether queue q's other queue holds pictures that follow q's format
 * (hantro: a new bitstream format while CAPTURE holds buffers is EBUSY,
 * vb2_is_busy(peer_vq)). */
static bool peer_holds_followers(const struct replay_file *file, int q)
{
	const int other = 1 - q;
	if (other >= (int)file->node->queue_count || !live_buffers(file, other))
		return false;
	const struct replay_queue *peer = &file->node->queues[other];
	for (uint32_t i = 0; i < peer->format_count; i++) {
		if (peer->formats[i].follows_output)
			return true;
	}
	return false;
}

static void remove_buffers(struct replay_file *file, int q)
{
	for (uint32_t i = 0; i < file->buffer_count[q]; i++) {
		if (file->buffers[q][i].memfd >= 0)
			close(file->buffers[q][i].memfd);
	}
	file->buffer_count[q] = 0;
}

static void current_format(struct replay_file *file, int q, struct v4l2_format *out)
{
	if (!file->has_current[q]) {
		/* The driver's default: its first format at its first size. */
		const struct replay_format *first = &file->node->queues[q].formats[0];
		const uint32_t w = first->stepwise ? first->range.min_width : first->size_count ? first->sizes[0][0] : 640;
		const uint32_t h = first->stepwise ? first->range.min_height : first->size_count ? first->sizes[0][1] : 480;
		v4l2_format_build(&file->current[q], file->node->queues[q].type,
		                  &(struct v4l2_format_view){.pixelformat = first->pixelformat, .width = w, .height = h});
		try_format(file, &file->current[q]);
		file->has_current[q] = true;
	}
	*out = file->current[q];
}

static int create_buffers(struct replay_file *file, struct v4l2_create_buffers *create)
{
	const int q = queue_index(file->node, create->format.type);
	if (q < 0 || create->memory != V4L2_MEMORY_MMAP ||
	    !(file->node->queues[q].memory_caps & V4L2_BUF_CAP_SUPPORTS_MMAP))
		return error(EINVAL);
	struct v4l2_format current;
	current_format(file, q, &current);
	const uint32_t length = v4l2_format_read(&create->format).sizeimage;
	if (length < v4l2_format_read(&current).sizeimage)
		return error(EINVAL); /* vb2's queue_setup: too small for the format */
	/* The first run of free slots that holds them, as vb2 places buffers
	 * since slots can be freed one by one (Linux 6.10); fewer if none does. */
	uint32_t wanted = create->count < REPLAY_MAX_BUFFERS ? create->count : REPLAY_MAX_BUFFERS, start = 0;
	for (; wanted; wanted--) {
		for (start = 0; start + wanted <= REPLAY_MAX_BUFFERS; start++) {
			uint32_t free_run = 0;
			while (free_run < wanted && (start + free_run >= file->buffer_count[q] ||
			                             file->buffers[q][start + free_run].memfd < 0))
				free_run++;
			if (free_run == wanted)
				break;
		}
		if (start + wanted <= REPLAY_MAX_BUFFERS)
			break;
	}
	create->index = start;
	uint32_t made = 0;
	for (; made < wanted; made++) {
		/* As vb2 does: the buffer's length is the driver's sizeimage,
		 * its memory (the DMA-BUF's size) whole pages. */
		const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
		const int memfd = memfd_create("v4l2-replay-buffer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		if (memfd < 0 || ftruncate(memfd, (off_t)((length + page - 1) / page * page)) != 0) {
			if (memfd >= 0)
				close(memfd);
			break;
		}
		fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW);
		/* Slots skipped over below the new end stay free. */
		for (uint32_t i = file->buffer_count[q]; i < start + made; i++)
			file->buffers[q][i].memfd = -1;
		file->buffers[q][start + made] = (struct replay_buffer){memfd, length};
		if (start + made + 1 > file->buffer_count[q])
			file->buffer_count[q] = start + made + 1;
	}
	if (!made && create->count)
		return error(ENOMEM);
	create->count = made;
	create->capabilities = file->node->queues[q].memory_caps;
	return 0;
}

static struct replay_buffer *buffer_of(struct replay_file *file, uint32_t type, uint32_t index)
{
	const int q = queue_index(file->node, type);
	if (q < 0 || index >= file->buffer_count[q] || file->buffers[q][index].memfd < 0)
		return NULL;
	return &file->buffers[q][index];
}

static int answer(struct replay_file *file, unsigned long request, void *arg)
{
	const struct replay_node *node = file->node;
	switch (request) {
	case VIDIOC_QUERYCAP: {
		struct v4l2_capability *cap = arg;
		memset(cap, 0, sizeof(*cap));
		memcpy(cap->driver, node->driver, strnlen(node->driver, sizeof(cap->driver)));
		memcpy(cap->card, node->card, strnlen(node->card, sizeof(cap->card)));
		memcpy(cap->bus_info, node->bus, strnlen(node->bus, sizeof(cap->bus_info)));
		cap->version = 0x060100;
		cap->device_caps = node->device_caps;
		cap->capabilities = node->device_caps | V4L2_CAP_DEVICE_CAPS;
		return 0;
	}
	case VIDIOC_ENUM_FMT: {
		struct v4l2_fmtdesc *d = arg;
		const int q = queue_index(node, d->type);
		if (q < 0 || d->index >= node->queues[q].format_count)
			return error(EINVAL);
		const struct replay_format *f = &node->queues[q].formats[d->index];
		d->pixelformat = f->pixelformat;
		d->flags = f->compressed ? V4L2_FMT_FLAG_COMPRESSED : 0;
		snprintf((char *)d->description, sizeof(d->description), "%.4s", (const char *)&f->pixelformat);
		return 0;
	}
	case VIDIOC_ENUM_FRAMESIZES: {
		struct v4l2_frmsizeenum *s = arg;
		const struct replay_format *f = NULL;
		for (uint32_t q = 0; q < node->queue_count && !f; q++)
			f = find_format(&node->queues[q], s->pixel_format);
		if (!f)
			return error(EINVAL);
		if (f->stepwise) {
			if (s->index)
				return error(EINVAL);
			s->type = V4L2_FRMSIZE_TYPE_STEPWISE;
			s->stepwise = f->range;
			return 0;
		}
		if (s->index >= f->size_count)
			return error(EINVAL);
		s->type = V4L2_FRMSIZE_TYPE_DISCRETE;
		s->discrete.width = f->sizes[s->index][0];
		s->discrete.height = f->sizes[s->index][1];
		return 0;
	}
	case VIDIOC_TRY_FMT:
		return try_format(file, arg);
	case VIDIOC_G_FMT: {
		struct v4l2_format *f = arg;
		const int q = queue_index(node, f->type);
		if (q < 0)
			return error(EINVAL);
		current_format(file, q, f);
		return 0;
	}
	case VIDIOC_S_FMT: {
		struct v4l2_format *f = arg;
		const int q = queue_index(node, f->type);
		if (q < 0)
			return error(EINVAL);
		if (live_buffers(file, q) || peer_holds_followers(file, q))
			return error(EBUSY);
		if (try_format(file, f) != 0)
			return -1;
		file->current[q] = *f;
		file->has_current[q] = true;
		return 0;
	}
	case VIDIOC_REQBUFS: {
		struct v4l2_requestbuffers *r = arg;
		const int q = queue_index(node, r->type);
		if (q < 0 || r->count)
			return error(EINVAL); /* the replay makes buffers through CREATE_BUFS only */
		remove_buffers(file, q);
		r->capabilities = node->queues[q].memory_caps;
		return 0;
	}
	case VIDIOC_CREATE_BUFS:
		return create_buffers(file, arg);
	case VIDIOC_QUERYBUF: {
		struct v4l2_buffer *b = arg;
		const struct replay_buffer *buffer = buffer_of(file, b->type, b->index);
		if (!buffer || (v4l2_buffer_type_is_mplane(b->type) && (!b->m.planes || b->length < 1)))
			return error(EINVAL);
		if (v4l2_buffer_type_is_mplane(b->type)) {
			b->length = 1;
			b->m.planes[0].length = buffer->length;
		} else {
			b->length = buffer->length;
		}
		return 0;
	}
	case VIDIOC_EXPBUF: {
		struct v4l2_exportbuffer *e = arg;
		const struct replay_buffer *buffer = buffer_of(file, e->type, e->index);
		if (!buffer || e->plane)
			return error(EINVAL);
		e->fd = fcntl(buffer->memfd, F_DUPFD_CLOEXEC, 0);
		return e->fd < 0 ? -1 : 0;
	}
	case VIDIOC_QUERYCTRL: {
		struct v4l2_queryctrl *q = arg;
		for (uint32_t i = 0; i < node->control_count; i++) {
			const struct replay_control *c = &node->controls[i];
			if (c->id != q->id)
				continue;
			memset(q, 0, sizeof(*q));
			q->id = c->id;
			q->type = V4L2_CTRL_TYPE_MENU;
			q->minimum = c->minimum;
			q->maximum = c->maximum;
			q->step = 1;
			return 0;
		}
		return error(EINVAL);
	}
	case VIDIOC_QUERYMENU: {
		struct v4l2_querymenu *m = arg;
		for (uint32_t i = 0; i < node->control_count; i++) {
			const struct replay_control *c = &node->controls[i];
			if (c->id != m->id)
				continue;
			if ((int64_t)m->index < c->minimum || (int64_t)m->index > c->maximum || (c->skipped >> m->index & 1))
				return error(EINVAL);
			snprintf((char *)m->name, sizeof(m->name), "item %u", m->index);
			return 0;
		}
		return error(EINVAL);
	}
	case VIDIOC_REMOVE_BUFS: {
		struct v4l2_remove_buffers *r = arg;
		if (node->no_remove_bufs)
			return error(ENOTTY);
		const int q = queue_index(node, r->type);
		if (q < 0)
			return error(EINVAL);
		if (!r->count)
			return 0;
		if (r->index >= file->buffer_count[q] || r->count > file->buffer_count[q] - r->index)
			return error(EINVAL);
		/* As the kernel: the whole range must hold buffers. */
		for (uint32_t i = r->index; i < r->index + r->count; i++) {
			if (file->buffers[q][i].memfd < 0)
				return error(EINVAL);
		}
		for (uint32_t i = r->index; i < r->index + r->count; i++) {
			close(file->buffers[q][i].memfd);
			file->buffers[q][i].memfd = -1;
		}
		return 0;
	}
	}
	return error(ENOTTY);
}

static int replay_ioctl(void *data, int fd, unsigned long request, void *arg)
{
	struct v4l2_replay *replay = data;
	pthread_mutex_lock(&replay->lock);
	struct replay_file *file = file_of(replay, fd);
	const int result = file ? answer(file, request, arg) : error(EBADF);
	const int saved = errno;
	pthread_mutex_unlock(&replay->lock);
	errno = saved;
	return result;
}

static uint32_t replay_list(void *data, char (*out)[V4L2_IO_PATH_MAX], uint32_t capacity)
{
	const struct v4l2_replay *replay = data;
	for (uint32_t i = 0; i < replay->node_count && i < capacity; i++)
		snprintf(out[i], V4L2_IO_PATH_MAX, "%s", replay->nodes[i].path);
	return replay->node_count;
}

static int replay_open(void *data, const char *path)
{
	struct v4l2_replay *replay = data;
	const struct replay_node *node = NULL;
	for (uint32_t i = 0; i < replay->node_count && !node; i++) {
		if (!strcmp(replay->nodes[i].path, path))
			node = &replay->nodes[i];
	}
	if (!node)
		return -ENOENT;
	/* A real fd, so that the device's fd behaves as one (close, dup). */
	const int fd = memfd_create("v4l2-replay-node", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	pthread_mutex_lock(&replay->lock);
	struct replay_file *file = NULL;
	for (int i = 0; i < REPLAY_MAX_OPEN && !file; i++) {
		if (replay->files[i].fd < 0)
			file = &replay->files[i];
	}
	if (file) {
		memset(file, 0, sizeof(*file));
		file->fd = fd;
		file->node = node;
	}
	pthread_mutex_unlock(&replay->lock);
	if (!file) {
		close(fd);
		return -EMFILE;
	}
	return fd;
}

static void replay_close(void *data, int fd)
{
	struct v4l2_replay *replay = data;
	pthread_mutex_lock(&replay->lock);
	struct replay_file *file = file_of(replay, fd);
	if (file) {
		/* As vb2 does when the queue's owner closes its file. */
		remove_buffers(file, 0);
		remove_buffers(file, 1);
		file->fd = -1;
	}
	pthread_mutex_unlock(&replay->lock);
	close(fd);
}

struct v4l2_replay *v4l2_replay_create(const char *paths, char *why, size_t why_size)
{
	struct v4l2_replay *replay = calloc(1, sizeof(*replay));
	char *list = paths ? strdup(paths) : NULL;
	if (!replay || !list) {
		free(replay);
		free(list);
		fail(why, why_size, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&replay->lock, NULL);
	for (int i = 0; i < REPLAY_MAX_OPEN; i++)
		replay->files[i].fd = -1;
	replay->io = (struct v4l2_io){replay_ioctl, replay, replay_list, replay_open, replay_close};
	bool ok = true;
	char *save = NULL;
	for (char *path = strtok_r(list, ":", &save); ok && path; path = strtok_r(NULL, ":", &save)) {
		if (replay->node_count == V4L2_IO_MAX_NODES)
			ok = fail(why, why_size, "more than %d recorded nodes", V4L2_IO_MAX_NODES);
		else
			ok = read_node(path, &replay->nodes[replay->node_count++], why, why_size);
	}
	free(list);
	if (!ok) {
		v4l2_replay_destroy(replay);
		return NULL;
	}
	return replay;
}

void v4l2_replay_destroy(struct v4l2_replay *replay)
{
	if (!replay)
		return;
	for (int i = 0; i < REPLAY_MAX_OPEN; i++) {
		if (replay->files[i].fd >= 0)
			replay_close(replay, replay->files[i].fd);
	}
	pthread_mutex_destroy(&replay->lock);
	free(replay);
}

const struct v4l2_io *v4l2_replay_io(struct v4l2_replay *replay)
{
	return &replay->io;
}

unsigned v4l2_replay_live_buffers(const struct v4l2_replay *replay)
{
	unsigned live = 0;
	for (int i = 0; i < REPLAY_MAX_OPEN; i++) {
		if (replay->files[i].fd >= 0)
			live += live_buffers(&replay->files[i], 0) + live_buffers(&replay->files[i], 1);
	}
	return live;
}
