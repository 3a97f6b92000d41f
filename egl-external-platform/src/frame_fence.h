/* Frames handed over with the driver's sync files (frame_fence.c). */
#ifndef UDA_EGL_FRAME_FENCE_H
#define UDA_EGL_FRAME_FENCE_H

#include "platform.h"

/* Whether window surfaces of the display hand frames over with native
 * fences: opted in (UDA_EGL_NATIVE_FENCES=1) and the driver able to;
 * *out_gpu_waits: whether release fences can be waited for on the GPU.
 * Says which hand-off it chose under UDA_LOG. */
bool frame_fence_supported(struct platform_display *display, bool *out_gpu_waits);
/* A sync file for the GL commands issued so far in the current context
 * (flushed here), or -1 if the driver made none: then glFinish. */
int frame_fence_export(struct platform_display *display);
/* Makes the current context wait for *fence before its next commands:
 * on the GPU for a sync_file the driver takes, else on the CPU. *fence
 * stays the caller's while only the GPU waits (call again for another
 * context); once it has signalled it is closed and set to -1. */
void frame_fence_wait(struct platform_display *display, int *fence, bool gpu_waits);

#endif
