/*
 * uda_gbm.so: uda behind Mesa's libgbm (GBM_BACKEND=uda).
 *
 * GBM programs need nothing from this header: they call libgbm as always.
 * It is for programs that know they run on uda and want the objects
 * behind the GBM ones — above all the uda_surface behind a gbm_surface,
 * which is how a producer (uda's EGL platform, a Vulkan renderer) fills
 * the buffers a GBM user then locks with gbm_surface_lock_front_buffer.
 * The module's soname is uda_gbm.so: dlopen("uda_gbm.so", RTLD_NOLOAD |
 * RTLD_LAZY) finds the copy libgbm loaded, and dlsym the functions.
 *
 * Each returns UDA_ERROR_INVALID_ARGUMENT for NULL or for an object of
 * another GBM backend; the objects returned belong to the GBM object.
 */
#ifndef UDA_GBM_H
#define UDA_GBM_H

#include <uda/uda.h>
#include <uda/uda_surface.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gbm_device;
struct gbm_bo;
struct gbm_surface;

/* The backend's name, as gbm_device_get_backend_name() reports it and
 * GBM_BACKEND selects it. */
#define UDA_GBM_BACKEND_NAME "uda"

/* The uda context of a GBM device (its devices, their errors). */
UDA_API uda_result uda_gbm_device_get_context(struct gbm_device *gbm, uda_context **out_context);
/* The device through `api` (UDA_DEVICE_API_VULKAN or _GL) of the GPU the
 * GBM device renders on; UDA_ERROR_NOT_FOUND if it has none. */
UDA_API uda_result uda_gbm_device_get_render_device(struct gbm_device *gbm, uda_device_api api,
                                                    uda_device **out_device);
/* The allocation behind a buffer object. */
UDA_API uda_result uda_gbm_bo_get_allocation(struct gbm_bo *bo, uda_allocation **out_allocation);
/* The buffer queue behind a GBM surface: dequeue and queue on it to
 * produce what gbm_surface_lock_front_buffer returns. A producer that
 * resizes it retires the old buffers once the GBM user releases them:
 * their BOs must not be mapped or used after that release. */
UDA_API uda_result uda_gbm_surface_get_surface(struct gbm_surface *surface, uda_surface **out_surface);

#ifdef __cplusplus
}
#endif

#endif
