#!/usr/bin/env bash
# Compares this tree's mcpctl with the build of an earlier revision, paired
# in one run, on the three figures a change to the request path must not
# make worse:
#   1. a 1000-call batch against the go-sdk stdio echo server (bench/echoserver),
#      in the legacy era (what the C client of bench-batch.sh sends) and in
#      the default auto era;
#   2. a one-shot `list` against the same server;
#   3. peak RSS (GNU time's maximum resident set size) for a 100 MiB tool
#      result over HTTP (bench/faultserver's huge-result mode).
# The two builds run in turn, the order rotating each round
# (internal/startupfloor/paired), so a change in the machine's load hits
# both alike. Read "median of paired wall ratios": A is this tree, B the base.
#
# Usage: bash scripts/bench-compare.sh [BASE] [ROUNDS]   (default: origin of
# the session pipeline, cc59d41; 20 rounds)
set -euo pipefail
cd "$(dirname "$0")/.."
base="${1:-cc59d41}"
rounds="${2:-20}"
dir="$(mktemp -d)"
fault_pid=""
cleanup() {
	if [ -n "$fault_pid" ]; then kill "$fault_pid" 2>/dev/null || true; wait "$fault_pid" 2>/dev/null || true; fi
	rm -rf "$dir"
}
trap cleanup EXIT

mkdir -p "$dir/base-src"
git archive "$base" | tar -x -C "$dir/base-src"
(cd "$dir/base-src" && go build -trimpath -o "$dir/base" .)
go build -trimpath -o "$dir/new" .
go build -trimpath -o "$dir/echoserver" ./bench/echoserver
go build -trimpath -o "$dir/faultserver" ./bench/faultserver
go build -o "$dir/paired" ./internal/startupfloor/paired
for i in $(seq 1000); do
	printf '{"tool":"echo","arguments":{"message":"hello %d"}}\n' "$i"
done >"$dir/calls.ndjson"
export XDG_STATE_HOME="$dir/state"
echo "base: $base ($(git log -1 --format=%cs "$base")), new: $(git describe --always --dirty)"

echo
echo "== 1000-call batch, legacy era (A = new, B = base, C = base with GOMAXPROCS set, which turns off its one-processor batches)"
"$dir/paired" -n "$rounds" -warmup 2 \
	"$dir/new call --era legacy --batch $dir/calls.ndjson --server-stderr quiet -- $dir/echoserver" \
	"$dir/base call --era legacy --batch $dir/calls.ndjson --server-stderr quiet -- $dir/echoserver" \
	"GOMAXPROCS=$(nproc) $dir/base call --era legacy --batch $dir/calls.ndjson --server-stderr quiet -- $dir/echoserver"
echo
echo "== 1000-call batch, auto era (A = new, B = base, C = base with GOMAXPROCS set)"
"$dir/paired" -n "$rounds" -warmup 2 \
	"$dir/new call --batch $dir/calls.ndjson --server-stderr quiet -- $dir/echoserver" \
	"$dir/base call --batch $dir/calls.ndjson --server-stderr quiet -- $dir/echoserver" \
	"GOMAXPROCS=$(nproc) $dir/base call --batch $dir/calls.ndjson --server-stderr quiet -- $dir/echoserver"
echo
echo "== one-shot list (A = new, B = base)"
"$dir/paired" -n $((rounds * 5)) -warmup 5 \
	"$dir/new list --server-stderr quiet -- $dir/echoserver" \
	"$dir/base list --server-stderr quiet -- $dir/echoserver"

echo
echo "== peak RSS for a 100 MiB result over HTTP (KiB, five runs each, alternating)"
"$dir/faultserver" -http 127.0.0.1:0 -lifetime 30m -size 100MiB huge-result 2>"$dir/fault.log" &
fault_pid=$!
url=""
for _ in $(seq 100); do
	url=$(sed -n 's/^faultserver: listening on //p' "$dir/fault.log" | head -n 1)
	[ -n "$url" ] && break
	sleep 0.1
done
if [ -z "$url" ]; then
	echo "bench-compare: the fault server did not start" >&2
	cat "$dir/fault.log" >&2
	exit 1
fi
new_rss=() base_rss=()
for _ in 1 2 3 4 5; do
	for which in new base; do
		/usr/bin/time -f %M -o "$dir/rss" "$dir/$which" call fault --timeout 120s --url "$url" --transport http >/dev/null
		if [ "$which" = new ]; then new_rss+=("$(cat "$dir/rss")"); else base_rss+=("$(cat "$dir/rss")"); fi
	done
done
median() { printf '%s\n' "$@" | sort -n | sed -n 3p; }
echo "new:  ${new_rss[*]}  (median $(median "${new_rss[@]}") KiB)"
echo "base: ${base_rss[*]}  (median $(median "${base_rss[@]}") KiB)"
