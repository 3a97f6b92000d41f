/*
 * uda-info: what this machine's backends and devices are, what each device
 * can do with a buffer, and what they agree on.
 *
 *   uda-info [--width W] [--height H] [--format NAME]
 *            [--use INDEX=USAGE[,USAGE...]]... [--json]
 *
 * Without --use, every Vulkan and GL device takes part with a typical usage
 * (Vulkan renders and copies out, GL samples): the zero-copy hand-off.
 * DRM displays are listed with their scanout sets, V4L2 nodes with the
 * sets of their own role (a camera's capture, a decoder's decode...), and
 * they take part when named (--use N=scanout, --use N=video-decode). A
 * video usage may name its bitstream: video-decode:h264 or
 * video-decode:h265:2 (the codec's profile number), and how its pictures
 * are written: video-decode:h264:100:interlaced, video-decode:av1:film-grain.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan.h>

#include "common/describe.h"

#define MAX_DEVICES 32

struct usage_choice {
	uda_usage_atom atoms[UDA_MAX_USAGE_ATOMS];
	uint8_t payloads[UDA_MAX_USAGE_ATOMS][UDA_VIDEO_PROFILE_PICTURE_PAYLOAD_SIZE];
	uint32_t count;
	uda_usage usage;
};

static const uint8_t often[4] = {UDA_CPU_ACCESS_OFTEN, 0, 0, 0};

static const struct {
	const char *name;
	uda_usage_name atom;
} usage_names[] = {
	{"render", UDA_USAGE_RENDER_TARGET},      {"sampled", UDA_USAGE_SAMPLED},
	{"storage", UDA_USAGE_STORAGE},           {"scanout", UDA_USAGE_SCANOUT},
	{"cpu-read", UDA_USAGE_CPU_READ},         {"cpu-write", UDA_USAGE_CPU_WRITE},
	{"transfer-src", UDA_USAGE_TRANSFER_SRC}, {"transfer-dst", UDA_USAGE_TRANSFER_DST},
	{"camera-capture", UDA_USAGE_CAMERA_CAPTURE}, {"video-decode", UDA_USAGE_VIDEO_DECODE},
	{"video-encode", UDA_USAGE_VIDEO_ENCODE},
};

/* "CODEC", then ":PROFILE" and ":interlaced" or ":film-grain" (picture
 * flags), each optional, after a video usage's name. */
static bool parse_profile(const char *text, uda_video_profile *out, uint32_t *out_picture)
{
	*out = (uda_video_profile){0};
	*out_picture = 0;
	const char *colon = strchr(text, ':');
	out->codec = codec_from_name(text, colon ? (size_t)(colon - text) : strlen(text));
	bool profile_read = false;
	while (out->codec && colon) {
		const char *part = colon + 1;
		colon = strchr(part, ':');
		const size_t length = colon ? (size_t)(colon - part) : strlen(part);
		char end;
		if (length == strlen("interlaced") && strncmp(part, "interlaced", length) == 0)
			*out_picture |= UDA_VIDEO_PICTURE_INTERLACED;
		else if (length == strlen("film-grain") && strncmp(part, "film-grain", length) == 0)
			*out_picture |= UDA_VIDEO_PICTURE_FILM_GRAIN;
		else if (!profile_read && !*out_picture && part[0] != '-' &&
		         (sscanf(part, "%u%c", &out->profile, &end) == 1 ||
		          (sscanf(part, "%u%c", &out->profile, &end) == 2 && end == ':')))
			profile_read = true;
		else
			return false;
	}
	return out->codec != 0;
}

