/*
 * GBM's usage flags as usage atoms on the devices that need them:
 *
 *   (always)                    sampled on every API of the GPU: a GBM
 *                               buffer is one the GPU can at least read
 *   RENDERING, FRONT_RENDERING  render target on every API of the GPU;
 *   (implied)                   without them too, unless the format
 *                               cannot be rendered (uda_gbm_request_run)
 *   WRITE, CURSOR               CPU writes (often) on the allocating device
 *   LINEAR                      pitch linear only; CPU reads and writes
 *                               (rarely), since linear buffers get mapped
 *   SCANOUT / CURSOR            scanout / cursor plane on the display;
 *                               a hint where there is none (render
 *                               nodes, /dev/null), as with Mesa
 *   PROTECTED                   protected on every device
 *
 * "Every API of the GPU" means every one whose driver takes the format at
 * all: Mesa 22.3's GLES cannot make a texture of BGRA-ordered memory
 * (ARGB8888, XRGB8888), which its Vulkan renders and samples. Such an API
 * sits the buffer out, with a log line, rather than make GBM refuse the
 * formats most buffers have; it would refuse the import with the reason.
 * The first API (Vulkan where there is one, which allocates) always joins.
 *
 * A modifier list becomes a layout filter (only those layouts), and
 * DMA-BUF sets are preferred, as GBM promises DMA-BUFs where the devices
 * have them.
 */
#include <drm_fourcc.h>
#include <errno.h>
#include <string.h>

#include "gbm_private.h"

static const uint8_t often[4] = {UDA_CPU_ACCESS_OFTEN, 0, 0, 0};
static const uint8_t rarely[4] = {UDA_CPU_ACCESS_RARELY, 0, 0, 0};

static void add_atom(struct uda_gbm_request *request, uint32_t device, uda_usage_name name, const void *payload)
{
	uda_usage *usage = &request->usages[device];
	uda_usage_atom *atom = &request->atoms[device][usage->atom_count++];
	*atom = (uda_usage_atom){UDA_VENDOR_NONE, (uint16_t)name, payload ? 4u : 0u, payload};
}

static uint32_t add_device(struct uda_gbm_request *request, uda_device *device)
{
	uint32_t i = request->info.device_count++;
	request->usages[i] = (uda_usage){UDA_STRUCTURE_TYPE_USAGE, NULL, 0, request->atoms[i]};
	request->devices[i] = (uda_device_usage){device, &request->usages[i]};
	return i;
}

/* Whether an API of the GPU can sample the format in memory the
 * allocating API can make: sets of its own are not enough (Mesa 25.0's GL
 * takes ARGB8888 only as DMA-BUFs, which lavapipe cannot export), so the
 * two are negotiated, sampling only, the allocator's other needs being
 * the buffer's negotiation's to meet. */
static bool takes_format(struct uda_gbm_device *device, uda_device *allocator, uda_device *api,
                         const uda_assertion *assertion)
{
	const uda_usage_atom sampled = {UDA_VENDOR_NONE, UDA_USAGE_SAMPLED, 0, NULL};
	const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 1, &sampled};
	const uda_device_usage pair[] = {{allocator, &usage}, {api, &usage}};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, NULL, assertion, 2, pair};
	uda_capability_set_list *sets = NULL;
	const uda_result result = uda_negotiate(device->ctx, &info, &sets);
	uda_capability_set_list_destroy(sets);
	if (result == UDA_ERROR_UNSUPPORTED || result == UDA_ERROR_INCOMPATIBLE) {
		uda_gbm_log(device, UDA_LOG_INFO, "format 0x%08x leaves out a device of the GPU: %s", assertion->format,
		            uda_context_get_error(device->ctx));
		return false;
	}
	return true;
}

static int copy_modifiers(struct uda_gbm_device *device, const uint64_t *modifiers, uint32_t count,
                          struct uda_gbm_request *request)
{
	uint32_t kept = 0;
	for (uint32_t i = 0; i < count; i++) {
		/* INVALID in a list means "an implicit layout is fine too".
		 * Alone it is refused, as Mesa refuses it: callers (wlroots)
		 * fall back to a plain gbm_bo_create on that failure, and a
		 * success would tell them a modifier they cannot pass on. */
		if (modifiers[i] == DRM_FORMAT_MOD_INVALID)
			continue;
		if (kept == UDA_MAX_FILTER_MODIFIERS) {
			uda_gbm_log(device, UDA_LOG_INFO, "more than %u modifiers", UDA_MAX_FILTER_MODIFIERS);
			return EINVAL;
		}
		request->modifiers[kept++] = modifiers[i];
	}
	if (count && !kept) {
		uda_gbm_log(device, UDA_LOG_INFO, "a modifier list of DRM_FORMAT_MOD_INVALID alone");
		return EINVAL;
	}
	request->filter.modifier_count = kept;
	return 0;
}

