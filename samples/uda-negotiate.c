/* uda-negotiate: negotiate one buffer between three simulated devices and
 * print what every device offered and what they agreed on.
 *
 * The devices are described in tables below and registered in-process
 * through the backend interface, the way a real backend registers the
 * hardware it finds. They model a common case: a GPU that renders with a
 * tiled, compressed layout, a display engine that scans out linear or one
 * tiled layout with a pitch limit, and a video encoder that reads linear
 * only. */
#include <drm_fourcc.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uda/uda_backend.h>

#include "common/describe.h"

#define VENDOR_SIM          0x1234u /* a made-up PCI vendor for the simulated GPU */
#define SIM_CAP_COMPRESSION 1
#define SIM_MOD_TILED       fourcc_mod_code(NONE, 0x00ffffffffffffull) /* unregistered */

struct sim_set {
	uint64_t modifier;
	uint64_t pitch_alignment, address_alignment, max_pitch, max_width;
	bool local_compression;
};

struct sim_device {
	const char *name;
	uint8_t uuid;
	const struct sim_set *sets;
	uint32_t set_count;
};

static const struct sim_set gpu_sets[] = {
    {SIM_MOD_TILED, 256, 65536, 0, 16384, true},
    {DRM_FORMAT_MOD_LINEAR, 256, 4096, 0, 16384, false},
};
static const struct sim_set display_sets[] = {
    {SIM_MOD_TILED, 512, 4096, 32768, 8192, false},
    {DRM_FORMAT_MOD_LINEAR, 64, 4096, 32768, 8192, false},
};
static const struct sim_set encoder_sets[] = {
    {DRM_FORMAT_MOD_LINEAR, 48, 4096, 0, 4096, false},
};

static const struct sim_device sim_devices[] = {
    {"simulated GPU", 0x01, gpu_sets, 2},
    {"simulated display engine", 0x02, display_sets, 2},
    {"simulated video encoder", 0x03, encoder_sets, 1},
};

static uda_result sim_get_capability_sets(void *data, uda_context *ctx, const uda_assertion *assertion,
                                          const uda_usage *usage, uda_capability_set_list *out)
{
	const struct sim_device *dev = data;
	uda_capability_set_builder *b;
	uda_result r = uda_capability_set_builder_create(ctx, &b);
	for (uint32_t i = 0; r == UDA_SUCCESS && i < dev->set_count; i++) {
		const struct sim_set *s = &dev->sets[i];
		uda_capability_set_builder_reset(b);
		r = uda_capability_set_builder_add_layout(b, s->modifier, UDA_CAPABILITY_FLAG_REQUIRED);
		if (r == UDA_SUCCESS)
			r = uda_capability_set_builder_add_u32(b, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF, 0);
		if (r == UDA_SUCCESS && s->modifier == DRM_FORMAT_MOD_LINEAR)
			r = uda_capability_set_builder_add_u32(b, UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE,
			                                       0);
		if (r == UDA_SUCCESS && s->local_compression) {
			uint32_t level = 2;
			uda_capability cap = {.vendor = VENDOR_SIM,
			                      .name = SIM_CAP_COMPRESSION,
			                      .flags = UDA_CAPABILITY_FLAG_LOCAL,
			                      .length = 4,
			                      .payload = &level};
			r = uda_capability_set_builder_add_capability(b, &cap);
		}
		if (r == UDA_SUCCESS)
			r = uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_PITCH_ALIGNMENT,
			                                              s->pitch_alignment);
		if (r == UDA_SUCCESS)
			r = uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_ADDRESS_ALIGNMENT,
			                                              s->address_alignment);
		if (r == UDA_SUCCESS && s->max_pitch)
			r = uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_MAX_PITCH, s->max_pitch);
		if (r == UDA_SUCCESS && s->max_width)
			r = uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_MAX_WIDTH, s->max_width);
		if (r == UDA_SUCCESS)
			r = uda_capability_set_list_append_set(out, b);
	}
	uda_capability_set_builder_destroy(b);
	return r;
}

static const uda_device_interface sim_interface = {
    .version = UDA_DEVICE_INTERFACE_VERSION_1,
    .get_capability_sets = sim_get_capability_sets,
};

