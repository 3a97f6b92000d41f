// A real compositor for each test (tests/support/weston_launcher.c):
// Weston 10 headless, GL renderer on llvmpipe or pixman, started per test
// and stopped at the end whatever happens; screenshots as RGBA pixels.
#pragma once

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <png.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "weston_launcher.h"

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

	bool start(WestonRenderer renderer, unsigned width = 640, unsigned height = 480)
	{
		started_ = weston_launcher_start(&weston_, renderer == WestonRenderer::Pixman, width, height);
		return started_;
	}

	void stop()
	{
		if (started_)
			weston_launcher_stop(&weston_);
		started_ = false;
	}

	// The compositor stops answering (SIGSTOP), and answers again.
	void pause() { ::kill(weston_.pid, SIGSTOP); }
	void resume() { ::kill(weston_.pid, SIGCONT); }
	// The compositor dies.
	void kill()
	{
		::kill(weston_.pid, SIGKILL);
		int status = 0;
		waitpid(weston_.pid, &status, 0);
		weston_.pid = -1;
	}

	std::string socket() const { return weston_.socket; }

	std::string log() const
	{
		std::string text;
		if (FILE *f = fopen(weston_.log, "r")) {
			char buffer[4096];
			size_t n;
			while ((n = fread(buffer, 1, sizeof(buffer), f)) > 0)
				text.append(buffer, n);
			fclose(f);
		}
		return text;
	}

	// The output as Weston shows it now. UDA_TEST_SCREENSHOT_DIR keeps
	// the PNGs, to look at a failure.
	bool screenshot(Screenshot &out)
	{
		static unsigned taken;
		const char *keep = std::getenv("UDA_TEST_SCREENSHOT_DIR");
		const std::string path = std::string(keep ? keep : weston_.runtime_dir) + "/screenshot-" +
		                         std::to_string(getpid()) + "-" + std::to_string(taken++) + ".png";
		if (!weston_launcher_screenshot(&weston_, path.c_str()))
			return false;
		png_image image = {};
		image.version = PNG_IMAGE_VERSION;
		bool ok = png_image_begin_read_from_file(&image, path.c_str());
		if (ok) {
			image.format = PNG_FORMAT_RGBA;
			out.width = image.width;
			out.height = image.height;
			out.rgba.resize(PNG_IMAGE_SIZE(image));
			ok = png_image_finish_read(&image, nullptr, out.rgba.data(), 0, nullptr);
		}
		png_image_free(&image);
		if (!keep)
			unlink(path.c_str());
		return ok;
	}

      private:
	weston_launcher weston_ = {};
	bool started_ = false;
};

} // namespace uda_test
