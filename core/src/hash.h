/* A small, fast, deterministic 64-bit hash for capability identities and
 * set deduplication. Not cryptographic: every hash match is confirmed by a
 * full comparison. */
#ifndef UDA_HASH_H
#define UDA_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define UDA_HASH_SEED 0x9e3779b97f4a7c15ull

static inline uint64_t uda_hash_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 31;
	return h;
}

static inline uint64_t uda_hash_bytes(uint64_t h, const void *data, size_t size)
{
	const uint8_t *p = data;
	while (size >= 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		h = uda_hash_mix(h, v);
		p += 8;
		size -= 8;
	}
	if (size > 0) {
		uint64_t v = 0;
		memcpy(&v, p, size);
		h = uda_hash_mix(h, v ^ ((uint64_t)size << 56));
	}
	return h;
}

#endif
