/* uda_import_allocation: an allocation of this process on another of its
 * devices, through an exported fd as a peer process would take it, but
 * without the metadata's round trip through bytes. */
#include <stdio.h>
#include <string.h>

#include "allocation.h"
#include "device.h"

static uda_result validate_info(const uda_allocation_import_info *info)
{
	uda_context *ctx = info->allocation->ctx;
	UDA_CHECK_ARG(ctx, info->type == UDA_STRUCTURE_TYPE_ALLOCATION_IMPORT_INFO);
	UDA_CHECK_ARG(ctx, uda_device_is_live(info->device));
	if (info->device->ctx != ctx)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "uda_import_allocation: device %s is of another context", info->device->name);
	UDA_CHECK_ARG(ctx, !(info->flags & ~UDA_IMPORT_READ_ONLY));
	UDA_CHECK_ARG(ctx, (uint32_t)info->handle_type <= UDA_HANDLE_TYPE_MEMFD);
	if (info->handle_type != UDA_HANDLE_TYPE_NONE &&
	    !uda_backend_set_has_u32(info->allocation->set, 0, UDA_CAPABILITY_HANDLE, info->handle_type))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "uda_import_allocation: handle type %d is not in the allocation's set",
		                             (int)info->handle_type);
	return UDA_SUCCESS;
}

static uda_result import_through(const uda_allocation_import_info *info, uda_handle_type handle_type,
                                 uda_allocation **out_allocation)
{
	uda_allocation *allocation = info->allocation;
	int fd = -1;
	uda_result result = uda_allocation_export(allocation, handle_type, &fd);
	if (result != UDA_SUCCESS)
		return result;
	uda_allocation_metadata metadata = allocation->backend.metadata;
	metadata.next = allocation->has_color ? &allocation->color : NULL;
	metadata.handle_type = handle_type;
	const uda_import_info import = {
		.type = UDA_STRUCTURE_TYPE_IMPORT_INFO,
		.next = info->next,
		.device = info->device,
		.fd = fd,
		.metadata = &metadata,
		.set_list = allocation->set,
		/* An import made read-only stays so on every device. */
		.flags = UDA_IMPORT_TAKE_FD | info->flags | (allocation->read_only ? UDA_IMPORT_READ_ONLY : 0u),
	};
	return uda_import(&import, out_allocation);
}

uda_result uda_import_allocation(const uda_allocation_import_info *info, uda_allocation **out_allocation)
{
	if (out_allocation)
		*out_allocation = NULL;
	if (!info || !info->allocation)
		return UDA_ERROR_INVALID_ARGUMENT;
	uda_context *ctx = info->allocation->ctx;
	UDA_CHECK_ARG(ctx, out_allocation);
	uda_result result = validate_info(info);
	if (result != UDA_SUCCESS)
		return result;
	if (info->handle_type != UDA_HANDLE_TYPE_NONE)
		return import_through(info, info->handle_type, out_allocation);

	/* DMA-BUF first: every API imports it, and an EGLImage can be made
	 * of it where one of a memory-object texture cannot (NVIDIA); then
	 * the driver-private fd, then the memfd. The reason worth telling is
	 * the first refusal: a later type is a fallback. */
	static const uda_handle_type preference[] = {UDA_HANDLE_TYPE_DMA_BUF, UDA_HANDLE_TYPE_OPAQUE_FD,
	                                             UDA_HANDLE_TYPE_MEMFD};
	char first_failure[256] = "";
	uda_result first_result = UDA_ERROR_UNSUPPORTED;
	for (size_t i = 0; i < sizeof(preference) / sizeof(preference[0]); i++) {
		if (!uda_backend_set_has_u32(info->allocation->set, 0, UDA_CAPABILITY_HANDLE, preference[i]))
			continue;
		result = import_through(info, preference[i], out_allocation);
		if (result == UDA_SUCCESS)
			return UDA_SUCCESS;
		if (!first_failure[0]) {
			first_result = result;
			snprintf(first_failure, sizeof(first_failure), "%s", uda_context_get_error(ctx));
		}
	}
	if (!first_failure[0])
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "uda_import_allocation: the allocation names no "
		                                                         "handle type");
	return uda_context_set_error(ctx, first_result, "uda_import_allocation into %s: %s", info->device->name,
	                             first_failure);
}