static bool add_atom(struct usage_choice *c, const char *name)
{
	const char *suffix = strchr(name, ':');
	const size_t length = suffix ? (size_t)(suffix - name) : strlen(name);
	for (size_t i = 0; i < sizeof(usage_names) / sizeof(usage_names[0]); i++) {
		if (strlen(usage_names[i].name) != length || strncmp(usage_names[i].name, name, length) != 0 ||
		    c->count == UDA_MAX_USAGE_ATOMS)
			continue;
		uda_usage_atom *atom = &c->atoms[c->count];
		atom->vendor = UDA_VENDOR_NONE;
		atom->name = (uint16_t)usage_names[i].atom;
		bool cpu = usage_names[i].atom == UDA_USAGE_CPU_READ || usage_names[i].atom == UDA_USAGE_CPU_WRITE;
		atom->length = cpu ? 4 : 0;
		atom->payload = cpu ? often : NULL;
		if (suffix) {
			uda_video_profile profile;
			uint32_t picture;
			if ((atom->name != UDA_USAGE_VIDEO_DECODE && atom->name != UDA_USAGE_VIDEO_ENCODE) ||
			    !parse_profile(suffix + 1, &profile, &picture))
				return false;
			if (picture) {
				uda_video_profile_to_picture_payload(&profile, picture, c->payloads[c->count]);
				atom->length = UDA_VIDEO_PROFILE_PICTURE_PAYLOAD_SIZE;
			} else {
				uda_video_profile_to_payload(&profile, c->payloads[c->count]);
				atom->length = UDA_VIDEO_PROFILE_PAYLOAD_SIZE;
			}
			atom->payload = c->payloads[c->count];
		}
		c->count++;
		return true;
	}
	return false;
}

static bool parse_usage_list(struct usage_choice *c, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	bool ok = copy != NULL;
	for (char *name = copy ? strtok_r(copy, ",", &save) : NULL; name && ok; name = strtok_r(NULL, ",", &save))
		ok = add_atom(c, name);
	free(copy);
	c->usage = (uda_usage){UDA_STRUCTURE_TYPE_USAGE, NULL, c->count, c->atoms};
	return ok && c->count > 0;
}

/* A V4L2 node's own usage: the first of its roles' usages it answers
 * for the assertion (a camera captures, a decoder decodes...). */
static void v4l2_usage(struct usage_choice *c, uda_device *device, const uda_assertion *assertion)
{
	static const char *const roles[] = {"camera-capture", "video-decode", "video-encode", "transfer-dst"};
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		c->count = 0;
		parse_usage_list(c, roles[i]);
		uda_capability_set_list *sets = NULL;
		const uda_result r = uda_device_get_capability_sets(device, assertion, &c->usage, &sets);
		uda_capability_set_list_destroy(sets);
		if (r == UDA_SUCCESS)
			return;
	}
	c->count = 0;
	parse_usage_list(c, roles[0]);
}

static void default_usage(struct usage_choice *c, uda_device *device, uda_device_api api,
                          const uda_assertion *assertion)
{
	if (api == UDA_DEVICE_API_V4L2) {
		v4l2_usage(c, device, assertion);
		return;
	}
	parse_usage_list(c, api == UDA_DEVICE_API_VULKAN ? "render,transfer-src"
	                    : api == UDA_DEVICE_API_GL   ? "sampled"
	                    : api == UDA_DEVICE_API_DRM  ? "scanout"
	                                                 : "cpu-read,cpu-write");
}

/* The formats the device takes for the usage, with their layouts. */
static void print_formats(uda_device *device, const uda_usage *usage, bool json)
{
	uda_format_support formats[64];
	uint32_t count = 64;
	uda_result r = uda_device_get_formats(device, usage, &count, formats);
	if (r != UDA_SUCCESS && r != UDA_ERROR_BUFFER_TOO_SMALL)
		count = 0;
	printf(json ? ", \"formats\": [" : "      formats for this usage:");
	for (uint32_t f = 0; f < count; f++) {
		uda_format_info info;
		uda_format_get_info(formats[f].fourcc, &info);
		if (json) {
			printf("%s{\"name\": \"%s\", \"opaque_layout\": %s, \"modifiers\": [", f ? ", " : "", info.name,
			       formats[f].opaque_layout ? "true" : "false");
			for (uint32_t m = 0; m < formats[f].modifier_count; m++)
				printf("%s\"0x%016llx\"", m ? ", " : "", (unsigned long long)formats[f].modifiers[m]);
			printf("]}");
		} else {
			/* LINEAR alone says "linear"; other modifiers are counted. */
			const bool linear_only =
			        formats[f].modifier_count == 1 && formats[f].modifiers[0] == 0 /* DRM_FORMAT_MOD_LINEAR */;
			char modifiers[32] = "";
			if (linear_only)
				snprintf(modifiers, sizeof(modifiers), "linear");
			else if (formats[f].modifier_count)
				snprintf(modifiers, sizeof(modifiers), "%u modifiers", formats[f].modifier_count);
			printf(" %s(%s%s%s)", info.name, formats[f].opaque_layout ? "opaque" : "",
			       formats[f].opaque_layout && modifiers[0] ? "," : "", modifiers);
		}
	}
	printf(json ? "]" : (count ? "\n" : " none\n"));
}

