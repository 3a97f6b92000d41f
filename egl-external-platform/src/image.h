/* EGLImages of uda allocations (image.c). */
#ifndef UDA_EGL_IMAGE_H
#define UDA_EGL_IMAGE_H

#include "platform.h"

struct platform_image {
	struct platform_display *display;
	struct platform_image *next;
	EGLImage internal;
	uda_allocation *import;
	bool owns_image;
};

EGLImage hook_create_image(EGLDisplay dpy, EGLContext context, EGLenum target, EGLClientBuffer buffer,
                           const EGLAttrib *attribs);
EGLImageKHR hook_create_image_khr(EGLDisplay dpy, EGLContext context, EGLenum target, EGLClientBuffer buffer,
                                  const EGLint *attribs);
EGLBoolean hook_destroy_image(EGLDisplay dpy, EGLImage image);
void platform_image_destroy_all(struct platform_display *display);

#endif
