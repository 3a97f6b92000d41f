/* Pixmap surfaces over uda allocations: GL renders into a pbuffer, the
 * allocation's content is copied in when the surface is first made
 * current and back at eglWaitClient / eglWaitGL, EGL's point where pixmap
 * rendering is complete. */
#include <stdlib.h>
#include <string.h>

#include "surface_internal.h"

EGLSurface create_pixmap(EGLDisplay dpy, EGLConfig config, void *native, const EGLAttrib *attribs)
{
	struct platform_display *display = platform_display_get(dpy, true);
	if (!display)
		return EGL_NO_SURFACE;
	struct uda_platform *platform = display->platform;
	uda_context *ctx = uda_device_get_context(display->device);
	if (!native || uda_context_validate_allocation(ctx, native) != UDA_SUCCESS) {
		platform_set_error(platform, EGL_BAD_NATIVE_PIXMAP,
		                   "eglCreatePixmapSurface: %p is not a uda_allocation of the display's context", native);
		return EGL_NO_SURFACE;
	}
	if (!check_attribs(platform, attribs, "eglCreatePixmapSurface"))
		return EGL_NO_SURFACE;
	uda_allocation *pixmap = native;
	uda_allocation_metadata metadata = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	uda_allocation_get_metadata(pixmap, &metadata);
	if (!config_renders_format(display, config, metadata.format)) {
		platform_set_error(platform, EGL_BAD_MATCH, "eglCreatePixmapSurface: the config does not render format 0x%08x",
		                   metadata.format);
		return EGL_NO_SURFACE;
	}
	struct platform_surface *surface = calloc(1, sizeof(*surface));
	if (!surface) {
		platform_set_error(platform, EGL_BAD_ALLOC, "out of memory");
		return EGL_NO_SURFACE;
	}
	surface->release_fence = -1;
	surface->display = display;
	surface->kind = PLATFORM_SURFACE_PIXMAP;
	surface->config = config;
	surface->pixmap = pixmap;
	surface->width = metadata.width;
	surface->height = metadata.height;
	EGLSurface handle = add_surface(display, surface);
	if (handle == EGL_NO_SURFACE)
		free(surface);
	return handle;
}

/* A pixmap's content goes into its pbuffer when it is first bound, and
 * back when the application waits for GL or unbinds it. Both need the
 * context the surface is current with. */
static struct gl_target *pixmap_target(struct platform_surface *surface)
{
	platform_busy++;
	struct gl_target *target = gl_target_get(surface->display, surface->targets, &surface->target_count,
	                                         PLATFORM_MAX_TARGETS, 0, surface->pixmap, NULL);
	platform_busy--;
	return target;
}

void pixmap_load(struct platform_surface *surface)
{
	if (surface->pixmap_loaded)
		return;
	struct gl_target *target = pixmap_target(surface);
	if (!target)
		return;
	gl_target_copy_to_surface(surface->display, target, surface->width, surface->height);
	surface->pixmap_loaded = true;
}

void pixmap_store(struct platform_surface *surface)
{
	struct uda_platform *platform = surface->display->platform;
	if (platform->egl.GetCurrentSurface(EGL_DRAW) != surface->internal)
		return;
	struct gl_target *target = pixmap_target(surface);
	if (!target)
		return;
	gl_target_copy_from_surface(surface->display, target, surface->width, surface->height);
	platform->gl.Finish();
}
