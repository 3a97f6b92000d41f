/*
 * GBM objects as native display and windows, for programs that render
 * with EGL on GBM (eglGetPlatformDisplay(EGL_PLATFORM_GBM_KHR, gbm_device),
 * window surfaces of gbm_surfaces) when their gbm_device is uda's
 * (GBM_BACKEND=uda). Such a display is the uda display of the GBM device's
 * GL device, and a gbm_surface's window is the uda_surface behind it.
 *
 * uda_gbm.so is not linked: it is found only if libgbm loaded it, by its
 * soname, so the platform costs GBM-less programs nothing. A gbm_device of
 * another backend is told apart by uda_gbm itself and left alone.
 */
#include <dlfcn.h>

#include <uda/uda_gbm.h>

#include "platform.h"

struct gbm_functions {
	uda_result (*get_render_device)(struct gbm_device *, uda_device_api, uda_device **);
	uda_result (*get_surface)(struct gbm_surface *, uda_surface **);
};

static bool gbm_functions_find(struct gbm_functions *out)
{
	void *module = dlopen("uda_gbm.so", RTLD_LAZY | RTLD_NOLOAD);
	if (!module)
		return false;
	out->get_render_device = (uda_result(*)(struct gbm_device *, uda_device_api, uda_device **))dlsym(
	    module, "uda_gbm_device_get_render_device");
	out->get_surface = (uda_result(*)(struct gbm_surface *, uda_surface **))dlsym(module, "uda_gbm_surface_get_surface");
	/* libgbm holds the module while any of its devices lives. */
	dlclose(module);
	return out->get_render_device && out->get_surface;
}

uda_device *gbm_native_display_device(void *native)
{
	struct gbm_functions gbm;
	uda_device *gl = NULL;
	if (!native || !gbm_functions_find(&gbm) ||
	    gbm.get_render_device(native, UDA_DEVICE_API_GL, &gl) != UDA_SUCCESS)
		return NULL;
	return gl;
}

uda_device *gbm_native_guess_device(void *native)
{
	/* libgbm makes the first word of every gbm_device a pointer to
	 * gbm_create_device, so that EGL can tell a gbm_device among native
	 * displays of any kind (Mesa's libEGL and egl-gbm test the same
	 * word); only then is the rest of it read. */
	void *libgbm = dlopen("libgbm.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (!native || !libgbm)
		return NULL;
	void *create_device = dlsym(libgbm, "gbm_create_device");
	dlclose(libgbm);
	return create_device && *(void **)native == create_device ? gbm_native_display_device(native) : NULL;
}

uda_surface *gbm_native_window_surface(void *native)
{
	struct gbm_functions gbm;
	uda_surface *surface = NULL;
	if (!native || !gbm_functions_find(&gbm) || gbm.get_surface(native, &surface) != UDA_SUCCESS)
		return NULL;
	return surface;
}
