// A Wayland client and a test compositor in one thread, on a socketpair:
// the client's requests out, the compositor's answers back, until a
// condition holds (bounded).
#pragma once

#include <functional>
#include <poll.h>
#include <wayland-client.h>

namespace uda_test
{

inline bool pump_until(wl_display *client, const std::function<void()> &serve, const std::function<bool()> &done)
{
	for (int round = 0; round < 500 && !done(); round++) {
		wl_display_flush(client);
		serve();
		while (wl_display_prepare_read(client) != 0)
			wl_display_dispatch_pending(client);
		pollfd fd = {wl_display_get_fd(client), POLLIN, 0};
		if (poll(&fd, 1, 10) > 0)
			wl_display_read_events(client);
		else
			wl_display_cancel_read(client);
		wl_display_dispatch_pending(client);
	}
	return done();
}

} // namespace uda_test