/* Whether the loader offers VK_LAYER_UDA_allocator, whether it is on
 * (implicit layers are listed even when their disable variable is set),
 * and the device extension it adds. */
static void print_layer(bool json)
{
	uint32_t count = 0;
	vkEnumerateInstanceLayerProperties(&count, NULL);
	VkLayerProperties layers[64];
	if (count > 64)
		count = 64;
	bool present = vkEnumerateInstanceLayerProperties(&count, layers) >= 0;
	bool found = false;
	for (uint32_t i = 0; present && i < count && !found; i++)
		found = strcmp(layers[i].layerName, "VK_LAYER_UDA_allocator") == 0;
	const char *disable = getenv("UDA_LAYER_DISABLE");
	const bool active = found && !(disable && strcmp(disable, "1") == 0);
	const char *extension = "VK_UDA_external_allocation";
	if (json)
		printf(", \"vulkan_layer\": {\"installed\": %s, \"active\": %s, \"extension\": \"%s\"}",
		       found ? "true" : "false", active ? "true" : "false", extension);
	else if (found)
		printf("\nVulkan layer: VK_LAYER_UDA_allocator, %s, adds %s\n",
		       active ? "active" : "installed but disabled (UDA_LAYER_DISABLE=1)", extension);
	else
		printf("\nVulkan layer: VK_LAYER_UDA_allocator is not on the loader's path\n");
}

/* The first manifest in `path` (a file) naming a module that exports the
 * external platform entry point; that module's path into `out`. */
static bool platform_module_of(const char *manifest, char *out, size_t size)
{
	json_object *root = json_object_from_file(manifest);
	json_object *icd, *library;
	bool found = false;
	if (root && json_object_object_get_ex(root, "ICD", &icd) &&
	    json_object_object_get_ex(icd, "library_path", &library) && json_object_is_type(library, json_type_string)) {
		const char *path = json_object_get_string(library);
		void *module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		/* Only uda's: other platforms (egl-wayland) export the same. */
		found = module && dlsym(module, "loadEGLExternalPlatform") && strstr(path, "uda-egl-platform");
		if (module)
			dlclose(module);
		if (found)
			snprintf(out, size, "%s", path);
	}
	json_object_put(root);
	return found;
}

/* Where a driver that loads external platforms (NVIDIA's libEGL, uda's
 * host) would find the uda platform, and whether this process's libEGL
 * offers it. */
