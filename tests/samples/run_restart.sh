#!/usr/bin/env bash
# ctest: the compositor goes away after 3 frames (as a crash or restart
# would); a new one starts on the same socket; uda-client, an ordinary
# Wayland EGL client, reconnects, makes its window again and delivers the
# rest of its frames, its picture going on where it was; the old window's
# buffer memory, which the dead compositor held, is released.
#   run_restart.sh COMPOSITOR CLIENT
set -uo pipefail
compositor=$1 client=$2
work=$(mktemp -d)
trap 'kill $first $second $client_pid 2>/dev/null; rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR=$work WAYLAND_DISPLAY=wayland-restart
timeout 60 "$compositor" --socket $WAYLAND_DISPLAY --output "$work" --save none --exit-after 3 >"$work/first.log" 2>&1 &
first=$!
for _ in $(seq 100); do [[ -S $work/$WAYLAND_DISPLAY ]] && break; sleep 0.1; done
timeout 60 "$client" --frames 40 --size 64x48 --reconnect 1 >"$work/client.log" 2>&1 &
client_pid=$!
wait $first
timeout 60 "$compositor" --socket $WAYLAND_DISPLAY --output "$work" --save none >"$work/second.log" 2>&1 &
second=$!
wait $client_pid
client_status=$?
kill -TERM $second
wait $second
second_status=$?
cat "$work/first.log" "$work/client.log" "$work/second.log"
[[ $client_status == 0 && $second_status == 0 ]] || { echo "client $client_status, second compositor $second_status"; exit 1; }
grep -q "reconnected and negotiated anew" "$work/client.log" || { echo "the client did not reconnect"; exit 1; }
# The memory open when the compositor went (the old window's buffers, and
# what the drivers keep for the process) is released but for the
# drivers' own: fewer of those files are open at the end than then, none
# if the drivers keep none (Mesa 22.3: 3 then, 0 at the end; Mesa 25.0
# keeps two lavapipe files for the process: 5 then, 2 at the end).
if [[ $(grep -o "buffer memory: [0-9]* files open when the compositor went, [0-9]* of them" "$work/client.log") =~ ([0-9]+)\ files.*,\ ([0-9]+)\ of ]]; then
	((BASH_REMATCH[2] < BASH_REMATCH[1])) || { echo "the old window's buffer memory is still held"; exit 1; }
else
	echo "the client did not say what became of its buffer memory"
	exit 1
fi
grep -q "window mapped: uda-client" "$work/second.log" && grep -q "^frame " "$work/second.log" ||
	{ echo "the second compositor saw no frame"; exit 1; }
echo "the client survived the compositor's restart"
