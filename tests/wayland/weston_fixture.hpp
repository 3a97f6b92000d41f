// A real compositor for each test: Weston 10, headless, with its GL
// renderer (on llvmpipe) or pixman, in a runtime folder of its own, and
// stopped at the end whatever happens. Screenshots come from
// weston-screenshooter (Weston's --debug protocol) as RGBA pixels.
#pragma once

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <png.h>
#include <spawn.h>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include <chrono>
#include <thread>

extern char **environ;

namespace uda_test
{

struct Screenshot {
	unsigned width = 0, height = 0;
	std::vector<unsigned char> rgba;
	const unsigned char *at(unsigned x, unsigned y) const { return &rgba[(size_t(y) * width + x) * 4]; }
};

enum class WestonRenderer { Gl, Pixman };

class Weston
{
      public:
	~Weston() { stop(); }

	// Starts Weston and waits until its socket takes connections. The
	// output is width x height.
	bool start(WestonRenderer renderer, unsigned width = 640, unsigned height = 480)
	{
		char folder[] = "/tmp/uda-weston-XXXXXX";
		if (!mkdtemp(folder))
			return false;
		runtime_dir_ = folder;
		socket_ = runtime_dir_ + "/wayland-uda";
		log_ = runtime_dir_ + "/weston.log";
		// A still screen: no startup fade, no window animations (both
		// would tint the first screenshots), a plain background, no
		// panel, no lock.
		const std::string config = runtime_dir_ + "/weston.ini";
		if (FILE *f = fopen(config.c_str(), "w")) {
			fputs("[core]\nidle-time=0\n[shell]\nstartup-animation=none\nanimation=none\nclose-animation=none\n"
			      "focus-animation=none\nbackground-color=0xff203040\npanel-position=none\nlocking=false\n",
			      f);
			fclose(f);
		}
		std::vector<std::string> args = {"weston",
		                                 "--backend=headless-backend.so",
		                                 renderer == WestonRenderer::Gl ? "--use-gl" : "--use-pixman",
		                                 "--socket=wayland-uda",
		                                 "--debug",
		                                 "--config=" + runtime_dir_ + "/weston.ini",
		                                 "--width=" + std::to_string(width),
		                                 "--height=" + std::to_string(height),
		                                 "--log=" + log_};
		std::vector<std::string> env = environment_without("XDG_RUNTIME_DIR", "WAYLAND_DISPLAY");
		env.push_back("XDG_RUNTIME_DIR=" + runtime_dir_);
		// Weston's own GL renderer must be Mesa's alone, whatever the
		// test process preloads.
		env.push_back("LD_PRELOAD=");
		pid_ = spawn(args, env, runtime_dir_);
		if (pid_ <= 0)
			return false;
		for (int tries = 0; tries < 400; tries++) {
			struct stat st;
			int status = 0;
			if (waitpid(pid_, &status, WNOHANG) == pid_) {
				pid_ = -1;
				return false;
			}
			// The lock comes with the socket, and desktop-shell's
			// client has drawn the panel once the log says so.
			if (stat(socket_.c_str(), &st) == 0 && log_says("weston-desktop-shell'"))
				return true;
			std::this_thread::sleep_for(std::chrono::milliseconds(25));
		}
		return false;
	}

	void stop()
	{
		if (pid_ > 0) {
			::kill(pid_, SIGCONT);
			::kill(pid_, SIGTERM);
			int status = 0;
			bool gone = false;
			for (int tries = 0; tries < 200 && !gone; tries++) {
				gone = waitpid(pid_, &status, WNOHANG) == pid_;
				if (!gone)
					std::this_thread::sleep_for(std::chrono::milliseconds(25));
			}
			if (!gone) {
				::kill(pid_, SIGKILL);
				waitpid(pid_, &status, 0);
			}
			pid_ = -1;
		}
		if (!runtime_dir_.empty()) {
			remove_folder(runtime_dir_);
			runtime_dir_.clear();
		}
	}

	// The compositor stops answering (SIGSTOP), and answers again.
	void pause() { ::kill(pid_, SIGSTOP); }
	void resume() { ::kill(pid_, SIGCONT); }
	// The compositor dies.
	void kill()
	{
		::kill(pid_, SIGKILL);
		int status = 0;
		waitpid(pid_, &status, 0);
		pid_ = -1;
	}

