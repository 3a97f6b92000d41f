/* libFuzzer target: uda-compositor's request handlers (surface.c,
 * xdg_shell.c, buffer.c, uda_allocation.c, linux_dmabuf.c, output.c and
 * wl_shm through them), fed by a client that says anything the wire can
 * carry. The compositor runs in this process on uda-mock-vulkan, a GPU
 * that imports DMA-BUFs, so linux-dmabuf is offered too; it is made once
 * and meets one new client per input, over a socket pair.
 *
 * The input is a script. Each step either sends one request or lets the
 * compositor's repaint timer run. A request goes to one of the objects the
 * client holds (wl_display, registries, whatever requests and events made)
 * and its arguments are read from the script by the request's signature,
 * so every handler is reached with any arguments its signature allows:
 * integers from a dictionary of sizes, strides, formats and modifiers
 * that matter here, or raw; objects of the right interface or not; fds of
 * real allocations of the GPU (as OPAQUE_FD and as DMA-BUF, with their
 * real metadata, which the script may corrupt), memfds of 0 to 64 KiB
 * (sealed or not), pipes and /dev/null. The client's own libwayland
 * marshals them, as any client would: what libwayland-server itself
 * refuses (unknown opcodes or objects, requests newer than the object)
 * is left to it.
 *
 * Whatever the client does, the compositor must neither crash nor leak:
 * once the client is gone, no surface, window or client may be left, and
 * no descriptor more than before may be open. */
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <wayland-client-core.h>
#include <wayland-client-protocol.h>
#include <wayland-server-core.h>

#include "compositor.h"
#include "fuzz_context.h"
#include "fuzz_mock_gpu.h"
#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "uda-allocation-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OUTPUT_WIDTH 64
#define OUTPUT_HEIGHT 48
#define MAX_OBJECTS 64
#define MAX_GLOBALS 16
#define MAX_STEPS 256
/* The real allocations whose fds and metadata the script may send: per
 * format, one exported as OPAQUE_FD and one as a DMA-BUF. */
#define REAL_FORMATS 2
#define REAL_COUNT (REAL_FORMATS * 2)
/* libwayland's limit of arguments per message (its private
 * MAX_ARGS). */
#define MAX_ARGS 20

struct real_buffer {
	int fd;
	uint8_t metadata[4096];
	size_t metadata_size;
};

struct harness {
	struct compositor compositor;
	struct real_buffer real[REAL_COUNT];
	uint32_t dictionary[40];
	unsigned dictionary_count;
	/* The last serial a configure or ping carried, for ack_configure and
	 * pong: the display's serials go on from client to client. */
	uint32_t last_serial;
};

static struct harness *harness;

struct script {
	const uint8_t *data;
	size_t size, at;
};

static uint8_t next_byte(struct script *s)
{
	return s->at < s->size ? s->data[s->at++] : 0;
}

/* High byte first; two statements, as C leaves the order of two calls in
 * one expression open. */
static uint16_t next_u16(struct script *s)
{
	const uint16_t high = next_byte(s);
	return (uint16_t)(high << 8 | next_byte(s));
}

static uint32_t next_raw_u32(struct script *s)
{
	uint32_t value = 0;
	for (int i = 0; i < 4; i++)
		value = value << 8 | next_byte(s);
	return value;
}

/* Mostly what the handlers compare against, sometimes anything. */
static uint32_t next_u32(struct script *s)
{
	const uint8_t b = next_byte(s);
	if (b == 0x7f)
		return harness->last_serial;
	if (b < 0x80)
		return harness->dictionary[b % harness->dictionary_count];
	if (b < 0xc0)
		return b - 0x80u;
	return next_raw_u32(s);
}

struct object {
	struct wl_proxy *proxy;
	const struct wl_interface *interface;
};

struct global {
	uint32_t name, version;
	const struct wl_interface *interface;
};

struct session {
	struct script script;
	struct wl_display *display; /* the client's end */
	struct wl_client *client;   /* the compositor's; NULL once it is gone */
	struct wl_listener client_gone;
	struct object objects[MAX_OBJECTS];
	unsigned object_count;
	struct global globals[MAX_GLOBALS];
	unsigned global_count;
	bool full; /* too many objects: no more are made */
};

/* The globals uda-compositor offers, by the name the registry says. */
static const struct wl_interface *const known_globals[] = {
	&wl_compositor_interface,         &wl_shm_interface,
	&wl_output_interface,             &xdg_wm_base_interface,
	&zwp_linux_dmabuf_v1_interface,   &uda_allocation_manager_v1_interface,
};

