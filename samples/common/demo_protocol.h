/* The wire protocol between uda-client and uda-compositor: messages over a
 * SOCK_SEQPACKET unix socket (one message a packet), a buffer's fd riding
 * along with SCM_RIGHTS. Everything received is untrusted.
 *
 *   client -> compositor  HELLO   version, width, height, format
 *   compositor -> client  CAPS    its capability-set list, serialized
 *   client -> compositor  BUFFER  buffer id + allocation metadata, fd
 *   client -> compositor  FRAME   buffer id, frame number; the frame's
 *                                 acquire fence if it may still be
 *                                 rendering (explicit sync)
 *   compositor -> client  RELEASE buffer id (the client may reuse it); a
 *                                 release fence if reads may still run
 *   client -> compositor  BYE
 */
#ifndef UDA_SAMPLES_DEMO_PROTOCOL_H
#define UDA_SAMPLES_DEMO_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DEMO_PROTOCOL_VERSION 1u
#define DEMO_MAX_PAYLOAD 65536u

enum demo_message_type {
	DEMO_HELLO = 1,
	DEMO_CAPS = 2,
	DEMO_BUFFER = 3,
	DEMO_FRAME = 4,
	DEMO_RELEASE = 5,
	DEMO_BYE = 6,
};

struct demo_hello {
	uint32_t version, width, height, format;
};

struct demo_frame {
	uint64_t buffer_id, frame_number;
};

struct demo_message {
	uint32_t type;
	uint32_t size; /* payload bytes */
	uint8_t payload[DEMO_MAX_PAYLOAD];
	int fd; /* -1 if none came; the receiver owns it */
};

/* 0, or -errno. */
int demo_send(int socket_fd, uint32_t type, const void *payload, size_t size, int fd);
/* 1 for a message, 0 at end of stream, -errno (-EPROTO for a malformed
 * packet: truncated, oversized, more than one fd, a size that disagrees).
 * Never leaves an fd open on failure. */
int demo_receive(int socket_fd, struct demo_message *message);

/* The default socket: $XDG_RUNTIME_DIR/uda-demo.sock, else
 * /tmp/uda-demo-<uid>.sock. */
void demo_default_socket_path(char *out, size_t size);

#endif
