#!/usr/bin/env bash
# ctest: uda-client (uda's EGL platform) against a compositor that lies,
# one way per run (hostile_compositor.c). Where the lie leaves pixels to
# show (buffers released twice or early, feedback or sets that break the
# rules), every frame must be swapped; where it takes the window away
# (buffers never released, a protocol error, the connection cut), the
# client must fail with an EGL error within its bounded waits. Never a
# crash, never a hang.
#   run_hostile_compositor.sh HOSTILE_COMPOSITOR CLIENT
set -uo pipefail
hostile=$1 client=$2
work=$(mktemp -d)
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR=$work WAYLAND_DISPLAY=wayland-hostile
shows=(release-twice release-early shrunk-table lying-feedback lying-sets)
fails=(release-never error-mid-stream gone-mid-stream)
run() {
	local mode=$1 expect=$2
	"$hostile" "$mode" $WAYLAND_DISPLAY >"$work/compositor.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do [[ -S $work/$WAYLAND_DISPLAY ]] && break; sleep 0.1; done
	UDA_LOG=info timeout 60 "$client" --frames 8 --size 64x48 >"$work/client.log" 2>&1
	local status=$?
	kill -TERM $pid
	wait $pid
	rm -f "$work/$WAYLAND_DISPLAY" "$work/$WAYLAND_DISPLAY.lock"
	if ((status >= 124)); then
		echo "$mode: the client hung or died (status $status)"
		cat "$work/client.log" "$work/compositor.log"
		exit 1
	fi
	if [[ $expect == shows && $status != 0 ]] || [[ $expect == fails && $status == 0 ]]; then
		echo "$mode: the client exited $status, expected it to $expect"
		cat "$work/client.log" "$work/compositor.log"
		exit 1
	fi
	echo "$mode: the client exited $status, as a client should that $expect"
}
for mode in "${shows[@]}"; do run "$mode" shows; done
for mode in "${fails[@]}"; do run "$mode" fails; done
echo "uda's platform survived ${#shows[@]} lying compositors with every frame and ${#fails[@]} hostile ones with an error"
