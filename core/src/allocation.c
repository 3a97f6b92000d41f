/* uda_allocation: memory from one device's backend, the capability set it
 * satisfies, and the checks that make an import safe to hand to a driver. */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uda/uda_backend.h>
#include "fd_stat.h"

#include "allocation.h"
#include "allocation_metadata.h"
#include "capability_set_list.h"
#include "device.h"
#include "request.h"

static uda_result allocation_wrap(uda_device *device, uda_capability_set_list *set, const uda_assertion *assertion,
                                  const uda_backend_allocation *backend, bool imported, uda_allocation **out)
{
	uda_allocation *allocation = calloc(1, sizeof(*allocation));
	if (!allocation) {
		device->impl->free(device->data, backend->data);
		uda_capability_set_list_destroy(set);
		return uda_context_set_error(device->ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	allocation->ctx = device->ctx;
	allocation->device = device;
	allocation->set = set;
	allocation->backend = *backend;
	allocation->imported = imported;
	uda_allocation_metadata *m = &allocation->backend.metadata;
	m->type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA;
	m->next = NULL;
	if (!imported)
		m->handle_type = UDA_HANDLE_TYPE_NONE;
	if (assertion) {
		m->width = assertion->width;
		m->height = assertion->height;
		m->format = assertion->format;
		memcpy(m->device_uuid, device->device_uuid, UDA_UUID_SIZE);
		memcpy(m->driver_uuid, device->driver_uuid, UDA_UUID_SIZE);
	}
	uda_context *ctx = allocation->ctx;
	pthread_mutex_lock(&ctx->object_lock);
	allocation->registry_next = ctx->allocations;
	if (ctx->allocations)
		ctx->allocations->registry_prev = allocation;
	ctx->allocations = allocation;
	pthread_mutex_unlock(&ctx->object_lock);
	*out = allocation;
	return UDA_SUCCESS;
}

uda_result uda_context_validate_allocation(uda_context *ctx, const void *candidate)
{
	if (!ctx)
		return UDA_ERROR_INVALID_ARGUMENT;
	pthread_mutex_lock(&ctx->object_lock);
	const uda_allocation *allocation = ctx->allocations;
	while (allocation && (const void *)allocation != candidate)
		allocation = allocation->registry_next;
	pthread_mutex_unlock(&ctx->object_lock);
	if (!allocation)
		return uda_context_set_error(ctx, UDA_ERROR_NOT_FOUND, "%p is not a live uda_allocation of this context",
		                             candidate);
	return UDA_SUCCESS;
}

static uda_result allocate_on(uda_device *device, const uda_assertion *assertion, const uda_capability_set_list *list,
                              uint32_t set_index, uda_allocation **out)
{
	uda_context *ctx = device->ctx;
	if (!device->impl->allocate)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "device %s does not allocate", device->name);

	uda_capability_set_list *set;
	uda_result result = capability_set_list_copy_set(list, set_index, &set);
	if (result != UDA_SUCCESS)
		return result;

	uda_backend_allocation backend;
	memset(&backend, 0, sizeof(backend));
	result = fault_injection_fires(&ctx->faults, ctx, FAULT_ALLOCATE)
	                 ? UDA_ERROR_BACKEND
	                 : device->impl->allocate(device->data, ctx, assertion, set, 0, &backend);
	if (result != UDA_SUCCESS) {
		uda_capability_set_list_destroy(set);
		return result;
	}
	/* A backend's layout must pass the same check an importer applies. */
	uda_allocation_metadata check = backend.metadata;
	check.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA;
	check.next = NULL;
	check.width = assertion->width;
	check.height = assertion->height;
	check.format = assertion->format;
	result = allocation_metadata_check(ctx, UDA_ERROR_BACKEND, &check, set, &set->sets[0]);
	if (result != UDA_SUCCESS) {
		device->impl->free(device->data, backend.data);
		uda_capability_set_list_destroy(set);
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "device %s allocated memory the set does not take: %s",
		                             device->name, uda_context_get_error(ctx));
	}
	return allocation_wrap(device, set, assertion, &backend, false, out);
}

