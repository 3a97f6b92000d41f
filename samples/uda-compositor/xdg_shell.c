/* xdg_wm_base: toplevel windows, configured at their own size (the client
 * picks it; this compositor lays windows side by side). Popups are
 * dismissed as soon as they are made: there is no input to open them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-server-protocol.h>

#include "compositor.h"
#include "xdg-shell-server-protocol.h"

/* An xdg_wm_base: how many xdg_surfaces made from it live. Freed with
 * the resource, after its destroy listeners (each xdg_surface's) ran. */
struct wm_base_state {
	unsigned xdg_surfaces;
};

struct xdg_surface_state {
	struct wl_resource *resource;
	struct surface *surface; /* NULL once the client destroyed it */
	/* The xdg_wm_base it came from, where its role error goes; NULL once
	 * the client destroyed that. */
	struct wl_resource *wm_base;
	struct wl_listener wm_base_destroy;
	struct wl_resource *toplevel, *popup;
	uint32_t configure_serial; /* the last sent, 0 before any */
	bool configured;           /* the client acked a configure */
	char title[64], app_id[64];
	struct wl_listener surface_commit, surface_destroy;
};

static uint32_t next_serial(struct xdg_surface_state *xdg)
{
	return wl_display_next_serial(wl_client_get_display(wl_resource_get_client(xdg->resource)));
}

static void send_configure(struct xdg_surface_state *xdg)
{
	struct wl_array states;
	wl_array_init(&states);
	if (xdg->toplevel)
		xdg_toplevel_send_configure(xdg->toplevel, 0, 0, &states); /* 0 x 0: the client's own size */
	wl_array_release(&states);
	xdg->configure_serial = next_serial(xdg);
	xdg_surface_send_configure(xdg->resource, xdg->configure_serial);
}

/* ---- xdg_positioner: kept, never used (popups are dismissed) ---- */

static void positioner_size(struct wl_client *c, struct wl_resource *r, int32_t w, int32_t h)
{
	(void)c;
	if (w <= 0 || h <= 0)
		wl_resource_post_error(r, XDG_POSITIONER_ERROR_INVALID_INPUT, "a size must be positive");
}
static void positioner_rect(struct wl_client *c, struct wl_resource *r, int32_t x, int32_t y, int32_t w, int32_t h)
{
	(void)c;
	(void)x;
	(void)y;
	if (w < 0 || h < 0)
		wl_resource_post_error(r, XDG_POSITIONER_ERROR_INVALID_INPUT, "a rectangle must not be negative");
}
static void positioner_u32(struct wl_client *c, struct wl_resource *r, uint32_t value)
{
	(void)c;
	(void)r;
	(void)value;
}
static void positioner_offset(struct wl_client *c, struct wl_resource *r, int32_t x, int32_t y)
{
	(void)c;
	(void)r;
	(void)x;
	(void)y;
}
static void positioner_reactive(struct wl_client *c, struct wl_resource *r)
{
	(void)c;
	(void)r;
}

static const struct xdg_positioner_interface positioner_impl = {
	.destroy = compositor_destroy_request,
	.set_size = positioner_size,
	.set_anchor_rect = positioner_rect,
	.set_anchor = positioner_u32,
	.set_gravity = positioner_u32,
	.set_constraint_adjustment = positioner_u32,
	.set_offset = positioner_offset,
	.set_reactive = positioner_reactive,
	.set_parent_size = positioner_offset,
	.set_parent_configure = positioner_u32,
};

static void create_positioner(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct wl_resource *positioner =
	        wl_resource_create(client, &xdg_positioner_interface, wl_resource_get_version(resource), id);
	if (!positioner) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(positioner, &positioner_impl, NULL, NULL);
}

/* ---- xdg_toplevel ---- */