static void print_egl_platform(bool json)
{
	char module[4096] = "", manifest[4096] = "";
	/* NVIDIA's libEGL reads the __-prefixed names; uda's host both. */
	const char *files = getenv("__EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES");
	const char *dirs = getenv("__EGL_EXTERNAL_PLATFORM_CONFIG_DIRS");
	if (!files || !files[0])
		files = getenv("EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES");
	if (!dirs || !dirs[0])
		dirs = getenv("EGL_EXTERNAL_PLATFORM_CONFIG_DIRS");
	char list[8192];
	snprintf(list, sizeof(list), "%s",
	         files && files[0] ? files
	                           : (dirs && dirs[0] ? dirs
	                                              : "/etc/egl/egl_external_platform.d:/usr/local/share/egl/"
	                                                "egl_external_platform.d:/usr/share/egl/egl_external_platform.d"));
	char *saved = NULL;
	for (char *item = strtok_r(list, ":", &saved); item && !module[0]; item = strtok_r(NULL, ":", &saved)) {
		if (files && files[0]) {
			if (platform_module_of(item, module, sizeof(module)))
				snprintf(manifest, sizeof(manifest), "%s", item);
			continue;
		}
		DIR *dir = opendir(item);
		for (struct dirent *entry; dir && (entry = readdir(dir)) && !module[0];) {
			if (!strstr(entry->d_name, ".json"))
				continue;
			snprintf(manifest, sizeof(manifest), "%s/%s", item, entry->d_name);
			if (!platform_module_of(manifest, module, sizeof(module)))
				manifest[0] = '\0';
		}
		if (dir)
			closedir(dir);
	}
	/* Does this process's libEGL offer it (NVIDIA's does itself; Mesa's
	 * through libuda-egl-host)? */
	bool offered = false;
	void *egl = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
	/* The process's own binding first: a preloaded host stands there. */
	const char *(*query)(void *, int) = (const char *(*)(void *, int))dlsym(RTLD_DEFAULT, "eglQueryString");
	if (!query && egl)
		query = (const char *(*)(void *, int))dlsym(egl, "eglQueryString");
	const char *extensions = query ? query(NULL, 0x3055 /* EGL_EXTENSIONS */) : NULL;
	offered = extensions && strstr(extensions, "EGL_UDA_platform_uda");
	/* glvnd drops client extensions it does not know, so under glvnd
	 * (NVIDIA's libEGL) the platform's never shows: there, the driver
	 * offers the platform if it loaded the module. */
	if (!offered && module[0]) {
		void *resident = dlopen(module, RTLD_LAZY | RTLD_NOLOAD);
		offered = resident != NULL;
		if (resident)
			dlclose(resident);
	}
	if (json) {
		printf(", \"egl_platform\": {\"loadable\": %s, \"manifest\": ", module[0] ? "true" : "false");
		print_json_string(stdout, manifest);
		printf(", \"module\": ");
		print_json_string(stdout, module);
		printf(", \"offered_by_libegl\": %s}", offered ? "true" : "false");
	} else if (module[0]) {
		printf("EGL platform: EGL_PLATFORM_UDA, loadable from %s (%s); this process's libEGL %s\n", module,
		       manifest, offered ? "offers it" : "does not load external platforms (Mesa: use libuda-egl-host)");
	} else {
		printf("EGL platform: no manifest names libuda-egl-platform (__EGL_EXTERNAL_PLATFORM_CONFIG_DIRS, "
		       "share/egl/egl_external_platform.d)\n");
	}
}

static void print_usage_text(FILE *f)
{
	fprintf(f, "usage: uda-info [--width W] [--height H] [--format NAME] [--use INDEX=USAGE[,USAGE...]]... "
	           "[--json]\nusages: render sampled storage scanout cpu-read cpu-write transfer-src transfer-dst "
	           "camera-capture video-decode video-encode\n"
	           "a video usage may name its bitstream: video-decode:h264, video-decode:h265:2 (profile number),\n"
	           "and its pictures: video-decode:h264:100:interlaced, video-decode:av1:film-grain\n");
}

