/* linux-dmabuf feedback from negotiation (uda_wayland_server.h): the
 * render device's importable layouts per format, and per display the
 * layouts both share, as a format table and tranches of indices into it. */
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <uda/uda_backend.h> /* uda_context_set_error: messages on the caller's context */
#include <uda/uda_wayland_server.h>

#include "feedback_private.h"

static bool device_node(uda_device *device, dev_t *out)
{
	uda_device_info info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
	if (uda_device_get_info(device, &info) != UDA_SUCCESS)
		return false;
	const uda_drm_node *node = info.drm_render.present ? &info.drm_render : &info.drm_primary;
	if (!node->present)
		return false;
	*out = makedev(node->major, node->minor);
	return true;
}

static uda_result table_index(uda_wayland_feedback *feedback, uint32_t format, uint64_t modifier, uint16_t *out)
{
	for (uint32_t i = 0; i < feedback->table_count; i++) {
		if (feedback->table[i].format == format && feedback->table[i].modifier == modifier) {
			*out = (uint16_t)i;
			return UDA_SUCCESS;
		}
	}
	if (feedback->table_count == UDA_WAYLAND_MAX_FORMAT_TABLE)
		return uda_context_set_error(feedback->context, UDA_ERROR_OVERFLOW,
		                             "uda_wayland_feedback_create: more than %u format and modifier pairs",
		                             UDA_WAYLAND_MAX_FORMAT_TABLE);
	if (feedback->table_count == feedback->table_capacity) {
		uint32_t capacity = feedback->table_capacity ? feedback->table_capacity * 2 : 64;
		struct table_entry *grown = realloc(feedback->table, capacity * sizeof(*grown));
		if (grown)
			feedback->table = grown;
		uint32_t *sets = grown ? realloc(feedback->render_set_of, capacity * sizeof(*sets)) : NULL;
		if (!sets)
			return uda_context_set_error(feedback->context, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
		feedback->render_set_of = sets;
		feedback->table_capacity = capacity;
	}
	feedback->render_set_of[feedback->table_count] = UINT32_MAX;
	feedback->table[feedback->table_count] = (struct table_entry){format, 0, modifier};
	*out = (uint16_t)feedback->table_count++;
	return UDA_SUCCESS;
}

static uda_result tranche_add(uda_wayland_feedback *feedback, struct tranche *tranche, uint16_t index)
{
	for (uint32_t i = 0; i < tranche->count; i++) {
		if (tranche->indices[i] == index)
			return UDA_SUCCESS;
	}
	if (tranche->count == tranche->capacity) {
		uint32_t capacity = tranche->capacity ? tranche->capacity * 2 : 32;
		uint16_t *grown = realloc(tranche->indices, capacity * sizeof(*grown));
		if (!grown)
			return uda_context_set_error(feedback->context, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
		tranche->indices = grown;
		tranche->capacity = capacity;
	}
	tranche->indices[tranche->count++] = index;
	return UDA_SUCCESS;
}

/* The layouts negotiation gives for `format` between `devices`, in its
 * order, into `tranche`. A negotiation that fails adds nothing. */
static uda_result add_negotiated(uda_wayland_feedback *feedback, struct tranche *tranche, uint32_t format,
                                 uint32_t width, uint32_t height, const uda_device_usage *devices, uint32_t count)
{
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, width, height, format, 0};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, NULL, &assertion, count, devices};
	uda_capability_set_list *sets = NULL;
	if (uda_negotiate(feedback->context, &info, &sets) != UDA_SUCCESS)
		return UDA_SUCCESS; /* not this format: the reason is in the log */
	uint32_t set_count = 0;
	uda_result result = uda_capability_set_list_get_count(sets, &set_count);
	for (uint32_t i = 0; i < set_count && result == UDA_SUCCESS; i++) {
		uint64_t modifier = DRM_FORMAT_MOD_INVALID;
		if (uda_capability_set_list_get_modifier(sets, i, &modifier) != UDA_SUCCESS ||
		    modifier == DRM_FORMAT_MOD_INVALID ||
		    /* the only handle a linux-dmabuf client sends */
		    !uda_backend_set_has_u32(sets, i, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF))
			continue;
		uint16_t index = 0;
		result = table_index(feedback, format, modifier, &index);
		if (result == UDA_SUCCESS)
			result = tranche_add(feedback, tranche, index);
		/* The render device's own set, for importing clients' buffers. */
		if (result == UDA_SUCCESS && tranche == &feedback->render && feedback->render_set_of[index] == UINT32_MAX) {
			uint32_t kept = 0;
			result = uda_capability_set_list_get_count(feedback->render_sets, &kept);
			if (result == UDA_SUCCESS)
				result = uda_capability_set_list_append_copy(feedback->render_sets, sets, i);
			if (result == UDA_SUCCESS)
				feedback->render_set_of[index] = kept;
		}
	}
	uda_capability_set_list_destroy(sets);
	return result;
}