	// Absolute: wl_display_connect takes it without XDG_RUNTIME_DIR.
	const std::string &socket() const { return socket_; }
	const std::string &runtime_dir() const { return runtime_dir_; }

	std::string log() const
	{
		std::string text;
		if (FILE *f = fopen(log_.c_str(), "r")) {
			char buffer[4096];
			size_t n;
			while ((n = fread(buffer, 1, sizeof(buffer), f)) > 0)
				text.append(buffer, n);
			fclose(f);
		}
		return text;
	}

	// The output as Weston shows it now.
	bool screenshot(Screenshot &out)
	{
		std::vector<std::string> env = environment_without("XDG_RUNTIME_DIR", "WAYLAND_DISPLAY");
		env.push_back("XDG_RUNTIME_DIR=" + runtime_dir_);
		env.push_back("WAYLAND_DISPLAY=wayland-uda");
		env.push_back("LD_PRELOAD=");
		pid_t shooter = spawn({"weston-screenshooter"}, env, runtime_dir_);
		int status = 0;
		if (shooter <= 0 || waitpid(shooter, &status, 0) != shooter || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			return false;
		std::string png;
		if (DIR *dir = opendir(runtime_dir_.c_str())) {
			while (const dirent *entry = readdir(dir)) {
				if (strncmp(entry->d_name, "wayland-screenshot-", 19) == 0)
					png = runtime_dir_ + "/" + entry->d_name;
			}
			closedir(dir);
		}
		if (png.empty())
			return false;
		png_image image = {};
		image.version = PNG_IMAGE_VERSION;
		bool ok = png_image_begin_read_from_file(&image, png.c_str());
		if (ok) {
			image.format = PNG_FORMAT_RGBA;
			out.width = image.width;
			out.height = image.height;
			out.rgba.resize(PNG_IMAGE_SIZE(image));
			ok = png_image_finish_read(&image, nullptr, out.rgba.data(), 0, nullptr);
		}
		png_image_free(&image);
		// UDA_TEST_SCREENSHOT_DIR keeps them, to look at a failure.
		const char *keep = std::getenv("UDA_TEST_SCREENSHOT_DIR");
		static unsigned kept;
		if (!keep || rename(png.c_str(), (std::string(keep) + "/screenshot-" + std::to_string(getpid()) + "-" +
		                                  std::to_string(kept++) + ".png")
		                                         .c_str()) != 0)
			unlink(png.c_str());
		return ok;
	}

      private:
	static std::vector<std::string> environment_without(const char *a, const char *b)
	{
		std::vector<std::string> env;
		for (char **e = environ; *e; e++) {
			std::string entry = *e;
			if (entry.rfind(std::string(a) + "=", 0) == 0 || entry.rfind(std::string(b) + "=", 0) == 0 ||
			    entry.rfind("LD_PRELOAD=", 0) == 0)
				continue;
			env.push_back(entry);
		}
		return env;
	}

	static pid_t spawn(const std::vector<std::string> &args, const std::vector<std::string> &env,
	                   const std::string &cwd)
	{
		std::vector<char *> argv, envp;
		for (const std::string &a : args)
			argv.push_back(const_cast<char *>(a.c_str()));
		argv.push_back(nullptr);
		for (const std::string &e : env)
			envp.push_back(const_cast<char *>(e.c_str()));
		envp.push_back(nullptr);
		pid_t pid = fork();
		if (pid == 0) {
			if (chdir(cwd.c_str()) != 0)
				_exit(127);
			// Weston's output stays out of the test's.
			FILE *null = fopen("/dev/null", "w");
			if (null) {
				dup2(fileno(null), STDOUT_FILENO);
				dup2(fileno(null), STDERR_FILENO);
			}
			execvpe(argv[0], argv.data(), envp.data());
			_exit(127);
		}
		return pid;
	}

	bool log_says(const char *text) const { return log().find(text) != std::string::npos; }

	static void remove_folder(const std::string &folder)
	{
		if (DIR *dir = opendir(folder.c_str())) {
			while (const dirent *entry = readdir(dir)) {
				if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, ".."))
					unlink((folder + "/" + entry->d_name).c_str());
			}
			closedir(dir);
		}
		rmdir(folder.c_str());
	}

	pid_t pid_ = -1;
	std::string runtime_dir_, socket_, log_;
};

} // namespace uda_test