int main(int argc, char **argv)
{
	uint32_t width = 1920, height = 1080;
	const char *format_name = "ABGR8888";
	bool json = false;
	static struct usage_choice chosen[MAX_DEVICES];
	static bool selected[MAX_DEVICES];
	bool any_selected = false;

	static const struct option options[] = {
		{"width", required_argument, NULL, 'w'}, {"height", required_argument, NULL, 'h'},
		{"format", required_argument, NULL, 'f'}, {"use", required_argument, NULL, 'u'},
		{"json", no_argument, NULL, 'j'},         {"help", no_argument, NULL, 'H'},
		{NULL, 0, NULL, 0},
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		char *end = NULL;
		unsigned long index;
		switch (opt) {
		case 'w':
			width = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'h':
			height = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'f':
			format_name = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'u':
			index = strtoul(optarg, &end, 10);
			if (end == optarg || *end != '=' || index >= MAX_DEVICES ||
			    !parse_usage_list(&chosen[index], end + 1)) {
				fprintf(stderr, "uda-info: --use wants INDEX=USAGE[,USAGE...], got %s\n", optarg);
				return 2;
			}
			selected[index] = any_selected = true;
			break;
		case 'H':
			print_usage_text(stdout);
			return 0;
		default:
			print_usage_text(stderr);
			return 2;
		}
	}
	const uint32_t fourcc = format_from_name(format_name);
	if (!fourcc) {
		fprintf(stderr, "uda-info: unknown format %s\n", format_name);
		return 2;
	}

	uda_context *ctx;
	if (uda_context_create(NULL, &ctx) != UDA_SUCCESS) {
		fprintf(stderr, "uda-info: cannot create a context\n");
		return 1;
	}
	uda_device *devices[MAX_DEVICES];
	uint32_t device_count = MAX_DEVICES;
	uda_result r = uda_context_enumerate_devices(ctx, &device_count, devices);
	if (r != UDA_SUCCESS && r != UDA_ERROR_BUFFER_TOO_SMALL)
		device_count = 0;

	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, width, height, fourcc, 0};
	uda_device_usage participants[MAX_DEVICES];
	uint32_t participant_count = 0;

	if (json)
		printf("{\"assertion\": {\"width\": %u, \"height\": %u, \"format\": \"%s\"}, \"devices\": [", width,
		       height, format_name);
	else
		printf("assertion: %ux%u %s\n\ndevices:\n", width, height, format_name);
	for (uint32_t i = 0; i < device_count; i++) {
		uda_device_info info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
		uda_device_get_info(devices[i], &info);
		char device_uuid[37], driver_uuid[37];
		describe_uuid(info.device_uuid, device_uuid);
		describe_uuid(info.driver_uuid, driver_uuid);
		if (!selected[i] && !any_selected &&
		    (info.api == UDA_DEVICE_API_VULKAN || info.api == UDA_DEVICE_API_GL)) {
			default_usage(&chosen[i], devices[i], info.api, &assertion);
			selected[i] = true;
		} else if (!selected[i]) {
			default_usage(&chosen[i], devices[i], info.api, &assertion);
		}
		uda_capability_set_list *sets = NULL;
		r = uda_device_get_capability_sets(devices[i], &assertion, &chosen[i].usage, &sets);
		const char *why = r == UDA_SUCCESS ? "" : uda_context_get_error(ctx);
		if (json) {
			printf("%s{\"index\": %u, \"name\": ", i ? ", " : "", i);
			print_json_string(stdout, info.name);
			printf(", \"backend\": ");
			print_json_string(stdout, info.backend_name);
			printf(", \"api\": \"%s\", \"device_uuid\": \"%s\", \"driver_uuid\": \"%s\", \"negotiating\": %s, "
			       "\"capability_sets\": ",
			       uda_device_api_to_string(info.api), device_uuid, driver_uuid, selected[i] ? "true" : "false");
			if (sets)
				print_set_list_json(stdout, sets);
			else
				print_json_string(stdout, why);
		} else {
			printf("  [%u] %s\n      backend %s, API %s\n      device UUID %s\n      driver UUID %s\n", i,
			       info.name, info.backend_name, uda_device_api_to_string(info.api), device_uuid,
			       driver_uuid);
			if (info.drm_primary.present)
				printf("      DRM primary node %u:%u\n", info.drm_primary.major, info.drm_primary.minor);
			if (info.drm_render.present)
				printf("      DRM render node %u:%u\n", info.drm_render.major, info.drm_render.minor);
			printf("      capability sets%s:\n", selected[i] ? " (negotiating)" : "");
			if (sets)
				print_set_list(stdout, sets, "        ");
			else
				printf("        none: %s\n", why);
		}
		uda_capability_set_list_destroy(sets);
		print_formats(devices[i], &chosen[i].usage, json);
		if (json)
			printf("}");
		if (selected[i])
			participants[participant_count++] = (uda_device_usage){devices[i], &chosen[i].usage};
	}

	uda_capability_set_list *agreed = NULL;
	const char *why = "no device takes part";
	if (participant_count) {
		const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, NULL, &assertion,
		                                   participant_count, participants};
		r = uda_negotiate(ctx, &info, &agreed);
		why = r == UDA_SUCCESS ? "" : uda_context_get_error(ctx);
	}
	if (json) {
		printf("]");
		print_layer(true);
		print_egl_platform(true);
		printf(", \"negotiated\": ");
		if (agreed)
			print_set_list_json(stdout, agreed);
		else
			print_json_string(stdout, why);
		printf("}\n");
	} else {
		print_layer(false);
		print_egl_platform(false);
		printf("\nnegotiated between %u devices:\n", participant_count);
		if (agreed)
			print_set_list(stdout, agreed, "  ");
		else
			printf("  nothing in common: %s\n", why);
	}
	uda_capability_set_list_destroy(agreed);
	uda_context_destroy(ctx);
	return 0;
}
