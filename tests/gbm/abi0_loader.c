/*
 * A stand-in for a version-0 libgbm (Mesa's loader before backend ABI 1):
 * loads uda_gbm.so as the loader does, asks for a device of backend
 * version 0, and makes a BO and a surface from modifier lists with usage
 * 0, as such a loader passes them (meaning scanout). That they were
 * taken for scanout is read from the backend's debug log (no display
 * here, so it says it left scanout planes out), and a version-1 device
 * given the same lists asks for no scanout. A version past the backend's
 * is refused. Prints "abi0 ok" and exits 0, or says what failed.
 *
 *   gbm-abi0-loader MODULE
 */
#include <dlfcn.h>
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* The backend's log while a BO and a surface are made from a LINEAR list
 * with usage 0 on `device`: how many times it took them for scanout. */
static int scanout_asks(struct gbm_device *device, int *out_count)
{
	static const char said[] = "scanout and cursor planes left out";
	const uint64_t linear = DRM_FORMAT_MOD_LINEAR;
	const int log = memfd_create("gbm-abi0-log", MFD_CLOEXEC);
	const int saved = dup(STDERR_FILENO);
	if (log < 0 || saved < 0 || dup2(log, STDERR_FILENO) < 0)
		return fail("redirect the log");
	struct gbm_bo *bo = device->v0.bo_create(device, 64, 64, GBM_FORMAT_XBGR8888, 0, &linear, 1);
	const uint64_t modifier = bo ? device->v0.bo_get_modifier(bo) : DRM_FORMAT_MOD_INVALID;
	if (bo)
		device->v0.bo_destroy(bo);
	struct gbm_surface *surface = device->v0.surface_create(device, 64, 64, GBM_FORMAT_XBGR8888, 0, &linear, 1);
	if (surface)
		device->v0.surface_destroy(surface);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	if (!bo)
		return fail("no BO from a modifier list with usage 0");
	if (modifier != DRM_FORMAT_MOD_LINEAR)
		return fail("the BO is not of the modifier asked for");
	if (!surface)
		return fail("no surface from a modifier list with usage 0");
	char text[8192] = "";
	const ssize_t length = pread(log, text, sizeof(text) - 1, 0);
	close(log);
	*out_count = 0;
	for (const char *at = text; length > 0 && (at = strstr(at, said)); at += sizeof(said) - 1)
		(*out_count)++;
	return 0;
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
	/* No display, as in CI: scanout is then a hint, which the debug
	 * log names. */
	setenv("UDA_GBM_DEBUG", "1", 1);
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
	int asks = 0;
	if (scanout_asks(device, &asks))
		return 1;
	if (asks != 2) {
		fprintf(stderr, "gbm-abi0-loader: %d of 2 lists with usage 0 were taken for scanout\n", asks);
		return 1;
	}
	device->v0.destroy(device);
	/* A version-1 loader passes its usage as it is. */
	device = backend->v0.create_device(fd, UDA_GBM_BACKEND_ABI_VERSION);
	if (!device)
		return fail("no device for a version-1 loader");
	if (scanout_asks(device, &asks))
		return 1;
	if (asks != 0) {
		fprintf(stderr, "gbm-abi0-loader: usage 0 of a version-1 loader was taken for scanout\n");
		return 1;
	}
	device->v0.destroy(device);
	close(fd);
	puts("abi0 ok");
	return 0;
}
