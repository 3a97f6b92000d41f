/* uda-client: an ordinary Wayland EGL client, rendering through uda's
 * EGL platform. It opens an xdg_toplevel window, renders an animated
 * picture with GLES into a wl_egl_window, and lets eglSwapBuffers do the
 * rest: uda's Wayland platform negotiates the buffers with the
 * compositor (uda's own protocol where it is offered, linux-dmabuf
 * feedback otherwise, wl_shm as the last resort) and hands each frame
 * over, paced by frame callbacks. Nothing here knows about buffers.
 *
 * Link order matters: libuda-egl-host comes before libEGL, and it serves
 * EGL_PLATFORM_WAYLAND_KHR with uda's platform when UDA_EGL_WAYLAND=1,
 * which this program sets unless told otherwise (NVIDIA's libEGL loads
 * the platform itself). */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#include <dirent.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wayland-client.h>
#include <wayland-egl.h>

#include "common/demo_pattern.h"
#include "xdg-shell-client-protocol.h"

struct window {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct xdg_wm_base *wm_base;
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	struct wl_egl_window *native;
	bool configured, closed;
	EGLDisplay egl;
	EGLContext context;
	EGLSurface egl_surface;
};

struct client {
	const char *display_name; /* NULL: $WAYLAND_DISPLAY */
	uint32_t width, height, frames; /* frames 0: until a signal */
	unsigned reconnects;
	struct window window;
};

static volatile sig_atomic_t stopping;

static void on_signal(int signal_number)
{
	(void)signal_number;
	stopping = 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: uda-client [--display NAME] [--frames N] [--size WIDTHxHEIGHT] [--reconnect N]\n"
	           "\n"
	           "A Wayland EGL client on uda's EGL platform: renders N frames (default 8;\n"
	           "0: until SIGINT or SIGTERM) of a WIDTHxHEIGHT window (default 256x192) with\n"
	           "GLES, through eglSwapBuffers, on the compositor NAME (default\n"
	           "$WAYLAND_DISPLAY). With --reconnect N, a compositor that goes away (is\n"
	           "restarted) is waited for up to 10 s and the window made again on the new\n"
	           "one, N times, the picture going on from the frame it had reached.\n");
}

static bool parse_options(int argc, char **argv, struct client *c)
{
	c->width = 256;
	c->height = 192;
	c->frames = 8;
	static const struct option long_options[] = {
		{"display", required_argument, NULL, 'd'}, {"frames", required_argument, NULL, 'n'},
		{"size", required_argument, NULL, 'z'},    {"reconnect", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
	};
	int option;
	while ((option = getopt_long(argc, argv, "d:n:z:r:h", long_options, NULL)) != -1) {
		switch (option) {
		case 'd':
			c->display_name = optarg;
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
	return optind == argc && c->width >= 16 && c->height >= 16 && c->width <= 8192 && c->height <= 8192;
}

/* ---- Wayland ---- */

static void wm_base_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	(void)data;
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = {.ping = wm_base_ping};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
                            uint32_t version)
{
	(void)version;
	struct window *w = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0 && !w->compositor) {
		w->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 1);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0 && !w->wm_base) {
		w->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
		xdg_wm_base_add_listener(w->wm_base, &wm_base_listener, w);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
	(void)data;
	(void)registry;
	(void)name;
}

static const struct wl_registry_listener registry_listener = {registry_global, registry_global_remove};

static void xdg_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	struct window *w = data;
	xdg_surface_ack_configure(xdg_surface, serial);
	w->configured = true;
}

static const struct xdg_surface_listener xdg_surface_listener = {.configure = xdg_surface_configure};

/* The compositor's size hints are not taken: the picture is checked
 * pixel for pixel at the size asked for. */
static void toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width, int32_t height,
                               struct wl_array *states)
{
	(void)data;
	(void)toplevel;
	(void)width;
	(void)height;
	(void)states;
}

static void toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
	(void)toplevel;
	((struct window *)data)->closed = true;
}

static const struct xdg_toplevel_listener toplevel_listener = {.configure = toplevel_configure,
                                                               .close = toplevel_close};

