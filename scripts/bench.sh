#!/usr/bin/env bash
# Runs every benchmark in tests/bench (the build tree's, build/ by
# default) and writes one table: each measure with a target, its value,
# the target, PASS or MISS, headed by the commit, the CPU, the Mesa
# version and the load when it started. Run it on a quiet machine
# (nothing else building or testing): the load is printed so that a noisy
# run shows as one.
#
#   scripts/bench.sh            print the table (and each benchmark's own
#                               output into bench-logs/)
#   scripts/bench.sh --record   also put the table at the top of
#                               docs/performance.md's record
#
# Timing is never a test's verdict: ctest runs each benchmark's --quick
# smoke run for correctness only. This script is how a number gets into
# the docs.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
record=0
case "${1:-}" in
--record) record=1 ;;
"") ;;
*)
	echo "usage: $0 [--record]" >&2
	exit 2
	;;
esac
build=${UDA_BENCH_BUILD:-build}
if [[ ! -x $build/tests/bench/uda-bench-egl ]]; then
	echo "no benchmarks in $build/ (build first: cmake -S . -B $build -G Ninja && cmake --build $build)" >&2
	exit 1
fi
logs=$root/bench-logs
mkdir -p "$logs"

# The build tree's backends, layer and EGL platforms, as the demo uses them.
export UDA_BACKEND_PATH=$root/$build/manifests/backends.d
export UDA_BACKEND_NO_DEFAULT_PATHS=1
export XDG_DATA_DIRS=$root/$build/manifests/share:${XDG_DATA_DIRS:-/usr/local/share:/usr/share}
export EGL_EXTERNAL_PLATFORM_CONFIG_DIRS=$root/$build/manifests/share/egl/egl_external_platform.d

load=$(cut -d' ' -f1 /proc/loadavg)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
cores=$(nproc)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
# The record itself does not count as a change to what was measured.
dirty=$(git status --porcelain --untracked-files=no -- . ':!docs/performance.md' 2>/dev/null | head -c 1)
started=$(date -u +%Y-%m-%d)

benchmarks=(uda-bench-negotiate uda-bench-alloc uda-bench-layer uda-bench-transition uda-bench-egl
	uda-bench-wayland uda-bench-compositor)
failed=()
for benchmark in "${benchmarks[@]}"; do
	echo "== $benchmark" >&2
	if ! timeout 900 "$build/tests/bench/$benchmark" >"$logs/$benchmark.log" 2>&1; then
		failed+=("$benchmark")
		tail -n 5 "$logs/$benchmark.log" >&2
	fi
done
mesa=$(grep -ohE "Mesa [0-9]+\.[0-9]+\.[0-9]+" "$logs/uda-bench-egl.log" | head -n 1)

table=$(
	echo "### $started, commit $commit${dirty:+ (with uncommitted changes)}"
	echo
	echo "$cpu, $cores cores; ${mesa:-Mesa version unknown}; load $load at the start"
	echo
	echo "| benchmark | measure | value | target | result |"
	echo "| --- | --- | --- | --- | --- |"
	for benchmark in "${benchmarks[@]}"; do
		sed -n 's/^bench-result: \(.*\)$/| \1 |/p' "$logs/$benchmark.log"
	done
	for benchmark in "${failed[@]}"; do
		echo "| $benchmark | did not finish (bench-logs/$benchmark.log) | - | - | FAIL |"
	done
)
echo "$table"
misses=$(grep -c "| MISS |" <<<"$table")
echo
echo "$misses target(s) missed; ${#failed[@]} benchmark(s) failed; each benchmark's output is in bench-logs/"

if ((record)); then
	# Newest first, below the marker line.
	marker='<!-- scripts/bench.sh --record puts new tables below this line -->'
	grep -qF "$marker" docs/performance.md || { echo "docs/performance.md has no record marker" >&2; exit 1; }
	python3 - "$marker" "$table" <<'EOF'
import sys
marker, table = sys.argv[1], sys.argv[2]
path = "docs/performance.md"
text = open(path).read()
text = text.replace(marker, marker + "\n\n" + table.rstrip() + "\n", 1)
open(path, "w").write(text)
EOF
	echo "recorded in docs/performance.md"
fi
((${#failed[@]} == 0))
