#!/usr/bin/env bash
# Compares `mcpctl call --batch` with a minimal hand-written C client
# (bench/echoclient.c) making the same strictly sequential round trips:
# start a go-sdk stdio server (bench/echoserver), handshake, CALLS tools/call
# of echo one after the other, close the server and wait for it to exit.
# Both are whole processes, server start and exit included.
#
# mcpctl runs twice over: with --era legacy, which puts on the wire exactly
# what the C client sends (initialize, notifications/initialized, then the
# calls), and with the default --era auto, which against a go-sdk server
# that speaks the 2026-07-28 era picks it (the era is cached after the
# first run, as a user's second command finds it; the warm-up runs fill
# the cache).
#
# bench/echofloor, the C client's work in plain Go (one goroutine, no
# decoding, no checks), runs too: its distance to the C client is what any Go
# client pays; mcpctl's distance to it is mcpctl's own. So does the same
# floor built with -tags libs, which also links the four libraries of
# mcpctl's design (cobra, viper, lipgloss, jsonschema/v5) and so pays their
# package initialisation and a dynamically linked binary, as mcpctl must:
# its distance to the C client is what the design costs before mcpctl does
# anything.
#
# bench/sdkclient, the official Go SDK's client making the same calls
# (a read loop handing each answer to the caller, as mcpctl's client does),
# runs too: what a Go program built on the SDK pays for the same work.
#
# The programs run in turn, the order rotating each round (internal/
# startupfloor/paired), so a change in the machine's load hits all alike.
# Read "median of paired wall ratios": the goal is at most 1.20.
#
# Usage: bash scripts/bench-batch.sh [ROUNDS] [CALLS]   (default 20, 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-20}"
calls="${2:-1000}"
if ! command -v cc >/dev/null 2>&1; then
	echo "bench-batch: no C compiler (cc) on PATH" >&2
	exit 1
fi
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

go build -trimpath -o "$dir/mcpctl" .
go build -trimpath -o "$dir/echoserver" ./bench/echoserver
go build -trimpath -o "$dir/echofloor" ./bench/echofloor
go build -trimpath -tags libs -o "$dir/echofloor+libs" ./bench/echofloor
go build -trimpath -o "$dir/sdkclient" ./bench/sdkclient
go build -o "$dir/paired" ./internal/startupfloor/paired
cc -O2 -o "$dir/echoclient" bench/echoclient.c
for i in $(seq "$calls"); do
	printf '{"tool":"echo","arguments":{"message":"hello %d"}}\n' "$i"
done >"$dir/calls.ndjson"

export XDG_STATE_HOME="$dir/state"
"$dir/mcpctl" call --batch "$dir/calls.ndjson" --server-stderr quiet -- "$dir/echoserver" | tail -n 1

echo "$calls sequential echo calls, $rounds rounds; A = mcpctl --era legacy, B = C client, C = Go floor, D = mcpctl (--era auto), E = Go floor linking the design's libraries, F = the Go SDK's client"
"$dir/paired" -n "$rounds" -warmup 2 -pair E/B -pair D/F \
	"$dir/mcpctl call --era legacy --batch $dir/calls.ndjson --server-stderr quiet -- $dir/echoserver" \
	"$dir/echoclient $calls $dir/echoserver" \
	"$dir/echofloor $calls $dir/echoserver" \
	"$dir/mcpctl call --batch $dir/calls.ndjson --server-stderr quiet -- $dir/echoserver" \
	"$dir/echofloor+libs $calls $dir/echoserver" \
	"$dir/sdkclient $calls $dir/echoserver"