static void window_destroy(struct window *w)
{
	if (w->egl != EGL_NO_DISPLAY) {
		eglMakeCurrent(w->egl, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
		if (w->egl_surface != EGL_NO_SURFACE)
			eglDestroySurface(w->egl, w->egl_surface);
		if (w->context != EGL_NO_CONTEXT)
			eglDestroyContext(w->egl, w->context);
		eglTerminate(w->egl);
	}
	if (w->native)
		wl_egl_window_destroy(w->native);
	if (w->toplevel)
		xdg_toplevel_destroy(w->toplevel);
	if (w->xdg_surface)
		xdg_surface_destroy(w->xdg_surface);
	if (w->surface)
		wl_surface_destroy(w->surface);
	if (w->wm_base)
		xdg_wm_base_destroy(w->wm_base);
	if (w->compositor)
		wl_compositor_destroy(w->compositor);
	if (w->registry)
		wl_registry_destroy(w->registry);
	if (w->display)
		wl_display_disconnect(w->display);
	*w = (struct window){.egl = EGL_NO_DISPLAY, .context = EGL_NO_CONTEXT, .egl_surface = EGL_NO_SURFACE};
}

/* The window, configured, with a GLES 3 context current on it. False with
 * a message when `quiet` is not set. */
static bool window_create(struct client *c, bool quiet)
{
	struct window *w = &c->window;
	*w = (struct window){.egl = EGL_NO_DISPLAY, .context = EGL_NO_CONTEXT, .egl_surface = EGL_NO_SURFACE};
	w->display = wl_display_connect(c->display_name);
	if (!w->display) {
		if (!quiet)
			fprintf(stderr, "uda-client: no Wayland compositor at %s\n",
			        c->display_name ? c->display_name : "$WAYLAND_DISPLAY");
		return false;
	}
	w->registry = wl_display_get_registry(w->display);
	wl_registry_add_listener(w->registry, &registry_listener, w);
	if (wl_display_roundtrip(w->display) < 0 || !w->compositor || !w->wm_base) {
		fprintf(stderr, "uda-client: the compositor has no wl_compositor or xdg_wm_base\n");
		return false;
	}
	w->surface = wl_compositor_create_surface(w->compositor);
	w->xdg_surface = xdg_wm_base_get_xdg_surface(w->wm_base, w->surface);
	xdg_surface_add_listener(w->xdg_surface, &xdg_surface_listener, w);
	w->toplevel = xdg_surface_get_toplevel(w->xdg_surface);
	xdg_toplevel_add_listener(w->toplevel, &toplevel_listener, w);
	xdg_toplevel_set_title(w->toplevel, "uda-client");
	xdg_toplevel_set_app_id(w->toplevel, "uda-client");
	wl_surface_commit(w->surface);
	while (!w->configured && wl_display_dispatch(w->display) >= 0)
		;
	if (!w->configured) {
		fprintf(stderr, "uda-client: the window was never configured\n");
		return false;
	}
	w->native = wl_egl_window_create(w->surface, (int)c->width, (int)c->height);
	w->egl = eglGetPlatformDisplay(EGL_PLATFORM_WAYLAND_KHR, w->display, NULL);
	if (w->egl == EGL_NO_DISPLAY || !eglInitialize(w->egl, NULL, NULL)) {
		fprintf(stderr, "uda-client: no EGL display for Wayland (EGL 0x%x)\n", eglGetError());
		return false;
	}
	const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT,
	                                 EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8,
	                                 EGL_NONE};
	const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
	EGLConfig config;
	EGLint configs = 0;
	eglBindAPI(EGL_OPENGL_ES_API);
	if (!eglChooseConfig(w->egl, config_attribs, &config, 1, &configs) || configs != 1 ||
	    (w->context = eglCreateContext(w->egl, config, EGL_NO_CONTEXT, context_attribs)) == EGL_NO_CONTEXT) {
		fprintf(stderr, "uda-client: no GLES 3 context for RGBA8 windows (EGL 0x%x)\n", eglGetError());
		return false;
	}
	w->egl_surface = eglCreatePlatformWindowSurface(w->egl, config, w->native, NULL);
	if (w->egl_surface == EGL_NO_SURFACE || !eglMakeCurrent(w->egl, w->egl_surface, w->egl_surface, w->context)) {
		fprintf(stderr, "uda-client: no window surface (EGL 0x%x)\n", eglGetError());
		return false;
	}
	return true;
}

/* ---- The picture ---- */

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

