/* uda-demo: the whole story in one command. Starts uda-compositor (a
 * Wayland compositor on uda) in a private runtime folder, then its
 * clients one after the other, each once the previous one's window is on
 * the output: uda-client (GLES on uda's EGL platform), and, where Weston's
 * demo clients are installed, weston-simple-shm (wl_shm, copied) and
 * weston-simple-egl (unmodified, on uda's platform through
 * libuda-egl-host: zero-copy like uda-client). When the compositor has
 * composited the frames asked for, with every window on them, the clients
 * are told to stop, and the compositor leaves after the last one. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CLIENTS 3
#define DEADLINE_S 120

struct demo {
	const char *size, *output;
	unsigned frames;
	bool uda_client_only;
	bool simple_egl_on_mesa; /* weston-simple-egl on libEGL's own platform */
	char folder[PATH_MAX];  /* where this program is, and its siblings */
	char runtime[PATH_MAX]; /* the private XDG_RUNTIME_DIR */
	char host[PATH_MAX];    /* libuda-egl-host, for weston-simple-egl */
	char *clients[MAX_CLIENTS][8];
	unsigned client_count;
	pid_t compositor, client_pids[MAX_CLIENTS];
	unsigned started, mapped;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: uda-demo [--frames N] [--size WIDTHxHEIGHT] [--output DIR] [--uda-client-only]\n"
	           "                [--simple-egl-on-mesa]\n"
	           "\n"
	           "Runs uda-compositor, a Wayland compositor on uda, with uda-client (a\n"
	           "WIDTHxHEIGHT GLES window on uda's EGL platform, default 256x192) and, where\n"
	           "they are installed, the unmodified weston-simple-shm and weston-simple-egl\n"
	           "(the latter on uda's platform too), side by side in one picture. Once\n"
	           "every window is on the output, the compositor composites N frames\n"
	           "(default 8) and writes the first, middle and last as PNG files into DIR\n"
	           "(default ./uda-demo-output). --simple-egl-on-mesa leaves weston-simple-egl\n"
	           "on libEGL's own Wayland platform (a build with sanitizers cannot preload\n"
	           "the host into it).\n");
}

/* The folder this program is in: its siblings are run from there. */
static bool own_folder(char *out, size_t size)
{
	char path[PATH_MAX];
	ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (length <= 0)
		return false;
	path[length] = '\0';
	char *slash = strrchr(path, '/');
	if (!slash)
		return false;
	*slash = '\0';
	return (size_t)snprintf(out, size, "%s", path) < size;
}

static bool in_path(const char *program)
{
	const char *path = getenv("PATH");
	char *copy = strdup(path ? path : "/usr/bin:/bin"), *saved = NULL;
	bool found = false;
	for (char *dir = copy ? strtok_r(copy, ":", &saved) : NULL; dir && !found; dir = strtok_r(NULL, ":", &saved)) {
		char candidate[PATH_MAX];
		snprintf(candidate, sizeof(candidate), "%s/%s", dir, program);
		found = access(candidate, X_OK) == 0;
	}
	free(copy);
	return found;
}