static void toplevel_parent(struct wl_client *c, struct wl_resource *r, struct wl_resource *parent)
{
	(void)c;
	(void)r;
	(void)parent;
}
static void toplevel_title(struct wl_client *c, struct wl_resource *r, const char *title)
{
	(void)c;
	struct xdg_surface_state *xdg = wl_resource_get_user_data(r);
	if (xdg)
		snprintf(xdg->title, sizeof(xdg->title), "%s", title);
}
static void toplevel_app_id(struct wl_client *c, struct wl_resource *r, const char *app_id)
{
	(void)c;
	struct xdg_surface_state *xdg = wl_resource_get_user_data(r);
	if (xdg)
		snprintf(xdg->app_id, sizeof(xdg->app_id), "%s", app_id);
}
static void toplevel_menu(struct wl_client *c, struct wl_resource *r, struct wl_resource *seat, uint32_t serial,
                          int32_t x, int32_t y)
{
	(void)c;
	(void)r;
	(void)seat;
	(void)serial;
	(void)x;
	(void)y;
}
static void toplevel_move(struct wl_client *c, struct wl_resource *r, struct wl_resource *seat, uint32_t serial)
{
	(void)c;
	(void)r;
	(void)seat;
	(void)serial;
}
static void toplevel_resize(struct wl_client *c, struct wl_resource *r, struct wl_resource *seat, uint32_t serial,
                            uint32_t edges)
{
	(void)c;
	(void)r;
	(void)seat;
	(void)serial;
	(void)edges;
}
static void toplevel_size(struct wl_client *c, struct wl_resource *r, int32_t w, int32_t h)
{
	(void)c;
	if (w < 0 || h < 0)
		wl_resource_post_error(r, XDG_TOPLEVEL_ERROR_INVALID_SIZE, "a negative size");
}
static void toplevel_state(struct wl_client *c, struct wl_resource *r)
{
	(void)c;
	(void)r;
}
static void toplevel_fullscreen(struct wl_client *c, struct wl_resource *r, struct wl_resource *output)
{
	(void)c;
	(void)r;
	(void)output;
}

static const struct xdg_toplevel_interface toplevel_impl = {
	.destroy = compositor_destroy_request,
	.set_parent = toplevel_parent,
	.set_title = toplevel_title,
	.set_app_id = toplevel_app_id,
	.show_window_menu = toplevel_menu,
	.move = toplevel_move,
	.resize = toplevel_resize,
	.set_max_size = toplevel_size,
	.set_min_size = toplevel_size,
	.set_maximized = toplevel_state,
	.unset_maximized = toplevel_state,
	.set_fullscreen = toplevel_fullscreen,
	.unset_fullscreen = toplevel_state,
	.set_minimized = toplevel_state,
};

static void toplevel_gone(struct wl_resource *resource)
{
	struct xdg_surface_state *xdg = wl_resource_get_user_data(resource);
	if (!xdg)
		return;
	xdg->toplevel = NULL;
	xdg->configured = false;
	xdg->configure_serial = 0;
	if (xdg->surface)
		surface_unmap(xdg->surface);
}

/* ---- xdg_popup ---- */

static void popup_grab(struct wl_client *c, struct wl_resource *r, struct wl_resource *seat, uint32_t serial)
{
	(void)c;
	(void)r;
	(void)seat;
	(void)serial;
}
static void popup_reposition(struct wl_client *c, struct wl_resource *r, struct wl_resource *positioner,
                             uint32_t token)
{
	(void)c;
	(void)r;
	(void)positioner;
	(void)token;
}

static const struct xdg_popup_interface popup_impl = {
	.destroy = compositor_destroy_request,
	.grab = popup_grab,
	.reposition = popup_reposition,
};

static void popup_gone(struct wl_resource *resource)
{
	struct xdg_surface_state *xdg = wl_resource_get_user_data(resource);
	if (xdg)
		xdg->popup = NULL;
}

/* ---- xdg_surface ---- */

/* An xdg_surface whose wl_surface the client destroyed is inert, as a
 * wl_subsurface whose surface is gone is (xdg-shell names no error for
 * it): the role object it asks for is made, so that the id stays the
 * client's, and the xdg_surface's rules still hold (one role, destroyed
 * before it); there is nothing to show. */
static bool role_free(struct xdg_surface_state *xdg, struct wl_resource *resource, enum surface_role wanted)
{
	if (xdg->toplevel || xdg->popup) {
		wl_resource_post_error(resource, XDG_SURFACE_ERROR_ALREADY_CONSTRUCTED, "the xdg_surface has a role already");
		return false;
	}
	/* A wl_surface keeps the role it was given, through later
	 * xdg_surfaces: another one is xdg_wm_base's role error, on the
	 * xdg_wm_base (xdg_surface has no code for it). */
	if (xdg->surface && xdg->surface->role != SURFACE_ROLE_NONE && xdg->surface->role != wanted) {
		if (xdg->wm_base)
			wl_resource_post_error(xdg->wm_base, XDG_WM_BASE_ERROR_ROLE, "the wl_surface has another role");
		else
			wl_resource_post_error(resource, XDG_SURFACE_ERROR_ALREADY_CONSTRUCTED,
			                       "the wl_surface has another role");
		return false;
	}
	return true;
}

