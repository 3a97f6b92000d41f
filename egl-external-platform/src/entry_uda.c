/* The module of EGL_PLATFORM_UDA: displays of uda devices, window surfaces
 * of uda_surfaces, pixmaps and images of allocations. */
#include "platform.h"

PUBLIC_EXPORT EGLBoolean loadEGLExternalPlatform(int major, int minor, const EGLExtDriver *driver,
                                                 EGLExtPlatform *platform_out);

EGLBoolean loadEGLExternalPlatform(int major, int minor, const EGLExtDriver *driver, EGLExtPlatform *platform_out)
{
	return platform_load(major, minor, driver, platform_out, &platform_module_uda);
}
