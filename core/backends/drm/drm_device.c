/*
 * A DRM device as a negotiating device. Scanout usages take the display's
 * sets (drm_scanout.c); CPU usages take dumb buffers, pitch-linear at the
 * pitch the kernel chooses, which every set of them pins. Memory travels
 * as DMA-BUFs both ways (PRIME), and CPU access to it is bracketed with
 * DMA_BUF_IOCTL_SYNC.
 */
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <uda/uda_drm.h>

#include "drm_device.h"

/* A GEM handle and how many allocations hold it: the kernel gives the
 * same handle for every PRIME import of one DMA-BUF on an fd (and a dumb
 * buffer's own handle when its export comes back), and closing it once
 * closes it for all of them. */
struct drm_handle_ref {
	uint32_t handle;
	uint32_t refs;
};

struct drm_device {
	const struct drm_io *io;
	pthread_mutex_t handles_lock;
	struct drm_handle_ref *handles;
	uint32_t handle_count, handle_capacity;
	struct drm_node_record node;
	int fd;              /* primary node, else render node */
	bool fd_is_primary; /* dumb buffers and planes need the primary node */
	bool has_display;
	struct drm_display_record display;
};

struct drm_allocation {
	uint32_t handle;
	int dma_buf;
	uint64_t size;
};

/* Counts one more holder of the handle. False when out of memory, which
 * can only happen for a handle nobody held: the caller closes it then. */
static bool hold_handle(struct drm_device *device, uint32_t handle)
{
	pthread_mutex_lock(&device->handles_lock);
	uint32_t i = 0;
	while (i < device->handle_count && device->handles[i].handle != handle)
		i++;
	if (i == device->handle_count) {
		if (device->handle_count == device->handle_capacity) {
			const uint32_t capacity = device->handle_capacity * 2 + 8;
			struct drm_handle_ref *grown = realloc(device->handles, sizeof(*grown) * capacity);
			if (!grown) {
				pthread_mutex_unlock(&device->handles_lock);
				return false;
			}
			device->handles = grown;
			device->handle_capacity = capacity;
		}
		device->handles[device->handle_count++] = (struct drm_handle_ref){handle, 0};
	}
	device->handles[i].refs++;
	pthread_mutex_unlock(&device->handles_lock);
	return true;
}

/* One holder fewer; the handle is closed with the last. */
static void release_handle(struct drm_device *device, uint32_t handle)
{
	bool last = true;
	pthread_mutex_lock(&device->handles_lock);
	for (uint32_t i = 0; i < device->handle_count; i++) {
		if (device->handles[i].handle != handle)
			continue;
		last = --device->handles[i].refs == 0;
		if (last)
			device->handles[i] = device->handles[--device->handle_count];
		break;
	}
	pthread_mutex_unlock(&device->handles_lock);
	if (last)
		device->io->close_handle(device->io->data, device->fd, handle);
}

static bool is_scanout(const uda_usage_atom *atom)
{
	return atom->vendor == UDA_VENDOR_NONE &&
	       (atom->name == UDA_USAGE_SCANOUT || atom->name == UDA_USAGE_SCANOUT_OVERLAY ||
	        atom->name == UDA_USAGE_SCANOUT_CURSOR);
}

static bool is_cpu(const uda_usage_atom *atom)
{
	if (atom->vendor != UDA_VENDOR_NONE || (atom->name != UDA_USAGE_CPU_READ && atom->name != UDA_USAGE_CPU_WRITE))
		return false;
	uint32_t frequency;
	memcpy(&frequency, atom->payload, 4);
	return frequency != UDA_CPU_ACCESS_NEVER;
}

/* Bits per pixel of a format a dumb buffer can hold: one plane of whole
 * pixels. 0 otherwise. */
static uint32_t dumb_bpp(uint32_t fourcc)
{
	uda_format_info format;
	if (uda_format_get_info(fourcc, &format) != UDA_SUCCESS || format.plane_count != 1 ||
	    format.planes[0].block_width != 1)
		return 0;
	return format.planes[0].bytes_per_block * 8;
}

/* The pitch the kernel gives a dumb buffer of the assertion, asked by
 * making one. */
