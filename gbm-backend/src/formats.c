/*
 * gbm_device_is_format_supported and
 * gbm_device_get_format_modifier_plane_count: the negotiation a BO of the
 * format would go through, at a probe size, without allocating.
 */
#include <drm_fourcc.h>

#include "gbm_private.h"

/* Cursor planes are 64x64 on most hardware; other buffers are asked at
 * the same size (the limits of a real size are bo_create's to find). */
#define PROBE_SIZE 64u

static uda_result negotiate(struct uda_gbm_request *request, void *out_sets)
{
	uda_context *ctx = uda_device_get_context(request->devices[0].device);
	uda_capability_set_list **sets = out_sets;
	/* A second attempt's answer replaces the first's. */
	uda_capability_set_list_destroy(*sets);
	*sets = NULL;
	return uda_negotiate(ctx, &request->info, sets);
}

static uda_result probe(struct uda_gbm_device *device, uint32_t format, uint32_t flags, const uint64_t *modifiers,
                        uint32_t modifier_count, uda_capability_set_list **out_sets)
{
	struct uda_gbm_request request;
	if (uda_gbm_request_init(device, PROBE_SIZE, PROBE_SIZE, format, flags, modifiers, modifier_count, &request))
		return UDA_ERROR_UNSUPPORTED;
	return uda_gbm_request_run(device, &request, negotiate, out_sets);
}

int uda_gbm_is_format_supported(struct gbm_device *gbm, uint32_t format, uint32_t usage)
{
	struct uda_gbm_device *device = uda_gbm_device_from(gbm);
	format = device->core ? device->core->v0.format_canonicalize(format) : format;
	uda_format_info info;
	if (uda_format_get_info(format, &info) != UDA_SUCCESS)
		return 0;
	uda_capability_set_list *sets = NULL;
	uda_result result = probe(device, format, usage, NULL, 0, &sets);
	uda_capability_set_list_destroy(sets);
	return result == UDA_SUCCESS;
}

int uda_gbm_get_format_modifier_plane_count(struct gbm_device *gbm, uint32_t format, uint64_t modifier)
{
	struct uda_gbm_device *device = uda_gbm_device_from(gbm);
	format = device->core ? device->core->v0.format_canonicalize(format) : format;
	uda_format_info info;
	if (uda_format_get_info(format, &info) != UDA_SUCCESS || modifier == DRM_FORMAT_MOD_INVALID)
		return -1;
	/* As Mesa's backend: -1 for a pair no buffer can be made of, as
	 * gbm_bo_create would refuse it. */
	uda_capability_set_list *sets = NULL;
	uda_result result = modifier == DRM_FORMAT_MOD_LINEAR
	                        ? probe(device, format, GBM_BO_USE_LINEAR, NULL, 0, &sets)
	                        : probe(device, format, 0, &modifier, 1, &sets);
	if (result != UDA_SUCCESS) {
		uda_capability_set_list_destroy(sets);
		return -1;
	}
	if (modifier == DRM_FORMAT_MOD_LINEAR) {
		uda_capability_set_list_destroy(sets);
		return (int)info.plane_count;
	}
	/* Another modifier's planes (auxiliary ones included) are the
	 * devices' to say: the MAX_PLANES of a set that has it. */
	bool present = false;
	uint64_t planes = 0;
	uda_capability_set_list_get_constraint(sets, 0, UDA_CONSTRAINT_MAX_PLANES, &present, &planes);
	uda_capability_set_list_destroy(sets);
	return present ? (int)planes : (int)info.plane_count;
}