/* A sealed memfd of the table, as the protocol wants it (the client maps
 * it MAP_PRIVATE; sealed, no one can shrink it under them). */
static uda_result make_table_fd(uda_wayland_feedback *feedback)
{
	const size_t size = feedback->table_count * sizeof(*feedback->table);
	int fd = memfd_create("uda-dmabuf-format-table", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return uda_context_set_error(feedback->context, UDA_ERROR_OUT_OF_MEMORY, "memfd_create: %s",
		                             strerror(errno));
	size_t written = 0;
	while (written < size) {
		ssize_t n = write(fd, (const uint8_t *)feedback->table + written, size - written);
		if (n <= 0) {
			close(fd);
			return uda_context_set_error(feedback->context, UDA_ERROR_OUT_OF_MEMORY,
			                             "the format table: %s", strerror(errno));
		}
		written += (size_t)n;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
		close(fd);
		return uda_context_set_error(feedback->context, UDA_ERROR_BACKEND, "sealing the format table: %s",
		                             strerror(errno));
	}
	feedback->table_fd = fd;
	return UDA_SUCCESS;
}

static const uda_usage_atom sampled_atom = {UDA_VENDOR_NONE, UDA_USAGE_SAMPLED, 0, NULL};
static const uda_usage_atom scanout_atom = {UDA_VENDOR_NONE, UDA_USAGE_SCANOUT, 0, NULL};
static const uda_usage sampled = {UDA_STRUCTURE_TYPE_USAGE, NULL, 1, &sampled_atom};
static const uda_usage scanout = {UDA_STRUCTURE_TYPE_USAGE, NULL, 1, &scanout_atom};

static uda_result check_info(uda_context *context, const uda_wayland_feedback_create_info *info)
{
	if (!info || info->type != UDA_STRUCTURE_TYPE_WAYLAND_FEEDBACK_CREATE_INFO || info->next)
		return uda_context_set_error(context, UDA_ERROR_INVALID_ARGUMENT,
		                             "uda_wayland_feedback_create: no create info of the right type");
	if (!info->render_device || uda_device_get_context(info->render_device) != context)
		return uda_context_set_error(context, UDA_ERROR_INVALID_ARGUMENT,
		                             "uda_wayland_feedback_create: the render device is not the context's");
	if ((info->format_count && !info->formats) || (info->display_count && !info->displays) ||
	    info->display_count > UDA_MAX_NEGOTIATION_DEVICES || (!info->width != !info->height))
		return uda_context_set_error(context, UDA_ERROR_INVALID_ARGUMENT,
		                             "uda_wayland_feedback_create: bad formats, displays or size");
	for (uint32_t i = 0; i < info->display_count; i++) {
		if (!info->displays[i] || uda_device_get_context(info->displays[i]) != context)
			return uda_context_set_error(context, UDA_ERROR_INVALID_ARGUMENT,
			                             "uda_wayland_feedback_create: display %u is not the context's", i);
	}
	return UDA_SUCCESS;
}

/* The formats to offer: the caller's, or every one uda knows. */
static uint32_t *formats_of(const uda_wayland_feedback_create_info *info, uint32_t *out_count)
{
	uint32_t count = info->format_count;
	if (!count && uda_format_enumerate(&count, NULL) != UDA_SUCCESS)
		return NULL;
	uint32_t *formats = calloc(count ? count : 1, sizeof(*formats));
	if (!formats)
		return NULL;
	if (info->format_count)
		memcpy(formats, info->formats, count * sizeof(*formats));
	else if (uda_format_enumerate(&count, formats) != UDA_SUCCESS) {
		free(formats);
		return NULL;
	}
	*out_count = count;
	return formats;
}

uda_result uda_wayland_feedback_create(uda_context *context, const uda_wayland_feedback_create_info *info,
                                       uda_wayland_feedback **out_feedback)
{
	if (!context || !out_feedback)
		return UDA_ERROR_INVALID_ARGUMENT;
	*out_feedback = NULL;
	uda_result result = check_info(context, info);
	if (result != UDA_SUCCESS)
		return result;
	uda_wayland_feedback *feedback = calloc(1, sizeof(*feedback));
	if (feedback)
		feedback->scanout = calloc(info->display_count ? info->display_count : 1, sizeof(*feedback->scanout));
	if (!feedback || !feedback->scanout) {
		free(feedback);
		return uda_context_set_error(context, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	feedback->context = context;
	feedback->render_device = info->render_device;
	feedback->table_fd = -1;
	if (uda_capability_set_list_create(context, &feedback->render_sets) != UDA_SUCCESS) {
		free(feedback->scanout);
		free(feedback);
		return uda_context_set_error(context, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	feedback->display_count = info->display_count;
	feedback->has_main_device = device_node(info->render_device, &feedback->main_device);
	feedback->render.present = true;
	feedback->render.target_device = feedback->main_device;
	const uint32_t width = info->width ? info->width : 1920, height = info->height ? info->height : 1080;

	uint32_t format_count = 0;
	uint32_t *formats = formats_of(info, &format_count);
	if (!formats)
		result = uda_context_set_error(context, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	const uda_device_usage render = {info->render_device, &sampled};
	for (uint32_t f = 0; f < format_count && result == UDA_SUCCESS; f++)
		result = add_negotiated(feedback, &feedback->render, formats[f], width, height, &render, 1);
	/* A display's tranche: what it scans out and the render device can
	 * still sample, for when the compositor composites after all. */
	for (uint32_t d = 0; d < info->display_count && result == UDA_SUCCESS; d++) {
		struct tranche *tranche = &feedback->scanout[d];
		const uda_device_usage both[] = {render, {info->displays[d], &scanout}};
		tranche->flags = UDA_WAYLAND_TRANCHE_SCANOUT;
		if (!device_node(info->displays[d], &tranche->target_device))
			tranche->target_device = feedback->main_device;
		for (uint32_t f = 0; f < format_count && result == UDA_SUCCESS; f++)
			result = add_negotiated(feedback, tranche, formats[f], width, height, both, 2);
		tranche->present = tranche->count > 0;
	}
	free(formats);
	if (result == UDA_SUCCESS && feedback->render.count == 0)
		result = uda_context_set_error(context, UDA_ERROR_INCOMPATIBLE,
		                               "uda_wayland_feedback_create: the render device imports none of the %u "
		                               "formats as a DMA-BUF of an explicit layout",
		                               format_count);
	if (result == UDA_SUCCESS)
		result = make_table_fd(feedback);
	if (result != UDA_SUCCESS) {
		uda_wayland_feedback_destroy(feedback);
		return result;
	}
	*out_feedback = feedback;
	return UDA_SUCCESS;
}

void uda_wayland_feedback_destroy(uda_wayland_feedback *feedback)
{
	if (!feedback)
		return;
	for (uint32_t d = 0; d < feedback->display_count; d++)
		free(feedback->scanout[d].indices);
	free(feedback->scanout);
	free(feedback->render.indices);
	free(feedback->table);
	free(feedback->render_set_of);
	uda_capability_set_list_destroy(feedback->render_sets);
	if (feedback->table_fd >= 0)
		close(feedback->table_fd);
	free(feedback);
}

uda_result uda_wayland_feedback_get_main_device(const uda_wayland_feedback *feedback, dev_t *out_device)
{
	if (!feedback || !out_device)
		return UDA_ERROR_INVALID_ARGUMENT;
	if (!feedback->has_main_device)
		return uda_context_set_error(feedback->context, UDA_ERROR_NOT_FOUND,
		                             "the render device has no DRM node to name as the main device");
	*out_device = feedback->main_device;
	return UDA_SUCCESS;
}

uda_result uda_wayland_feedback_get_format_table(const uda_wayland_feedback *feedback, int *out_fd,
                                                 uint32_t *out_size)
{
	if (!feedback || !out_fd || !out_size)
		return UDA_ERROR_INVALID_ARGUMENT;
	int fd = fcntl(feedback->table_fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return uda_context_set_error(feedback->context, UDA_ERROR_OUT_OF_MEMORY, "dup: %s", strerror(errno));
	*out_fd = fd;
	*out_size = (uint32_t)(feedback->table_count * sizeof(*feedback->table));
	return UDA_SUCCESS;
}

uda_result uda_wayland_feedback_get_table_entry(const uda_wayland_feedback *feedback, uint32_t index,
                                                uint32_t *out_format, uint64_t *out_modifier)
{
	if (!feedback || !out_format || !out_modifier)
		return UDA_ERROR_INVALID_ARGUMENT;
	if (index >= feedback->table_count)
		return uda_context_set_error(feedback->context, UDA_ERROR_INVALID_ARGUMENT,
		                             "format table index %u of %u", index, feedback->table_count);
	*out_format = feedback->table[index].format;
	*out_modifier = feedback->table[index].modifier;
	return UDA_SUCCESS;
}

static uda_wayland_tranche public_tranche(const struct tranche *tranche)
{
	return (uda_wayland_tranche){tranche->target_device, tranche->flags, tranche->count, tranche->indices};
}

uda_result uda_wayland_feedback_get_tranches(const uda_wayland_feedback *feedback, uint32_t display_index,
                                             uint32_t *count, uda_wayland_tranche *tranches)
{
	if (!feedback || !count || (display_index != UDA_WAYLAND_NO_SCANOUT && display_index >= feedback->display_count))
		return UDA_ERROR_INVALID_ARGUMENT;
	const struct tranche *list[2];
	uint32_t n = 0;
	if (display_index != UDA_WAYLAND_NO_SCANOUT && feedback->scanout[display_index].present)
		list[n++] = &feedback->scanout[display_index];
	list[n++] = &feedback->render;
	if (!tranches) {
		*count = n;
		return UDA_SUCCESS;
	}
	const uint32_t written = *count < n ? *count : n;
	for (uint32_t i = 0; i < written; i++)
		tranches[i] = public_tranche(list[i]);
	if (written < n)
		return uda_context_set_error(feedback->context, UDA_ERROR_BUFFER_TOO_SMALL,
		                             "%u tranches, room for %u", n, *count);
	*count = n;
	return UDA_SUCCESS;
}

uint32_t feedback_find_entry(const struct uda_wayland_feedback *feedback, uint32_t format, uint64_t modifier)
{
	for (uint32_t i = 0; i < feedback->table_count; i++) {
		if (feedback->table[i].format == format && feedback->table[i].modifier == modifier)
			return i;
	}
	return UINT32_MAX;
}
