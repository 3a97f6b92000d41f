/*
 * uda-pipeline: a camera or a video decoder, a GPU and a display agree on
 * one buffer. Prints what each device offered for the frame, what they
 * agreed on (or, where nothing is common, which device ended it and what
 * each pair could share, then shares it with the first that can), then
 * allocates the frame, imports it into the others, and says how to queue
 * it on the V4L2 node or decode into it.
 *
 *   uda-pipeline [--source NAME] [--codec h264|h265|av1|vp9] [--profile N]
 *                [--encode h264|h265|av1] [--size WxH] [--format NAME]
 *                [--recorded DIR] [--recorded-display FILE]
 *
 * Devices are the machine's own: the first V4L2 camera or decoder (or the
 * one whose name contains NAME), the first Vulkan (else GL) device, the
 * first DRM display. --codec makes the source a decoder of that
 * bitstream: a V4L2 decoder or a Vulkan device with a video decode queue.
 * --encode makes the GPU an encoder of the frame rather than its sampler:
 * a Vulkan device with a video encode queue (a camera recorded as it is
 * shown, a stream transcoded).
 * --recorded replays the recorded drivers of DIR
 * (*.v4l2, tests/backends/v4l2-fixtures/replay) in place of /dev/video*,
 * through UDA_V4L2_REPLAY; --recorded-display a recorded display
 * (tests/backends/drm-fixtures) in place of /dev/dri, through
 * UDA_DRM_REPLAY.
 */
#include <dirent.h>
#include <drm_fourcc.h>
#include <getopt.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uda/uda_v4l2.h>
#include <uda/uda_vulkan.h>

#include "common/describe.h"

#define MAX_DEVICES 32
#define REPLAY_PATHS_MAX 4096

enum party_kind { PARTY_SOURCE, PARTY_GPU, PARTY_DISPLAY, PARTY_COUNT };

struct party {
	const char *role; /* "source", "GPU", "display" */
	uda_device *device;
	uint8_t payload[UDA_VIDEO_PROFILE_PAYLOAD_SIZE];
	uda_usage_atom atom;
	uda_usage usage;
	uda_capability_set_list *offer;
};

