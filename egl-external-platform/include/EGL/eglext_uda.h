/*
 * EGL tokens of the uda platform (egl-external-platform/).
 *
 * Not registered with Khronos. The values come from a block far above the
 * registry's highest allocation (0x35xx in 2026), so they cannot collide
 * with a registered enum; they would move to a registered block if the
 * extensions were ever registered.
 *
 * EGL_UDA_platform_uda (client extension)
 *   eglGetPlatformDisplay(EGL_PLATFORM_UDA, (void *)uda_device *, attribs):
 *   the display of that device (a GL device, or any device whose hardware
 *   has one). Window surfaces take a uda_surface * as native window: GL
 *   renders, eglSwapBuffers queues the finished buffer to the surface's
 *   consumer. Pixmap surfaces take a uda_allocation * as native pixmap;
 *   the allocation holds the rendering after eglWaitClient / eglWaitGL.
 *   Configs report EGL_NATIVE_VISUAL_ID as the DRM fourcc they render.
 *
 * EGL_UDA_image_allocation (display extension)
 *   eglCreateImage(dpy, EGL_NO_CONTEXT, EGL_UDA_ALLOCATION,
 *                  (EGLClientBuffer)uda_allocation *, attribs):
 *   an EGLImage of the allocation's memory, for
 *   glEGLImageTargetTexture2DOES. Attributes: EGL_IMAGE_PRESERVED_KHR.
 */
#ifndef EGLEXT_UDA_H
#define EGLEXT_UDA_H

#ifndef EGL_UDA_platform_uda
#define EGL_UDA_platform_uda 1
#define EGL_PLATFORM_UDA 0x7DA0
#endif

#ifndef EGL_UDA_image_allocation
#define EGL_UDA_image_allocation 1
#define EGL_UDA_ALLOCATION 0x7DA1
#endif

#endif /* EGLEXT_UDA_H */
