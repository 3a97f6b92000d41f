/* uda-client: the producer half of the demo. It asks the compositor what
 * its device takes, negotiates that with its own GPU, renders an animated
 * picture with GLES into an EGL window surface on the uda platform, and
 * sends each finished buffer (its fd and metadata, once per buffer) to the
 * compositor, which gives it back when done. No pixel is copied by a CPU.
 *
 * Link order matters: libuda-egl-host comes before libEGL, so on Mesa the
 * EGL calls reach the uda platform (NVIDIA's libEGL loads it itself). */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#include <drm_fourcc.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <EGL/eglext_uda.h>
#include <uda/uda.h>
#include <uda/uda_surface.h>

#include "common/demo_pattern.h"
#include "common/demo_protocol.h"
#include "common/describe.h"

struct client {
	char socket_path[108];
	uint32_t width, height, frames;
	int socket_fd;
	uda_context *ctx;
	uda_device *gl, *allocator;
	uda_surface *window;
	/* The transport thread: frames out, releases in. */
	pthread_t transport;
	bool transport_running;
	atomic_bool stop;
	atomic_uint released;
	atomic_bool failed;
	uint64_t sent_ids[UDA_SURFACE_MAX_BUFFERS * 2];
	unsigned sent_count;
	/* Frames sent and not yet given back, given back by the client itself
	 * if the compositor goes (so eglSwapBuffers never waits on it). */
	uint64_t outstanding[UDA_SURFACE_MAX_BUFFERS];
	unsigned outstanding_count;
	bool printed_set;
	unsigned reconnects; /* --reconnect: how often the compositor may go */
	/* The EGL side of the current session. */
	EGLDisplay display;
	EGLConfig config;
	EGLContext context;
	EGLSurface surface;
	uint32_t session_frames; /* queued in this session */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: uda-client [--socket PATH] [--frames N] [--size WIDTHxHEIGHT] [--reconnect N]\n"
	           "\n"
	           "Connects to uda-compositor (default socket $XDG_RUNTIME_DIR/uda-demo.sock),\n"
	           "negotiates buffers with it, renders N frames (default 8, 256x192) with GLES\n"
	           "into an EGL window surface on EGL_PLATFORM_UDA and hands each one over\n"
	           "without a copy. With --reconnect N, a compositor that goes away (is\n"
	           "restarted) is waited for up to 10 s and negotiated with anew, N times.\n");
}

