/*
 * A backend module built in several broken and working variants, so the
 * loader tests can hand libuda every way a vendor's module can go wrong.
 * FAKE_VARIANT selects one:
 *   GOOD           registers one device named "fake device"
 *   WRONG_VERSION  answers with an interface of version 99
 *   NO_ENTRY       exports no uda_backend_get_interface
 *   FAILING_LOAD   registers a device, then fails: the device must vanish
 *   REFUSES        refuses the core's interface version
 */
#include <stdlib.h>
#include <string.h>

#include <uda/uda_backend.h>

#define GOOD 1
#define WRONG_VERSION 2
#define NO_ENTRY 3
#define FAILING_LOAD 4
#define REFUSES 5

#ifndef FAKE_VARIANT
#error "FAKE_VARIANT must be set"
#endif

static uda_result fake_get_capability_sets(void *device_data, uda_context *ctx, const uda_assertion *assertion,
                                           const uda_usage *usage, uda_capability_set_list *out_list)
{
	return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "the fake device serves nothing");
}

static unsigned device_data_token;

static const uda_device_interface fake_device_interface = {
	.version = UDA_DEVICE_INTERFACE_VERSION_1,
	.get_capability_sets = fake_get_capability_sets,
};

static uda_result fake_load(uda_context *ctx, void **out_backend_data)
{
	uda_device_create_info info = {
		.type = UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.name = "fake device",
		.backend_name = FAKE_NAME,
		.api = UDA_DEVICE_API_OTHER,
		.interface = &fake_device_interface,
		.device_data = &device_data_token,
	};
	memset(info.device_uuid, 0xfa, UDA_UUID_SIZE);
	info.device_uuid[0] = FAKE_VARIANT;
	uda_result result = uda_context_add_device(ctx, &info, NULL);
	*out_backend_data = NULL;
	if (result == UDA_SUCCESS && FAKE_VARIANT == FAILING_LOAD)
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "fake backend gives up after one device");
	return result;
}

static const uda_backend_interface fake_interface = {
	.version = FAKE_VARIANT == WRONG_VERSION ? 99 : UDA_BACKEND_INTERFACE_VERSION_1,
	.name = FAKE_NAME,
	.load = fake_load,
};

#if FAKE_VARIANT != NO_ENTRY
UDA_API uda_result uda_backend_get_interface(uint32_t core_interface_version,
                                             const uda_backend_interface **out_interface)
{
	if (FAKE_VARIANT == REFUSES)
		return UDA_ERROR_UNSUPPORTED;
	*out_interface = &fake_interface;
	return UDA_SUCCESS;
}
#else
/* The interface exists but nothing hands it out. */
UDA_API const uda_backend_interface *uda_backend_something_else(void)
{
	return &fake_interface;
}
#endif
