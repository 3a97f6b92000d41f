/* uda_surface_sets_v1 on the compositor's side: a format's capability
 * sets, serialized into a sealed memfd the client maps read-only. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-server-core.h>

#include <uda/uda_wayland_server.h>

#include "uda-allocation-v1-server-protocol.h"

uda_result uda_wayland_surface_sets_send_format(struct wl_resource *resource, uint32_t format,
                                                const uda_capability_set_list *sets)
{
	if (!resource || !sets)
		return UDA_ERROR_INVALID_ARGUMENT;
	size_t size = 0;
	uda_result result = uda_capability_set_list_serialize(sets, NULL, 0, &size);
	if (result != UDA_SUCCESS && result != UDA_ERROR_BUFFER_TOO_SMALL)
		return result;
	uint8_t *bytes = malloc(size ? size : 1);
	if (!bytes)
		return UDA_ERROR_OUT_OF_MEMORY;
	result = uda_capability_set_list_serialize(sets, bytes, size, &size);
	int fd = result == UDA_SUCCESS ? memfd_create("uda-surface-sets", MFD_CLOEXEC | MFD_ALLOW_SEALING) : -1;
	if (result == UDA_SUCCESS && (fd < 0 || write(fd, bytes, size) != (ssize_t)size ||
	                              fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL)))
		result = UDA_ERROR_OUT_OF_MEMORY;
	free(bytes);
	if (result == UDA_SUCCESS)
		uda_surface_sets_v1_send_format_sets(resource, format, fd, (uint32_t)size); /* sends a copy */
	if (fd >= 0)
		close(fd);
	return result;
}

void uda_wayland_surface_sets_send_done(struct wl_resource *resource)
{
	if (resource)
		uda_surface_sets_v1_send_done(resource);
}