static int request_init(struct uda_gbm_device *device, uint32_t width, uint32_t height, uint32_t format,
                        uint32_t flags, const uint64_t *modifiers, uint32_t modifier_count, bool imply_rendering,
                        struct uda_gbm_request *request)
{
	memset(request, 0, sizeof(*request));
	request->args = (struct uda_gbm_request_args){width, height, format, flags, modifiers, modifier_count};
	if (flags & ~UDA_GBM_KNOWN_FLAGS) {
		uda_gbm_log(device, UDA_LOG_INFO, "unknown usage flags 0x%x", flags & ~UDA_GBM_KNOWN_FLAGS);
		return EINVAL;
	}
	if ((flags & GBM_BO_USE_LINEAR) && modifier_count) {
		uda_gbm_log(device, UDA_LOG_INFO, "GBM_BO_USE_LINEAR and a modifier list exclude each other");
		return EINVAL;
	}
	/* The display's usage; without a display, Mesa's backend takes
	 * scanout for a layout hint (render nodes), and headless and nested
	 * compositors ask for it on every buffer (libgbm's
	 * gbm_bo_create_with_modifiers adds it itself): nothing to negotiate
	 * with, so the GPU decides. A cursor stays CPU-written either way. */
	uint32_t display_flags = flags & (GBM_BO_USE_SCANOUT | GBM_BO_USE_CURSOR);
	if (display_flags && !device->display) {
		uda_gbm_log(device, UDA_LOG_DEBUG, "scanout and cursor planes left out: %s",
		            device->fd_is_drm ? "no uda backend drives this DRM node" : "the fd is no DRM node");
		display_flags = 0;
	}

	request->assertion = (uda_assertion){UDA_STRUCTURE_TYPE_ASSERTION, NULL, width, height, format, 0};
	request->filter.type = UDA_STRUCTURE_TYPE_NEGOTIATION_LAYOUT_FILTER;
	request->filter.preferred_handle_type = UDA_HANDLE_TYPE_DMA_BUF;
	request->filter.modifiers = request->modifiers;
	int error = copy_modifiers(device, modifiers, modifier_count, request);
	if (error)
		return error;
	if (flags & GBM_BO_USE_LINEAR) {
		request->modifiers[0] = DRM_FORMAT_MOD_LINEAR;
		request->filter.modifier_count = 1;
	}
	request->info = (uda_negotiation_info){UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, &request->filter,
	                                       &request->assertion, 0, request->devices};

	const bool asked_to_render = flags & (GBM_BO_USE_RENDERING | GBM_BO_USE_FRONT_RENDERING);
	request->rendering_implied = imply_rendering && !asked_to_render;
	const bool render = asked_to_render || request->rendering_implied;
	for (uint32_t r = 0; r < device->render_count; r++) {
		if (r > 0 && !takes_format(device, device->render[0], device->render[r], &request->assertion))
			continue;
		uint32_t i = add_device(request, device->render[r]);
		add_atom(request, i, UDA_USAGE_SAMPLED, NULL);
		if (render)
			add_atom(request, i, UDA_USAGE_RENDER_TARGET, NULL);
		if (flags & GBM_BO_USE_PROTECTED)
			add_atom(request, i, UDA_USAGE_PROTECTED, NULL);
		/* CPU access is the allocator's business: importers (GL)
		 * never map. */
		if (r == 0 && (flags & (GBM_BO_USE_WRITE | GBM_BO_USE_CURSOR)))
			add_atom(request, i, UDA_USAGE_CPU_WRITE, often);
		else if (r == 0 && (flags & GBM_BO_USE_LINEAR))
			add_atom(request, i, UDA_USAGE_CPU_WRITE, rarely);
		if (r == 0 && (flags & (GBM_BO_USE_LINEAR | GBM_BO_USE_WRITE | GBM_BO_USE_CURSOR)))
			add_atom(request, i, UDA_USAGE_CPU_READ, rarely);
	}
	if (display_flags) {
		uint32_t i = add_device(request, device->display);
		if (display_flags & GBM_BO_USE_SCANOUT)
			add_atom(request, i, UDA_USAGE_SCANOUT, NULL);
		if (display_flags & GBM_BO_USE_CURSOR)
			add_atom(request, i, UDA_USAGE_SCANOUT_CURSOR, NULL);
		if (flags & GBM_BO_USE_PROTECTED)
			add_atom(request, i, UDA_USAGE_PROTECTED, NULL);
	}
	return 0;
}

int uda_gbm_request_init(struct uda_gbm_device *device, uint32_t width, uint32_t height, uint32_t format,
                         uint32_t flags, const uint64_t *modifiers, uint32_t modifier_count,
                         struct uda_gbm_request *request)
{
	return request_init(device, width, height, format, flags, modifiers, modifier_count, true, request);
}

/* Mesa's buffers can always be rendered to, whatever the flags said (its
 * images are render targets by default), and GBM's callers count on it:
 * libgbm's own gbm_bo_create_with_modifiers asks for SCANOUT alone, yet
 * compositors render into those buffers. Rendering is therefore asked
 * for, and given up only for a format no API of the GPU can render. */
uda_result uda_gbm_request_run(struct uda_gbm_device *device, struct uda_gbm_request *request,
                               uda_result (*attempt)(struct uda_gbm_request *request, void *data), void *data)
{
	uda_result result = attempt(request, data);
	if (!request->rendering_implied || (result != UDA_ERROR_INCOMPATIBLE && result != UDA_ERROR_UNSUPPORTED))
		return result;
	struct uda_gbm_request_args args = request->args;
	if (request_init(device, args.width, args.height, args.format, args.flags, args.modifiers,
	                 args.modifier_count, false, request) != 0)
		return result;
	uda_gbm_log(device, UDA_LOG_DEBUG, "format 0x%08x cannot be rendered: sampled only", args.format);
	return attempt(request, data);
}
