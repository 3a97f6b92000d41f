/* The ioctls the V4L2 backend makes, behind one seam: the kernel's, or,
 * in the tests, recorded drivers' answers (as the DRM backend's recorded
 * displays). Everything a driver answers through it is untrusted. */
#ifndef UDA_V4L2_IO_H
#define UDA_V4L2_IO_H

#ifdef __cplusplus
extern "C" {
#endif

struct v4l2_io {
	/* 0, or -1 with errno set, as ioctl(2). */
	int (*ioctl)(void *data, int fd, unsigned long request, void *arg);
	void *data;
};

/* ioctl(2) itself, retried on EINTR. */
extern const struct v4l2_io v4l2_io_kernel;

#ifdef __cplusplus
}
#endif

#endif