static uda_result probe_dumb_pitch(struct drm_device *device, uda_context *ctx, const uda_assertion *assertion,
                                   uint32_t *out_pitch)
{
	const uint32_t bpp = dumb_bpp(assertion->format);
	if (!device->fd_is_primary)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "drm: %s: no primary node for dumb buffers",
		                             device->node.bus);
	if (!bpp)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "drm: dumb buffers hold single-plane formats of whole pixels only");
	struct drm_dumb_buffer dumb;
	const int error = device->io->create_dumb(device->io->data, device->fd, assertion->width, assertion->height,
	                                          bpp, &dumb);
	if (error)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "drm: no %ux%u dumb buffer: %s",
		                             assertion->width, assertion->height, strerror(-error));
	device->io->close_handle(device->io->data, device->fd, dumb.handle);
	*out_pitch = dumb.pitch;
	return UDA_SUCCESS;
}

static uda_result append_dumb_set(struct drm_device *device, uda_context *ctx, const uda_assertion *assertion,
                                  bool scanout, uda_capability_set_list *out)
{
	uint32_t pitch = 0;
	uda_result result = probe_dumb_pitch(device, ctx, assertion, &pitch);
	if (result != UDA_SUCCESS)
		return result;
	uda_capability_set_builder *b;
	result = uda_capability_set_builder_create(ctx, &b);
	if (result != UDA_SUCCESS)
		return result;
	result = uda_capability_set_builder_add_layout(b, DRM_FORMAT_MOD_LINEAR, UDA_CAPABILITY_FLAG_REQUIRED);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_add_u32(b, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF,
		                                            UDA_CAPABILITY_FLAG_REQUIRED);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_add_u32(b, UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE,
		                                            UDA_CAPABILITY_FLAG_REQUIRED);
	const struct drm_display_record *display = &device->display;
	const struct {
		uda_constraint name;
		uint64_t value;
	} constraints[] = {
		/* The kernel's pitch and no other: pinned. */
		{UDA_CONSTRAINT_MIN_PITCH, pitch},
		{UDA_CONSTRAINT_MAX_PITCH, pitch},
		{UDA_CONSTRAINT_MAX_PLANES, 1},
		{UDA_CONSTRAINT_MAX_WIDTH, scanout ? display->max_width : 0},
		{UDA_CONSTRAINT_MAX_HEIGHT, scanout ? display->max_height : 0},
		{UDA_CONSTRAINT_PITCH_ALIGNMENT, scanout ? display->pitch_alignment : 0},
	};
	for (size_t i = 0; result == UDA_SUCCESS && i < sizeof(constraints) / sizeof(constraints[0]); i++) {
		if (constraints[i].value)
			result = uda_capability_set_builder_set_constraint(b, constraints[i].name, constraints[i].value);
	}
	if (result == UDA_SUCCESS)
		result = uda_capability_set_list_append_set(out, b);
	uda_capability_set_builder_destroy(b);
	return result;
}

/* Scanout and CPU access together: the display must take LINEAR for the
 * format, and the memory is a dumb buffer. */
static uda_result require_linear_scanout(struct drm_device *device, uda_context *ctx,
                                         const uda_assertion *assertion, const uda_usage *scanout)
{
	uda_capability_set_list *sets;
	uda_result result = uda_capability_set_list_create(ctx, &sets);
	if (result == UDA_SUCCESS)
		result = drm_scanout_capability_sets(&device->display, ctx, assertion, scanout, sets);
	uint32_t count = 0;
	if (result == UDA_SUCCESS)
		result = uda_capability_set_list_get_count(sets, &count);
	bool linear = false;
	for (uint32_t i = 0; result == UDA_SUCCESS && i < count && !linear; i++)
		linear = uda_backend_set_is_linear(sets, i);
	uda_capability_set_list_destroy(sets);
	if (result == UDA_SUCCESS && !linear)
		result = uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                               "drm: the planes scan this format out tiled only, which the CPU cannot "
		                               "draw");
	return result;
}