#define MAX_MEMORY_FILES 64

/* The files of buffer memory (memfds, DMA-BUFs) this process holds open,
 * by inode: a window's buffers, whatever the platform made them of, and
 * whatever the drivers keep of their own. */
static unsigned memory_files(ino_t out[MAX_MEMORY_FILES])
{
	DIR *dir = opendir("/proc/self/fd");
	unsigned count = 0;
	for (struct dirent *entry; dir && (entry = readdir(dir)) && count < MAX_MEMORY_FILES;) {
		char target[128];
		struct stat st;
		ssize_t length = readlinkat(dirfd(dir), entry->d_name, target, sizeof(target) - 1);
		if (length <= 0 || fstatat(dirfd(dir), entry->d_name, &st, 0) != 0)
			continue;
		target[length] = '\0';
		if (strncmp(target, "/memfd:", 7) == 0 || strncmp(target, "/dmabuf:", 8) == 0 ||
		    strcmp(target, "anon_inode:dmabuf") == 0) {
			bool seen = false;
			for (unsigned i = 0; i < count && !seen; i++)
				seen = out[i] == st.st_ino;
			if (!seen)
				out[count++] = st.st_ino;
		}
	}
	if (dir)
		closedir(dir);
	return count;
}

/* How many of `files` are still open. */
static unsigned still_open(const ino_t *files, unsigned count)
{
	ino_t now[MAX_MEMORY_FILES];
	const unsigned open_now = memory_files(now);
	unsigned kept = 0;
	for (unsigned i = 0; i < count; i++) {
		for (unsigned j = 0; j < open_now; j++)
			kept += files[i] == now[j];
	}
	return kept;
}

/* A compositor that went away may come back (restarted): wait up to 10 s
 * for one that takes a new window. */
static bool reconnect(struct client *c)
{
	window_destroy(&c->window);
	for (int tenths = 0; tenths < 100 && !stopping; tenths++) {
		if (window_create(c, true))
			return true;
		window_destroy(&c->window);
		usleep(100000);
	}
	return false;
}

static int run(struct client *c)
{
	if (!window_create(c, false))
		return 1;
	printf("uda-client: a %ux%u window on %s, EGL from %s\n", c->width, c->height,
	       c->display_name ? c->display_name : getenv("WAYLAND_DISPLAY"), eglQueryString(c->window.egl, EGL_VENDOR));
	fflush(stdout);
	unsigned reconnects = 0, old_count = 0;
	ino_t old_files[MAX_MEMORY_FILES];
	uint32_t frame = 1;
	for (; !stopping && !c->window.closed && (c->frames == 0 || frame <= c->frames); frame++) {
		draw(frame, c->width, c->height);
		if (eglSwapBuffers(c->window.egl, c->window.egl_surface) &&
		    wl_display_dispatch_pending(c->window.display) >= 0)
			continue;
		/* The compositor is gone (or broke the connection). */
		if (stopping)
			break;
		old_count = memory_files(old_files);
		if (reconnects++ == c->reconnects || !reconnect(c)) {
			fprintf(stderr, "uda-client: the compositor is gone (EGL 0x%x)\n", eglGetError());
			window_destroy(&c->window);
			return 1;
		}
		printf("uda-client: reconnected and negotiated anew at frame %u\n", frame);
		fflush(stdout);
		frame--; /* that frame again, on the new window */
	}
	/* The old window's buffers went with it, whatever the dead compositor
	 * held: none of the memory open when it went is open now. */
	if (reconnects)
		printf("uda-client: buffer memory: %u files open when the compositor went, %u of them still open at "
		       "the end\n",
		       old_count, still_open(old_files, old_count));
	printf("uda-client: %u frames rendered and handed over\n", frame - 1);
	window_destroy(&c->window);
	return 0;
}

int main(int argc, char **argv)
{
	struct client c = {0};
	if (!parse_options(argc, argv, &c)) {
		usage(stderr);
		return 2;
	}
	/* uda's Wayland platform rather than libEGL's own (libuda-egl-host). */
	setenv("UDA_EGL_WAYLAND", "1", 0);
	struct sigaction action = {.sa_handler = on_signal};
	sigaction(SIGINT, &action, NULL);
	sigaction(SIGTERM, &action, NULL);
	return run(&c);
}