static int dispatch_event(const void *implementation, void *target, uint32_t opcode, const struct wl_message *message,
                          union wl_argument *args);

static void add_object(struct session *session, struct wl_proxy *proxy, const struct wl_interface *interface)
{
	if (session->object_count == MAX_OBJECTS) {
		/* Kept by nothing else: gone now, and no more are made. */
		wl_proxy_destroy(proxy);
		session->full = true;
		return;
	}
	wl_proxy_add_dispatcher(proxy, dispatch_event, NULL, session);
	session->objects[session->object_count++] = (struct object){proxy, interface};
}

/* Events: the registry's globals are noted, objects made by events are
 * added, fds closed; nothing else is needed. */
static int dispatch_event(const void *implementation, void *target, uint32_t opcode, const struct wl_message *message,
                          union wl_argument *args)
{
	(void)implementation;
	struct wl_proxy *proxy = target;
	struct session *session = wl_proxy_get_user_data(proxy);
	if (wl_proxy_get_class(proxy) == wl_registry_interface.name && opcode == 0 /* global */ &&
	    session->global_count < MAX_GLOBALS) {
		for (size_t i = 0; i < sizeof(known_globals) / sizeof(known_globals[0]); i++) {
			if (strcmp(args[1].s, known_globals[i]->name) == 0)
				session->globals[session->global_count++] =
				        (struct global){args[0].u, args[2].u, known_globals[i]};
		}
	}
	if ((strcmp(message->name, "configure") == 0 || strcmp(message->name, "ping") == 0) &&
	    strcmp(message->signature, "u") == 0)
		harness->last_serial = args[0].u;
	unsigned arg = 0;
	for (const char *c = message->signature; *c; c++) {
		if (*c == '?' || (*c >= '0' && *c <= '9'))
			continue;
		if (*c == 'h')
			close(args[arg].h);
		if (*c == 'n' && args[arg].o)
			add_object(session, (struct wl_proxy *)args[arg].o, message->types[arg]);
		arg++;
	}
	return 0;
}

static void client_gone(struct wl_listener *listener, void *data)
{
	(void)data;
	struct session *session = wl_container_of(listener, session, client_gone);
	session->client = NULL;
}

/* Requests sent, handled, answered, and the answers dispatched; false once
 * the connection is over. */
static bool exchange(struct session *session, int timeout_ms)
{
	struct wl_event_loop *loop = harness->compositor.loop;
	while (wl_display_flush(session->display) < 0) {
		if (errno != EAGAIN)
			break;
		/* The socket is full: the compositor reads some first. */
		wl_event_loop_dispatch(loop, 0);
		wl_display_flush_clients(harness->compositor.display);
		if (!session->client)
			break;
	}
	wl_event_loop_dispatch(loop, timeout_ms);
	wl_display_flush_clients(harness->compositor.display);
	if (wl_display_prepare_read(session->display) == 0) {
		struct pollfd p = {wl_display_get_fd(session->display), POLLIN, 0};
		if (poll(&p, 1, 0) > 0)
			wl_display_read_events(session->display);
		else
			wl_display_cancel_read(session->display);
	}
	wl_display_dispatch_pending(session->display);
	return session->client && wl_display_get_error(session->display) == 0;
}

static int memfd_of_size(size_t size)
{
	const int fd = memfd_create("uda-fuzz-client", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, (off_t)size) != 0)
		abort();
	return fd;
}

/* An fd the request sends, ours to close after. */
static int next_fd(struct script *s)
{
	const uint8_t kind = next_byte(s);
	switch (kind % 6) {
	case 0:
	case 1:
		return dup(harness->real[(kind >> 4) % REAL_COUNT].fd);
	case 2: {
		/* A pool or a buffer of any size up to 64 KiB, perhaps sealed
		 * against shrinking as careful clients do. */
		const int fd = memfd_of_size((size_t)next_byte(s) << 8);
		if (kind & 8)
			fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK);
		return fd;
	}
	case 3: {
		int p[2];
		if (pipe2(p, O_CLOEXEC) != 0)
			abort();
		close(p[1]);
		return p[0];
	}
	case 4:
		return open("/dev/null", O_RDWR | O_CLOEXEC);
	default:
		return memfd_of_size(0);
	}
}

/* uda's metadata: a real allocation's, perhaps with bytes changed, or
 * bytes of the script. The array points into `storage`. */
