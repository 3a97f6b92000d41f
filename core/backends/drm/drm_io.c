/* struct drm_io on libdrm and the kernel. Errors are -errno; nothing here
 * decides anything. */
#include <errno.h>
#include <fcntl.h>
#include <linux/dma-buf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "drm_io.h"

static void node_of(const char *path, char *out_path, uda_drm_node *out)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISCHR(st.st_mode))
		return;
	if (strlen(path) >= DRM_IO_PATH_MAX)
		return;
	snprintf(out_path, DRM_IO_PATH_MAX, "%s", path);
	*out = (uda_drm_node){true, major(st.st_rdev), minor(st.st_rdev)};
}

static void bus_of(const drmDevice *device, char *out)
{
	if (device->bustype == DRM_BUS_PCI && device->businfo.pci) {
		const drmPciBusInfo *pci = device->businfo.pci;
		snprintf(out, DRM_IO_PATH_MAX, "pci:%04x:%02x:%02x.%u", pci->domain, pci->bus, pci->dev, pci->func);
	} else if (device->bustype == DRM_BUS_PLATFORM && device->businfo.platform) {
		snprintf(out, DRM_IO_PATH_MAX, "platform:%.50s", device->businfo.platform->fullname);
	} else if (device->bustype == DRM_BUS_HOST1X && device->businfo.host1x) {
		snprintf(out, DRM_IO_PATH_MAX, "host1x:%.50s", device->businfo.host1x->fullname);
	} else {
		/* USB and virtual devices: the node names them in this boot. */
		const char *node = device->available_nodes & (1 << DRM_NODE_PRIMARY) ? device->nodes[DRM_NODE_PRIMARY]
		                                                                       : device->nodes[DRM_NODE_RENDER];
		snprintf(out, DRM_IO_PATH_MAX, "node:%.50s", node);
	}
}

static uint32_t kernel_list(void *data, struct drm_node_record *out, uint32_t capacity)
{
	drmDevicePtr devices[DRM_IO_MAX_DEVICES];
	const int count = drmGetDevices2(0, devices, DRM_IO_MAX_DEVICES);
	if (count <= 0)
		return 0;
	uint32_t listed = 0;
	for (int i = 0; i < count && listed < capacity; i++) {
		struct drm_node_record *record = &out[listed];
		memset(record, 0, sizeof(*record));
		if (devices[i]->available_nodes & (1 << DRM_NODE_PRIMARY))
			node_of(devices[i]->nodes[DRM_NODE_PRIMARY], record->primary_path, &record->primary);
		if (devices[i]->available_nodes & (1 << DRM_NODE_RENDER))
			node_of(devices[i]->nodes[DRM_NODE_RENDER], record->render_path, &record->render);
		bus_of(devices[i], record->bus);
		if (record->primary.present || record->render.present)
			listed++;
	}
	drmFreeDevices(devices, count);
	return listed;
}