struct options {
	const char *source;
	uda_video_profile profile; /* codec 0: any source */
	uda_video_profile encode;  /* codec 0: the GPU samples */
	const char *recorded;
	const char *recorded_display;
	uint32_t width, height, format;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* UDA_V4L2_REPLAY from every *.v4l2 of the folder, in name order. */
static bool set_replay(const char *folder)
{
	DIR *dir = opendir(folder);
	if (!dir) {
		fprintf(stderr, "uda-pipeline: %s: cannot open\n", folder);
		return false;
	}
	/* As many as the backend replays (V4L2_IO_MAX_NODES). */
	char *names[32];
	size_t count = 0;
	bool fits = true;
	for (struct dirent *entry; fits && (entry = readdir(dir));) {
		const size_t length = strlen(entry->d_name);
		if (length <= 5 || strcmp(entry->d_name + length - 5, ".v4l2") != 0)
			continue;
		fits = count < 32 && (names[count] = strdup(entry->d_name)) != NULL;
		count += fits;
	}
	closedir(dir);
	qsort(names, count, sizeof(names[0]), by_name);
	char paths[REPLAY_PATHS_MAX] = "";
	size_t used = 0;
	for (size_t i = 0; i < count; i++) {
		if (fits) {
			const int n = snprintf(paths + used, sizeof(paths) - used, "%s%s/%s", used ? ":" : "", folder, names[i]);
			fits = n > 0 && (size_t)n < sizeof(paths) - used;
			used += fits ? (size_t)n : 0;
		}
		free(names[i]);
	}
	if (!count || !fits) {
		fprintf(stderr, "uda-pipeline: %s: %s\n", folder, count ? "too many recordings" : "no *.v4l2 recordings");
		return false;
	}
	return setenv("UDA_V4L2_REPLAY", paths, 1) == 0;
}

static const char *device_name(uda_device *device)
{
	uda_device_info info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
	return uda_device_get_info(device, &info) == UDA_SUCCESS ? info.name : "?";
}

static uda_device_api device_api(uda_device *device)
{
	uda_device_info info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
	return uda_device_get_info(device, &info) == UDA_SUCCESS ? info.api : UDA_DEVICE_API_ANY;
}

/* A usage of one atom; a decoder's names the bitstream, when given. */
static void set_usage(struct party *party, uda_usage_name name, const uda_video_profile *profile)
{
	party->atom = (uda_usage_atom){UDA_VENDOR_NONE, (uint16_t)name, 0, NULL};
	if (profile && profile->codec) {
		uda_video_profile_to_payload(profile, party->payload);
		party->atom.length = sizeof(party->payload);
		party->atom.payload = party->payload;
	}
	party->usage = (uda_usage){UDA_STRUCTURE_TYPE_USAGE, NULL, 1, &party->atom};
}

/* What the party offers for the frame; false, having said why, if nothing. */
static bool ask(struct party *party, const uda_assertion *assertion)
{
	uda_capability_set_list_destroy(party->offer);
	party->offer = NULL;
	return uda_device_get_capability_sets(party->device, assertion, &party->usage, &party->offer) == UDA_SUCCESS;
}

/* The source: a V4L2 node that answers as a camera or as a decoder for
 * the frame (the first format of NV12, YUYV that it has, unless asked),
 * or, for a named codec, a V4L2 or Vulkan decoder of it. */
/* `why`: the first refusal, where none answers. */
static bool find_source(uda_context *ctx, uda_device **devices, uint32_t count, const struct options *options,
                        struct party *source, uda_assertion *assertion, char *why, size_t why_size)
{
	static const uint32_t formats[] = {DRM_FORMAT_NV12, DRM_FORMAT_YUYV};
	static const uda_usage_name usages[] = {UDA_USAGE_CAMERA_CAPTURE, UDA_USAGE_VIDEO_DECODE};
	const bool decoder = options->profile.codec != 0;
	for (uint32_t i = 0; i < count; i++) {
		const uda_device_api api = device_api(devices[i]);
		if ((api != UDA_DEVICE_API_V4L2 && !(decoder && api == UDA_DEVICE_API_VULKAN)) ||
		    (options->source && !strstr(device_name(devices[i]), options->source)))
			continue;
		source->device = devices[i];
		for (size_t u = decoder ? 1 : 0; u < 2; u++) {
			set_usage(source, usages[u], &options->profile);
			for (size_t f = 0; f < 2; f++) {
				assertion->format = options->format ? options->format : formats[f];
				if (ask(source, assertion))
					return true;
				if (!why[0])
					snprintf(why, why_size, "%s", uda_context_get_error(ctx));
			}
		}
	}
	source->device = NULL;
	return false;
}

static uda_device *find_by_api(uda_device **devices, uint32_t count, uda_device_api api)
{
	for (uint32_t i = 0; i < count; i++) {
		if (device_api(devices[i]) == api)
			return devices[i];
	}
	return NULL;
}

static uda_result negotiate(uda_context *ctx, const uda_assertion *assertion, struct party **parties, uint32_t count,
                            uda_capability_set_list **out)
{
	uda_device_usage devices[PARTY_COUNT];
	for (uint32_t i = 0; i < count; i++)
		devices[i] = (uda_device_usage){parties[i]->device, &parties[i]->usage};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, NULL, assertion, count, devices};
	return uda_negotiate(ctx, &info, out);
}

/* A Vulkan decoder writes the frame, or a Vulkan encoder reads it,
 * through its image, made for the profile. */
static void print_video_image(uda_allocation *frame, const char *what)
{
	uda_vulkan_native native = {.type = UDA_STRUCTURE_TYPE_VULKAN_NATIVE};
	if (uda_allocation_get_native(frame, &native) != UDA_SUCCESS)
		return;
	const char *tiling = native.tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT ? "DRM_FORMAT_MODIFIER_EXT"
	                     : native.tiling == VK_IMAGE_TILING_OPTIMAL               ? "OPTIMAL"
	                                                                              : "LINEAR";
	printf("  %s: a VkImage of tiling %s, usage 0x%x, made with the profile in "
	       "VkVideoProfileListInfoKHR, on the frame's memory\n",
	       what, tiling, (unsigned)native.usage);
}