static void get_toplevel(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct xdg_surface_state *xdg = wl_resource_get_user_data(resource);
	if (!role_free(xdg, resource, SURFACE_ROLE_XDG_TOPLEVEL))
		return;
	xdg->toplevel = wl_resource_create(client, &xdg_toplevel_interface, wl_resource_get_version(resource), id);
	if (!xdg->toplevel) {
		wl_client_post_no_memory(client);
		return;
	}
	if (xdg->surface)
		xdg->surface->role = SURFACE_ROLE_XDG_TOPLEVEL;
	wl_resource_set_implementation(xdg->toplevel, &toplevel_impl, xdg, toplevel_gone);
}

static void get_popup(struct wl_client *client, struct wl_resource *resource, uint32_t id, struct wl_resource *parent,
                      struct wl_resource *positioner)
{
	(void)parent;
	(void)positioner;
	struct xdg_surface_state *xdg = wl_resource_get_user_data(resource);
	if (!role_free(xdg, resource, SURFACE_ROLE_XDG_POPUP))
		return;
	xdg->popup = wl_resource_create(client, &xdg_popup_interface, wl_resource_get_version(resource), id);
	if (!xdg->popup) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(xdg->popup, &popup_impl, xdg, popup_gone);
	if (xdg->surface) {
		xdg->surface->role = SURFACE_ROLE_XDG_POPUP;
		xdg_popup_send_popup_done(xdg->popup);
	}
}

static void set_window_geometry(struct wl_client *client, struct wl_resource *resource, int32_t x, int32_t y,
                                int32_t width, int32_t height)
{
	(void)client;
	(void)x;
	(void)y;
	if (width <= 0 || height <= 0)
		wl_resource_post_error(resource, XDG_SURFACE_ERROR_INVALID_SIZE, "window geometry must be positive");
}

static void ack_configure(struct wl_client *client, struct wl_resource *resource, uint32_t serial)
{
	(void)client;
	struct xdg_surface_state *xdg = wl_resource_get_user_data(resource);
	if (!xdg->configure_serial || serial != xdg->configure_serial) {
		wl_resource_post_error(resource, XDG_SURFACE_ERROR_INVALID_SERIAL, "serial %u was not sent", serial);
		return;
	}
	xdg->configured = true;
}

static void destroy_xdg_surface(struct wl_client *client, struct wl_resource *resource)
{
	(void)client;
	struct xdg_surface_state *xdg = wl_resource_get_user_data(resource);
	if (xdg->toplevel || xdg->popup) {
		wl_resource_post_error(resource, XDG_SURFACE_ERROR_DEFUNCT_ROLE_OBJECT,
		                       "destroyed before its xdg_toplevel or xdg_popup");
		return;
	}
	wl_resource_destroy(resource);
}

static const struct xdg_surface_interface xdg_surface_impl = {
	.destroy = destroy_xdg_surface,
	.get_toplevel = get_toplevel,
	.get_popup = get_popup,
	.set_window_geometry = set_window_geometry,
	.ack_configure = ack_configure,
};

/* The role's part of a commit: the first configure after the initial
 * commit, then mapped with content and unmapped without. */
static void surface_committed(struct wl_listener *listener, void *data)
{
	(void)data;
	struct xdg_surface_state *xdg = wl_container_of(listener, xdg, surface_commit);
	struct surface *surface = xdg->surface;
	if (!xdg->toplevel)
		return;
	if (!xdg->configured) {
		if (surface->has_content) {
			wl_resource_post_error(xdg->resource, XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER,
			                       "a buffer before the first configure was acked");
			return;
		}
		if (!xdg->configure_serial)
			send_configure(xdg);
		return;
	}
	if (surface->has_content && !surface->mapped) {
		surface_map(surface);
		printf("uda-compositor: window mapped: %s (%s), %ux%u, buffers through %s (%s)\n",
		       xdg->title[0] ? xdg->title : "untitled", xdg->app_id[0] ? xdg->app_id : "no app_id", surface->width,
		       surface->height, surface_content_path(surface), surface->current ? "zero-copy" : "copied");
		fflush(stdout);
	} else if (!surface->has_content && surface->mapped) {
		/* A null buffer unmaps; the next map starts over with a configure. */
		surface_unmap(surface);
		xdg->configured = false;
		xdg->configure_serial = 0;
	}
}

static void forget_surface(struct xdg_surface_state *xdg)
{
	if (!xdg->surface)
		return;
	wl_list_remove(&xdg->surface_commit.link);
	wl_list_remove(&xdg->surface_destroy.link);
	xdg->surface->xdg = NULL;
	xdg->surface = NULL;
}

static void surface_destroyed(struct wl_listener *listener, void *data)
{
	(void)data;
	struct xdg_surface_state *xdg = wl_container_of(listener, xdg, surface_destroy);
	forget_surface(xdg);
}

