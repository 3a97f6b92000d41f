#!/usr/bin/env bash
# ctest: the compositor meets eight clients that break the protocol, one
# way each, then a good one. It must drop each bad one with a message,
# serve the good one, and end with the descriptors it started with.
#   run_misbehaving.sh COMPOSITOR CLIENT MISBEHAVING_CLIENT
set -uo pipefail
compositor=$1 client=$2 bad=$3
work=$(mktemp -d)
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT
modes=(garbage-metadata small-fd gone-mid-frame silent malformed no-hello unknown-buffer unfinished-frame)
socket=$work/socket
"$compositor" --socket "$socket" --output "$work" --save none --idle-timeout 1000 \
	--clients $((${#modes[@]} + 1)) >"$work/compositor.log" 2>&1 &
pid=$!
for _ in $(seq 100); do [[ -S $socket ]] && break; sleep 0.1; done
for mode in "${modes[@]}"; do
	"$bad" "$socket" "$mode" || { echo "the misbehaving client ($mode) itself failed"; exit 1; }
	kill -0 $pid 2>/dev/null || { echo "the compositor died after: $mode"; cat "$work/compositor.log"; exit 1; }
done
"$client" --socket "$socket" --frames 3 --size 64x48 || { echo "the good client failed"; cat "$work/compositor.log"; exit 1; }
wait $pid
status=$?
cat "$work/compositor.log"
dropped=$(grep -c "dropping the client" "$work/compositor.log")
[[ $status == 0 ]] || { echo "the compositor exited $status"; exit 1; }
[[ $dropped == "${#modes[@]}" ]] || { echo "dropped $dropped clients, expected ${#modes[@]}"; exit 1; }
# Each for its own reason, in order.
expected=("metadata: bad magic" "fd holds 4096 bytes" "the client went away" "the client is silent"
	"a malformed message" "no HELLO first" "a FRAME of an unknown buffer" "a FRAME whose rendering never finished")
mapfile -t reasons < <(grep "dropping the client" "$work/compositor.log")
for i in "${!expected[@]}"; do
	[[ ${reasons[$i]:-} == *"${expected[$i]}"* ]] ||
		{ echo "client $((i + 1)) (${modes[$i]}) dropped for '${reasons[$i]:-nothing}', expected '${expected[$i]}'"; exit 1; }
done
grep -Eq "descriptors: ([0-9]+) open after the clients, \1 before|([0-9]+) descriptors open after the clients, \2 before" \
	"$work/compositor.log" || { echo "the compositor leaked descriptors"; exit 1; }
echo "the compositor dropped ${#modes[@]} misbehaving clients, served the good one, leaked nothing"