uda_result uda_allocate(const uda_allocation_create_info *info, uda_allocation **out_allocation)
{
	if (!info || !uda_device_is_live(info->device))
		return UDA_ERROR_INVALID_ARGUMENT;
	uda_context *ctx = info->device->ctx;
	UDA_CHECK_ARG(ctx, info->type == UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO && !info->next);
	UDA_CHECK_ARG(ctx, out_allocation);
	UDA_CHECK_ARG(ctx, info->set_list && info->set_list->ctx == ctx);
	if (info->set_index >= info->set_list->set_count)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "set index %u out of range (list holds %u)",
		                             info->set_index, info->set_list->set_count);
	uda_result result = uda_assertion_validate(ctx, info->assertion);
	if (result != UDA_SUCCESS)
		return result;
	return allocate_on(info->device, info->assertion, info->set_list, info->set_index, out_allocation);
}

#define MAX_MEMORY_SOURCES 16

/* The context's memory sources (DMA-BUF heaps) in registration order. */
static uint32_t memory_sources(uda_context *ctx, uda_device **out)
{
	uint32_t count = 0;
	pthread_mutex_lock(&ctx->device_lock);
	for (uint32_t i = 0; i < ctx->device_count && count < MAX_MEMORY_SOURCES; i++) {
		if (ctx->devices[i]->api == UDA_DEVICE_API_DMA_HEAP && ctx->devices[i]->impl->allocate)
			out[count++] = ctx->devices[i];
	}
	pthread_mutex_unlock(&ctx->device_lock);
	return count;
}

/* The selection rule, set by set in the negotiated order: the negotiating
 * devices first, in the order given; then, when none of them allocated the
 * set (a placement they cannot give, or none allocates at all), the
 * context's memory sources in registration order, whose memory every
 * device then imports. */
uda_result uda_negotiate_allocate(uda_context *ctx, const uda_negotiation_info *info, uda_allocation **out_allocation,
                                  uda_capability_set_list **out_sets, uint32_t *out_set_index)
{
	if (!ctx)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(ctx, out_allocation);
	UDA_CHECK_ARG(ctx, !out_sets == !out_set_index);
	uda_capability_set_list *sets;
	uda_result result = uda_negotiate(ctx, info, &sets);
	if (result != UDA_SUCCESS)
		return result;

	result = UDA_ERROR_UNSUPPORTED;
	bool tried = false;
	uint32_t missing_placement = 0;
	uda_device *sources[MAX_MEMORY_SOURCES];
	const uint32_t source_count = memory_sources(ctx, sources);
	for (uint32_t s = 0; s < sets->set_count; s++) {
		const uint32_t device_count = info->device_count;
		for (uint32_t d = 0; d < device_count + source_count; d++) {
			uda_device *device = d < device_count ? info->devices[d].device : sources[d - device_count];
			if (!device->impl->allocate)
				continue;
			tried = true;
			result = allocate_on(device, info->assertion, sets, s, out_allocation);
			if (result == UDA_SUCCESS) {
				uda_context_log(ctx, UDA_LOG_DEBUG, "allocated set %u of %u on %s", s, sets->set_count,
				                device->name);
				if (out_sets) {
					*out_sets = sets;
					*out_set_index = s;
				} else {
					uda_capability_set_list_destroy(sets);
				}
				return UDA_SUCCESS;
			}
			uda_context_log(ctx, UDA_LOG_DEBUG, "set %u on %s: %s: %s", s, device->name,
			                uda_result_to_string(result), uda_context_get_error(ctx));
		}
		if (!missing_placement)
			missing_placement = uda_backend_set_required_placement(sets, s);
	}
	uda_capability_set_list_destroy(sets);
	if (!tried)
		uda_context_set_error(ctx, result, "no negotiating device allocates");
	else if (missing_placement && result == UDA_ERROR_UNSUPPORTED)
		uda_context_set_error(ctx, result,
		                      "no negotiating device and no memory source (DMA-BUF heap) allocates %s memory, "
		                      "which the negotiated set requires",
		                      uda_placement_to_string(missing_placement));
	return result;
}

