#!/usr/bin/env bash
# An unmodified Wayland EGL program (weston-simple-egl, es2gears_wayland)
# on uda's platform: libuda-egl-host preloaded (HOST_LIBRARY "" for a
# libEGL that loads the platform itself), UDA_EGL_WAYLAND=1, a compositor
# of its own: Weston (headless, GL renderer or pixman; weston-screenshooter)
# or sway, wlroots' (headless, pixman renderer; grim through
# wlr-screencopy). Passes when the program's colours are on the
# compositor's screen, which they are not before it runs, and its log
# shows the negotiation that placed its buffers.
#
#   run_unmodified_client.sh HOST_LIBRARY SCREENSHOT_CHECKER gl|pixman|sway PROGRAM [ARGS...]
set -euo pipefail
host=$1 checker=$2 renderer=$3
shift 3

runtime=$(mktemp -d /tmp/uda-compositor-XXXXXX)
compositor_pid= client_pid=
cleanup() {
	set +e
	if [[ -n $client_pid ]]; then
		kill "$client_pid" 2>/dev/null
		wait "$client_pid" 2>/dev/null
	fi
	if [[ -n $compositor_pid ]]; then
		kill -CONT "$compositor_pid" 2>/dev/null
		kill "$compositor_pid" 2>/dev/null
		wait "$compositor_pid" 2>/dev/null
	fi
	# UDA_TEST_SCREENSHOT_DIR keeps what was seen, to look at a failure.
	[[ -n ${UDA_TEST_SCREENSHOT_DIR:-} ]] && cp "$runtime"/*.png "$UDA_TEST_SCREENSHOT_DIR" 2>/dev/null
	rm -rf "$runtime"
}
trap cleanup EXIT

socket=wayland-uda
if [[ $renderer == sway ]]; then
	# sway refuses to run as root: as root it runs as nobody, in a runtime
	# folder of nobody's that this (root) client still reaches.
	as_user=()
	if ((EUID == 0)); then
		chown 65534:65534 "$runtime"
		as_user=(--reuid=65534 --regid=65534 --clear-groups)
	fi
	cat >"$runtime/sway.conf" <<CONF
output HEADLESS-1 resolution 640x480 background #203040 solid_color
default_border none
CONF
	(cd "$runtime" && XDG_RUNTIME_DIR=$runtime HOME=$runtime WLR_BACKENDS=headless WLR_RENDERER=pixman \
		WLR_LIBINPUT_NO_DEVICES=1 WAYLAND_DISPLAY= LD_PRELOAD= exec setpriv --pdeathsig KILL "${as_user[@]}" \
		sway --config "$runtime/sway.conf" </dev/null >"$runtime/sway.log" 2>&1) &
	compositor_pid=$!
	socket=
	for _ in $(seq 400); do
		socket=$(cd "$runtime" && ls wayland-? 2>/dev/null | head -n 1) || true
		[[ -n $socket ]] && break
		sleep 0.025
	done
	[[ -n $socket ]] || { echo "sway did not start"; cat "$runtime/sway.log"; exit 1; }
	compositor="sway (wlroots, pixman)"
else
	cat >"$runtime/weston.ini" <<INI
[core]
idle-time=0
[shell]
startup-animation=none
animation=none
close-animation=none
focus-animation=none
background-color=0xff203040
panel-position=none
locking=false
INI
	# setpriv: Weston goes with this script even when ctest kills it, which
	# no trap sees.
	(cd "$runtime" && XDG_RUNTIME_DIR=$runtime LD_PRELOAD= exec setpriv --pdeathsig KILL weston --backend=headless-backend.so \
		"--use-$renderer" --socket=$socket --debug --config="$runtime/weston.ini" --log="$runtime/weston.log" \
		--width=640 --height=480 </dev/null >/dev/null 2>&1) &
	compositor_pid=$!
	for _ in $(seq 400); do
		[[ -S $runtime/$socket ]] && grep -q "weston-desktop-shell'" "$runtime/weston.log" 2>/dev/null && break
		sleep 0.025
	done
	[[ -S $runtime/$socket ]] || { echo "Weston did not start"; cat "$runtime/weston.log"; exit 1; }
	compositor="Weston ($renderer)"
fi

shoot() {
	if [[ $renderer == sway ]]; then
		XDG_RUNTIME_DIR=$runtime WAYLAND_DISPLAY=$socket LD_PRELOAD= grim "$runtime/$1.png"
		return
	fi
	rm -f "$runtime"/wayland-screenshot-*.png
	(cd "$runtime" && XDG_RUNTIME_DIR=$runtime WAYLAND_DISPLAY=$socket LD_PRELOAD= weston-screenshooter)
	cp "$runtime"/wayland-screenshot-*.png "$runtime/$1.png"
}

# The check must fail on the compositor's own screen, or it proves nothing.
shoot before
if "$checker" "$runtime/before.png" >/dev/null; then
	echo "the screenshot check passes without the program: it proves nothing"
	exit 1
fi

XDG_RUNTIME_DIR=$runtime WAYLAND_DISPLAY=$socket UDA_EGL_WAYLAND=1 UDA_LOG=debug LD_PRELOAD=$host \
	"$@" >"$runtime/client.log" 2>&1 &
client_pid=$!
# Long enough for a few frames whatever the load; the check retries.
shown=no
for attempt in 1 2 3 4 5 6 7 8 9 10; do
	sleep 0.5
	kill -0 "$client_pid" 2>/dev/null || break
	shoot "after-$attempt"
	if "$checker" "$runtime/after-$attempt.png"; then
		shown=yes
		break
	fi
done
if ! grep -q "Wayland: a .* window of .*, sent " "$runtime/client.log"; then
	echo "the program's window was not made by uda's platform:"
	cat "$runtime/client.log"
	exit 1
fi
grep -E "Wayland: (wl_shm with|a .* window|.* frames (go|are))|allocated set" "$runtime/client.log" | sed 's/^/  /'
if [[ $shown != yes ]]; then
	echo "the program's frames did not reach the screen:"
	tail -n 30 "$runtime/client.log"
	exit 1
fi
echo "$(basename "$1")'s frames reached $compositor through uda's platform"