static uda_result drm_get_capability_sets(void *data, uda_context *ctx, const uda_assertion *assertion,
                                          const uda_usage *usage, uda_capability_set_list *out)
{
	struct drm_device *device = data;
	uda_usage_atom scanout_atoms[UDA_MAX_USAGE_ATOMS];
	uint32_t scanout_count = 0;
	bool cpu = false;
	for (uint32_t i = 0; i < usage->atom_count; i++) {
		const uda_usage_atom *atom = &usage->atoms[i];
		if (is_scanout(atom))
			scanout_atoms[scanout_count++] = *atom;
		else if (is_cpu(atom))
			cpu = true;
		else if (!(atom->vendor == UDA_VENDOR_NONE &&
		           (atom->name == UDA_USAGE_CPU_READ || atom->name == UDA_USAGE_CPU_WRITE)))
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
			                             "drm: usage %04x:%u is not scanout or CPU access", atom->vendor,
			                             atom->name);
	}
	if (!scanout_count && !cpu)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "drm: no scanout or CPU usage asked");
	if (!scanout_count)
		return append_dumb_set(device, ctx, assertion, false, out);
	if (!device->has_display)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "drm: %s has no display planes to read",
		                             device->node.bus);
	const uda_usage scanout = {UDA_STRUCTURE_TYPE_USAGE, NULL, scanout_count, scanout_atoms};
	if (!cpu)
		return drm_scanout_capability_sets(&device->display, ctx, assertion, &scanout, out);
	uda_result result = require_linear_scanout(device, ctx, assertion, &scanout);
	return result == UDA_SUCCESS ? append_dumb_set(device, ctx, assertion, true, out) : result;
}

static void drm_free(void *data, void *allocation)
{
	struct drm_device *device = data;
	struct drm_allocation *a = allocation;
	if (a->handle)
		release_handle(device, a->handle);
	if (a->dma_buf >= 0)
		close(a->dma_buf);
	free(a);
}

static uda_result pitch_fits(uda_context *ctx, const uda_capability_set_list *sets, uint32_t index, uint32_t pitch)
{
	uint64_t alignment = 1, min_pitch = 0, max_pitch = UINT64_MAX;
	uda_backend_get_constraint(sets, index, UDA_CONSTRAINT_PITCH_ALIGNMENT, 1, &alignment);
	uda_backend_get_constraint(sets, index, UDA_CONSTRAINT_MIN_PITCH, 0, &min_pitch);
	uda_backend_get_constraint(sets, index, UDA_CONSTRAINT_MAX_PITCH, UINT64_MAX, &max_pitch);
	if (pitch % alignment || pitch < min_pitch || pitch > max_pitch)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "drm: the kernel's pitch %u breaks the set (alignment %llu, %llu..%llu)",
		                             pitch, (unsigned long long)alignment, (unsigned long long)min_pitch,
		                             (unsigned long long)max_pitch);
	return UDA_SUCCESS;
}