static void wm_base_destroyed(struct wl_listener *listener, void *data)
{
	(void)data;
	struct xdg_surface_state *xdg = wl_container_of(listener, xdg, wm_base_destroy);
	wl_list_remove(&xdg->wm_base_destroy.link);
	wl_list_init(&xdg->wm_base_destroy.link);
	xdg->wm_base = NULL;
}

static void xdg_surface_gone(struct wl_resource *resource)
{
	struct xdg_surface_state *xdg = wl_resource_get_user_data(resource);
	if (xdg->wm_base) {
		struct wm_base_state *base = wl_resource_get_user_data(xdg->wm_base);
		base->xdg_surfaces--;
	}
	wl_list_remove(&xdg->wm_base_destroy.link);
	if (xdg->surface)
		surface_unmap(xdg->surface);
	forget_surface(xdg);
	/* A role object that outlives it is inert. */
	if (xdg->toplevel)
		wl_resource_set_user_data(xdg->toplevel, NULL);
	if (xdg->popup)
		wl_resource_set_user_data(xdg->popup, NULL);
	free(xdg);
}

static void get_xdg_surface(struct wl_client *client, struct wl_resource *resource, uint32_t id,
                            struct wl_resource *surface_resource)
{
	struct surface *surface = surface_from_resource(surface_resource);
	/* Every role this compositor gives is xdg's: a surface may get an
	 * xdg_surface again once its old one is gone. */
	if (!surface || surface->xdg) {
		wl_resource_post_error(resource, XDG_WM_BASE_ERROR_ROLE, "the surface has an xdg_surface already");
		return;
	}
	if (surface->has_content) {
		/* On xdg_wm_base: its own code, not xdg_surface's of the same
		 * meaning (3 is invalid_popup_parent here). */
		wl_resource_post_error(resource, XDG_WM_BASE_ERROR_INVALID_SURFACE_STATE,
		                       "the surface has a buffer already");
		return;
	}
	struct xdg_surface_state *xdg = calloc(1, sizeof(*xdg));
	if (xdg)
		xdg->resource = wl_resource_create(client, &xdg_surface_interface, wl_resource_get_version(resource), id);
	if (!xdg || !xdg->resource) {
		free(xdg);
		wl_client_post_no_memory(client);
		return;
	}
	xdg->surface = surface;
	surface->xdg = xdg;
	xdg->wm_base = resource;
	xdg->wm_base_destroy.notify = wm_base_destroyed;
	wl_resource_add_destroy_listener(resource, &xdg->wm_base_destroy);
	((struct wm_base_state *)wl_resource_get_user_data(resource))->xdg_surfaces++;
	xdg->surface_commit.notify = surface_committed;
	wl_signal_add(&surface->commit, &xdg->surface_commit);
	xdg->surface_destroy.notify = surface_destroyed;
	wl_signal_add(&surface->destroy, &xdg->surface_destroy);
	wl_resource_set_implementation(xdg->resource, &xdg_surface_impl, xdg, xdg_surface_gone);
}

static void pong(struct wl_client *client, struct wl_resource *resource, uint32_t serial)
{
	(void)client;
	(void)resource;
	(void)serial;
}

/* xdg-shell: an xdg_wm_base destroyed while xdg_surfaces made from it
 * live is defunct_surfaces. */
static void destroy_wm_base(struct wl_client *client, struct wl_resource *resource)
{
	(void)client;
	const struct wm_base_state *state = wl_resource_get_user_data(resource);
	if (state->xdg_surfaces) {
		wl_resource_post_error(resource, XDG_WM_BASE_ERROR_DEFUNCT_SURFACES,
		                       "destroyed before its %u xdg_surface(s)", state->xdg_surfaces);
		return;
	}
	wl_resource_destroy(resource);
}

static const struct xdg_wm_base_interface wm_base_impl = {
	.destroy = destroy_wm_base,
	.create_positioner = create_positioner,
	.get_xdg_surface = get_xdg_surface,
	.pong = pong,
};

static void wm_base_gone(struct wl_resource *resource)
{
	free(wl_resource_get_user_data(resource));
}

static void bind_wm_base(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	(void)data;
	struct wm_base_state *state = calloc(1, sizeof(*state));
	struct wl_resource *resource =
	        state ? wl_resource_create(client, &xdg_wm_base_interface, (int)version, id) : NULL;
	if (!resource) {
		free(state);
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &wm_base_impl, state, wm_base_gone);
}

bool xdg_shell_global_create(struct compositor *compositor)
{
	return wl_global_create(compositor->display, &xdg_wm_base_interface, 2, compositor, bind_wm_base) != NULL;
}