static void print_queueing(uda_allocation *frame, uint32_t width, uint32_t height)
{
	uda_v4l2_native native = {.type = UDA_STRUCTURE_TYPE_V4L2_NATIVE};
	if (uda_allocation_get_native(frame, &native) != UDA_SUCCESS) {
		print_video_image(frame, "decode into it");
		return;
	}
	const uint32_t f = native.pixelformat;
	if (native.memory == V4L2_MEMORY_MMAP)
		printf("  queue it: buffer type %u holds %ux%u '%c%c%c%c' bytesperline %u already; VIDIOC_QBUF of MMAP "
		       "buffer %u on the device's own fd\n",
		       native.buffer_type, width, height, f & 0xff, (f >> 8) & 0xff, (f >> 16) & 0xff, f >> 24,
		       native.bytesperline, native.index);
	else
		printf("  queue it: VIDIOC_S_FMT %ux%u '%c%c%c%c' bytesperline %u on buffer type %u, then VIDIOC_QBUF "
		       "with V4L2_MEMORY_DMABUF, the frame's fd, length %llu\n",
		       width, height, f & 0xff, (f >> 8) & 0xff, (f >> 16) & 0xff, f >> 24, native.bytesperline,
		       native.buffer_type, (unsigned long long)native.size);
}

/* The frame made by the first party that can, imported by the others. */
static int allocate_and_share(uda_context *ctx, const uda_assertion *assertion, struct party **parties,
                              uint32_t count)
{
	uda_device_usage devices[PARTY_COUNT];
	for (uint32_t i = 0; i < count; i++)
		devices[i] = (uda_device_usage){parties[i]->device, &parties[i]->usage};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, NULL, assertion, count, devices};
	uda_allocation *frame = NULL;
	if (uda_negotiate_allocate(ctx, &info, &frame, NULL, NULL) != UDA_SUCCESS) {
		printf("allocation: none: %s\n", uda_context_get_error(ctx));
		return 1;
	}
	uda_device *maker = NULL;
	uda_allocation_get_device(frame, &maker);
	uda_allocation_metadata m = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	uda_allocation_get_metadata(frame, &m);
	printf("allocation: made by %s: %llu bytes", device_name(maker), (unsigned long long)m.size);
	for (uint32_t p = 0; p < m.plane_count; p++)
		printf(", plane %u at %llu pitch %llu", p, (unsigned long long)m.planes[p].offset,
		       (unsigned long long)m.planes[p].pitch);
	printf("\n");
	int status = 0;
	for (uint32_t i = 0; i < count; i++) {
		const bool encoder = parties[i]->atom.name == UDA_USAGE_VIDEO_ENCODE;
		if (parties[i]->device == maker && (i == 0 || parties[0]->device != maker)) {
			if (encoder)
				print_video_image(frame, "encode from it");
			else if (parties[i]->atom.name != UDA_USAGE_SAMPLED && parties[i]->atom.name != UDA_USAGE_SCANOUT)
				print_queueing(frame, assertion->width, assertion->height);
			continue;
		}
		const uda_allocation_import_info import = {UDA_STRUCTURE_TYPE_ALLOCATION_IMPORT_INFO, NULL, frame,
		                                           parties[i]->device, UDA_HANDLE_TYPE_NONE, 0};
		uda_allocation *imported = NULL;
		if (uda_import_allocation(&import, &imported) == UDA_SUCCESS) {
			printf("  imported by %s\n", device_name(parties[i]->device));
			if (parties[i] == parties[0])
				print_queueing(imported, assertion->width, assertion->height);
			else if (encoder)
				print_video_image(imported, "encode from it");
			uda_allocation_destroy(imported);
		} else {
			printf("  not imported by %s: %s\n", device_name(parties[i]->device), uda_context_get_error(ctx));
			status = 1;
		}
	}
	uda_allocation_destroy(frame);
	return status;
}

static void usage(FILE *to)
{
	fprintf(to, "usage: uda-pipeline [--source NAME] [--codec h264|h265|av1|vp9] [--profile N]\n"
	            "                    [--encode h264|h265|av1] [--size WxH] [--format NAME]\n"
	            "                    [--recorded DIR] [--recorded-display FILE]\n"
	            "A camera or decoder, a GPU and a display agree on one frame: what each offered,\n"
	            "what they agreed on, who allocated it, who imported it, and how to queue it.\n"
	            "  --source NAME   the source device whose name contains NAME (default: the first)\n"
	            "  --codec CODEC   a decoder of h264, h265, av1 or vp9 (V4L2, or Vulkan with a decode\n"
	            "                  queue)\n"
	            "  --profile N     the codec's profile (default: 100, High, for h264; 1, Main, for h265;\n"
	            "                  0, Main, for av1; 0 for vp9)\n"
	            "  --encode CODEC  the GPU encodes the frame in h264 (High), h265 (Main) or av1 (Main),\n"
	            "                  rather than sampling it (Vulkan with an encode queue)\n"
	            "  --size WxH      the frame's size (default 1280x720)\n"
	            "  --format NAME   its format, as uda's table names it (default: NV12, else YUYV)\n"
	            "  --recorded DIR  replay the recorded drivers of DIR/*.v4l2, not /dev/video*\n"
	            "  --recorded-display FILE  replay a recorded display, not /dev/dri\n");
}

