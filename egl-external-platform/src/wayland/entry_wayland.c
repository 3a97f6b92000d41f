/* The module of EGL_PLATFORM_WAYLAND_KHR: displays of wl_displays and
 * window surfaces of wl_egl_windows, rendered into uda's buffers. A driver
 * that loads external platforms (NVIDIA's libEGL) picks it up from its
 * manifest, 50_uda_wayland.json; uda's host in front of Mesa uses it only
 * when asked (UDA_EGL_WAYLAND=1), since Mesa has a Wayland platform of its
 * own. */
#include "wayland_platform.h"

PUBLIC_EXPORT EGLBoolean loadEGLExternalPlatform(int major, int minor, const EGLExtDriver *driver,
                                                 EGLExtPlatform *platform_out);

EGLBoolean loadEGLExternalPlatform(int major, int minor, const EGLExtDriver *driver, EGLExtPlatform *platform_out)
{
	return platform_load(major, minor, driver, platform_out, &platform_module_wayland);
}
