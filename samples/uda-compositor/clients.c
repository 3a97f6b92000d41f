/* What each client holds, counted so that one that floods the compositor
 * with surfaces, buffers or DMA-BUF params (their fds) meets a limit (and
 * wl_client_post_no_memory) instead of the compositor running out first. */
#include <stdio.h>
#include <stdlib.h>

#include "compositor.h"

/* libwayland tells a client's destroy listeners before it destroys the
 * client's objects: the state goes with the last of them. */
static void free_if_unused(struct client_state *state)
{
	if (state->gone && !state->surfaces && !state->buffers && !state->dmabuf_params)
		free(state);
}

static void client_gone(struct wl_listener *listener, void *data)
{
	(void)data;
	struct client_state *state = wl_container_of(listener, state, destroy);
	struct compositor *compositor = state->compositor;
	wl_list_remove(&state->destroy.link);
	state->gone = true;
	free_if_unused(state);
	compositor->clients--;
	/* --frames was reached and the last client left: done. */
	if (compositor->finished && compositor->clients == 0)
		wl_display_terminate(compositor->display);
}

static void client_created(struct wl_listener *listener, void *data)
{
	struct compositor *compositor = wl_container_of(listener, compositor, client_created);
	struct wl_client *client = data;
	struct client_state *state = calloc(1, sizeof(*state));
	if (!state) {
		wl_client_post_no_memory(client);
		return;
	}
	state->compositor = compositor;
	state->destroy.notify = client_gone;
	wl_client_add_destroy_listener(client, &state->destroy);
	compositor->clients++;
}

bool clients_init(struct compositor *compositor)
{
	compositor->client_created.notify = client_created;
	wl_display_add_client_created_listener(compositor->display, &compositor->client_created);
	return true;
}

struct client_state *client_state_get(struct wl_client *client)
{
	struct wl_listener *listener = wl_client_get_destroy_listener(client, client_gone);
	struct client_state *state;
	return listener ? wl_container_of(listener, state, destroy) : NULL;
}

void client_state_count(struct client_state *state, unsigned *counter, int change)
{
	if (!state)
		return;
	*counter = (unsigned)((int)*counter + change);
	free_if_unused(state);
}