static void next_array(struct script *s, struct wl_array *array, uint8_t *storage, size_t capacity)
{
	const uint8_t kind = next_byte(s);
	const struct real_buffer *real = &harness->real[(kind >> 4) % REAL_COUNT];
	size_t size = 0;
	if (kind % 3 < 2) {
		size = real->metadata_size;
		memcpy(storage, real->metadata, size);
		for (unsigned changes = next_byte(s) % 4; changes && size; changes--) {
			const size_t at = next_u16(s) % size;
			storage[at] ^= next_byte(s);
		}
		if (kind & 8)
			size = next_u16(s) % (size + 1); /* cut short */
	} else {
		size = next_byte(s);
		for (size_t i = 0; i < size && i < capacity; i++)
			storage[i] = next_byte(s);
	}
	*array = (struct wl_array){.size = size, .alloc = capacity, .data = storage};
}

/* An object argument: one of `interface` where the client holds one
 * (most of the time), else any. */
static struct wl_proxy *next_object(struct session *session, const struct wl_interface *interface)
{
	const uint8_t pick = next_byte(&session->script);
	if (interface && pick < 0xc0) {
		unsigned matching = 0;
		for (unsigned i = 0; i < session->object_count; i++)
			matching += session->objects[i].interface == interface;
		for (unsigned i = 0, n = 0; i < session->object_count && matching; i++) {
			if (session->objects[i].interface == interface && n++ == pick % matching)
				return session->objects[i].proxy;
		}
	}
	return session->objects[pick % session->object_count].proxy;
}

static bool is_destructor(const struct wl_message *message)
{
	return strcmp(message->name, "destroy") == 0 || strcmp(message->name, "release") == 0;
}

static void remove_object(struct session *session, struct wl_proxy *proxy)
{
	for (unsigned i = 0; i < session->object_count; i++) {
		if (session->objects[i].proxy == proxy) {
			session->objects[i] = session->objects[--session->object_count];
			return;
		}
	}
}

/* wl_registry.bind: a global the registry named, at any version up to
 * its own. */
static void send_bind(struct session *session, struct wl_proxy *registry)
{
	struct script *s = &session->script;
	if (!session->global_count || session->full)
		return;
	const struct global *g = &session->globals[next_byte(s) % session->global_count];
	const uint32_t version = 1 + next_byte(s) % g->version;
	union wl_argument args[4] = {{.u = g->name}, {.s = g->interface->name}, {.u = version}, {.n = 0}};
	struct wl_proxy *object =
	        wl_proxy_marshal_array_flags(registry, WL_REGISTRY_BIND, g->interface, version, 0, args);
	if (object)
		add_object(session, object, g->interface);
}

static void send_request(struct session *session)
{
	struct script *s = &session->script;
	const struct object target = session->objects[next_byte(s) % session->object_count];
	if (!target.interface->method_count)
		return;
	const uint32_t opcode = next_byte(s) % (uint32_t)target.interface->method_count;
	const struct wl_message *message = &target.interface->methods[opcode];
	/* A request newer than the object: libwayland-server's answer, not
	 * the compositor's, and the end of the client. */
	const uint32_t version = wl_proxy_get_version(target.proxy);
	if (version && (uint32_t)atoi(message->signature) > version)
		return;
	if (target.interface == &wl_registry_interface && opcode == WL_REGISTRY_BIND) {
		send_bind(session, target.proxy);
		return;
	}
	union wl_argument args[MAX_ARGS] = {0};
	int fds[MAX_ARGS];
	unsigned fd_count = 0;
	static uint8_t storage[4096];
	const struct wl_interface *made = NULL;
	unsigned arg = 0;
	bool nullable = false;
	for (const char *c = message->signature; *c && arg < MAX_ARGS; c++) {
		switch (*c) {
		case '?':
			nullable = true;
			continue;
		case 'i':
		case 'u':
		case 'f':
			args[arg].u = next_u32(s);
			break;
		case 's': {
			static char text[64];
			const uint8_t length = next_byte(s);
			if (nullable && length == 0xff) {
				args[arg].s = NULL;
				break;
			}
			size_t i = 0;
			for (; i < length % sizeof(text); i++)
				text[i] = (char)(next_byte(s) | 1); /* no NUL inside */
			text[i] = 0;
			args[arg].s = text;
			break;
		}
		case 'o':
			args[arg].o = nullable && next_byte(s) >= 0xe0
			                      ? NULL
			                      : (struct wl_object *)next_object(session, message->types[arg]);
			break;
		case 'n':
			made = message->types[arg];
			args[arg].n = 0;
			break;
		case 'a': {
			static struct wl_array array;
			next_array(s, &array, storage, sizeof(storage));
			args[arg].a = &array;
			break;
		}
		case 'h':
			fds[fd_count] = next_fd(s);
			if (fds[fd_count] < 0)
				abort();
			args[arg].h = fds[fd_count++];
			break;
		default:
			continue; /* the since version's digits */
		}
		nullable = false;
		arg++;
	}
	if (made && session->full) {
		for (unsigned i = 0; i < fd_count; i++)
			close(fds[i]);
		return;
	}
	const bool destroy = is_destructor(message) && target.interface != &wl_display_interface;
	struct wl_proxy *object = wl_proxy_marshal_array_flags(target.proxy, opcode, made,
	                                                       wl_proxy_get_version(target.proxy),
	                                                       destroy ? WL_MARSHAL_FLAG_DESTROY : 0, args);
	/* libwayland sent copies. */
	for (unsigned i = 0; i < fd_count; i++)
		close(fds[i]);
	if (destroy)
		remove_object(session, target.proxy);
	if (object)
		add_object(session, object, made);
}

