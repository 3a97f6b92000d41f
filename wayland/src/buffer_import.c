/* uda_allocation_manager_v1.create_buffer on the compositor's side: the
 * client's allocation imported under the compositor's own set, so the
 * constraints its devices sent are the ones checked. */
#include <drm_fourcc.h>
#include <string.h>

#include <uda/uda_backend.h> /* uda_context_set_error: messages on the caller's context */
#include <uda/uda_wayland_server.h>

uda_result uda_wayland_import_buffer(const uda_capability_set_list *reader_sets, uda_device *device, int fd,
                                     const void *metadata, size_t metadata_size, uda_allocation **out_allocation)
{
	if (!reader_sets || !device || !out_allocation)
		return UDA_ERROR_INVALID_ARGUMENT;
	*out_allocation = NULL;
	uda_context *ctx = uda_device_get_context(device);
	uda_allocation_metadata m;
	uda_capability_set_list *client_set = NULL;
	uda_result result = uda_allocation_metadata_deserialize(ctx, metadata, metadata_size, &m, &client_set);
	if (result != UDA_SUCCESS)
		return UDA_ERROR_INVALID_DATA;
	/* The compositor's set of the client's layout: what it checks. A
	 * layout is the same when its capability is, payload included, so an
	 * opaque (driver-private) layout matches only the compositor's own
	 * device's, the one it can take. */
	uda_capability theirs = {0};
	uint32_t count = 0, match = UINT32_MAX;
	if (uda_capability_set_list_get_layout(client_set, 0, &theirs) == UDA_SUCCESS) {
		uda_capability_set_list_get_count(reader_sets, &count);
		for (uint32_t i = 0; i < count && match == UINT32_MAX; i++) {
			uda_capability ours;
			if (uda_capability_set_list_get_layout(reader_sets, i, &ours) == UDA_SUCCESS &&
			    ours.vendor == theirs.vendor && ours.name == theirs.name && ours.length == theirs.length &&
			    (!ours.length || memcmp(ours.payload, theirs.payload, ours.length) == 0))
				match = i;
		}
	}
	uint64_t modifier = DRM_FORMAT_MOD_INVALID;
	uda_capability_set_list_get_modifier(client_set, 0, &modifier);
	uda_capability_set_list_destroy(client_set);
	if (match == UINT32_MAX)
		return uda_context_set_error(ctx, UDA_ERROR_INCOMPATIBLE,
		                             "client buffer: layout %s0x%016llx is not one the compositor sent",
		                             modifier == DRM_FORMAT_MOD_INVALID ? "(opaque) " : "",
		                             (unsigned long long)modifier);
	const uda_import_info import = {
		.type = UDA_STRUCTURE_TYPE_IMPORT_INFO,
		.device = device,
		.fd = fd,
		.metadata = &m,
		.set_list = reader_sets,
		.set_index = match,
		.flags = UDA_IMPORT_READ_ONLY,
	};
	return uda_import(&import, out_allocation);
}
