/* The kernel calls the V4L2 backend makes, behind one seam: the kernel's,
 * or recorded drivers' answers (v4l2_replay.h, and the tests' fakes), as
 * the DRM backend's recorded displays. Everything a driver answers through
 * it is untrusted. */
#ifndef UDA_V4L2_IO_H
#define UDA_V4L2_IO_H

#include <linux/videodev2.h>
#include <stdint.h>

#ifndef VIDIOC_REMOVE_BUFS
/* Linux 6.10's, for headers older than the kernel it runs on: frees
 * buffers of a queue one by one. ENOTTY before 6.10. */
struct v4l2_remove_buffers {
	__u32 index;
	__u32 count;
	__u32 type;
	__u32 reserved[13];
};
#define VIDIOC_REMOVE_BUFS _IOWR('V', 104, struct v4l2_remove_buffers)
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define V4L2_IO_PATH_MAX 64
/* Nodes a context takes: a Raspberry Pi 5 with two cameras has about 40
 * (each camera's front end and back end make several, the codecs more). */
#define V4L2_IO_MAX_NODES 64

struct v4l2_io {
	/* 0, or -1 with errno set, as ioctl(2). */
	int (*ioctl)(void *data, int fd, unsigned long request, void *arg);
	void *data;
	/* The video nodes there are, in a stable order (the kernel's minor
	 * numbers): the first `capacity` paths written to `out`, and the
	 * count of all of them, which may be more. Optional where only
	 * ioctl is used. */
	uint32_t (*list)(void *data, char (*out)[V4L2_IO_PATH_MAX], uint32_t capacity);
	/* O_RDWR | O_NONBLOCK | O_CLOEXEC: an fd, or -errno. */
	int (*open)(void *data, const char *path);
	void (*close)(void *data, int fd);
};

/* The kernel: /dev/video*, open(2), ioctl(2) retried on EINTR. */
extern const struct v4l2_io v4l2_io_kernel;

#ifdef __cplusplus
}
#endif

#endif
