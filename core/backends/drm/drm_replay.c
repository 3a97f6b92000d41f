/* drm_replay.h */
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xf86drmMode.h>

#include "drm_replay.h"

#define REPLAY_MAX_PLANES 8
#define REPLAY_MAX_PAIRS 512
#define REPLAY_MAX_HANDLES 256
#define REPLAY_LINE_MAX 1024

struct replay_plane {
	uint32_t type;
	uint32_t format_count;
	uint32_t formats[64];
	uint32_t pair_count;
	struct drm_format_pair pairs[REPLAY_MAX_PAIRS];
};

struct replay_display {
	char path[DRM_IO_PATH_MAX];
	char name[32];
	uint32_t max_width, max_height, cursor_width, cursor_height, pitch_alignment;
	uint32_t plane_count;
	struct replay_plane planes[REPLAY_MAX_PLANES];
};

/* A GEM handle: a dumb buffer's memory, or an imported DMA-BUF. */
struct replay_handle {
	int fd; /* the replay's node fd it lives on; -1: free slot */
	uint32_t handle;
	int memory; /* a sealed memfd standing for the buffer */
};

struct drm_replay {
	struct drm_io io;
	pthread_mutex_t lock;
	uint32_t display_count;
	struct replay_display displays[DRM_IO_MAX_DEVICES];
	int node_fds[DRM_IO_MAX_DEVICES]; /* open fd per display, -1: closed */
	uint32_t next_handle;
	struct replay_handle handles[REPLAY_MAX_HANDLES];
};