void uda_allocation_destroy(uda_allocation *allocation)
{
	if (!allocation)
		return;
	uda_context *ctx = allocation->ctx;
	pthread_mutex_lock(&ctx->object_lock);
	if (allocation->registry_prev)
		allocation->registry_prev->registry_next = allocation->registry_next;
	else
		ctx->allocations = allocation->registry_next;
	if (allocation->registry_next)
		allocation->registry_next->registry_prev = allocation->registry_prev;
	pthread_mutex_unlock(&ctx->object_lock);
	uda_device *device = allocation->device;
	if (allocation->mapping)
		device->impl->unmap(device->data, allocation->backend.data, allocation->mapping);
	device->impl->free(device->data, allocation->backend.data);
	uda_capability_set_list_destroy(allocation->set);
	free(allocation);
}

uda_result uda_allocation_get_metadata(const uda_allocation *allocation, uda_allocation_metadata *out_metadata)
{
	if (!allocation)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(allocation->ctx, out_metadata);
	*out_metadata = allocation->backend.metadata;
	return UDA_SUCCESS;
}

uda_result uda_allocation_get_capability_set(const uda_allocation *allocation,
                                             const uda_capability_set_list **out_set_list)
{
	if (!allocation)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(allocation->ctx, out_set_list);
	*out_set_list = allocation->set;
	return UDA_SUCCESS;
}

uda_result uda_allocation_get_device(const uda_allocation *allocation, uda_device **out_device)
{
	if (!allocation)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(allocation->ctx, out_device);
	*out_device = allocation->device;
	return UDA_SUCCESS;
}

uda_result uda_allocation_get_native(const uda_allocation *allocation, void *out_native)
{
	if (!allocation)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(allocation->ctx, out_native);
	uda_device *device = allocation->device;
	if (!device->impl->get_native)
		return uda_context_set_error(allocation->ctx, UDA_ERROR_UNSUPPORTED, "device %s has no native objects",
		                             device->name);
	return device->impl->get_native(device->data, allocation->ctx, allocation->backend.data, out_native);
}

/* A set that names handle types restricts exports and imports to them; a
 * set that names none (a device that never shares) allows none. */
static uda_result check_handle_type(uda_context *ctx, const uda_capability_set_list *set, uint32_t set_index,
                                    uda_handle_type type)
{
	if (!handle_type_known(type))
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "unknown handle type %d", (int)type);
	if (!uda_backend_set_has_u32(set, set_index, UDA_CAPABILITY_HANDLE, type))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "handle type %d is not in the allocation's capability set", (int)type);
	return UDA_SUCCESS;
}

uda_result uda_allocation_export(uda_allocation *allocation, uda_handle_type handle_type, int *out_fd)
{
	if (!allocation)
		return UDA_ERROR_INVALID_ARGUMENT;
	uda_context *ctx = allocation->ctx;
	UDA_CHECK_ARG(ctx, out_fd);
	uda_result result = check_handle_type(ctx, allocation->set, 0, handle_type);
	if (result != UDA_SUCCESS)
		return result;
	uda_device *device = allocation->device;
	if (!device->impl->export_fd)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "device %s does not export", device->name);
	if (fault_injection_fires(&ctx->faults, ctx, FAULT_EXPORT))
		return UDA_ERROR_BACKEND;
	int fd = -1;
	result = device->impl->export_fd(device->data, ctx, allocation->backend.data, handle_type, &fd);
	if (result != UDA_SUCCESS)
		return result;
	if (fd < 0)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "device %s exported no fd", device->name);
	*out_fd = fd;
	return UDA_SUCCESS;
}

