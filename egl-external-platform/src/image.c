/* EGLImages of uda allocations (target EGL_UDA_ALLOCATION); every other
 * target is the driver's. */
#include <stdlib.h>

#include "gl_target.h"
#include "image.h"

static EGLImage create_image(struct platform_display *display, EGLContext context, EGLClientBuffer buffer,
                             const EGLAttrib *attribs)
{
	struct uda_platform *platform = display->platform;
	if (context != EGL_NO_CONTEXT) {
		platform_set_error(platform, EGL_BAD_CONTEXT, "eglCreateImage: EGL_UDA_ALLOCATION takes EGL_NO_CONTEXT");
		return EGL_NO_IMAGE;
	}
	for (const EGLAttrib *a = attribs; a && a[0] != EGL_NONE; a += 2) {
		/* Memory of an allocation is always preserved. */
		if (a[0] != EGL_IMAGE_PRESERVED_KHR) {
			platform_set_error(platform, EGL_BAD_PARAMETER, "eglCreateImage: attribute 0x%lx",
			                   (unsigned long)a[0]);
			return EGL_NO_IMAGE;
		}
	}
	uda_context *ctx = uda_device_get_context(display->device);
	if (!buffer || uda_context_validate_allocation(ctx, buffer) != UDA_SUCCESS) {
		platform_set_error(platform, EGL_BAD_PARAMETER,
		                   "eglCreateImage: %p is not a uda_allocation of the display's context", (void *)buffer);
		return EGL_NO_IMAGE;
	}
	struct platform_image *image = calloc(1, sizeof(*image));
	if (!image) {
		platform_set_error(platform, EGL_BAD_ALLOC, "out of memory");
		return EGL_NO_IMAGE;
	}
	image->display = display;
	if (gl_image_from_allocation(display, (uda_allocation *)buffer, &image->import, &image->internal,
	                             &image->owns_image) != EGL_SUCCESS) {
		free(image);
		return EGL_NO_IMAGE;
	}
	pthread_mutex_lock(&platform->lock);
	image->next = display->images;
	display->images = image;
	pthread_mutex_unlock(&platform->lock);
	return image->internal;
}

EGLImage hook_create_image(EGLDisplay dpy, EGLContext context, EGLenum target, EGLClientBuffer buffer,
                           const EGLAttrib *attribs)
{
	struct platform_display *display = platform_display_get(dpy, true);
	if (!display)
		return EGL_NO_IMAGE;
	if (target == EGL_UDA_ALLOCATION)
		return create_image(display, context, buffer, attribs);
	struct uda_platform *platform = display->platform;
	if (!platform->egl.CreateImage) {
		platform_set_error(platform, EGL_BAD_PARAMETER, "eglCreateImage: the driver has no EGL 1.5 images");
		return EGL_NO_IMAGE;
	}
	return platform->egl.CreateImage(display->internal, context, target, buffer, attribs);
}

EGLImageKHR hook_create_image_khr(EGLDisplay dpy, EGLContext context, EGLenum target, EGLClientBuffer buffer,
                                  const EGLint *attribs)
{
	struct platform_display *display = platform_display_get(dpy, true);
	if (!display)
		return EGL_NO_IMAGE_KHR;
	if (target != EGL_UDA_ALLOCATION)
		return display->platform->egl.CreateImageKHR(display->internal, context, target, buffer, attribs);
	EGLAttrib wide[PLATFORM_MAX_ATTRIBS * 2 + 1];
	if (!platform_widen_attribs(display->platform, attribs, wide))
		return EGL_NO_IMAGE_KHR;
	return create_image(display, context, buffer, wide);
}

static void image_free(struct platform_image *image)
{
	if (image->owns_image)
		image->display->platform->egl.DestroyImageKHR(image->display->internal, image->internal);
	uda_allocation_destroy(image->import);
	free(image);
}

EGLBoolean hook_destroy_image(EGLDisplay dpy, EGLImage handle)
{
	struct platform_display *display = platform_display_get(dpy, true);
	if (!display)
		return EGL_FALSE;
	struct uda_platform *platform = display->platform;
	pthread_mutex_lock(&platform->lock);
	struct platform_image *found = NULL;
	for (struct platform_image **link = &display->images; *link; link = &(*link)->next) {
		if ((*link)->internal == handle) {
			found = *link;
			*link = found->next;
			break;
		}
	}
	pthread_mutex_unlock(&platform->lock);
	if (!found)
		return platform->egl.DestroyImageKHR(display->internal, handle);
	image_free(found);
	return EGL_TRUE;
}

void platform_image_destroy_all(struct platform_display *display)
{
	pthread_mutex_lock(&display->platform->lock);
	struct platform_image *images = display->images;
	display->images = NULL;
	pthread_mutex_unlock(&display->platform->lock);
	while (images) {
		struct platform_image *next = images->next;
		image_free(images);
		images = next;
	}
}
