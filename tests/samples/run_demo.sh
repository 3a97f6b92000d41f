#!/usr/bin/env bash
# ctest: uda-demo in a fresh folder, then its PNGs checked pixel for pixel.
#   run_demo.sh UDA_DEMO CHECKER
set -euo pipefail
demo=$1 checker=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$demo" --frames 6 --size 160x120 --output frames
"$checker" frames 160 120 1 3 6