/* `environment`: NAME=VALUE pairs for the child alone. */
static pid_t start(char *const argv[], int stdout_fd, const char *const environment[])
{
	pid_t pid = fork();
	if (pid == 0) {
		if (stdout_fd >= 0)
			dup2(stdout_fd, STDOUT_FILENO);
		for (unsigned i = 0; environment && environment[i]; i++)
			putenv((char *)environment[i]);
		execvp(argv[0], argv);
		fprintf(stderr, "uda-demo: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static int exit_status(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static void start_next_client(struct demo *d)
{
	if (d->started == d->client_count)
		return;
	char *const *argv = d->clients[d->started];
	static char preload[PATH_MAX + 16];
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", d->host);
	/* weston-simple-egl, unmodified, on uda's platform. */
	const char *uda_platform[] = {"UDA_EGL_WAYLAND=1", preload, NULL};
	const bool is_egl = strcmp(argv[0], "weston-simple-egl") == 0 && !d->simple_egl_on_mesa;
	d->client_pids[d->started++] = start(argv, -1, is_egl ? uda_platform : NULL);
}

static void stop_clients(struct demo *d)
{
	for (unsigned i = 0; i < d->started; i++) {
		if (d->client_pids[i] > 0)
			kill(d->client_pids[i], SIGINT);
	}
}

/* One line of the compositor's: passed on, and the demo's next step. */
static void on_line(struct demo *d, const char *line)
{
	fputs(line, stdout);
	fflush(stdout);
	if (strstr(line, "uda-compositor: ") == line && strstr(line, ", listening on "))
		start_next_client(d);
	else if (strstr(line, "uda-compositor: window mapped: ") == line && ++d->mapped < d->client_count)
		start_next_client(d);
	else if (strstr(line, " frames composited"))
		stop_clients(d);
}

/* Follows the compositor's output until it ends (or the deadline). */
static void follow(struct demo *d, int fd)
{
	char buffer[4096];
	size_t used = 0;
	const time_t deadline = time(NULL) + DEADLINE_S;
	for (;;) {
		struct pollfd entry = {fd, POLLIN, 0};
		if (time(NULL) > deadline) {
			fprintf(stderr, "uda-demo: not done in %d s\n", DEADLINE_S);
			return;
		}
		int ready = poll(&entry, 1, 1000);
		if (ready < 0 && errno != EINTR)
			return;
		if (ready <= 0) {
			/* A client that died before its window came waits for nothing. */
			int status;
			const unsigned last = d->started - 1;
			if (d->started && d->mapped <= last && d->client_pids[last] > 0 &&
			    waitpid(d->client_pids[last], &status, WNOHANG) == d->client_pids[last]) {
				fprintf(stderr, "uda-demo: %s exited (%d) before its window was on the output\n",
				        d->clients[last][0], exit_status(status));
				d->client_pids[last] = -1;
				return;
			}
			continue;
		}
		ssize_t got = read(fd, buffer + used, sizeof(buffer) - 1 - used);
		if (got <= 0)
			return;
		used += (size_t)got;
		buffer[used] = '\0';
		char *start_of_line = buffer, *end;
		while ((end = strchr(start_of_line, '\n'))) {
			char saved = end[1];
			end[1] = '\0';
			on_line(d, start_of_line);
			end[1] = saved;
			start_of_line = end + 1;
		}
		used = strlen(start_of_line);
		memmove(buffer, start_of_line, used + 1);
		if (used == sizeof(buffer) - 1)
			used = 0; /* a line longer than the buffer: dropped */
	}
}

/* Waits for `pid` up to `seconds`, then kills it; its exit status. */
static int reap(pid_t pid, int seconds)
{
	for (int tenths = 0; pid > 0 && tenths < seconds * 10; tenths++) {
		int status;
		if (waitpid(pid, &status, WNOHANG) == pid)
			return exit_status(status);
		usleep(100000);
	}
	if (pid <= 0)
		return -1;
	kill(pid, SIGKILL);
	int status;
	waitpid(pid, &status, 0);
	return exit_status(status);
}

static bool prepare(struct demo *d)
{
	if (!own_folder(d->folder, sizeof(d->folder))) {
		fprintf(stderr, "uda-demo: cannot tell where uda-compositor and uda-client are\n");
		return false;
	}
	/* The host beside the build tree's samples, or the installed one. */
	snprintf(d->host, sizeof(d->host), "%s", strcmp(d->folder, UDA_DEMO_BUILD_FOLDER) == 0 ? UDA_DEMO_BUILD_HOST
	                                                                                         : UDA_DEMO_INSTALLED_HOST);
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	snprintf(d->runtime, sizeof(d->runtime), "%s/uda-demo-XXXXXX",
	         runtime && runtime[0] && access(runtime, W_OK) == 0 ? runtime : "/tmp");
	if (!mkdtemp(d->runtime)) {
		fprintf(stderr, "uda-demo: cannot make a runtime folder: %s\n", strerror(errno));
		return false;
	}
	setenv("XDG_RUNTIME_DIR", d->runtime, 1);
	setenv("WAYLAND_DISPLAY", "wayland-uda-demo", 1);
	static char client[PATH_MAX + 16];
	snprintf(client, sizeof(client), "%s/uda-client", d->folder);
	char **argv = d->clients[d->client_count++];
	argv[0] = client, argv[1] = "--frames", argv[2] = "0", argv[3] = "--size", argv[4] = (char *)d->size;
	const char *others[] = {"weston-simple-shm", "weston-simple-egl"};
	for (unsigned i = 0; i < 2 && !d->uda_client_only; i++) {
		if (in_path(others[i]))
			d->clients[d->client_count++][0] = (char *)others[i];
		else
			printf("uda-demo: %s is not installed (Debian: weston); the picture goes without it\n", others[i]);
	}
	mkdir(d->output, 0755);
	return true;
}

static void clean_runtime(struct demo *d)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/wayland-uda-demo", d->runtime);
	unlink(path);
	snprintf(path, sizeof(path), "%s/wayland-uda-demo.lock", d->runtime);
	unlink(path);
	rmdir(d->runtime);
}

int main(int argc, char **argv)
{
	struct demo d = {.size = "256x192", .output = "uda-demo-output", .frames = 8};
	static const struct option long_options[] = {
		{"frames", required_argument, NULL, 'n'}, {"size", required_argument, NULL, 'z'},
		{"output", required_argument, NULL, 'o'}, {"uda-client-only", no_argument, NULL, 'u'},
		{"simple-egl-on-mesa", no_argument, NULL, 'm'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int option;
	while ((option = getopt_long(argc, argv, "n:z:o:umh", long_options, NULL)) != -1) {
		switch (option) {
		case 'n':
			d.frames = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'z':
			d.size = optarg;
			break;
		case 'o':
			d.output = optarg;
			break;
		case 'u':
			d.uda_client_only = true;
			break;
		case 'm':
			d.simple_egl_on_mesa = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || d.frames == 0 || d.frames > 100000) {
		usage(stderr);
		return 2;
	}
	if (!prepare(&d))
		return 1;
	char compositor[PATH_MAX + 32], windows[16], frames[16], save[64];
	snprintf(compositor, sizeof(compositor), "%s/uda-compositor", d.folder);
	snprintf(windows, sizeof(windows), "%u", d.client_count);
	snprintf(frames, sizeof(frames), "%u", d.frames);
	snprintf(save, sizeof(save), "1,%u,%u", (d.frames + 1) / 2, d.frames);
	char *compositor_argv[] = {compositor, "--socket", "wayland-uda-demo", "--output", (char *)d.output,
	                           "--windows", windows, "--frames", frames, "--save", save, NULL};
	printf("== uda-demo: uda-compositor (Vulkan, a Wayland compositor on uda) and %u client%s\n", d.client_count,
	       d.client_count == 1 ? "" : "s");
	fflush(stdout);
	int pipe_fds[2];
	if (pipe(pipe_fds) != 0)
		return 1;
	d.compositor = start(compositor_argv, pipe_fds[1], NULL);
	close(pipe_fds[1]);
	follow(&d, pipe_fds[0]);
	close(pipe_fds[0]);
	/* Done or not, nothing is left running. */
	stop_clients(&d);
	int uda_client_status = -1;
	for (unsigned i = 0; i < d.started; i++) {
		int status = reap(d.client_pids[i], 10);
		if (i == 0)
			uda_client_status = status;
	}
	kill(d.compositor, SIGTERM);
	int compositor_status = reap(d.compositor, 10);
	clean_runtime(&d);
	if (compositor_status != 0 || uda_client_status != 0 || d.mapped < d.client_count) {
		fprintf(stderr, "uda-demo: failed: compositor %d, uda-client %d, %u of %u windows mapped\n", compositor_status,
		        uda_client_status, d.mapped, d.client_count);
		return 1;
	}
	char absolute[PATH_MAX];
	printf("== the compositor's frames 1, %u and %u are in %s/ (frame-NNN.png)\n", (d.frames + 1) / 2, d.frames,
	       realpath(d.output, absolute) ? absolute : d.output);
	return 0;
}