static bool parse_options(int argc, char **argv, struct client *c)
{
	demo_default_socket_path(c->socket_path, sizeof(c->socket_path));
	c->width = 256;
	c->height = 192;
	c->frames = 8;
	static const struct option long_options[] = {
		{"socket", required_argument, NULL, 's'}, {"frames", required_argument, NULL, 'n'},
		{"size", required_argument, NULL, 'z'},   {"reconnect", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
	};
	int option;
	while ((option = getopt_long(argc, argv, "s:n:z:r:h", long_options, NULL)) != -1) {
		switch (option) {
		case 's':
			if (strlen(optarg) >= sizeof(c->socket_path))
				return false;
			snprintf(c->socket_path, sizeof(c->socket_path), "%s", optarg);
			break;
		case 'n':
			c->frames = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'z':
			if (sscanf(optarg, "%ux%u", &c->width, &c->height) != 2)
				return false;
			break;
		case 'r':
			c->reconnects = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return false;
		}
	}
	return optind == argc && c->frames > 0 && c->width >= 16 && c->height >= 16 && c->width <= 8192 &&
	       c->height <= 8192;
}

static int fail(const char *what)
{
	fprintf(stderr, "uda-client: %s\n", what);
	return 1;
}

static bool find_devices(struct client *c)
{
	uda_device *devices[32];
	uint32_t count = 32;
	uda_context_enumerate_devices(c->ctx, &count, devices);
	for (uint32_t i = 0; i < count && !c->gl; i++) {
		uda_device_info info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
		uda_device_get_info(devices[i], &info);
		if (info.api == UDA_DEVICE_API_GL)
			c->gl = devices[i];
	}
	/* GL imports, it does not allocate: the buffers come from the same
	 * GPU through Vulkan, or from system memory. */
	for (uint32_t i = 0; i < count && c->gl && !c->allocator; i++) {
		uda_device_info info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
		uda_device_get_info(devices[i], &info);
		if (info.api == UDA_DEVICE_API_VULKAN && uda_device_same_hardware(c->gl, devices[i]))
			c->allocator = devices[i];
	}
	return c->gl && c->allocator;
}

static int connect_to(const char *path)
{
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	snprintf(address.sun_path, sizeof(address.sun_path), "%s", path);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&address, sizeof(address)) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

/* HELLO, then the compositor's capability sets. */
static uda_capability_set_list *ask_compositor(struct client *c)
{
	const struct demo_hello hello = {DEMO_PROTOCOL_VERSION, c->width, c->height, DRM_FORMAT_ABGR8888};
	if (demo_send(c->socket_fd, DEMO_HELLO, &hello, sizeof(hello), -1) != 0)
		return NULL;
	struct demo_message *message = malloc(sizeof(*message));
	uda_capability_set_list *sets = NULL;
	if (message && demo_receive(c->socket_fd, message) == 1 && message->type == DEMO_CAPS) {
		if (uda_capability_set_list_deserialize(c->ctx, message->payload, message->size, &sets) != UDA_SUCCESS)
			fprintf(stderr, "uda-client: the compositor's sets: %s\n", uda_context_get_error(c->ctx));
	}
	if (message && message->fd >= 0)
		close(message->fd);
	free(message);
	return sets;
}

static bool already_sent(struct client *c, uint64_t id)
{
	for (unsigned i = 0; i < c->sent_count; i++) {
		if (c->sent_ids[i] == id)
			return true;
	}
	return false;
}

/* A buffer the compositor has not seen: its fd and metadata, once. */
static bool send_buffer(struct client *c, const uda_surface_frame *frame)
{
	static const uda_handle_type handle_types[] = {UDA_HANDLE_TYPE_DMA_BUF, UDA_HANDLE_TYPE_OPAQUE_FD,
	                                               UDA_HANDLE_TYPE_MEMFD};
	for (size_t i = 0; i < sizeof(handle_types) / sizeof(handle_types[0]); i++) {
		int fd = -1;
		if (uda_allocation_export(frame->allocation, handle_types[i], &fd) != UDA_SUCCESS)
			continue;
		uint8_t payload[DEMO_MAX_PAYLOAD];
		size_t size = 0;
		memcpy(payload, &frame->buffer_id, sizeof(uint64_t));
		bool ok = uda_allocation_serialize_metadata(frame->allocation, handle_types[i], payload + sizeof(uint64_t),
		                                            sizeof(payload) - sizeof(uint64_t), &size) == UDA_SUCCESS &&
		          demo_send(c->socket_fd, DEMO_BUFFER, payload, sizeof(uint64_t) + size, fd) == 0;
		close(fd);
		if (ok && c->sent_count < sizeof(c->sent_ids) / sizeof(c->sent_ids[0]))
			c->sent_ids[c->sent_count++] = frame->buffer_id;
		if (ok && !c->printed_set) {
			const uda_capability_set_list *set = NULL;
			uda_allocation_get_capability_set(frame->allocation, &set);
			printf("negotiated with the compositor, shared as %s:\n", describe_handle_type(handle_types[i]));
			print_set_list(stdout, set, "  ");
			fflush(stdout);
			c->printed_set = true;
		}
		return ok;
	}
	return false;
}

static void *transport(void *data)
{
	struct client *c = data;
	int frame_fd = -1;
	uda_surface_get_frame_fd(c->window, &frame_fd);
	struct demo_message *message = malloc(sizeof(*message));
	while (message && !atomic_load(&c->stop)) {
		struct pollfd fds[2] = {{frame_fd, POLLIN, 0}, {c->socket_fd, POLLIN, 0}};
		if (poll(fds, 2, 100) < 0 && errno != EINTR)
			break;
		if (fds[0].revents & POLLIN) {
			/* The fence goes to the compositor with the frame: the
			 * event loop never waits for the renderer. */
			uda_surface_frame frame;
			int acquire_fence = -1;
			if (uda_surface_acquire_fenced(c->window, 0, &frame, &acquire_fence) == UDA_SUCCESS) {
				const struct demo_frame out = {frame.buffer_id, frame.frame_number};
				if (c->outstanding_count < UDA_SURFACE_MAX_BUFFERS)
					c->outstanding[c->outstanding_count++] = frame.buffer_id;
				bool ok = (already_sent(c, frame.buffer_id) || send_buffer(c, &frame)) &&
				          demo_send(c->socket_fd, DEMO_FRAME, &out, sizeof(out), acquire_fence) == 0;
				if (acquire_fence >= 0)
					close(acquire_fence);
				if (!ok) {
					fprintf(stderr, "uda-client: the compositor went away\n");
					break;
				}
			}
		}
		if (fds[1].revents & (POLLIN | POLLHUP)) {
			int got = demo_receive(c->socket_fd, message);
			if (got <= 0) {
				fprintf(stderr, "uda-client: the compositor closed the connection\n");
				break;
			}
			uint64_t id;
			if (message->type == DEMO_RELEASE && message->size == sizeof(id)) {
				memcpy(&id, message->payload, sizeof(id));
				for (unsigned i = 0; i < c->outstanding_count; i++) {
					if (c->outstanding[i] == id) {
						c->outstanding[i] = c->outstanding[--c->outstanding_count];
						break;
					}
				}
				/* The surface owns the release fence from here, and
				 * the next swap that gets this buffer waits for it. */
				if (uda_surface_release_fenced(c->window, id, message->fd) == UDA_SUCCESS)
					atomic_fetch_add(&c->released, 1);
			} else if (message->fd >= 0) {
				close(message->fd);
			}
		}
	}
	if (!atomic_load(&c->stop)) {
		/* The compositor is gone with our buffers: take them back, so
		 * a swap waiting for one returns. */
		for (unsigned i = 0; i < c->outstanding_count; i++)
			uda_surface_release(c->window, c->outstanding[i]);
		c->outstanding_count = 0;
		atomic_store(&c->failed, true);
	}
	free(message);
	return NULL;
}

static void draw(uint32_t frame, uint32_t width, uint32_t height)
{
	const struct demo_rgb background = demo_background(frame);
	glViewport(0, 0, (GLsizei)width, (GLsizei)height);
	glClearColor(background.r / 255.0f, background.g / 255.0f, background.b / 255.0f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glEnable(GL_SCISSOR_TEST);
	glScissor((GLint)demo_bar_x(frame, width), 0, (GLsizei)(width / 8), (GLsizei)height);
	glClearColor(1.0f, 1.0f, 1.0f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	/* The top eighth of the image: GL counts rows from the bottom. */
	glScissor(0, (GLint)(height - height / 8), (GLsizei)width, (GLsizei)(height / 8));
	glClearColor(0.0f, 200.0f / 255.0f, 0.0f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glDisable(GL_SCISSOR_TEST);
}

/* One compositor connection: negotiate, a uda_surface and an EGL window
 * surface over it, the transport thread. False with a message printed. */
static bool session_start(struct client *c)
{
	uda_capability_set_list *peer_sets = ask_compositor(c);
	if (!peer_sets) {
		fprintf(stderr, "uda-client: the compositor did not answer with its capability sets\n");
		return false;
	}
	const uda_usage_atom render_atom = {UDA_VENDOR_NONE, UDA_USAGE_RENDER_TARGET, 0, NULL};
	const uda_usage render = {UDA_STRUCTURE_TYPE_USAGE, NULL, 1, &render_atom};
	const uda_device_usage devices[] = {{c->gl, &render}, {c->allocator, &render}};
	const uda_negotiation_peer_info peer = {UDA_STRUCTURE_TYPE_NEGOTIATION_PEER_INFO, NULL, peer_sets};
	const uda_surface_create_info info = {
		.type = UDA_STRUCTURE_TYPE_SURFACE_CREATE_INFO,
		.next = &peer,
		.width = c->width,
		.height = c->height,
		.format = DRM_FORMAT_ABGR8888,
		.device_count = 2,
		.devices = devices,
		.buffer_count = 3,
	};
	uda_result created = uda_surface_create(c->ctx, &info, &c->window);
	uda_capability_set_list_destroy(peer_sets);
	if (created != UDA_SUCCESS) {
		fprintf(stderr, "uda-client: %s\n", uda_context_get_error(c->ctx));
		return false;
	}
	c->surface = eglCreatePlatformWindowSurface(c->display, c->config, c->window, NULL);
	if (c->surface == EGL_NO_SURFACE || !eglMakeCurrent(c->display, c->surface, c->surface, c->context)) {
		fprintf(stderr, "uda-client: cannot make a window surface of the buffers (EGL 0x%x)\n", eglGetError());
		return false;
	}
	c->sent_count = 0;
	c->outstanding_count = 0;
	c->session_frames = 0;
	atomic_store(&c->released, 0);
	atomic_store(&c->failed, false);
	atomic_store(&c->stop, false);
	if (pthread_create(&c->transport, NULL, transport, c) != 0) {
		fprintf(stderr, "uda-client: cannot start the transport thread\n");
		return false;
	}
	c->transport_running = true;
	return true;
}

static void session_end(struct client *c)
{
	atomic_store(&c->stop, true);
	if (c->transport_running)
		pthread_join(c->transport, NULL);
	c->transport_running = false;
	eglMakeCurrent(c->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	if (c->surface != EGL_NO_SURFACE)
		eglDestroySurface(c->display, c->surface);
	c->surface = EGL_NO_SURFACE;
	uda_surface_destroy(c->window);
	c->window = NULL;
	if (c->socket_fd >= 0)
		close(c->socket_fd);
	c->socket_fd = -1;
}

/* A compositor that went away may come back (restarted): wait up to 10 s
 * for one that accepts and starts a session. A socket still there may
 * belong to the old one on its way out, which takes the connection and
 * never answers: try again then too. */
static bool reconnect(struct client *c)
{
	for (int tenths = 0; tenths < 100; tenths++) {
		c->socket_fd = connect_to(c->socket_path);
		if (c->socket_fd >= 0 && session_start(c))
			return true;
		session_end(c);
		usleep(100000);
	}
	return false;
}

static bool egl_setup(struct client *c)
{
	c->display = eglGetPlatformDisplay(EGL_PLATFORM_UDA, c->gl, NULL);
	if (c->display == EGL_NO_DISPLAY || !eglInitialize(c->display, NULL, NULL)) {
		fprintf(stderr, "uda-client: no EGL display on the uda platform: is libuda-egl-host loaded and the "
		                "platform's manifest found (EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES)?\n");
		return false;
	}
	const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT,
	                                 EGL_NATIVE_VISUAL_ID, DRM_FORMAT_ABGR8888, EGL_NONE};
	EGLint configs = 0;
	eglBindAPI(EGL_OPENGL_ES_API);
	const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
	if (!eglChooseConfig(c->display, config_attribs, &c->config, 1, &configs) || configs != 1 ||
	    (c->context = eglCreateContext(c->display, c->config, EGL_NO_CONTEXT, context_attribs)) == EGL_NO_CONTEXT) {
		fprintf(stderr, "uda-client: no GLES 3 context for ABGR8888 windows on the uda platform\n");
		return false;
	}
	return true;
}

static int run(struct client *c)
{
	if (!egl_setup(c))
		return 1;
	int status = session_start(c) ? 0 : 1;
	unsigned reconnects = 0;
	for (uint32_t frame = 1; status == 0 && frame <= c->frames; frame++) {
		if (atomic_load(&c->failed)) {
			session_end(c);
			if (reconnects++ == c->reconnects || !reconnect(c)) {
				status = fail("the compositor is gone");
				break;
			}
			printf("uda-client: reconnected and negotiated anew at frame %u\n", frame);
			fflush(stdout);
		}
		draw(frame, c->width, c->height);
		if (!eglSwapBuffers(c->display, c->surface))
			status = fail("eglSwapBuffers failed");
		c->session_frames++;
	}
	/* Every frame of this session back from the compositor, then goodbye. */
	for (int waited = 0; status == 0 && atomic_load(&c->released) < c->session_frames &&
	                     !atomic_load(&c->failed) && waited < 1000;
	     waited++)
		usleep(10000);
	if (status == 0 && atomic_load(&c->released) < c->session_frames)
		status = fail("the compositor did not give every frame back");
	if (status == 0) {
		atomic_store(&c->stop, true);
		pthread_join(c->transport, NULL);
		c->transport_running = false;
		demo_send(c->socket_fd, DEMO_BYE, NULL, 0, -1);
		printf("uda-client: %u frames rendered and handed over\n", c->frames);
	}
	session_end(c);
	if (c->context != EGL_NO_CONTEXT)
		eglDestroyContext(c->display, c->context);
	eglTerminate(c->display);
	return status;
}

int main(int argc, char **argv)
{
	struct client c = {.socket_fd = -1, .surface = EGL_NO_SURFACE, .context = EGL_NO_CONTEXT};
	if (!parse_options(argc, argv, &c)) {
		usage(stderr);
		return 2;
	}
	if (uda_context_create(NULL, &c.ctx) != UDA_SUCCESS)
		return fail("cannot create a uda context");
	int status;
	if (!find_devices(&c)) {
		status = fail("needs a GL device and a Vulkan device of the same hardware (no device found?)");
	} else if ((c.socket_fd = connect_to(c.socket_path)) < 0) {
		fprintf(stderr, "uda-client: no compositor at %s: %s\n", c.socket_path, strerror(errno));
		status = 1;
	} else {
		status = run(&c);
	}
	if (c.socket_fd >= 0)
		close(c.socket_fd);
	uda_context_destroy(c.ctx);
	return status;
}
