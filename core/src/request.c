#include <uda/uda_backend.h>

#include "byte_io.h"
#include "request.h"

uda_result uda_assertion_validate(const uda_context *ctx, const uda_assertion *a)
{
	if (!a)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "assertion is NULL");
	if (a->type != UDA_STRUCTURE_TYPE_ASSERTION)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "assertion has type %d", (int)a->type);
	if (a->next)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "assertion: unknown extension struct");
	if (a->width == 0 || a->height == 0 || a->width > UDA_MAX_DIMENSION || a->height > UDA_MAX_DIMENSION)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "assertion: %ux%u is outside 1..%u",
		                             a->width, a->height, UDA_MAX_DIMENSION);
	uda_format_info info;
	if (uda_format_get_info(a->format, &info) != UDA_SUCCESS)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "assertion: unknown DRM fourcc 0x%08x",
		                             a->format);
	if (a->plane_count_hint > UDA_MAX_PLANES)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "assertion: plane count hint %u above %u",
		                             a->plane_count_hint, UDA_MAX_PLANES);
	return UDA_SUCCESS;
}

static bool is_video(uint16_t name)
{
	return name == UDA_USAGE_VIDEO_DECODE || name == UDA_USAGE_VIDEO_ENCODE;
}

static uint32_t common_atom_payload_size(uint16_t name)
{
	return name == UDA_USAGE_CPU_READ || name == UDA_USAGE_CPU_WRITE ? 4 : 0;
}

/* A payload's first little-endian u32 (a CPU atom's frequency). */
static uint32_t read_payload_u32(const uda_usage_atom *atom)
{
	struct byte_reader r = {atom->payload, atom->length, 0, false};
	return read_u32(&r);
}

void uda_video_profile_to_payload(const uda_video_profile *profile, uint8_t out[UDA_VIDEO_PROFILE_PAYLOAD_SIZE])
{
	if (!profile || !out)
		return;
	struct byte_writer w = {out, UDA_VIDEO_PROFILE_PAYLOAD_SIZE, 0};
	write_u32(&w, profile->codec);
	write_u32(&w, profile->profile);
	write_u32(&w, profile->bit_depth);
	write_u32(&w, profile->chroma);
}

void uda_video_profile_to_picture_payload(const uda_video_profile *profile, uint32_t picture_flags,
                                          uint8_t out[UDA_VIDEO_PROFILE_PICTURE_PAYLOAD_SIZE])
{
	if (!profile || !out)
		return;
	uda_video_profile_to_payload(profile, out);
	struct byte_writer w = {out + UDA_VIDEO_PROFILE_PAYLOAD_SIZE, 4, 0};
	write_u32(&w, picture_flags);
}

/* The profile a payload of UDA_VIDEO_PROFILE_PAYLOAD_SIZE bytes or more
 * holds. */
static uda_video_profile read_video_profile(const uda_usage_atom *atom)
{
	struct byte_reader r = {atom->payload, atom->length, 0, false};
	uda_video_profile profile;
	profile.codec = read_u32(&r);
	profile.profile = read_u32(&r);
	profile.bit_depth = read_u32(&r);
	profile.chroma = read_u32(&r);
	return profile;
}

static bool is_video_payload_size(uint32_t length)
{
	return length == UDA_VIDEO_PROFILE_PAYLOAD_SIZE || length == UDA_VIDEO_PROFILE_PICTURE_PAYLOAD_SIZE;
}

/* A payload's picture flags: 0 where it has none. */
static uint32_t read_picture_flags(const uda_usage_atom *atom)
{
	if (atom->length != UDA_VIDEO_PROFILE_PICTURE_PAYLOAD_SIZE)
		return 0;
	struct byte_reader r = {(const uint8_t *)atom->payload + UDA_VIDEO_PROFILE_PAYLOAD_SIZE, 4, 0, false};
	return read_u32(&r);
}

/* NULL for valid picture flags of the profile, else what is wrong. */
static const char *picture_flags_problem(const uda_video_profile *p, uint32_t flags)
{
	if (flags & ~UDA_VIDEO_PICTURE_FLAGS_ALL)
		return "unknown picture flags";
	if ((flags & UDA_VIDEO_PICTURE_INTERLACED) && p->codec != UDA_VIDEO_CODEC_H264)
		return "interlaced pictures are H.264's";
	if ((flags & UDA_VIDEO_PICTURE_FILM_GRAIN) && p->codec != UDA_VIDEO_CODEC_AV1)
		return "film grain is AV1's";
	return NULL;
}

