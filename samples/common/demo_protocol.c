#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "demo_protocol.h"

struct header {
	uint32_t type;
	uint32_t size;
};

int demo_send(int socket_fd, uint32_t type, const void *payload, size_t size, int fd)
{
	if (size > DEMO_MAX_PAYLOAD)
		return -EMSGSIZE;
	struct header header = {type, (uint32_t)size};
	struct iovec parts[2] = {{&header, sizeof(header)}, {(void *)payload, size}};
	union {
		struct cmsghdr align;
		char bytes[CMSG_SPACE(sizeof(int))];
	} control;
	struct msghdr message = {.msg_iov = parts, .msg_iovlen = size ? 2 : 1};
	if (fd >= 0) {
		memset(&control, 0, sizeof(control));
		message.msg_control = control.bytes;
		message.msg_controllen = sizeof(control.bytes);
		struct cmsghdr *cmsg = CMSG_FIRSTHDR(&message);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}
	ssize_t sent;
	do
		sent = sendmsg(socket_fd, &message, MSG_NOSIGNAL);
	while (sent < 0 && errno == EINTR);
	if (sent < 0)
		return -errno;
	return (size_t)sent == sizeof(header) + size ? 0 : -EPROTO;
}

/* Closes every fd a control message carried. */
static void close_received(struct msghdr *message)
{
	for (struct cmsghdr *cmsg = CMSG_FIRSTHDR(message); cmsg; cmsg = CMSG_NXTHDR(message, cmsg)) {
		if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS)
			continue;
		size_t count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < count; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int), sizeof(int));
			close(fd);
		}
	}
}

int demo_receive(int socket_fd, struct demo_message *out)
{
	struct header header;
	struct iovec parts[2] = {{&header, sizeof(header)}, {out->payload, sizeof(out->payload)}};
	union {
		struct cmsghdr align;
		char bytes[CMSG_SPACE(4 * sizeof(int))];
	} control;
	struct msghdr message = {.msg_iov = parts, .msg_iovlen = 2, .msg_control = control.bytes,
	                         .msg_controllen = sizeof(control.bytes)};
	out->fd = -1;
	ssize_t got;
	do
		got = recvmsg(socket_fd, &message, MSG_CMSG_CLOEXEC);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return -errno;
	if (got == 0)
		return 0;
	int fds = 0;
	for (struct cmsghdr *cmsg = CMSG_FIRSTHDR(&message); cmsg; cmsg = CMSG_NXTHDR(&message, cmsg)) {
		if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS) {
			fds += (int)((cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			if (fds == 1)
				memcpy(&out->fd, CMSG_DATA(cmsg), sizeof(int));
		}
	}
	bool malformed = (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || fds > 1 ||
	                 (size_t)got < sizeof(header) || header.size != (size_t)got - sizeof(header);
	if (malformed) {
		close_received(&message);
		out->fd = -1;
		return -EPROTO;
	}
	out->type = header.type;
	out->size = header.size;
	return 1;
}

void demo_default_socket_path(char *out, size_t size)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	if (runtime && runtime[0])
		snprintf(out, size, "%s/uda-demo.sock", runtime);
	else
		snprintf(out, size, "/tmp/uda-demo-%u.sock", (unsigned)getuid());
}