static void usage(FILE *f)
{
	fprintf(f, "usage: uda-negotiate [--width W] [--height H] [--format FOURCC_NAME] [--devices N]\n"
	           "Negotiates a buffer between simulated GPU, display and encoder devices\n"
	           "(the first N of them, default 3) and prints the agreed capability sets.\n");
}

int main(int argc, char **argv)
{
	uint32_t width = 1920, height = 1080, device_count = 3;
	const char *format_name = "XRGB8888";
	static const struct option options[] = {
	    {"width", required_argument, NULL, 'w'},  {"height", required_argument, NULL, 'h'},
	    {"format", required_argument, NULL, 'f'}, {"devices", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, '?'},         {NULL, 0, NULL, 0},
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
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
		case 'd':
			device_count = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		default:
			usage(opt == '?' && optopt == 0 ? stdout : stderr);
			return opt == '?' && optopt == 0 ? 0 : 2;
		}
	}
	if (device_count < 1 || device_count > 3) {
		fprintf(stderr, "uda-negotiate: --devices must be 1..3\n");
		return 2;
	}

	const uint32_t fourcc = format_from_name(format_name);
	if (!fourcc) {
		fprintf(stderr, "uda-negotiate: unknown format %s\n", format_name);
		return 2;
	}

	/* Only the in-process devices this program registers. */
	const uda_context_create_info context_info = {
		.type = UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO,
		.flags = UDA_CONTEXT_CREATE_NO_BACKENDS,
	};
	uda_context *ctx;
	if (uda_context_create(&context_info, &ctx) != UDA_SUCCESS) {
		fprintf(stderr, "uda-negotiate: cannot create a context\n");
		return 1;
	}
	int status = 1;
	uda_device_usage entries[3];
	uda_usage_atom render = {UDA_VENDOR_NONE, UDA_USAGE_RENDER_TARGET, 0, NULL};
	uda_usage_atom scanout = {UDA_VENDOR_NONE, UDA_USAGE_SCANOUT, 0, NULL};
	uda_usage_atom encode = {UDA_VENDOR_NONE, UDA_USAGE_VIDEO_ENCODE, 0, NULL};
	const uda_usage usages[3] = {
	    {UDA_STRUCTURE_TYPE_USAGE, NULL, 1, &render},
	    {UDA_STRUCTURE_TYPE_USAGE, NULL, 1, &scanout},
	    {UDA_STRUCTURE_TYPE_USAGE, NULL, 1, &encode},
	};
	uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, width, height, fourcc, 0};

	printf("assertion: %ux%u %s\n", width, height, format_name);
	for (uint32_t i = 0; i < device_count; i++) {
		uda_device_create_info info = {
		    .type = UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		    .name = sim_devices[i].name,
		    .backend_name = "simulation",
		    .api = UDA_DEVICE_API_OTHER,
		    .interface = &sim_interface,
		    .device_data = (void *)&sim_devices[i],
		};
		info.device_uuid[15] = sim_devices[i].uuid;
		if (uda_context_add_device(ctx, &info, &entries[i].device) != UDA_SUCCESS) {
			fprintf(stderr, "uda-negotiate: %s\n", uda_context_get_error(ctx));
			goto out;
		}
		entries[i].usage = &usages[i];
		uda_capability_set_list *offered;
		if (uda_device_get_capability_sets(entries[i].device, &assertion, &usages[i], &offered) !=
		    UDA_SUCCESS) {
			fprintf(stderr, "uda-negotiate: %s\n", uda_context_get_error(ctx));
			goto out;
		}
		printf("\ndevice %02x, %s, offers:\n", sim_devices[i].uuid, sim_devices[i].name);
		print_set_list(stdout, offered, "    ");
		uda_capability_set_list_destroy(offered);
	}

	uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, NULL, &assertion, device_count,
	                                    entries};
	uda_capability_set_list *agreed;
	uda_result r = uda_negotiate(ctx, &negotiation, &agreed);
	if (r != UDA_SUCCESS) {
		fprintf(stderr, "uda-negotiate: %s: %s\n", uda_result_to_string(r), uda_context_get_error(ctx));
		goto out;
	}
	printf("\nnegotiated between %u devices, best first:\n", device_count);
	print_set_list(stdout, agreed, "    ");
	uda_capability_set_list_destroy(agreed);
	status = 0;
out:
	uda_context_destroy(ctx);
	return status;
}
