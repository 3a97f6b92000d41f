/* libFuzzer target: the Wayland module's linux-dmabuf feedback receiver
 * (wayland_feedback.c), fed a script of events as a compositor could send
 * them in any order and with any contents: format tables whose size lies
 * about their file, indices past them, dev_t arrays of any size, tranches
 * without end. Whatever it takes as current must be within its bounds and
 * turn into capability sets without fault. */
#include <drm_fourcc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wayland_feedback.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct script {
	const uint8_t *data;
	size_t size, at;
};

static uint8_t next_byte(struct script *s)
{
	return s->at < s->size ? s->data[s->at++] : 0;
}

/* Up to `wanted` bytes of the script, fewer where it ends. */
static const uint8_t *next_bytes(struct script *s, size_t wanted, size_t *got)
{
	size_t left = s->size - s->at;
	*got = wanted < left ? wanted : left;
	const uint8_t *p = s->data + s->at;
	s->at += *got;
	return p;
}

static void check_and_use(const struct feedback *fb)
{
	if (fb->tranche_count > FEEDBACK_MAX_TRANCHES)
		abort();
	for (uint32_t t = 0; t < fb->tranche_count; t++) {
		if (fb->tranches[t].pair_count > FEEDBACK_MAX_PAIRS_PER_TRANCHE ||
		    (fb->tranches[t].pair_count && !fb->tranches[t].pairs))
			abort();
	}
	static uda_context *ctx;
	if (!ctx) {
		const uda_context_create_info info = {UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO, NULL,
		                                      UDA_CONTEXT_CREATE_NO_BACKENDS, 0, NULL, NULL};
		if (uda_context_create(&info, &ctx) != UDA_SUCCESS)
			abort();
	}
	const uint32_t formats[] = {DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_NV12};
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		uda_capability_set_list *list = NULL;
		uda_result result = feedback_capability_sets(fb, ctx, formats[i], &list);
		if ((result == UDA_SUCCESS) != (list != NULL))
			abort();
		uda_capability_set_list_destroy(list);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct script s = {data, size, 0};
	struct feedback_receiver receiver;
	feedback_receiver_init(&receiver);
	while (s.at < s.size) {
		size_t got = 0;
		const uint8_t *bytes;
		switch (next_byte(&s) % 7) {
		case 0: {
			/* A table: the size the event claims, and the file's real
			 * content (which may be shorter or longer). */
			uint32_t claimed = (uint32_t)next_byte(&s) * 16u + (next_byte(&s) & 0x80 ? 5u : 0u);
			bytes = next_bytes(&s, (size_t)next_byte(&s) * 16u, &got);
			int fd = memfd_create("fuzz-table", MFD_CLOEXEC);
			if (fd < 0)
				break;
			if (got && write(fd, bytes, got) != (ssize_t)got) {
				close(fd);
				break;
			}
			feedback_receiver_format_table(&receiver, fd, claimed);
			break;
		}
		case 1:
			bytes = next_bytes(&s, next_byte(&s) % 17u, &got);
			feedback_receiver_main_device(&receiver, got ? bytes : NULL, got);
			break;
		case 2:
			bytes = next_bytes(&s, next_byte(&s) % 17u, &got);
			feedback_receiver_tranche_target_device(&receiver, got ? bytes : NULL, got);
			break;
		case 3:
			bytes = next_bytes(&s, next_byte(&s), &got);
			feedback_receiver_tranche_formats(&receiver, got ? bytes : NULL, got);
			break;
		case 4:
			feedback_receiver_tranche_flags(&receiver, next_byte(&s));
			break;
		case 5:
			feedback_receiver_tranche_done(&receiver);
			break;
		default:
			feedback_receiver_done(&receiver);
			if (receiver.received)
				check_and_use(&receiver.current);
			break;
		}
	}
	feedback_receiver_finish(&receiver);
	return 0;
}
