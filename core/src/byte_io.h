/* Little-endian, bounds-checked byte reader and writer for the serialized
 * forms. The writer can run without a buffer to measure; the reader never
 * looks past its end and latches the first failure, so a deserializer can
 * read a whole record and check once. */
#ifndef UDA_BYTE_IO_H
#define UDA_BYTE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct byte_writer {
	uint8_t *data; /* NULL: measure only */
	size_t capacity;
	size_t size;
};

static inline void write_bytes(struct byte_writer *w, const void *bytes, size_t n)
{
	if (w->data && w->size + n <= w->capacity && n)
		memcpy(w->data + w->size, bytes, n);
	w->size += n;
}

static inline void write_u16(struct byte_writer *w, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
	write_bytes(w, b, sizeof(b));
}

static inline void write_u32(struct byte_writer *w, uint32_t v)
{
	uint8_t b[4];
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	write_bytes(w, b, sizeof(b));
}

static inline void write_u64(struct byte_writer *w, uint64_t v)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	write_bytes(w, b, sizeof(b));
}

/* Overwrites 4 bytes at `offset`, for a size field known only at the end. */
static inline void patch_u32(struct byte_writer *w, size_t offset, uint32_t v)
{
	if (w->data && offset + 4 <= w->capacity)
		for (int i = 0; i < 4; i++)
			w->data[offset + i] = (uint8_t)(v >> (8 * i));
}

struct byte_reader {
	const uint8_t *data;
	size_t size;
	size_t offset;
	bool failed;
};

static inline const uint8_t *read_bytes(struct byte_reader *r, size_t n)
{
	if (r->failed || n > r->size - r->offset) {
		r->failed = true;
		return NULL;
	}
	const uint8_t *p = r->data + r->offset;
	r->offset += n;
	return p;
}

static inline uint16_t read_u16(struct byte_reader *r)
{
	const uint8_t *p = read_bytes(r, 2);
	return p ? (uint16_t)(p[0] | (p[1] << 8)) : 0;
}

static inline uint32_t read_u32(struct byte_reader *r)
{
	const uint8_t *p = read_bytes(r, 4);
	if (!p)
		return 0;
	uint32_t v = 0;
	for (int i = 0; i < 4; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

static inline uint64_t read_u64(struct byte_reader *r)
{
	const uint8_t *p = read_bytes(r, 8);
	if (!p)
		return 0;
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

#endif
