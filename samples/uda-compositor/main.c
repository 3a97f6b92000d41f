/* uda-compositor: options, start, the event loop, the end (compositor.h
 * says what each file does). */
#include <dirent.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <wayland-server-protocol.h>

#include "compositor.h"
#include "renderer.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: uda-compositor [--socket NAME] [--output DIR] [--size WIDTHxHEIGHT] [--refresh HZ]\n"
	        "                      [--save N,N,...|all|none] [--windows N] [--frames N] [--exit-after N]\n"
	        "                      [--no-uda-protocol] [--no-linux-dmabuf] [--quiet]\n"
	        "\n"
	        "A Wayland compositor (wl_compositor, xdg_wm_base, wl_shm, wl_output,\n"
	        "zwp_linux_dmabuf_v1 where its device imports DMA-BUFs, and uda's own\n"
	        "uda_allocation_manager_v1) on the socket NAME in $XDG_RUNTIME_DIR (default:\n"
	        "the first free wayland-N). Its Vulkan device, reached through the layer\n"
	        "VK_LAYER_UDA_allocator, reads clients' uda and DMA-BUF buffers without a copy\n"
	        "(wl_shm ones are copied into its memory) and composites every window side by\n"
	        "side onto a WIDTHxHEIGHT output (default 832x288) at most HZ times a second\n"
	        "(default 60). Frames are counted once N windows (--windows, default 1) are\n"
	        "on the output; those named by --save (default 1, 4 and 8) are written as\n"
	        "DIR/frame-NNN.png (default: the current folder). --frames N: after N frames,\n"
	        "leave when the last client has; --exit-after N: exit at once after N frames,\n"
	        "as a crash or a restart would. SIGINT and SIGTERM end it.\n");
}

static bool parse_save(const char *text, struct compositor_options *o)
{
	o->save_count = 0;
	o->save_all = strcmp(text, "all") == 0;
	if (o->save_all || strcmp(text, "none") == 0)
		return true;
	for (const char *next = text; *next;) {
		char *end;
		unsigned long long frame = strtoull(next, &end, 10);
		if (end == next || o->save_count == COMPOSITOR_MAX_SAVED || (*end && *end != ','))
			return false;
		o->save[o->save_count++] = frame;
		next = *end ? end + 1 : end;
	}
	return true;
}

static bool parse_options(int argc, char **argv, struct compositor_options *o)
{
	*o = (struct compositor_options){.output = ".", .width = 832, .height = 288, .refresh_hz = 60,
	                                 .save = {1, 4, 8}, .save_count = 3, .windows = 1, .uda_protocol = true,
	                                 .linux_dmabuf = true};
	static const struct option long_options[] = {
		{"socket", required_argument, NULL, 's'},   {"output", required_argument, NULL, 'o'},
		{"size", required_argument, NULL, 'z'},     {"refresh", required_argument, NULL, 'r'},
		{"save", required_argument, NULL, 'f'},     {"windows", required_argument, NULL, 'w'},
		{"frames", required_argument, NULL, 'n'},   {"exit-after", required_argument, NULL, 'x'},
		{"no-uda-protocol", no_argument, NULL, 'U'}, {"no-linux-dmabuf", no_argument, NULL, 'D'},
		{"quiet", no_argument, NULL, 'q'},          {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int option;
	while ((option = getopt_long(argc, argv, "s:o:z:r:f:w:n:x:UDqh", long_options, NULL)) != -1) {
		switch (option) {
		case 's':
			o->socket_name = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'z':
			if (sscanf(optarg, "%ux%u", &o->width, &o->height) != 2)
				return false;
			break;
		case 'r':
			o->refresh_hz = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'f':
			if (!parse_save(optarg, o))
				return false;
			break;
		case 'w':
			o->windows = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'n':
			o->frames = strtoull(optarg, NULL, 10);
			break;
		case 'x':
			o->exit_after = strtoull(optarg, NULL, 10);
			break;
		case 'U':
			o->uda_protocol = false;
			break;
		case 'D':
			o->linux_dmabuf = false;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return false;
		}
	}
	return optind == argc && o->width >= 16 && o->height >= 16 && o->width <= 8192 && o->height <= 8192 &&
	       o->refresh_hz >= 1 && o->refresh_hz <= 1000;
}

static int open_descriptors(void)
{
	DIR *dir = opendir("/proc/self/fd");
	int count = 0;
	for (struct dirent *entry; dir && (entry = readdir(dir));)
		count += entry->d_name[0] != '.';
	if (dir)
		closedir(dir);
	return count - 1; /* the listing's own */
}

static int stop_signal(int signal_number, void *data)
{
	(void)signal_number;
	wl_display_terminate(((struct compositor *)data)->display);
	return 0;
}

/* The compositor, listening; SIGINT and SIGTERM end its loop. */
static bool listen_and_serve(struct compositor *compositor)
{
	if (!compositor_start(compositor))
		return false;
	compositor->stop_sources[0] = wl_event_loop_add_signal(compositor->loop, SIGINT, stop_signal, compositor);
	compositor->stop_sources[1] = wl_event_loop_add_signal(compositor->loop, SIGTERM, stop_signal, compositor);
	const char *name = compositor->options.socket_name;
	if (name ? wl_display_add_socket(compositor->display, name) != 0
	         : !(name = wl_display_add_socket_auto(compositor->display))) {
		fprintf(stderr, "uda-compositor: cannot listen on %s in XDG_RUNTIME_DIR (%s)\n", name ? name : "wayland-N",
		        getenv("XDG_RUNTIME_DIR") ? getenv("XDG_RUNTIME_DIR") : "not set");
		return false;
	}
	printf("uda-compositor: %s, listening on %s\n", renderer_get_name(compositor->renderer), name);
	fflush(stdout);
	return true;
}

static void stop_listening(struct compositor *compositor)
{
	for (unsigned i = 0; i < 2; i++) {
		if (compositor->stop_sources[i])
			wl_event_source_remove(compositor->stop_sources[i]);
		compositor->stop_sources[i] = NULL;
	}
}

int main(int argc, char **argv)
{
	struct compositor compositor = {0};
	if (!parse_options(argc, argv, &compositor.options)) {
		usage(stderr);
		return 2;
	}
	mkdir(compositor.options.output, 0755);
	/* Writing to a client that went away is its error, not our signal. */
	signal(SIGPIPE, SIG_IGN);
	/* SIGINT and SIGTERM reach the event loop (a signalfd) only if no
	 * thread takes them first: blocked before the driver starts its own. */
	sigset_t stop_signals;
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
	if (!listen_and_serve(&compositor)) {
		stop_listening(&compositor);
		compositor_finish(&compositor);
		return 1;
	}
	const int descriptors_before = open_descriptors();
	wl_display_run(compositor.display);
	wl_display_destroy_clients(compositor.display);
	/* Every client's descriptors went with it, whatever it did. */
	printf("uda-compositor: %d descriptors open after the clients, %d before\n", open_descriptors(),
	       descriptors_before);
	stop_listening(&compositor);
	compositor_finish(&compositor);
	return compositor.exit_status;
}