static uda_result serialize_metadata(const uda_allocation *allocation, uda_handle_type handle_type,
                                     const uint8_t *recipient_uuid, void *data, size_t capacity, size_t *out_size)
{
	uda_context *ctx = allocation->ctx;
	uda_result result = check_handle_type(ctx, allocation->set, 0, handle_type);
	if (result != UDA_SUCCESS)
		return result;
	uda_allocation_metadata m = allocation->backend.metadata;
	m.handle_type = handle_type;
	m.next = allocation->has_color ? &allocation->color : NULL;
	if (!recipient_uuid)
		return uda_allocation_metadata_serialize(ctx, &m, allocation->set, 0, data, capacity, out_size);
	uda_capability_set_list *set;
	result = uda_capability_set_list_copy(allocation->set, &set);
	if (result != UDA_SUCCESS)
		return result;
	capability_set_list_keep_local_of(set, recipient_uuid);
	result = uda_allocation_metadata_serialize(ctx, &m, set, 0, data, capacity, out_size);
	uda_capability_set_list_destroy(set);
	return result;
}

uda_result uda_allocation_serialize_metadata(const uda_allocation *allocation, uda_handle_type handle_type, void *data,
                                             size_t capacity, size_t *out_size)
{
	if (!allocation)
		return UDA_ERROR_INVALID_ARGUMENT;
	return serialize_metadata(allocation, handle_type, NULL, data, capacity, out_size);
}

uda_result uda_allocation_serialize_metadata_for(const uda_allocation *allocation, uda_handle_type handle_type,
                                                 const uint8_t recipient_device_uuid[UDA_UUID_SIZE], void *data,
                                                 size_t capacity, size_t *out_size)
{
	if (!allocation)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(allocation->ctx, recipient_device_uuid);
	return serialize_metadata(allocation, handle_type, recipient_device_uuid, data, capacity, out_size);
}

uda_result uda_allocation_set_color_info(uda_allocation *allocation, const uda_color_info *color)
{
	if (!allocation)
		return UDA_ERROR_INVALID_ARGUMENT;
	if (color) {
		uda_result result = color_info_check(allocation->ctx, UDA_ERROR_INVALID_ARGUMENT, color);
		if (result != UDA_SUCCESS)
			return result;
		allocation->color = *color;
	}
	allocation->has_color = color != NULL;
	return UDA_SUCCESS;
}

uda_result uda_allocation_get_color_info(const uda_allocation *allocation, uda_color_info *out_color)
{
	if (!allocation)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(allocation->ctx, out_color);
	if (!allocation->has_color)
		return uda_context_set_error(allocation->ctx, UDA_ERROR_NOT_FOUND, "the allocation has no colour information");
	*out_color = allocation->color;
	return UDA_SUCCESS;
}

/* The size of what fd refers to, or -1 where the kernel cannot say. */
static off_t fd_size(int fd, const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return st->st_size;
	/* DMA-BUFs answer lseek(SEEK_END) with their size. */
	off_t end = lseek(fd, 0, SEEK_END);
	if (end >= 0)
		lseek(fd, 0, SEEK_SET);
	return end;
}

#define SIZE_SEALS (F_SEAL_SHRINK | F_SEAL_GROW)

/* A memfd's seals, where `add` after adding SIZE_SEALS if it still takes
 * seals; -1 with errno where the fd is no memfd. */
static int size_seals(int fd, bool add)
{
	int seals = fcntl(fd, F_GET_SEALS);
	if (add && seals >= 0 && (seals & SIZE_SEALS) != SIZE_SEALS && fcntl(fd, F_ADD_SEALS, SIZE_SEALS) == 0)
		seals |= SIZE_SEALS;
	return seals;
}

/* An opaque fd that is a file is a software driver's memory (Mesa's
 * lavapipe and llvmpipe export memfds), which the importing driver maps.
 * A sender that shrinks the file afterwards makes the importing process
 * fault when its driver reads (a compositor taken down by a client): the
 * file is sealed against shrinking and growing here, by the importer, so
 * the sender cannot take the seals back. What the driver reads of the
 * file's own header is its backend's to check (lavapipe's and llvmpipe's
 * are, core/backends/common/mesa_memory_file.c). Kernel drivers' opaque
 * fds are objects of their own, not files, and pass untouched. */
static uda_result seal_opaque_file(uda_context *ctx, int fd)
{
	const int seals = size_seals(fd, true);
	if (seals < 0 || (seals & SIZE_SEALS) != SIZE_SEALS)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "import: an opaque fd that is a file (a software driver's memory) must take "
		                             "seals against shrinking and growing%s",
		                             seals < 0 ? ", and this one is no memfd" : "");
	return UDA_SUCCESS;
}

