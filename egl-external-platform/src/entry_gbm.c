/* The module of EGL_PLATFORM_GBM_KHR for uda's gbm_devices (GBM_BACKEND=uda),
 * for a driver that loads external platforms itself and routes GBM displays
 * to the platforms declaring that enum: the same platform as entry_uda.c's,
 * declared for GBM. A gbm_device of another backend gets no display from
 * it, and the driver asks its other platforms. (NVIDIA's 580.159 loaded it
 * and dropped it unused, as it did the uda one: docs/hardware.md.) */
#include "platform.h"

PUBLIC_EXPORT EGLBoolean loadEGLExternalPlatform(int major, int minor, const EGLExtDriver *driver,
                                                 EGLExtPlatform *platform_out);

EGLBoolean loadEGLExternalPlatform(int major, int minor, const EGLExtDriver *driver, EGLExtPlatform *platform_out)
{
	return platform_load(major, minor, driver, platform_out, &platform_module_gbm);
}
