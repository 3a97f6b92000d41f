/* A compositor of one global for the tests: zwp_linux_dmabuf_v1 version 4
 * on a client's socket, answering get_default_feedback with uda's
 * feedback (uda_wayland_feedback_send). Single-threaded: the test pumps
 * it. */
#ifndef UDA_TEST_FEEDBACK_SERVER_H
#define UDA_TEST_FEEDBACK_SERVER_H

#include <stdint.h>

#include <uda/uda_wayland_server.h>

#ifdef __cplusplus
extern "C" {
#endif

struct feedback_server;

/* Serves the client on `fd` (taken). */
struct feedback_server *feedback_server_create(int fd, const uda_wayland_feedback *feedback);
/* Handles what the client sent and flushes the answers; never blocks. */
void feedback_server_dispatch(struct feedback_server *server);
/* Sends the feedback again on every feedback object, for display_index
 * (a surface that went on that display's plane, or came back). */
void feedback_server_resend(struct feedback_server *server, uint32_t display_index);
void feedback_server_destroy(struct feedback_server *server);

#ifdef __cplusplus
}
#endif

#endif
