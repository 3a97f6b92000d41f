/* uda-demo: the whole story in one command. Starts uda-compositor, starts
 * uda-client against it, waits for both, and says where the compositor's
 * PNG frames are. The client prints the capability set it negotiated with
 * the compositor; the compositor a line per frame. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: uda-demo [--frames N] [--size WIDTHxHEIGHT] [--output DIR]\n"
	           "\n"
	           "Runs uda-compositor (Vulkan, importing through VK_LAYER_UDA_allocator) and\n"
	           "uda-client (GLES on EGL_PLATFORM_UDA) against each other over a unix socket\n"
	           "in a private folder. The client renders N frames (default 8, 256x192) into\n"
	           "negotiated buffers; the compositor composites them without a copy and\n"
	           "writes the first, middle and last as PNG files into DIR (default\n"
	           "./uda-demo-output).\n");
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

static pid_t start(char *const argv[])
{
	pid_t pid = fork();
	if (pid == 0) {
		execv(argv[0], argv);
		fprintf(stderr, "uda-demo: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static int exit_status(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* Waits for `pid` up to `seconds`; -1 if it is still running. */
static int wait_for(pid_t pid, int seconds)
{
	for (int tenths = 0; tenths < seconds * 10; tenths++) {
		int status;
		pid_t done = waitpid(pid, &status, WNOHANG);
		if (done == pid)
			return exit_status(status);
		usleep(100000);
	}
	return -1;
}

int main(int argc, char **argv)
{
	unsigned frames = 8;
	const char *size = "256x192";
	const char *output = "uda-demo-output";
	static const struct option long_options[] = {
		{"frames", required_argument, NULL, 'n'}, {"size", required_argument, NULL, 'z'},
		{"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int option;
	while ((option = getopt_long(argc, argv, "n:z:o:h", long_options, NULL)) != -1) {
		switch (option) {
		case 'n':
			frames = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'z':
			size = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || frames == 0 || frames > 100000) {
		usage(stderr);
		return 2;
	}
	char folder[PATH_MAX], compositor[PATH_MAX + 32], client[PATH_MAX + 32];
	if (!own_folder(folder, sizeof(folder))) {
		fprintf(stderr, "uda-demo: cannot tell where uda-compositor and uda-client are\n");
		return 1;
	}
	snprintf(compositor, sizeof(compositor), "%s/uda-compositor", folder);
	snprintf(client, sizeof(client), "%s/uda-client", folder);

	/* A private folder for the socket, so no other demo gets in the way. */
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	char private_folder[PATH_MAX];
	snprintf(private_folder, sizeof(private_folder), "%s/uda-demo-XXXXXX",
	         runtime && runtime[0] && access(runtime, W_OK) == 0 ? runtime : "/tmp");
	if (!mkdtemp(private_folder)) {
		fprintf(stderr, "uda-demo: cannot make a folder for the socket: %s\n", strerror(errno));
		return 1;
	}
	char socket_path[PATH_MAX + 16];
	snprintf(socket_path, sizeof(socket_path), "%s/socket", private_folder);
	mkdir(output, 0755);

	char save[64], frames_text[16];
	snprintf(save, sizeof(save), "1,%u,%u", (frames + 1) / 2, frames);
	snprintf(frames_text, sizeof(frames_text), "%u", frames);
	char *compositor_argv[] = {compositor, "--socket", socket_path, "--output", (char *)output, "--save", save,
	                           "--clients", "1", NULL};
	char *client_argv[] = {client, "--socket", socket_path, "--frames", frames_text, "--size", (char *)size, NULL};

	printf("== uda-demo: compositor (Vulkan + uda layer) and client (GLES on EGL_PLATFORM_UDA)\n");
	fflush(stdout);
	int status = 1;
	pid_t compositor_pid = start(compositor_argv);
	bool listening = false;
	for (int tenths = 0; compositor_pid > 0 && tenths < 200 && !listening; tenths++) {
		struct stat st;
		listening = stat(socket_path, &st) == 0;
		int child_status;
		if (!listening && waitpid(compositor_pid, &child_status, WNOHANG) == compositor_pid) {
			fprintf(stderr, "uda-demo: the compositor exited (%d) before listening\n", exit_status(child_status));
			compositor_pid = -1;
			break;
		}
		if (!listening)
			usleep(100000);
	}
	if (listening) {
		pid_t client_pid = start(client_argv);
		int client_status = client_pid > 0 ? wait_for(client_pid, 120) : -1;
		if (client_status < 0 && client_pid > 0) {
			fprintf(stderr, "uda-demo: the client did not finish in 120 s\n");
			kill(client_pid, SIGKILL);
			waitpid(client_pid, NULL, 0);
		}
		int compositor_status = wait_for(compositor_pid, 10);
		if (compositor_status < 0) {
			kill(compositor_pid, SIGTERM);
			compositor_status = wait_for(compositor_pid, 5);
		}
		if (compositor_status < 0) {
			kill(compositor_pid, SIGKILL);
			waitpid(compositor_pid, NULL, 0);
		}
		compositor_pid = -1;
		status = client_status == 0 && compositor_status == 0 ? 0 : 1;
		if (client_status != 0)
			fprintf(stderr, "uda-demo: the client failed (%d)\n", client_status);
		if (compositor_status != 0)
			fprintf(stderr, "uda-demo: the compositor failed (%d)\n", compositor_status);
	} else if (compositor_pid > 0) {
		fprintf(stderr, "uda-demo: the compositor is not listening after 20 s\n");
		kill(compositor_pid, SIGKILL);
		waitpid(compositor_pid, NULL, 0);
	}
	unlink(socket_path);
	rmdir(private_folder);
	if (status == 0) {
		char absolute[PATH_MAX];
		printf("== the compositor's frames 1, %u and %u are in %s/ (frame-NNN.png)\n", (frames + 1) / 2, frames,
		       realpath(output, absolute) ? absolute : output);
	}
	return status;
}