static uda_result check_import_fd(uda_context *ctx, uda_device *device, int fd, const uda_allocation_metadata *m,
                                  bool *fd_open)
{
	struct stat st;
	if (fd < 0 || uda_fd_stat(fd, &st) != 0) {
		*fd_open = false;
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "import: fd %d is not open", fd);
	}
	/* Memory comes as a file (memfd, Mesa's opaque fds), a DMA-BUF or a
	 * driver's own object; never as a stream, whose reads a driver
	 * would block on. */
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISDIR(st.st_mode))
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "import: fd %d is a pipe, socket or folder, not memory", fd);
	if (m->handle_type == UDA_HANDLE_TYPE_OPAQUE_FD &&
	    (memcmp(m->device_uuid, device->device_uuid, UDA_UUID_SIZE) != 0 ||
	     memcmp(m->driver_uuid, device->driver_uuid, UDA_UUID_SIZE) != 0))
		return uda_context_set_error(ctx, UDA_ERROR_INCOMPATIBLE,
		                             "import: an opaque fd from another device or driver (UUIDs differ from %s)",
		                             device->name);
	if (m->handle_type == UDA_HANDLE_TYPE_MEMFD) {
		const int seals = size_seals(fd, false);
		if (seals < 0)
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "import: fd is not a memfd (%s)",
			                             strerror(errno));
		if ((seals & SIZE_SEALS) != SIZE_SEALS)
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
			                             "import: memfd is not sealed against shrinking and growing");
	}
	off_t size = fd_size(fd, &st);
	if (size < 0 && m->handle_type != UDA_HANDLE_TYPE_OPAQUE_FD)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "import: the size of fd %d is unknown", fd);
	if (size >= 0 && (uint64_t)size < m->size)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "import: fd holds %lld bytes, metadata claims %llu", (long long)size,
		                             (unsigned long long)m->size);
	if (m->handle_type == UDA_HANDLE_TYPE_OPAQUE_FD && S_ISREG(st.st_mode))
		return seal_opaque_file(ctx, fd);
	return UDA_SUCCESS;
}

/* Extension chains of backend structs: bounded, every link a backend
 * type. Which types a backend knows is its own business. */
static uda_result check_backend_chain(uda_context *ctx, const void *next)
{
	unsigned length = 0;
	for (const struct {
		     uda_structure_type type;
		     const void *next;
	     } *link = next;
	     link; link = link->next) {
		if (++length > 16)
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "extension chain longer than 16");
		if ((unsigned)link->type < UDA_STRUCTURE_TYPE_BACKEND_FIRST)
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
			                             "extension struct of type %d is not a backend's", (int)link->type);
	}
	return UDA_SUCCESS;
}

static uda_result import(const uda_import_info *info, bool *fd_open, uda_allocation **out_allocation);

/* A new open file description of the same memfd, O_RDONLY: mmap of it
 * with PROT_WRITE and MAP_SHARED fails, whoever holds it. A taken fd is
 * closed once replaced; the new one is always taken. */
static uda_result reopen_read_only(uda_context *ctx, int *fd, bool *take_fd)
{
	char path[32];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", *fd);
	int reopened = open(path, O_RDONLY | O_CLOEXEC);
	if (reopened < 0)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "import: cannot reopen the memfd read-only: %s",
		                             strerror(errno));
	if (*take_fd)
		close(*fd);
	*fd = reopened;
	*take_fd = true;
	return UDA_SUCCESS;
}

uda_result uda_import(const uda_import_info *info, uda_allocation **out_allocation)
{
	bool fd_open = true;
	uda_result result = import(info, &fd_open, out_allocation);
	/* A taken fd is uda's whatever happens: closed here unless it was
	 * never open (its number may be another thread's by now) or the
	 * backend already owns it. */
	if (result != UDA_SUCCESS && info && (info->flags & UDA_IMPORT_TAKE_FD) && fd_open && info->fd >= 0)
		close(info->fd);
	return result;
}