static uda_result drm_allocate(void *data, uda_context *ctx, const uda_assertion *assertion,
                               const uda_capability_set_list *sets, uint32_t index, uda_backend_allocation *out)
{
	struct drm_device *device = data;
	const uint32_t bpp = dumb_bpp(assertion->format);
	if (!device->fd_is_primary || !bpp || !uda_backend_set_is_linear(sets, index) ||
	    !uda_backend_set_has_u32(sets, index, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "drm: allocates only dumb buffers: linear, one plane, as DMA-BUFs, on a "
		                             "primary node");
	struct drm_allocation *a = calloc(1, sizeof(*a));
	if (!a)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	a->dma_buf = -1;
	struct drm_dumb_buffer dumb;
	int error = device->io->create_dumb(device->io->data, device->fd, assertion->width, assertion->height, bpp,
	                                    &dumb);
	if (error) {
		free(a);
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "drm: DRM_IOCTL_MODE_CREATE_DUMB: %s",
		                             strerror(-error));
	}
	if (!hold_handle(device, dumb.handle)) {
		device->io->close_handle(device->io->data, device->fd, dumb.handle);
		free(a);
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	a->handle = dumb.handle;
	a->size = dumb.size;
	uda_result result = pitch_fits(ctx, sets, index, dumb.pitch);
	if (result == UDA_SUCCESS) {
		a->dma_buf = device->io->export_handle(device->io->data, device->fd, dumb.handle);
		if (a->dma_buf < 0)
			result = uda_context_set_error(ctx, UDA_ERROR_BACKEND, "drm: PRIME export: %s",
			                               strerror(-a->dma_buf));
	}
	if (result != UDA_SUCCESS) {
		drm_free(device, a);
		return result;
	}
	out->data = a;
	out->metadata.size = dumb.size;
	out->metadata.plane_count = 1;
	out->metadata.planes[0] = (uda_plane_layout){0, dumb.pitch};
	return UDA_SUCCESS;
}

static uda_result drm_import(void *data, uda_context *ctx, int fd, bool take_fd, const uda_allocation_metadata *m,
                             const uda_capability_set_list *sets, const void *next, uda_backend_allocation *out)
{
	struct drm_device *device = data;
	if (next)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "drm: no import extension structs");
	if (m->handle_type != UDA_HANDLE_TYPE_DMA_BUF)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "drm: imports DMA-BUFs only");
	struct drm_allocation *a = calloc(1, sizeof(*a));
	if (!a)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	a->size = m->size;
	a->dma_buf = take_fd ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (a->dma_buf < 0) {
		free(a);
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "drm: dup: %s", strerror(errno));
	}
	const int error = device->io->import_dma_buf(device->io->data, device->fd, a->dma_buf, &a->handle);
	const bool held = !error && hold_handle(device, a->handle);
	if (!held) {
		/* Out of memory after the import: a handle nobody held. */
		if (!error)
			device->io->close_handle(device->io->data, device->fd, a->handle);
		/* A taken fd goes back to the core, which closes it. */
		a->handle = 0;
		if (take_fd)
			a->dma_buf = -1;
		drm_free(device, a);
		return error ? uda_context_set_error(ctx, UDA_ERROR_BACKEND, "drm: PRIME import: %s", strerror(-error))
		             : uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	out->took_fd = take_fd;
	out->data = a;
	return UDA_SUCCESS;
}

static uda_result drm_export_fd(void *data, uda_context *ctx, void *allocation, uda_handle_type type, int *out_fd)
{
	struct drm_allocation *a = allocation;
	if (type != UDA_HANDLE_TYPE_DMA_BUF)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "drm: exports DMA-BUFs only");
	*out_fd = fcntl(a->dma_buf, F_DUPFD_CLOEXEC, 0);
	if (*out_fd < 0)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "drm: dup: %s", strerror(errno));
	return UDA_SUCCESS;
}

static uda_result drm_map(void *data, uda_context *ctx, void *allocation, uint32_t access, void **out_pointer)
{
	struct drm_allocation *a = allocation;
	const int protection = ((access & UDA_ACCESS_READ) ? PROT_READ : 0) | ((access & UDA_ACCESS_WRITE) ? PROT_WRITE : 0);
	void *pointer = mmap(NULL, a->size, protection, MAP_SHARED, a->dma_buf, 0);
	if (pointer == MAP_FAILED)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "drm: the DMA-BUF does not map: %s",
		                             strerror(errno));
	*out_pointer = pointer;
	return UDA_SUCCESS;
}

static void drm_unmap(void *data, void *allocation, void *pointer)
{
	struct drm_allocation *a = allocation;
	munmap(pointer, a->size);
}

static uda_result cpu_access(struct drm_device *device, uda_context *ctx, struct drm_allocation *a, uint32_t access,
                             bool start)
{
	const int error = device->io->sync(device->io->data, a->dma_buf, start, access & UDA_ACCESS_READ,
	                                   access & UDA_ACCESS_WRITE);
	if (error)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "drm: DMA_BUF_IOCTL_SYNC: %s", strerror(-error));
	return UDA_SUCCESS;
}

static uda_result drm_begin_cpu_access(void *data, uda_context *ctx, void *allocation, uint32_t access)
{
	return cpu_access(data, ctx, allocation, access, true);
}

static uda_result drm_end_cpu_access(void *data, uda_context *ctx, void *allocation, uint32_t access)
{
	return cpu_access(data, ctx, allocation, access, false);
}