static int kernel_open(void *data, const char *path)
{
	const int fd = open(path, O_RDWR | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

static void kernel_close(void *data, int fd)
{
	close(fd);
}

static int kernel_driver_name(void *data, int fd, char *out, uint32_t capacity)
{
	drmVersionPtr version = drmGetVersion(fd);
	if (!version)
		return -errno ? -errno : -EIO;
	snprintf(out, capacity, "%.*s", version->name_len, version->name);
	drmFreeVersion(version);
	return 0;
}

void drm_display_record_finish(struct drm_display_record *display)
{
	for (uint32_t i = 0; i < display->plane_count; i++)
		drm_in_formats_finish(&display->planes[i].formats);
	free(display->planes);
	memset(display, 0, sizeof(*display));
}

static uint64_t property_value(int fd, uint32_t plane_id, const char *name, bool *found)
{
	drmModeObjectPropertiesPtr properties = drmModeObjectGetProperties(fd, plane_id, DRM_MODE_OBJECT_PLANE);
	uint64_t value = 0;
	*found = false;
	for (uint32_t i = 0; properties && i < properties->count_props && !*found; i++) {
		drmModePropertyPtr property = drmModeGetProperty(fd, properties->props[i]);
		if (property && strcmp(property->name, name) == 0) {
			value = properties->prop_values[i];
			*found = true;
		}
		drmModeFreeProperty(property);
	}
	drmModeFreeObjectProperties(properties);
	return value;
}

/* A plane without IN_FORMATS (older drivers) takes its format list with
 * LINEAR only: what scanout of those formats always meant. */
static int read_plane(int fd, uint32_t plane_id, struct drm_plane_record *out)
{
	drmModePlanePtr plane = drmModeGetPlane(fd, plane_id);
	if (!plane)
		return -errno ? -errno : -EIO;
	bool found;
	out->type = (uint32_t)property_value(fd, plane_id, "type", &found);
	if (!found)
		out->type = DRM_PLANE_TYPE_OVERLAY;
	const uint32_t blob_id = (uint32_t)property_value(fd, plane_id, "IN_FORMATS", &found);
	drmModePropertyBlobPtr blob = found && blob_id ? drmModeGetPropertyBlob(fd, blob_id) : NULL;
	int result = 0;
	if (blob) {
		if (drm_in_formats_parse(blob->data, blob->length, &out->formats))
			result = -EINVAL;
		drmModeFreePropertyBlob(blob);
	} else {
		out->formats.pairs = calloc(plane->count_formats ? plane->count_formats : 1, sizeof(*out->formats.pairs));
		if (!out->formats.pairs)
			result = -ENOMEM;
		for (uint32_t i = 0; !result && i < plane->count_formats; i++)
			out->formats.pairs[out->formats.pair_count++] = (struct drm_format_pair){plane->formats[i], 0};
	}
	drmModeFreePlane(plane);
	return result;
}

static int kernel_read_display(void *data, int fd, struct drm_display_record *out)
{
	memset(out, 0, sizeof(*out));
	if (drmSetClientCap(fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1) != 0)
		return -errno;
	drmModeResPtr resources = drmModeGetResources(fd);
	if (!resources)
		return -errno ? -errno : -ENODEV;
	out->max_width = resources->max_width;
	out->max_height = resources->max_height;
	drmModeFreeResources(resources);
	uint64_t cap = 0;
	if (drmGetCap(fd, DRM_CAP_CURSOR_WIDTH, &cap) == 0)
		out->cursor_width = (uint32_t)cap;
	if (drmGetCap(fd, DRM_CAP_CURSOR_HEIGHT, &cap) == 0)
		out->cursor_height = (uint32_t)cap;
	drmModePlaneResPtr planes = drmModeGetPlaneResources(fd);
	if (!planes)
		return -errno ? -errno : -ENODEV;
	int result = 0;
	out->planes = calloc(planes->count_planes ? planes->count_planes : 1, sizeof(*out->planes));
	if (!out->planes)
		result = -ENOMEM;
	for (uint32_t i = 0; !result && i < planes->count_planes; i++) {
		result = read_plane(fd, planes->planes[i], &out->planes[out->plane_count]);
		if (!result)
			out->plane_count++;
	}
	drmModeFreePlaneResources(planes);
	if (result)
		drm_display_record_finish(out);
	return result;
}

static int kernel_create_dumb(void *data, int fd, uint32_t width, uint32_t height, uint32_t bpp,
                              struct drm_dumb_buffer *out)
{
	struct drm_mode_create_dumb create = {.width = width, .height = height, .bpp = bpp};
	if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create) != 0)
		return -errno;
	*out = (struct drm_dumb_buffer){create.handle, create.pitch, create.size};
	return 0;
}

static void kernel_close_handle(void *data, int fd, uint32_t handle)
{
	struct drm_gem_close request = {.handle = handle};
	drmIoctl(fd, DRM_IOCTL_GEM_CLOSE, &request);
}

static int kernel_export_handle(void *data, int fd, uint32_t handle)
{
	int dma_buf = -1;
	if (drmPrimeHandleToFD(fd, handle, DRM_CLOEXEC | DRM_RDWR, &dma_buf) != 0)
		return -errno ? -errno : -EIO;
	return dma_buf;
}

static int kernel_import_dma_buf(void *data, int fd, int dma_buf, uint32_t *out_handle)
{
	return drmPrimeFDToHandle(fd, dma_buf, out_handle) == 0 ? 0 : (-errno ? -errno : -EIO);
}

static int kernel_sync(void *data, int dma_buf, bool start, bool read, bool write)
{
	struct dma_buf_sync sync = {
		.flags = (start ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) | (read ? DMA_BUF_SYNC_READ : 0) |
		         (write ? DMA_BUF_SYNC_WRITE : 0),
	};
	return drmIoctl(dma_buf, DMA_BUF_IOCTL_SYNC, &sync) == 0 ? 0 : -errno;
}

const struct drm_io drm_io_kernel = {
	.list = kernel_list,
	.open = kernel_open,
	.close = kernel_close,
	.driver_name = kernel_driver_name,
	.read_display = kernel_read_display,
	.create_dumb = kernel_create_dumb,
	.close_handle = kernel_close_handle,
	.export_handle = kernel_export_handle,
	.import_dma_buf = kernel_import_dma_buf,
	.sync = kernel_sync,
};
