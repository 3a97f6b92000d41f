/* A test compositor of uda's own protocol (uda-allocation-v1.xml):
 * wl_compositor (surfaces only) and uda_allocation_manager_v1, sending
 * one format's capability sets for every surface and importing every
 * create_buffer on one device. Single-threaded: the test pumps it. */
#ifndef UDA_TEST_UDA_PROTOCOL_SERVER_H
#define UDA_TEST_UDA_PROTOCOL_SERVER_H

#include <uda/uda.h>

#ifdef __cplusplus
extern "C" {
#endif

struct uda_protocol_server;

/* Serves the client on `fd` (taken); imports on `device`. */
struct uda_protocol_server *uda_protocol_server_create(int fd, uint32_t format, const uda_capability_set_list *sets,
                                                       uda_device *device);
void uda_protocol_server_dispatch(struct uda_protocol_server *server);
/* Buffers created so far, and the result of the last import (with its
 * message in the device's context). */
unsigned uda_protocol_server_buffers(const struct uda_protocol_server *server);
uda_result uda_protocol_server_last_import(const struct uda_protocol_server *server);
/* The last buffer imported, or NULL. */
uda_allocation *uda_protocol_server_last_allocation(const struct uda_protocol_server *server);
void uda_protocol_server_destroy(struct uda_protocol_server *server);

#ifdef __cplusplus
}
#endif

#endif