static uda_result drm_get_native(void *data, uda_context *ctx, void *allocation, void *out_native)
{
	struct drm_device *device = data;
	const struct drm_allocation *a = allocation;
	uda_drm_native *native = out_native;
	if (native->type != UDA_STRUCTURE_TYPE_DRM_NATIVE || native->next)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "drm: native objects are uda_drm_native");
	native->drm_fd = device->fd;
	native->gem_handle = a->handle;
	return UDA_SUCCESS;
}

static void drm_destroy(void *data)
{
	struct drm_device *device = data;
	free(device->handles);
	pthread_mutex_destroy(&device->handles_lock);
	drm_display_record_finish(&device->display);
	device->io->close(device->io->data, device->fd);
	free(device);
}

static const uda_device_interface drm_device_interface = {
	.version = UDA_DEVICE_INTERFACE_VERSION_1,
	.get_capability_sets = drm_get_capability_sets,
	.destroy = drm_destroy,
	.allocate = drm_allocate,
	.import = drm_import,
	.free = drm_free,
	.export_fd = drm_export_fd,
	.map = drm_map,
	.unmap = drm_unmap,
	.begin_cpu_access = drm_begin_cpu_access,
	.end_cpu_access = drm_end_cpu_access,
	.get_native = drm_get_native,
};

static void open_node(struct drm_device *device, uda_context *ctx)
{
	const struct drm_io *io = device->io;
	device->fd = -1;
	if (device->node.primary.present) {
		device->fd = io->open(io->data, device->node.primary_path);
		device->fd_is_primary = device->fd >= 0;
		if (device->fd < 0)
			uda_context_log(ctx, UDA_LOG_INFO, "drm: %s: %s", device->node.primary_path, strerror(-device->fd));
	}
	if (device->fd < 0 && device->node.render.present)
		device->fd = io->open(io->data, device->node.render_path);
	if (device->fd_is_primary) {
		const int error = io->read_display(io->data, device->fd, &device->display);
		device->has_display = error == 0 && device->display.plane_count > 0;
		if (error)
			uda_context_log(ctx, UDA_LOG_INFO, "drm: %s: no display planes: %s", device->node.primary_path,
			                strerror(-error));
	}
}

uda_result drm_device_add(uda_context *ctx, const struct drm_node_record *node, const struct drm_io *io,
                          uda_device **out_device)
{
	struct drm_device *device = calloc(1, sizeof(*device));
	if (!device)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	device->io = io;
	device->node = *node;
	pthread_mutex_init(&device->handles_lock, NULL);
	open_node(device, ctx);
	if (device->fd < 0) {
		pthread_mutex_destroy(&device->handles_lock);
		free(device);
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "drm: %s: no node opens", node->bus);
	}
	char driver[32] = "drm";
	io->driver_name(io->data, device->fd, driver, sizeof(driver));
	char name[DRM_IO_PATH_MAX + 48], driver_key[48];
	snprintf(name, sizeof(name), "%s display (%s)", driver,
	         device->fd_is_primary ? node->primary_path : node->render_path);
	snprintf(driver_key, sizeof(driver_key), "drm-driver:%s", driver);
	uda_device_create_info info = {
		.type = UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.name = name,
		.backend_name = DRM_BACKEND_NAME,
		.api = UDA_DEVICE_API_DRM,
		.drm_primary = node->primary,
		.drm_render = node->render,
		.interface = &drm_device_interface,
		.device_data = device,
	};
	/* Replaced by the GPU's UUID where a Vulkan or GL device shares a
	 * node (uda_context_add_device). */
	uda_backend_uuid_from_name(node->bus, info.device_uuid);
	uda_backend_uuid_from_name(driver_key, info.driver_uuid);
	uda_result result = uda_context_add_device(ctx, &info, out_device);
	if (result != UDA_SUCCESS)
		drm_destroy(device);
	return result;
}

uint32_t drm_devices_add_all(uda_context *ctx, const struct drm_io *io)
{
	struct drm_node_record nodes[DRM_IO_MAX_DEVICES];
	const uint32_t count = io->list(io->data, nodes, DRM_IO_MAX_DEVICES);
	uint32_t added = 0;
	for (uint32_t i = 0; i < count; i++)
		added += drm_device_add(ctx, &nodes[i], io, NULL) == UDA_SUCCESS;
	return added;
}
