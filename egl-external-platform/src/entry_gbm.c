/* The module of EGL_PLATFORM_GBM_KHR for uda's gbm_devices (GBM_BACKEND=uda),
 * for a driver that routes only the platform enums it knows to external
 * platforms (NVIDIA's): the same platform as entry_uda.c's, declared for
 * GBM. A gbm_device of another backend gets no display from it, and the
 * driver asks its other platforms. */
#include "platform.h"

PUBLIC_EXPORT EGLBoolean loadEGLExternalPlatform(int major, int minor, const EGLExtDriver *driver,
                                                 EGLExtPlatform *platform_out);

EGLBoolean loadEGLExternalPlatform(int major, int minor, const EGLExtDriver *driver, EGLExtPlatform *platform_out)
{
	return platform_load(major, minor, driver, platform_out, EGL_PLATFORM_GBM_KHR);
}
