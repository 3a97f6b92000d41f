/*
 * A stand-in for a version-0 libgbm (Mesa's loader before backend ABI 1):
 * loads uda_gbm.so as the loader does, asks for a device of backend
 * version 0, and makes a BO and a surface from modifier lists with usage
 * 0, as such a loader passes them (meaning scanout). A version past the
 * backend's is refused. Prints "abi0 ok" and exits 0, or says what failed.
 *
 *   gbm-abi0-loader MODULE
 */
#include <dlfcn.h>
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gbm_backend_abi.h"

static uint32_t canonicalize(uint32_t format)
{
	return format == GBM_BO_FORMAT_XRGB8888   ? GBM_FORMAT_XRGB8888
	       : format == GBM_BO_FORMAT_ARGB8888 ? GBM_FORMAT_ARGB8888
	                                          : format;
}

static int fail(const char *what)
{
	fprintf(stderr, "gbm-abi0-loader: %s (%s)\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return fail("usage: gbm-abi0-loader MODULE");
	void *module = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!module)
		return fail(dlerror());
	const struct gbm_backend *(*get_backend)(const struct gbm_core *) =
		(const struct gbm_backend *(*)(const struct gbm_core *))dlsym(module, "gbmint_get_backend");
	static const struct gbm_core core = {{0, canonicalize}};
	const struct gbm_backend *backend = get_backend ? get_backend(&core) : NULL;
	if (!backend || backend->v0.backend_version != UDA_GBM_BACKEND_ABI_VERSION)
		return fail("no backend of version 1");
	/* No display, as in CI: scanout is then a hint. */
	const int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail("open /dev/null");
	if (backend->v0.create_device(fd, UDA_GBM_BACKEND_ABI_VERSION + 1))
		return fail("a version past the backend's was taken");
	struct gbm_device *device = backend->v0.create_device(fd, 0);
	if (!device)
		return fail("no device for a version-0 loader");
	if (device->v0.backend_version != 0)
		return fail("the device says another version than the loader's");
	const uint64_t linear = DRM_FORMAT_MOD_LINEAR;
	struct gbm_bo *bo = device->v0.bo_create(device, 64, 64, GBM_FORMAT_XBGR8888, 0, &linear, 1);
	if (!bo)
		return fail("no BO from a modifier list with usage 0");
	if (device->v0.bo_get_modifier(bo) != DRM_FORMAT_MOD_LINEAR)
		return fail("the BO is not of the modifier asked for");
	device->v0.bo_destroy(bo);
	struct gbm_surface *surface =
		device->v0.surface_create(device, 64, 64, GBM_FORMAT_XBGR8888, 0, &linear, 1);
	if (!surface)
		return fail("no surface from a modifier list with usage 0");
	device->v0.surface_destroy(surface);
	device->v0.destroy(device);
	close(fd);
	puts("abi0 ok");
	return 0;
}