static void run_script(const uint8_t *data, size_t size)
{
	struct compositor *compositor = &harness->compositor;
	struct session session = {.script = {data, size, 0}};
	/* An input behaves alone as it did among others. */
	harness->last_serial = 0;
	int sockets[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
		abort();
	session.client = wl_client_create(compositor->display, sockets[0]);
	session.display = wl_display_connect_to_fd(sockets[1]);
	if (!session.client || !session.display)
		abort();
	session.client_gone.notify = client_gone;
	wl_client_add_destroy_listener(session.client, &session.client_gone);
	/* The display is an object too (sync, get_registry). */
	session.objects[session.object_count++] =
	        (struct object){(struct wl_proxy *)session.display, &wl_display_interface};
	struct wl_proxy *registry = (struct wl_proxy *)wl_display_get_registry(session.display);
	add_object(&session, registry, &wl_registry_interface);

	bool connected = exchange(&session, 0);
	for (unsigned step = 0; connected && step < MAX_STEPS && session.script.at < size; step++) {
		if (next_byte(&session.script) % 8 == 7)
			/* The repaint's time at 1000 Hz, where one is due. */
			connected = exchange(&session, compositor->repaint_scheduled ? 2 : 0);
		else {
			send_request(&session);
			connected = exchange(&session, 0);
		}
	}

	if (session.client)
		wl_client_destroy(session.client);
	for (unsigned i = 1; i < session.object_count; i++)
		wl_proxy_destroy(session.objects[i].proxy);
	wl_display_disconnect(session.display);
	wl_event_loop_dispatch(compositor->loop, 0);
	if (!wl_list_empty(&compositor->surfaces) || !wl_list_empty(&compositor->windows) || compositor->clients) {
		fprintf(stderr, "fuzz_compositor_requests: the client left state behind\n");
		abort();
	}
}

/* Keeps a real allocation of `sets` exported as `handle_type`, and adds
 * its pitch, offset and modifier to the dictionary; false where no set
 * of the list exports it. */
static bool keep_real_buffer(struct real_buffer *real, const uda_assertion *assertion,
                             const uda_capability_set_list *sets, uda_handle_type handle_type)
{
	struct compositor *compositor = &harness->compositor;
	uint32_t count = 0;
	uda_capability_set_list_get_count(sets, &count);
	for (uint32_t i = 0; i < count; i++) {
		const uda_allocation_create_info info = {UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO, NULL, compositor->device,
		                                         assertion, sets, i};
		uda_allocation *allocation = NULL;
		uda_allocation_metadata m = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
		uint64_t modifier = DRM_FORMAT_MOD_INVALID;
		real->fd = -1;
		const bool kept =
		        uda_allocate(&info, &allocation) == UDA_SUCCESS &&
		        uda_allocation_serialize_metadata(allocation, handle_type, real->metadata, sizeof(real->metadata),
		                                          &real->metadata_size) == UDA_SUCCESS &&
		        uda_allocation_export(allocation, handle_type, &real->fd) == UDA_SUCCESS &&
		        uda_allocation_get_metadata(allocation, &m) == UDA_SUCCESS;
		uda_allocation_destroy(allocation);
		if (!kept) {
			if (real->fd >= 0)
				close(real->fd);
			continue;
		}
		uda_capability_set_list_get_modifier(sets, i, &modifier);
		uint32_t *d = harness->dictionary;
		d[harness->dictionary_count++] = m.planes[0].pitch;
		d[harness->dictionary_count++] = (uint32_t)m.planes[0].offset;
		d[harness->dictionary_count++] = (uint32_t)(modifier >> 32);
		d[harness->dictionary_count++] = (uint32_t)modifier;
		return true;
	}
	return false;
}

/* Real allocations of what the compositor reads, their fds and metadata,
 * and the numbers a valid request carries. */
static void make_real_buffers(void)
{
	struct compositor *compositor = &harness->compositor;
	const uint32_t fixed[] = {0, 1, 2, 3, 4, 16, OUTPUT_WIDTH, OUTPUT_HEIGHT, OUTPUT_WIDTH * 4, 4096, 0x7fffffff,
	                          0xffffffff, DRM_FORMAT_ABGR8888, DRM_FORMAT_XBGR8888, DRM_FORMAT_ARGB8888,
	                          DRM_FORMAT_XRGB8888, DRM_FORMAT_NV12, WL_SHM_FORMAT_ARGB8888, WL_SHM_FORMAT_XRGB8888,
	                          (uint32_t)(DRM_FORMAT_MOD_INVALID >> 32), (uint32_t)DRM_FORMAT_MOD_INVALID};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		harness->dictionary[harness->dictionary_count++] = fixed[i];
	const uint32_t formats[REAL_FORMATS] = {DRM_FORMAT_ABGR8888, DRM_FORMAT_XRGB8888};
	for (unsigned i = 0; i < REAL_FORMATS; i++) {
		const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, OUTPUT_WIDTH, OUTPUT_HEIGHT, formats[i],
		                                 0};
		const uda_usage_atom atoms[] = {{UDA_VENDOR_NONE, UDA_USAGE_SAMPLED, 0, NULL},
		                                {UDA_VENDOR_NONE, UDA_USAGE_TRANSFER_SRC, 0, NULL}};
		const uda_usage usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 2, atoms};
		const uda_device_usage entry = {compositor->device, &usage};
		const uda_negotiation_info negotiation = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, NULL, &assertion, 1, &entry};
		uda_capability_set_list *sets = NULL;
		if (uda_negotiate(compositor->ctx, &negotiation, &sets) != UDA_SUCCESS ||
		    !keep_real_buffer(&harness->real[2 * i], &assertion, sets, UDA_HANDLE_TYPE_OPAQUE_FD) ||
		    !keep_real_buffer(&harness->real[2 * i + 1], &assertion, sets, UDA_HANDLE_TYPE_DMA_BUF)) {
			fprintf(stderr, "fuzz_compositor_requests: cannot allocate on the mock: %s\n",
			        uda_context_get_error(compositor->ctx));
			abort();
		}
		uda_capability_set_list_destroy(sets);
	}
}