/* The modifiers recorded displays name, as drm_fourcc.h spells them. */
#define AMD_GFX9(tile) (AMD_FMT_MOD | AMD_FMT_MOD_SET(TILE_VERSION, AMD_FMT_MOD_TILE_VER_GFX9) | \
                        AMD_FMT_MOD_SET(TILE, AMD_FMT_MOD_TILE_GFX9_##tile))
static const struct {
	const char *name;
	uint64_t modifier;
} modifier_names[] = {
	{"LINEAR", DRM_FORMAT_MOD_LINEAR},
	{"I915_X_TILED", I915_FORMAT_MOD_X_TILED},
	{"I915_Y_TILED", I915_FORMAT_MOD_Y_TILED},
	{"I915_Yf_TILED", I915_FORMAT_MOD_Yf_TILED},
	{"I915_Y_TILED_CCS", I915_FORMAT_MOD_Y_TILED_CCS},
	{"I915_Yf_TILED_CCS", I915_FORMAT_MOD_Yf_TILED_CCS},
	{"AMD_GFX9_64K_S", AMD_GFX9(64K_S)},
	{"AMD_GFX9_64K_D", AMD_GFX9(64K_D)},
	{"AMD_GFX9_64K_S_X", AMD_GFX9(64K_S_X)},
};

static bool fail(char *why, size_t why_size, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	vsnprintf(why, why_size, format, args);
	va_end(args);
	return false;
}

static bool parse_fourcc(const char *word, uint32_t *out)
{
	const size_t length = strlen(word);
	if (length < 1 || length > 4)
		return false;
	char code[4] = {' ', ' ', ' ', ' '};
	memcpy(code, word, length);
	*out = fourcc_code(code[0], code[1], code[2], code[3]);
	return true;
}

static bool parse_u32(const char *word, uint32_t *out)
{
	char *end;
	errno = 0;
	const unsigned long value = word ? strtoul(word, &end, 10) : 0;
	if (!word || errno || end == word || *end || value > UINT32_MAX)
		return false;
	*out = (uint32_t)value;
	return true;
}

static bool parse_display_line(struct replay_display *d, char *save)
{
	for (char *key = strtok_r(NULL, " \t", &save); key; key = strtok_r(NULL, " \t", &save)) {
		bool ok;
		if (!strcmp(key, "max"))
			ok = parse_u32(strtok_r(NULL, " \t", &save), &d->max_width) &&
			     parse_u32(strtok_r(NULL, " \t", &save), &d->max_height);
		else if (!strcmp(key, "cursor"))
			ok = parse_u32(strtok_r(NULL, " \t", &save), &d->cursor_width) &&
			     parse_u32(strtok_r(NULL, " \t", &save), &d->cursor_height);
		else if (!strcmp(key, "pitch-alignment"))
			ok = parse_u32(strtok_r(NULL, " \t", &save), &d->pitch_alignment);
		else
			ok = false;
		if (!ok)
			return false;
	}
	return true;
}

static bool parse_line(struct replay_display *d, char *line)
{
	char *save = NULL;
	const char *word = strtok_r(line, " \t", &save);
	if (!strcmp(word, "display"))
		return parse_display_line(d, save);
	if (!strcmp(word, "plane")) {
		const char *type = strtok_r(NULL, " \t", &save);
		if (!type || d->plane_count == REPLAY_MAX_PLANES)
			return false;
		struct replay_plane *plane = &d->planes[d->plane_count++];
		memset(plane, 0, sizeof(*plane));
		plane->type = !strcmp(type, "primary")  ? DRM_PLANE_TYPE_PRIMARY
		              : !strcmp(type, "cursor") ? DRM_PLANE_TYPE_CURSOR
		                                        : DRM_PLANE_TYPE_OVERLAY;
		return !strcmp(type, "primary") || !strcmp(type, "cursor") || !strcmp(type, "overlay");
	}
	if (!d->plane_count)
		return false;
	struct replay_plane *plane = &d->planes[d->plane_count - 1];
	if (!strcmp(word, "formats")) {
		for (const char *code = strtok_r(NULL, " \t", &save); code; code = strtok_r(NULL, " \t", &save)) {
			if (plane->format_count == 64 || !parse_fourcc(code, &plane->formats[plane->format_count++]))
				return false;
		}
		return true;
	}
	if (!strcmp(word, "modifier")) {
		const char *name = strtok_r(NULL, " \t", &save);
		uint64_t modifier = DRM_FORMAT_MOD_INVALID;
		for (size_t i = 0; name && i < sizeof(modifier_names) / sizeof(modifier_names[0]); i++) {
			if (!strcmp(name, modifier_names[i].name))
				modifier = modifier_names[i].modifier;
		}
		if (modifier == DRM_FORMAT_MOD_INVALID)
			return false;
		for (const char *code = strtok_r(NULL, " \t", &save); code; code = strtok_r(NULL, " \t", &save)) {
			uint32_t format;
			bool listed = false;
			if (!parse_fourcc(code, &format) || plane->pair_count == REPLAY_MAX_PAIRS)
				return false;
			/* As IN_FORMATS: a modifier applies to formats the plane lists. */
			for (uint32_t i = 0; i < plane->format_count && !listed; i++)
				listed = plane->formats[i] == format;
			if (!listed)
				return false;
			plane->pairs[plane->pair_count++] = (struct drm_format_pair){format, modifier};
		}
		return true;
	}
	return false;
}

static bool read_display(const char *path, struct replay_display *d, char *why, size_t why_size)
{
	FILE *file = fopen(path, "re");
	if (!file)
		return fail(why, why_size, "%s: %s", path, strerror(errno));
	memset(d, 0, sizeof(*d));
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	snprintf(d->path, sizeof(d->path), "replay:%.48s", base);
	snprintf(d->name, sizeof(d->name), "%.*s", (int)strcspn(base, "."), base);
	char line[REPLAY_LINE_MAX];
	unsigned number = 0;
	bool ok = true;
	while (ok && fgets(line, sizeof(line), file)) {
		number++;
		line[strcspn(line, "\r\n")] = '\0';
		char *start = line + strspn(line, " \t");
		if (!*start || *start == '#')
			continue;
		ok = parse_line(d, start);
		if (!ok)
			fail(why, why_size, "%s:%u: not understood", path, number);
	}
	fclose(file);
	if (ok && (!d->plane_count || !d->max_width || !d->max_height))
		ok = fail(why, why_size, "%s: no display limits or no plane", path);
	return ok;
}

/* ------------------------------------------------------------------------ */
/* Answering                                                                 */

static int display_of(const struct drm_replay *replay, int fd)
{
	for (uint32_t i = 0; i < replay->display_count; i++) {
		if (fd >= 0 && replay->node_fds[i] == fd)
			return (int)i;
	}
	return -1;
}

static uint32_t replay_list(void *data, struct drm_node_record *out, uint32_t capacity)
{
	const struct drm_replay *replay = data;
	uint32_t count = 0;
	for (; count < replay->display_count && count < capacity; count++) {
		struct drm_node_record *record = &out[count];
		memset(record, 0, sizeof(*record));
		snprintf(record->primary_path, sizeof(record->primary_path), "%s", replay->displays[count].path);
		/* Major 0 (unnamed devices) is never a DRM node: no GPU's node
		 * can be taken for a replayed display's. */
		record->primary = (uda_drm_node){true, 0, 1000 + count};
		snprintf(record->bus, sizeof(record->bus), "%s", replay->displays[count].path);
	}
	return count;
}

static int replay_open(void *data, const char *path)
{
	struct drm_replay *replay = data;
	for (uint32_t i = 0; i < replay->display_count; i++) {
		if (strcmp(replay->displays[i].path, path) != 0)
			continue;
		if (replay->node_fds[i] >= 0)
			return -EBUSY; /* one device per display */
		const int fd = memfd_create("drm-replay-node", MFD_CLOEXEC);
		if (fd < 0)
			return -errno;
		replay->node_fds[i] = fd;
		return fd;
	}
	return -ENOENT;
}

static void release_handle(struct replay_handle *h)
{
	close(h->memory);
	h->fd = -1;
}

static void replay_close(void *data, int fd)
{
	struct drm_replay *replay = data;
	pthread_mutex_lock(&replay->lock);
	const int display = display_of(replay, fd);
	if (display >= 0) {
		replay->node_fds[display] = -1;
		for (int i = 0; i < REPLAY_MAX_HANDLES; i++) {
			if (replay->handles[i].fd == fd)
				release_handle(&replay->handles[i]);
		}
	}
	pthread_mutex_unlock(&replay->lock);
	close(fd);
}

static int replay_driver_name(void *data, int fd, char *out, uint32_t capacity)
{
	const struct drm_replay *replay = data;
	const int display = display_of(replay, fd);
	if (display < 0)
		return -EBADF;
	snprintf(out, capacity, "%s", replay->displays[display].name);
	return 0;
}

static int replay_read_display(void *data, int fd, struct drm_display_record *out)
{
	const struct drm_replay *replay = data;
	memset(out, 0, sizeof(*out));
	const int index = display_of(replay, fd);
	if (index < 0)
		return -EBADF;
	const struct replay_display *d = &replay->displays[index];
	out->planes = calloc(d->plane_count, sizeof(*out->planes));
	if (!out->planes)
		return -ENOMEM;
	out->max_width = d->max_width;
	out->max_height = d->max_height;
	out->cursor_width = d->cursor_width;
	out->cursor_height = d->cursor_height;
	out->pitch_alignment = d->pitch_alignment;
	for (uint32_t p = 0; p < d->plane_count; p++) {
		struct drm_plane_record *plane = &out->planes[out->plane_count];
		plane->type = d->planes[p].type;
		plane->formats.pairs = malloc(sizeof(*plane->formats.pairs) * (d->planes[p].pair_count + 1));
		if (!plane->formats.pairs) {
			drm_display_record_finish(out);
			return -ENOMEM;
		}
		memcpy(plane->formats.pairs, d->planes[p].pairs, sizeof(*plane->formats.pairs) * d->planes[p].pair_count);
		plane->formats.pair_count = d->planes[p].pair_count;
		out->plane_count++;
	}
	return 0;
}

/* A new handle on fd for the memory (which it takes); 0 when full. */
static uint32_t add_handle(struct drm_replay *replay, int fd, int memory)
{
	for (int i = 0; i < REPLAY_MAX_HANDLES; i++) {
		if (replay->handles[i].fd < 0) {
			replay->handles[i] = (struct replay_handle){fd, ++replay->next_handle, memory};
			return replay->next_handle;
		}
	}
	close(memory);
	return 0;
}

static struct replay_handle *find_handle(struct drm_replay *replay, int fd, uint32_t handle)
{
	for (int i = 0; i < REPLAY_MAX_HANDLES; i++) {
		if (replay->handles[i].fd == fd && fd >= 0 && replay->handles[i].handle == handle)
			return &replay->handles[i];
	}
	return NULL;
}

static int replay_create_dumb(void *data, int fd, uint32_t width, uint32_t height, uint32_t bpp,
                              struct drm_dumb_buffer *out)
{
	struct drm_replay *replay = data;
	const int index = display_of(replay, fd);
	if (index < 0)
		return -EBADF;
	if (!width || !height || !bpp || bpp % 8 || width > replay->displays[index].max_width ||
	    height > replay->displays[index].max_height)
		return -EINVAL;
	/* The display's stride granule, as a driver pads dumb buffers for it. */
	const uint64_t alignment = replay->displays[index].pitch_alignment ? replay->displays[index].pitch_alignment : 64;
	const uint64_t pitch = ((uint64_t)width * bpp / 8 + alignment - 1) / alignment * alignment;
	const uint64_t size = pitch * height;
	const int memory = memfd_create("drm-replay-dumb", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (memory < 0)
		return -errno;
	if (ftruncate(memory, (off_t)size) != 0) {
		close(memory);
		return -ENOMEM;
	}
	fcntl(memory, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW);
	pthread_mutex_lock(&replay->lock);
	const uint32_t handle = add_handle(replay, fd, memory);
	pthread_mutex_unlock(&replay->lock);
	if (!handle)
		return -ENOSPC;
	*out = (struct drm_dumb_buffer){handle, (uint32_t)pitch, size};
	return 0;
}

static void replay_close_handle(void *data, int fd, uint32_t handle)
{
	struct drm_replay *replay = data;
	pthread_mutex_lock(&replay->lock);
	struct replay_handle *h = find_handle(replay, fd, handle);
	if (h)
		release_handle(h);
	pthread_mutex_unlock(&replay->lock);
}

static int replay_export_handle(void *data, int fd, uint32_t handle)
{
	struct drm_replay *replay = data;
	pthread_mutex_lock(&replay->lock);
	const struct replay_handle *h = find_handle(replay, fd, handle);
	const int dma_buf = h ? fcntl(h->memory, F_DUPFD_CLOEXEC, 0) : -1;
	const int error = h ? errno : ENOENT;
	pthread_mutex_unlock(&replay->lock);
	return dma_buf >= 0 ? dma_buf : -error;
}

/* Whether two fds are the same memory (the same open file's inode). */
static bool same_memory(int a, int b)
{
	struct stat x, y;
	return fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

static int replay_import_dma_buf(void *data, int fd, int dma_buf, uint32_t *out_handle)
{
	struct drm_replay *replay = data;
	*out_handle = 0;
	pthread_mutex_lock(&replay->lock);
	int result = display_of(replay, fd) >= 0 ? 0 : -EBADF;
	/* As the kernel: memory this fd has a handle for (imported before,
	 * or its own dumb buffer coming back) gets that handle again. */
	for (int i = 0; !result && !*out_handle && i < REPLAY_MAX_HANDLES; i++) {
		if (replay->handles[i].fd == fd && same_memory(replay->handles[i].memory, dma_buf))
			*out_handle = replay->handles[i].handle;
	}
	if (!result && !*out_handle) {
		const int memory = fcntl(dma_buf, F_DUPFD_CLOEXEC, 0);
		if (memory < 0)
			result = -errno;
		else if (!(*out_handle = add_handle(replay, fd, memory)))
			result = -ENOSPC;
	}
	pthread_mutex_unlock(&replay->lock);
	return result;
}

static int replay_sync(void *data, int dma_buf, bool start, bool read, bool write)
{
	return 0; /* memfds need no cache maintenance */
}

struct drm_replay *drm_replay_create(const char *paths, char *why, size_t why_size)
{
	struct drm_replay *replay = calloc(1, sizeof(*replay));
	char *list = paths ? strdup(paths) : NULL;
	if (!replay || !list) {
		free(replay);
		free(list);
		fail(why, why_size, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&replay->lock, NULL);
	for (int i = 0; i < DRM_IO_MAX_DEVICES; i++)
		replay->node_fds[i] = -1;
	for (int i = 0; i < REPLAY_MAX_HANDLES; i++)
		replay->handles[i].fd = -1;
	replay->io = (struct drm_io){
		.list = replay_list,
		.open = replay_open,
		.close = replay_close,
		.driver_name = replay_driver_name,
		.read_display = replay_read_display,
		.create_dumb = replay_create_dumb,
		.close_handle = replay_close_handle,
		.export_handle = replay_export_handle,
		.import_dma_buf = replay_import_dma_buf,
		.sync = replay_sync,
		.data = replay,
	};
	bool ok = true;
	char *save = NULL;
	for (char *path = strtok_r(list, ":", &save); ok && path; path = strtok_r(NULL, ":", &save)) {
		if (replay->display_count == DRM_IO_MAX_DEVICES)
			ok = fail(why, why_size, "more than %d recorded displays", DRM_IO_MAX_DEVICES);
		else
			ok = read_display(path, &replay->displays[replay->display_count++], why, why_size);
	}
	free(list);
	if (!ok) {
		drm_replay_destroy(replay);
		return NULL;
	}
	return replay;
}

void drm_replay_destroy(struct drm_replay *replay)
{
	if (!replay)
		return;
	for (uint32_t i = 0; i < replay->display_count; i++) {
		if (replay->node_fds[i] >= 0)
			replay_close(replay, replay->node_fds[i]);
	}
	pthread_mutex_destroy(&replay->lock);
	free(replay);
}

const struct drm_io *drm_replay_io(struct drm_replay *replay)
{
	return &replay->io;
}

unsigned drm_replay_live_handles(const struct drm_replay *replay)
{
	unsigned live = 0;
	for (int i = 0; i < REPLAY_MAX_HANDLES; i++)
		live += replay->handles[i].fd >= 0;
	return live;
}