/* NULL for a valid profile, else what is wrong. */
static const char *video_profile_problem(const uda_video_profile *p)
{
	if (p->codec < UDA_VIDEO_CODEC_H264 || p->codec > UDA_VIDEO_CODEC_JPEG)
		return "unknown codec";
	if (p->bit_depth && p->bit_depth != 8 && p->bit_depth != 10 && p->bit_depth != 12)
		return "bit depth not 8, 10 or 12";
	if (p->chroma && p->chroma != 400 && p->chroma != 420 && p->chroma != 422 && p->chroma != 444)
		return "chroma not 400, 420, 422 or 444";
	if (p->profile > 255)
		return "profile number above 255";
	return NULL;
}

uda_result uda_video_profile_from_atom(const uda_usage_atom *atom, uda_video_profile *out)
{
	if (!atom || !out)
		return UDA_ERROR_INVALID_ARGUMENT;
	if (atom->vendor != UDA_VENDOR_NONE || !is_video(atom->name) || !atom->length)
		return UDA_ERROR_NOT_FOUND;
	if (!is_video_payload_size(atom->length) || !atom->payload)
		return UDA_ERROR_INVALID_ARGUMENT;
	const uda_video_profile profile = read_video_profile(atom);
	if (video_profile_problem(&profile) || picture_flags_problem(&profile, read_picture_flags(atom)))
		return UDA_ERROR_INVALID_ARGUMENT;
	*out = profile;
	return UDA_SUCCESS;
}

uda_result uda_video_profile_picture_flags_from_atom(const uda_usage_atom *atom, uint32_t *out_flags)
{
	if (!out_flags)
		return UDA_ERROR_INVALID_ARGUMENT;
	uda_video_profile profile;
	const uda_result result = uda_video_profile_from_atom(atom, &profile);
	if (result != UDA_SUCCESS)
		return result;
	*out_flags = read_picture_flags(atom);
	return UDA_SUCCESS;
}

uda_result uda_usage_validate(const uda_context *ctx, const uda_usage *u)
{
	if (!u)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "usage is NULL");
	if (u->type != UDA_STRUCTURE_TYPE_USAGE)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "usage has type %d", (int)u->type);
	if (u->next)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "usage: unknown extension struct");
	if (u->atom_count == 0 || u->atom_count > UDA_MAX_USAGE_ATOMS || !u->atoms)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "usage: %u atoms (array %p), 1..%u required", u->atom_count,
		                             (const void *)u->atoms, UDA_MAX_USAGE_ATOMS);
	for (uint32_t i = 0; i < u->atom_count; i++) {
		const uda_usage_atom *atom = &u->atoms[i];
		if (atom->length > UDA_MAX_PAYLOAD_SIZE || (atom->length && !atom->payload))
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
			                             "usage atom %u: bad payload (%u bytes at %p)", i, atom->length,
			                             atom->payload);
		if (atom->vendor != UDA_VENDOR_NONE)
			continue;
		if (atom->name < UDA_USAGE_RENDER_TARGET || atom->name > UDA_USAGE_CAMERA_CAPTURE)
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "usage atom %u: unknown name %u",
			                             i, atom->name);
		if (is_video(atom->name) && atom->length) {
			if (!is_video_payload_size(atom->length))
				return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
				                             "usage atom %u: a video profile of %u bytes, %u or %u expected", i,
				                             atom->length, UDA_VIDEO_PROFILE_PAYLOAD_SIZE,
				                             UDA_VIDEO_PROFILE_PICTURE_PAYLOAD_SIZE);
			const uda_video_profile profile = read_video_profile(atom);
			const char *problem = video_profile_problem(&profile);
			if (!problem)
				problem = picture_flags_problem(&profile, read_picture_flags(atom));
			if (problem)
				return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "usage atom %u: video profile: %s",
				                             i, problem);
			continue;
		}
		if (atom->length != common_atom_payload_size(atom->name))
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
			                             "usage atom %u: payload of %u bytes, %u expected", i, atom->length,
			                             common_atom_payload_size(atom->name));
		if (atom->length) {
			const uint32_t frequency = read_payload_u32(atom);
			if (frequency > UDA_CPU_ACCESS_OFTEN)
				return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
				                             "usage atom %u: unknown CPU access frequency %u", i,
				                             frequency);
		}
	}
	return UDA_SUCCESS;
}