static void stop_compositor(void)
{
	compositor_finish(&harness->compositor);
	for (unsigned i = 0; i < REAL_COUNT; i++)
		close(harness->real[i].fd);
	free(harness);
}

static void start_compositor(void)
{
	harness = calloc(1, sizeof(*harness));
	if (!harness)
		abort();
	fuzz_use_mock_gpu();
	/* The uda layer, from the build tree. */
	setenv("XDG_DATA_DIRS", UDA_FUZZ_DATA_DIR, 1);
	unsetenv("VK_INSTANCE_LAYERS");
	struct compositor *compositor = &harness->compositor;
	compositor->options = (struct compositor_options){.output = "/nonexistent", .width = OUTPUT_WIDTH,
	                                                  .height = OUTPUT_HEIGHT, .refresh_hz = 1000, .windows = 1,
	                                                  .uda_protocol = true, .linux_dmabuf = true, .quiet = true};
	if (!compositor_start(compositor) || !compositor->feedback) {
		fprintf(stderr, "fuzz_compositor_requests: uda-compositor did not start on the mock with linux-dmabuf\n");
		abort();
	}
	atexit(stop_compositor);
	make_real_buffers();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!harness)
		start_compositor();
	const int fds_before = fuzz_open_fds();
	run_script(data, size);
	if (fuzz_open_fds() != fds_before) {
		fprintf(stderr, "fuzz_compositor_requests: %d descriptors open, %d before\n", fuzz_open_fds(), fds_before);
		abort();
	}
	return 0;
}
