/* weston_launcher.h: Weston for tests and benchmarks. */
#include "process_cpu.h"
#include "weston_launcher.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static void sleep_ms(unsigned ms)
{
	struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&t, NULL);
}

/* The caller's environment without what would point Weston (or its
 * screenshooter) at another compositor or preload uda into it. */
static char **environment(const char *runtime_dir, bool with_display)
{
	size_t count = 0;
	while (environ[count])
		count++;
	char **env = calloc(count + 4, sizeof(*env));
	if (!env)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < count; i++) {
		if (strncmp(environ[i], "XDG_RUNTIME_DIR=", 16) && strncmp(environ[i], "WAYLAND_DISPLAY=", 16) &&
		    strncmp(environ[i], "LD_PRELOAD=", 11))
			env[n++] = environ[i];
	}
	static _Thread_local char runtime[96];
	snprintf(runtime, sizeof(runtime), "XDG_RUNTIME_DIR=%s", runtime_dir);
	env[n++] = runtime;
	if (with_display)
		env[n++] = "WAYLAND_DISPLAY=wayland-uda";
	return env;
}

static pid_t spawn(char *const argv[], const char *runtime_dir, bool with_display)
{
	char **env = environment(runtime_dir, with_display);
	if (!env)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		/* Weston goes with the test even when the test dies (an abort,
		 * a sanitizer's report, ctest's timeout) and runs no cleanup. */
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* even when stopped */
		if (getppid() == 1 || chdir(runtime_dir) != 0)
			_exit(127);
		/* Weston's output stays out of the caller's (and out of ctest's
		 * pipe, which a Weston left behind would hold open). */
		FILE *null = fopen("/dev/null", "w+");
		if (null) {
			dup2(fileno(null), STDIN_FILENO);
			dup2(fileno(null), STDOUT_FILENO);
			dup2(fileno(null), STDERR_FILENO);
		}
		execvpe(argv[0], argv, env);
		_exit(127);
	}
	free(env);
	return pid;
}

static bool log_says(const struct weston_launcher *weston, const char *text)
{
	FILE *f = fopen(weston->log, "r");
	if (!f)
		return false;
	char line[1024];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, text) != NULL;
	fclose(f);
	return found;
}

/* A runtime folder of the launcher's own, and where its socket will be. */
static bool make_runtime_dir(struct weston_launcher *weston)
{
	memset(weston, 0, sizeof(*weston));
	weston->pid = -1;
	snprintf(weston->runtime_dir, sizeof(weston->runtime_dir), "/tmp/uda-weston-XXXXXX");
	if (!mkdtemp(weston->runtime_dir))
		return false;
	snprintf(weston->socket, sizeof(weston->socket), "%s/wayland-uda", weston->runtime_dir);
	snprintf(weston->log, sizeof(weston->log), "%s/weston.log", weston->runtime_dir);
	return true;
}

bool weston_launcher_start_program(struct weston_launcher *launcher, char *const argv[])
{
	if (!make_runtime_dir(launcher))
		return false;
	launcher->pid = spawn(argv, launcher->runtime_dir, false);
	for (int tries = 0; launcher->pid > 0 && tries < 400; tries++) {
		struct stat st;
		int status = 0;
		if (waitpid(launcher->pid, &status, WNOHANG) == launcher->pid) {
			launcher->pid = -1;
			return false;
		}
		if (stat(launcher->socket, &st) == 0)
			return true;
		sleep_ms(25);
	}
	return false;
}

bool weston_launcher_start(struct weston_launcher *weston, bool pixman, unsigned width, unsigned height)
{
	if (!make_runtime_dir(weston))
		return false;
	char config[128], config_arg[160], log_arg[160], width_arg[32], height_arg[32];
	snprintf(config, sizeof(config), "%s/weston.ini", weston->runtime_dir);
	FILE *f = fopen(config, "w");
	if (!f)
		return false;
	/* A still screen: the startup fade and window animations would tint
	 * the first screenshots. */
	fputs("[core]\nidle-time=0\n[shell]\nstartup-animation=none\nanimation=none\nclose-animation=none\n"
	      "focus-animation=none\nbackground-color=0xff203040\npanel-position=none\nlocking=false\n",
	      f);
	fclose(f);
	snprintf(config_arg, sizeof(config_arg), "--config=%s", config);
	snprintf(log_arg, sizeof(log_arg), "--log=%s", weston->log);
	snprintf(width_arg, sizeof(width_arg), "--width=%u", width);
	snprintf(height_arg, sizeof(height_arg), "--height=%u", height);
	char *argv[] = {"weston",   "--backend=headless-backend.so", pixman ? "--use-pixman" : "--use-gl",
	                "--socket=wayland-uda", "--debug", config_arg, log_arg, width_arg, height_arg, NULL};
	weston->pid = spawn(argv, weston->runtime_dir, false);
	if (weston->pid <= 0)
		return false;
	/* The socket comes first; desktop-shell's client is launched once
	 * the shell is in place. */
	for (int tries = 0; tries < 400; tries++) {
		struct stat st;
		int status = 0;
		if (waitpid(weston->pid, &status, WNOHANG) == weston->pid) {
			weston->pid = -1;
			return false;
		}
		if (stat(weston->socket, &st) == 0 && log_says(weston, "weston-desktop-shell'"))
			return true;
		sleep_ms(25);
	}
	return false;
}

static void remove_folder(const char *folder)
{
	DIR *dir = opendir(folder);
	if (dir) {
		struct dirent *entry;
		char path[512];
		while ((entry = readdir(dir))) {
			if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..")) {
				snprintf(path, sizeof(path), "%s/%s", folder, entry->d_name);
				unlink(path);
			}
		}
		closedir(dir);
	}
	rmdir(folder);
}

void weston_launcher_stop(struct weston_launcher *weston)
{
	if (weston->pid > 0) {
		kill(weston->pid, SIGCONT);
		kill(weston->pid, SIGTERM);
		int status = 0;
		bool gone = false;
		for (int tries = 0; tries < 200 && !gone; tries++) {
			gone = waitpid(weston->pid, &status, WNOHANG) == weston->pid;
			if (!gone)
				sleep_ms(25);
		}
		if (!gone) {
			kill(weston->pid, SIGKILL);
			waitpid(weston->pid, &status, 0);
		}
		weston->pid = -1;
	}
	if (weston->runtime_dir[0]) {
		remove_folder(weston->runtime_dir);
		weston->runtime_dir[0] = '\0';
	}
}

bool weston_launcher_screenshot(struct weston_launcher *weston, const char *path)
{
	char *argv[] = {"weston-screenshooter", NULL};
	pid_t shooter = spawn(argv, weston->runtime_dir, true);
	int status = 0;
	if (shooter <= 0 || waitpid(shooter, &status, 0) != shooter || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return false;
	DIR *dir = opendir(weston->runtime_dir);
	if (!dir)
		return false;
	char found[512] = "";
	struct dirent *entry;
	while ((entry = readdir(dir))) {
		if (strncmp(entry->d_name, "wayland-screenshot-", 19) == 0)
			snprintf(found, sizeof(found), "%s/%s", weston->runtime_dir, entry->d_name);
	}
	closedir(dir);
	return found[0] && rename(found, path) == 0;
}

unsigned long long weston_launcher_cpu_ns(const struct weston_launcher *weston)
{
	return process_cpu_ns(weston->pid);
}
