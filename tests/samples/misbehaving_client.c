/* A client that breaks the demo protocol on purpose, one way per run, for
 * the test that the compositor drops it and goes on.
 *   misbehaving-client SOCKET MODE
 * MODE: garbage-metadata, small-fd, gone-mid-frame, silent, malformed,
 *       no-hello, unknown-buffer, unfinished-frame */
#include <drm_fourcc.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <uda/uda.h>

#include "common/demo_protocol.h"

static int connect_to(const char *path)
{
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	snprintf(address.sun_path, sizeof(address.sun_path), "%s", path);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof(address)) != 0) {
		perror("connect");
		exit(1);
	}
	return fd;
}

static void hello(int fd)
{
	const struct demo_hello message = {DEMO_PROTOCOL_VERSION, 64, 64, DRM_FORMAT_ABGR8888};
	struct demo_message *caps = malloc(sizeof(*caps));
	if (demo_send(fd, DEMO_HELLO, &message, sizeof(message), -1) != 0 || demo_receive(fd, caps) != 1 ||
	    caps->type != DEMO_CAPS) {
		fprintf(stderr, "no CAPS\n");
		exit(1);
	}
	free(caps);
}

/* Real metadata of a 64x64 allocation, made by this process's devices. */
static size_t real_metadata(uint8_t *out, size_t capacity, int *out_fd)
{
	uda_context *ctx;
	uda_context_create(NULL, &ctx);
	uda_device *devices[16];
	uint32_t count = 16;
	uda_context_enumerate_devices(ctx, &count, devices);
	uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, 64, 64, DRM_FORMAT_ABGR8888, 0};
	/* What the compositor asks for: an image it can sample and copy. */
	const uda_usage_atom atoms[] = {{UDA_VENDOR_NONE, UDA_USAGE_SAMPLED, 0, NULL},
	                                {UDA_VENDOR_NONE, UDA_USAGE_TRANSFER_SRC, 0, NULL}};
	const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 2, atoms};
	size_t size = 0;
	for (uint32_t i = 0; i < count && !size; i++) {
		uda_device_info info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
		uda_device_get_info(devices[i], &info);
		if (info.api != UDA_DEVICE_API_VULKAN)
			continue;
		uda_device_usage entry = {devices[i], &usage};
		uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, NULL, &assertion, 1, &entry};
		uda_allocation *allocation = NULL;
		if (uda_negotiate_allocate(ctx, &negotiation, &allocation, NULL, NULL) == UDA_SUCCESS &&
		    uda_allocation_export(allocation, UDA_HANDLE_TYPE_OPAQUE_FD, out_fd) == UDA_SUCCESS &&
		    uda_allocation_serialize_metadata(allocation, UDA_HANDLE_TYPE_OPAQUE_FD, out, capacity, &size) !=
		        UDA_SUCCESS)
			size = 0;
		uda_allocation_destroy(allocation);
	}
	uda_context_destroy(ctx);
	if (!size) {
		fprintf(stderr, "no allocation to take metadata from\n");
		exit(1);
	}
	return size;
}

static void send_buffer(int fd, const uint8_t *metadata, size_t size, int memory_fd)
{
	uint8_t payload[DEMO_MAX_PAYLOAD];
	const uint64_t id = 1;
	memcpy(payload, &id, sizeof(id));
	memcpy(payload + sizeof(id), metadata, size);
	demo_send(fd, DEMO_BUFFER, payload, sizeof(id) + size, memory_fd);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: misbehaving-client SOCKET MODE\n");
		return 2;
	}
	const char *mode = argv[2];
	/* A real allocation first, before the compositor's idle clock starts:
	 * GPU start-up alone can take longer than the test's idle timeout
	 * (over a second on NVIDIA's driver). */
	uint8_t metadata[4096];
	size_t real_size = 0;
	int real_fd = -1;
	if (strcmp(mode, "small-fd") == 0 || strcmp(mode, "gone-mid-frame") == 0 ||
	    strcmp(mode, "unfinished-frame") == 0)
		real_size = real_metadata(metadata, sizeof(metadata), &real_fd);
	int fd = connect_to(argv[1]);
	int memory_fd = -1;
	if (strcmp(mode, "no-hello") == 0) {
		const struct demo_frame frame = {1, 1};
		demo_send(fd, DEMO_FRAME, &frame, sizeof(frame), -1);
	} else if (strcmp(mode, "malformed") == 0) {
		const char three[3] = {1, 2, 3}; /* shorter than a header */
		send(fd, three, sizeof(three), 0);
	} else {
		hello(fd);
		if (strcmp(mode, "garbage-metadata") == 0) {
			uint8_t garbage[200];
			for (size_t i = 0; i < sizeof(garbage); i++)
				garbage[i] = (uint8_t)(i * 37 + 11);
			memory_fd = memfd_create("garbage", MFD_CLOEXEC);
			send_buffer(fd, garbage, sizeof(garbage), memory_fd);
		} else if (strcmp(mode, "small-fd") == 0) {
			close(real_fd);
			memory_fd = memfd_create("small", MFD_CLOEXEC);
			ftruncate(memory_fd, 4096); /* far less than the metadata says */
			send_buffer(fd, metadata, real_size, memory_fd);
		} else if (strcmp(mode, "gone-mid-frame") == 0) {
			memory_fd = real_fd;
			send_buffer(fd, metadata, real_size, memory_fd);
			/* and gone, before the FRAME */
		} else if (strcmp(mode, "unknown-buffer") == 0) {
			const struct demo_frame frame = {99, 1};
			demo_send(fd, DEMO_FRAME, &frame, sizeof(frame), -1);
		} else if (strcmp(mode, "unfinished-frame") == 0) {
			/* A frame whose acquire fence never signals: a pipe
			 * nobody writes to, hung up when this process ends. */
			memory_fd = real_fd;
			send_buffer(fd, metadata, real_size, memory_fd);
			int fence[2];
			if (pipe2(fence, O_CLOEXEC) != 0)
				return 1;
			const struct demo_frame frame = {1, 1};
			demo_send(fd, DEMO_FRAME, &frame, sizeof(frame), fence[0]);
			close(fence[0]);
		} else if (strcmp(mode, "silent") == 0) {
			sleep(3); /* longer than the test's idle timeout */
		} else {
			fprintf(stderr, "unknown mode %s\n", mode);
			return 2;
		}
	}
	/* Give the compositor time to read before the socket closes. */
	usleep(200000);
	if (memory_fd >= 0)
		close(memory_fd);
	close(fd);
	return 0;
}