static uda_result import(const uda_import_info *info, bool *fd_open, uda_allocation **out_allocation)
{
	if (!info || !uda_device_is_live(info->device))
		return UDA_ERROR_INVALID_ARGUMENT;
	uda_device *device = info->device;
	uda_context *ctx = device->ctx;
	UDA_CHECK_ARG(ctx, info->type == UDA_STRUCTURE_TYPE_IMPORT_INFO);
	UDA_CHECK_ARG(ctx, !(info->flags & ~(UDA_IMPORT_TAKE_FD | UDA_IMPORT_READ_ONLY)));
	uda_result result = check_backend_chain(ctx, info->next);
	if (result != UDA_SUCCESS)
		return result;
	UDA_CHECK_ARG(ctx, out_allocation && info->metadata);
	UDA_CHECK_ARG(ctx, info->metadata->type == UDA_STRUCTURE_TYPE_ALLOCATION_METADATA);
	bool invalid_chain;
	const uda_color_info *color = metadata_color_info(info->metadata, &invalid_chain);
	UDA_CHECK_ARG(ctx, !invalid_chain);
	if (color && (result = color_info_check(ctx, UDA_ERROR_INVALID_ARGUMENT, color)) != UDA_SUCCESS)
		return result;
	UDA_CHECK_ARG(ctx, info->set_list && info->set_list->ctx == ctx);
	if (info->set_index >= info->set_list->set_count)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "set index %u out of range (list holds %u)",
		                             info->set_index, info->set_list->set_count);
	if (!device->impl->import)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "device %s does not import", device->name);

	const uda_allocation_metadata *m = info->metadata;
	result = allocation_metadata_check(ctx, UDA_ERROR_INVALID_ARGUMENT, m, info->set_list,
	                                              &info->set_list->sets[info->set_index]);
	if (result == UDA_SUCCESS)
		result = check_handle_type(ctx, info->set_list, info->set_index, m->handle_type);
	if (result == UDA_SUCCESS)
		result = check_import_fd(ctx, device, info->fd, m, fd_open);
	if (result != UDA_SUCCESS)
		return result;

	uda_capability_set_list *set;
	result = capability_set_list_copy_set(info->set_list, info->set_index, &set);
	if (result != UDA_SUCCESS)
		return result;
	const bool read_only = info->flags & UDA_IMPORT_READ_ONLY;
	bool take_fd = info->flags & UDA_IMPORT_TAKE_FD;
	int fd = info->fd;
	if (read_only && m->handle_type == UDA_HANDLE_TYPE_MEMFD) {
		result = reopen_read_only(ctx, &fd, &take_fd);
		if (result != UDA_SUCCESS) {
			uda_capability_set_list_destroy(set);
			return result;
		}
	}
	uda_backend_allocation backend;
	memset(&backend, 0, sizeof(backend));
	*fd_open = false; /* from here on, closed below unless the backend keeps it */
	result = fault_injection_fires(&ctx->faults, ctx, FAULT_IMPORT)
	                 ? UDA_ERROR_BACKEND
	                 : device->impl->import(device->data, ctx, fd, take_fd, m, set, info->next, &backend);
	if (take_fd && !backend.took_fd)
		close(fd); /* taken, and kept by nobody */
	if (result != UDA_SUCCESS) {
		uda_capability_set_list_destroy(set);
		return result;
	}
	backend.metadata = *m; /* the importer sees the exporter's layout */
	result = allocation_wrap(device, set, NULL, &backend, true, out_allocation);
	if (result == UDA_SUCCESS) {
		(*out_allocation)->read_only = read_only;
		(*out_allocation)->has_color = color != NULL;
		if (color)
			(*out_allocation)->color = *color;
	}
	return result;
}

