#!/usr/bin/env bash
# What a goroutine hand-off costs a sequential round trip: the Go floor of
# the batch benchmark (bench/echofloor: 1000 echo calls against the go-sdk
# stdio server, each answer read on the calling goroutine) against the
# same floor with the server's lines handed to the caller through 1, 2 and
# 3 goroutines (ECHOFLOOR_HANDOFFS), as a client with a read loop gets
# them, and the minimal C client (bench/echoclient.c) for scale. Whole
# processes, run in turn with the order rotating each round
# (internal/startupfloor/paired). Read "median of paired wall ratios" of
# B/A, C/A and D/A.
#
# Usage: bash scripts/bench-handoff.sh [ROUNDS] [CALLS]   (default 20, 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-20}"
calls="${2:-1000}"
if ! command -v cc >/dev/null 2>&1; then
	echo "bench-handoff: no C compiler (cc) on PATH" >&2
	exit 1
fi
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

go build -trimpath -o "$dir/echoserver" ./bench/echoserver
go build -trimpath -o "$dir/echofloor" ./bench/echofloor
go build -o "$dir/paired" ./internal/startupfloor/paired
cc -O2 -o "$dir/echoclient" bench/echoclient.c

echo "$calls sequential echo calls, $rounds rounds; A = Go floor, B/C/D = the same with 1/2/3 hand-offs, E = C client"
"$dir/paired" -n "$rounds" -warmup 2 -pair B/A -pair C/A -pair D/A -pair A/E \
	"$dir/echofloor $calls $dir/echoserver" \
	"env ECHOFLOOR_HANDOFFS=1 $dir/echofloor $calls $dir/echoserver" \
	"env ECHOFLOOR_HANDOFFS=2 $dir/echofloor $calls $dir/echoserver" \
	"env ECHOFLOOR_HANDOFFS=3 $dir/echofloor $calls $dir/echoserver" \
	"$dir/echoclient $calls $dir/echoserver"