/* -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, struct options *options)
{
	static const struct option long_options[] = {
		{"source", required_argument, NULL, 's'},   {"size", required_argument, NULL, 'z'},
		{"format", required_argument, NULL, 'f'},   {"recorded", required_argument, NULL, 'r'},
		{"recorded-display", required_argument, NULL, 'd'},
		{"codec", required_argument, NULL, 'c'},    {"profile", required_argument, NULL, 'p'},
		{"encode", required_argument, NULL, 'e'},
		{"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
	};
	*options = (struct options){.width = 1280, .height = 720};
	for (int c; (c = getopt_long(argc, argv, "", long_options, NULL)) != -1;) {
		switch (c) {
		case 's':
			options->source = optarg;
			break;
		case 'z':
			if (sscanf(optarg, "%ux%u", &options->width, &options->height) != 2 || !options->width ||
			    !options->height || options->width > UDA_MAX_DIMENSION || options->height > UDA_MAX_DIMENSION) {
				fprintf(stderr, "uda-pipeline: --size WxH\n");
				return 2;
			}
			break;
		case 'f':
			options->format = format_from_name(optarg);
			if (!options->format) {
				fprintf(stderr, "uda-pipeline: unknown format %s\n", optarg);
				return 2;
			}
			break;
		case 'r':
			options->recorded = optarg;
			break;
		case 'd':
			options->recorded_display = optarg;
			break;
		case 'c':
		case 'e': {
			uda_video_profile *profile = c == 'c' ? &options->profile : &options->encode;
			profile->codec = codec_from_name(optarg, strlen(optarg));
			/* Vulkan decodes VP9 and does not encode it. */
			if (profile->codec != UDA_VIDEO_CODEC_H264 && profile->codec != UDA_VIDEO_CODEC_H265 &&
			    profile->codec != UDA_VIDEO_CODEC_AV1 && (c == 'e' || profile->codec != UDA_VIDEO_CODEC_VP9)) {
				fprintf(stderr, "uda-pipeline: %s\n",
				        c == 'c' ? "--codec h264, h265, av1 or vp9" : "--encode h264, h265 or av1");
				return 2;
			}
			break;
		}
		case 'p':
			if (optarg[0] == '-' || sscanf(optarg, "%u", &options->profile.profile) != 1 ||
			    !options->profile.profile) {
				fprintf(stderr, "uda-pipeline: --profile N\n");
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (options->profile.profile && !options->profile.codec) {
		fprintf(stderr, "uda-pipeline: --profile names a profile of the --codec\n");
		return 2;
	}
	/* A Vulkan video session takes only images made for its profile,
	 * so the sample names one: the one most streams need (AV1's Main is
	 * its profile 0, as is VP9's 8-bit 4:2:0 one). */
	uda_video_profile *profiles[] = {&options->profile, &options->encode};
	for (int i = 0; i < 2; i++) {
		if (profiles[i]->codec && !profiles[i]->profile)
			profiles[i]->profile = profiles[i]->codec == UDA_VIDEO_CODEC_H264   ? 100
			                       : profiles[i]->codec == UDA_VIDEO_CODEC_H265 ? 1
			                                                                    : 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct options options;
	const int parsed = parse_options(argc, argv, &options);
	if (parsed >= 0)
		return parsed;
	if (options.recorded && !set_replay(options.recorded))
		return 2;
	if (options.recorded_display && setenv("UDA_DRM_REPLAY", options.recorded_display, 1) != 0)
		return 2;
	uda_context *ctx = NULL;
	if (uda_context_create(NULL, &ctx) != UDA_SUCCESS) {
		fprintf(stderr, "uda-pipeline: no context\n");
		return 1;
	}
	uda_device *devices[MAX_DEVICES];
	uint32_t count = MAX_DEVICES;
	uda_context_enumerate_devices(ctx, &count, devices);

	struct party parties[PARTY_COUNT] = {{.role = "source"}, {.role = "GPU"}, {.role = "display"}};
	uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, options.width, options.height, 0, 0};
	int status = 0;
	char why[512] = "";
	if (!find_source(ctx, devices, count, &options, &parties[PARTY_SOURCE], &assertion, why, sizeof(why))) {
		printf("source: no %s here%s answers for %ux%u%s%s\n",
		       options.profile.codec ? "decoder of that codec" : "V4L2 camera or decoder",
		       options.source ? " by that name" : "", options.width, options.height, why[0] ? ": " : "", why);
		uda_context_destroy(ctx);
		return 1;
	}
	char format_name[5];
	memcpy(format_name, &assertion.format, 4);
	format_name[4] = '\0';
	printf("frame: %ux%u %s\n", assertion.width, assertion.height, format_name);
	/* An encoder is a Vulkan device's; a sampler may be GL's too. */
	parties[PARTY_GPU].device = find_by_api(devices, count, UDA_DEVICE_API_VULKAN);
	if (!parties[PARTY_GPU].device && !options.encode.codec)
		parties[PARTY_GPU].device = find_by_api(devices, count, UDA_DEVICE_API_GL);
	if (options.encode.codec)
		set_usage(&parties[PARTY_GPU], UDA_USAGE_VIDEO_ENCODE, &options.encode);
	else
		set_usage(&parties[PARTY_GPU], UDA_USAGE_SAMPLED, NULL);
	parties[PARTY_DISPLAY].device = find_by_api(devices, count, UDA_DEVICE_API_DRM);
	set_usage(&parties[PARTY_DISPLAY], UDA_USAGE_SCANOUT, NULL);

	struct party *present[PARTY_COUNT];
	uint32_t present_count = 0;
	for (int i = 0; i < PARTY_COUNT; i++) {
		struct party *party = &parties[i];
		if (!party->device) {
			printf("%s: none here\n", party->role);
			continue;
		}
		printf("%s: %s\n", party->role, device_name(party->device));
		if (i != PARTY_SOURCE && !ask(party, &assertion)) {
			/* Reported, and left out: the others may still agree. */
			printf("  offers nothing for this frame: %s\n", uda_context_get_error(ctx));
			continue;
		}
		print_set_list(stdout, party->offer, "  ");
		present[present_count++] = party;
	}

	char who[64] = "";
	for (uint32_t i = 0; i < present_count; i++)
		snprintf(who + strlen(who), sizeof(who) - strlen(who), "%s%s", i ? ", " : "", present[i]->role);
	uda_capability_set_list *agreed = NULL;
	if (negotiate(ctx, &assertion, present, present_count, &agreed) == UDA_SUCCESS) {
		printf("agreed by %s:\n", who);
		print_set_list(stdout, agreed, "  ");
		uda_capability_set_list_destroy(agreed);
		status |= allocate_and_share(ctx, &assertion, present, present_count);
	} else {
		printf("agreed by %s: nothing: %s\n", who, uda_context_get_error(ctx));
		status = 1;
		/* What the source could share with each of the others alone;
		 * the frame goes to the first that agrees, the display before
		 * the GPU (the last party listed comes first here), the other
		 * left out, as a player would show the frame without the GPU. */
		struct party *shared[2] = {NULL, NULL};
		for (uint32_t i = present_count - 1; i >= 1; i--) {
			struct party *pair[2] = {present[0], present[i]};
			if (negotiate(ctx, &assertion, pair, 2, &agreed) == UDA_SUCCESS) {
				printf("source and %s agree:\n", present[i]->role);
				print_set_list(stdout, agreed, "  ");
				uda_capability_set_list_destroy(agreed);
				if (!shared[0]) {
					shared[0] = pair[0];
					shared[1] = pair[1];
				}
			} else {
				printf("source and %s: nothing: %s\n", present[i]->role, uda_context_get_error(ctx));
			}
		}
		if (shared[0]) {
			printf("shared by source and %s alone:\n", shared[1]->role);
			status = allocate_and_share(ctx, &assertion, shared, 2);
		}
	}
	for (int i = 0; i < PARTY_COUNT; i++)
		uda_capability_set_list_destroy(parties[i].offer);
	uda_context_destroy(ctx);
	return status;
}
