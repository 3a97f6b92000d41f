#include <string.h>

#include "capability_set_list.h"
#include "hash.h"

static int compare_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

int capability_key_compare(const uint8_t *payload_a, const struct uda_capability_record *a, const uint8_t *payload_b,
                           const struct uda_capability_record *b)
{
	int local_a = (a->flags & UDA_CAPABILITY_FLAG_LOCAL) != 0;
	int local_b = (b->flags & UDA_CAPABILITY_FLAG_LOCAL) != 0;
	if (local_a != local_b)
		return local_a - local_b;
	if (a->vendor != b->vendor)
		return a->vendor < b->vendor ? -1 : 1;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	if (a->length != b->length)
		return a->length < b->length ? -1 : 1;
	int c = compare_u64(a->hash, b->hash);
	if (c)
		return c;
	if (a->length) {
		c = memcmp(payload_a, payload_b, a->length);
		if (c)
			return c;
	}
	if (local_a)
		return memcmp(a->owner_uuid, b->owner_uuid, UDA_UUID_SIZE);
	return 0;
}

static uint64_t capability_identity_hash(uint16_t vendor, uint16_t name, uint32_t length, const void *payload)
{
	uint64_t h = uda_hash_mix(UDA_HASH_SEED, ((uint64_t)vendor << 48) | ((uint64_t)name << 32) | length);
	return length ? uda_hash_bytes(h, payload, length) : h;
}

bool capability_record_from_public(const uda_capability *cap, struct uda_capability_record *out, const char **why)
{
	if (cap->flags & ~UDA_CAPABILITY_FLAGS_ALL) {
		*why = "unknown capability flags";
		return false;
	}
	if (cap->length > UDA_MAX_PAYLOAD_SIZE) {
		*why = "payload longer than UDA_MAX_PAYLOAD_SIZE";
		return false;
	}
	if (cap->length && !cap->payload) {
		*why = "NULL payload with a non-zero length";
		return false;
	}
	if (capability_is_layout(cap->vendor, cap->name)) {
		if (cap->flags & UDA_CAPABILITY_FLAG_LOCAL) {
			*why = "a layout capability cannot be LOCAL";
			return false;
		}
		if (cap->name == UDA_CAPABILITY_LAYOUT && cap->length != sizeof(uint64_t)) {
			*why = "a LAYOUT payload must be one 8-byte modifier";
			return false;
		}
		/* DRM_FORMAT_MOD_INVALID names no layout: it is what
		 * uda_capability_set_list_get_modifier says of opaque ones. */
		static const uint8_t invalid_modifier[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00};
		if (cap->name == UDA_CAPABILITY_LAYOUT && memcmp(cap->payload, invalid_modifier, 8) == 0) {
			*why = "DRM_FORMAT_MOD_INVALID is no layout (LAYOUT_OPAQUE is the driver-private one)";
			return false;
		}
		if (cap->name == UDA_CAPABILITY_LAYOUT_OPAQUE && cap->length < UDA_UUID_SIZE) {
			*why = "a LAYOUT_OPAQUE payload must start with a 16-byte driver UUID";
			return false;
		}
	} else if (cap->vendor == UDA_VENDOR_NONE &&
	           (cap->name == UDA_CAPABILITY_HANDLE || cap->name == UDA_CAPABILITY_PLACEMENT ||
	            cap->name == UDA_CAPABILITY_CPU_ACCESS) &&
	           cap->length != sizeof(uint32_t)) {
		*why = "HANDLE, PLACEMENT and CPU_ACCESS payloads are one 4-byte value";
		return false;
	}

	memset(out, 0, sizeof(*out));
	out->vendor = cap->vendor;
	out->name = cap->name;
	out->flags = cap->flags;
	out->length = cap->length;
	if (cap->flags & UDA_CAPABILITY_FLAG_LOCAL)
		memcpy(out->owner_uuid, cap->owner_uuid, UDA_UUID_SIZE);
	out->hash = capability_identity_hash(cap->vendor, cap->name, cap->length, cap->payload);
	return true;
}

const char *uda_placement_to_string(uint32_t placement)
{
	switch (placement) {
	case UDA_PLACEMENT_SYSTEM:
		return "system";
	case UDA_PLACEMENT_DEVICE_LOCAL:
		return "device-local";
	case UDA_PLACEMENT_CONTIGUOUS:
		return "contiguous";
	case UDA_PLACEMENT_PROTECTED:
		return "protected";
	}
	return "unknown";
}