uda_result uda_import_serialized(uda_device *device, int fd, const void *data, size_t size,
                                 uda_allocation **out_allocation)
{
	if (!uda_device_is_live(device))
		return UDA_ERROR_INVALID_ARGUMENT;
	uda_allocation_metadata metadata;
	uda_capability_set_list *set;
	uda_color_info color;
	bool has_color = false;
	uda_result result = allocation_metadata_read(device->ctx, data, size, &metadata, &set, &color, &has_color);
	if (result != UDA_SUCCESS)
		return result;
	if (has_color)
		metadata.next = &color; /* the import keeps it */
	uda_import_info info = {
		.type = UDA_STRUCTURE_TYPE_IMPORT_INFO,
		.device = device,
		.fd = fd,
		.metadata = &metadata,
		.set_list = set,
	};
	result = uda_import(&info, out_allocation);
	uda_capability_set_list_destroy(set);
	return result;
}

static uda_result check_access(uda_context *ctx, uint32_t access)
{
	if (access == 0 || (access & ~(UDA_ACCESS_READ | UDA_ACCESS_WRITE)))
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "access 0x%x: READ and/or WRITE expected",
		                             access);
	return UDA_SUCCESS;
}

/* An import made with UDA_IMPORT_READ_ONLY gets no CPU write access. */
static uda_result check_write_allowed(const uda_allocation *allocation, uint32_t access)
{
	if (allocation->read_only && (access & UDA_ACCESS_WRITE))
		return uda_context_set_error(allocation->ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "the allocation was imported read-only: no CPU write access");
	return UDA_SUCCESS;
}

uda_result uda_allocation_map(uda_allocation *allocation, uint32_t access, void **out_pointer)
{
	if (!allocation)
		return UDA_ERROR_INVALID_ARGUMENT;
	uda_context *ctx = allocation->ctx;
	UDA_CHECK_ARG(ctx, out_pointer);
	uda_result result = check_access(ctx, access);
	if (result != UDA_SUCCESS)
		return result;
	if (allocation->mapping)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "allocation is already mapped");
	if ((result = check_write_allowed(allocation, access)) != UDA_SUCCESS)
		return result;
	uda_device *device = allocation->device;
	if (!device->impl->map)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "device %s cannot map for the CPU", device->name);
	/* Memory outside a CPU-accessible placement may not be mappable at
	 * all (VRAM on a discrete GPU): the set must say it is. */
	if (!uda_backend_set_has_u32(allocation->set, 0, UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "the allocation's capability set does not make it mappable");
	if (fault_injection_fires(&ctx->faults, ctx, FAULT_MAP))
		return UDA_ERROR_BACKEND;
	void *pointer = NULL;
	result = device->impl->map(device->data, ctx, allocation->backend.data, access, &pointer);
	if (result != UDA_SUCCESS)
		return result;
	allocation->mapping = pointer;
	*out_pointer = pointer;
	return UDA_SUCCESS;
}

uda_result uda_allocation_unmap(uda_allocation *allocation)
{
	if (!allocation)
		return UDA_ERROR_INVALID_ARGUMENT;
	if (!allocation->mapping)
		return uda_context_set_error(allocation->ctx, UDA_ERROR_INVALID_ARGUMENT, "allocation is not mapped");
	allocation->device->impl->unmap(allocation->device->data, allocation->backend.data, allocation->mapping);
	allocation->mapping = NULL;
	return UDA_SUCCESS;
}

static uda_result cpu_access(uda_allocation *allocation, uint32_t access, bool begin)
{
	if (!allocation)
		return UDA_ERROR_INVALID_ARGUMENT;
	uda_context *ctx = allocation->ctx;
	uda_result result = check_access(ctx, access);
	if (result != UDA_SUCCESS)
		return result;
	if (!allocation->mapping)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "allocation is not mapped");
	if ((result = check_write_allowed(allocation, access)) != UDA_SUCCESS)
		return result;
	uda_device *device = allocation->device;
	uda_result (*fn)(void *, uda_context *, void *, uint32_t) =
		begin ? device->impl->begin_cpu_access : device->impl->end_cpu_access;
	return fn ? fn(device->data, ctx, allocation->backend.data, access) : UDA_SUCCESS;
}

uda_result uda_allocation_begin_cpu_access(uda_allocation *allocation, uint32_t access)
{
	return cpu_access(allocation, access, true);
}

uda_result uda_allocation_end_cpu_access(uda_allocation *allocation, uint32_t access)
{
	return cpu_access(allocation, access, false);
}
