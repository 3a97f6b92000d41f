/* Recorded V4L2 drivers behind the ioctl seam (v4l2_io.h): each file
 * describes one node as its driver answered (QUERYCAP, the formats and
 * sizes of each queue, the rule its VIDIOC_TRY_FMT follows), and the
 * replay answers as it would, buffers included (CREATE_BUFS, QUERYBUF,
 * EXPBUF, with sealed memfds standing in for its DMA-BUFs). The v4l2
 * backend uses it in place of the kernel when UDA_V4L2_REPLAY names
 * files, so programs negotiate with cameras and codecs this machine does
 * not have; the format is in tests/backends/v4l2-fixtures/README.md. */
#ifndef UDA_V4L2_REPLAY_H
#define UDA_V4L2_REPLAY_H

#include <stddef.h>

#include "v4l2_io.h"

#ifdef __cplusplus
extern "C" {
#endif

struct v4l2_replay;

/* Reads the files of `paths`, separated by ':'. NULL, with why, when one
 * does not read or parse (the line is named). */
struct v4l2_replay *v4l2_replay_create(const char *paths, char *why, size_t why_size);
void v4l2_replay_destroy(struct v4l2_replay *replay);
/* The seam over the replay: nodes "replay:<file name>", in the order
 * given. Valid while the replay lives. */
const struct v4l2_io *v4l2_replay_io(struct v4l2_replay *replay);
/* Buffers the replayed drivers hold on their queues (made and not yet
 * removed): what a leak test counts. */
unsigned v4l2_replay_live_buffers(const struct v4l2_replay *replay);

#ifdef __cplusplus
}
#endif

#endif
