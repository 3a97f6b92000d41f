/*
 * uda backend interface: what a source of devices (a Vulkan driver, GL, a
 * DRM node, a DMA-BUF heap, a test fixture) implements so that the core can
 * negotiate with it.
 *
 * A backend registers each device it drives with uda_context_add_device,
 * handing over an interface table and a private pointer. The table is
 * versioned: fields are only ever appended, `version` says how many the
 * backend fills, and the core never calls past that.
 */
#ifndef UDA_BACKEND_H
#define UDA_BACKEND_H

#include <uda/uda.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UDA_DEVICE_INTERFACE_VERSION_1 1u
#define UDA_DEVICE_INTERFACE_VERSION   UDA_DEVICE_INTERFACE_VERSION_1

typedef struct uda_device_interface {
	uint32_t version; /* UDA_DEVICE_INTERFACE_VERSION_1 */

	/* Appends to `out_list` (empty, created by the core) the sets this
	 * device can work with for the assertion and usage, best first. The
	 * assertion and usage are already validated. Return
	 * UDA_ERROR_UNSUPPORTED (with a message set through
	 * uda_context_set_error) when the device cannot serve the request;
	 * an empty list is treated the same way. Mandatory. */
	uda_result (*get_capability_sets)(void *device_data, uda_context *context, const uda_assertion *assertion,
	                                  const uda_usage *usage, uda_capability_set_list *out_list);

	/* Releases device_data when the context is destroyed. Optional. */
	void (*destroy)(void *device_data);
} uda_device_interface;

typedef struct uda_device_create_info {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO */
	const void *next;
	uint8_t device_uuid[UDA_UUID_SIZE];
	uint8_t driver_uuid[UDA_UUID_SIZE];
	const char *name;                      /* copied; required */
	const char *backend_name;              /* copied; required */
	const uda_device_interface *interface; /* must outlive the device */
	void *device_data;
} uda_device_create_info;

/* Registers a device. On success the context owns device_data and calls
 * interface->destroy(device_data) when the context is destroyed; on
 * failure nothing is taken. UDA_ERROR_EXISTS if a device with this device
 * UUID is registered already. */
UDA_API uda_result uda_context_add_device(uda_context *context, const uda_device_create_info *info,
                                          uda_device **out_device);

/* Records a printf-style message as the calling thread's error on the
 * context and returns `result`, so backends report failures the way the
 * core does: `return uda_context_set_error(ctx, UDA_ERROR_..., "...")`. */
UDA_API uda_result uda_context_set_error(const uda_context *context, uda_result result, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Logs through the context's callback. */
UDA_API void uda_context_log(const uda_context *context, uda_log_level level, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif

#endif /* UDA_BACKEND_H */
