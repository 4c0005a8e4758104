#!/usr/bin/env bash
# Measures what mcpctl proxy costs a host: CALLS strictly sequential echo
# calls of the C client (bench/echoclient.c) against a go-sdk stdio server
# (bench/echoserver), whole processes, server start and exit included:
#   A  directly;
#   B  through bench/relayfloor, the least a relay can do (io.Copy both ways);
#   C  through mcpctl proxy --no-log (the relay, the tap and the checks);
#   D  through mcpctl proxy as a host's config would run it (the session log
#      written to the state dir too);
#   E  through bench/relayfloor built with -tags libs: the same floor,
#      also linking the four libraries every mcpctl command links, whose
#      initialisation each start pays (see bench/relayfloor/libs.go).
# The programs run in turn, the order rotating each round
# (internal/startupfloor/paired). Read the paired ratios C/B and D/B: the
# goal is at most 1.15. C/E and D/E count the libraries' start-up on both
# sides: what is left is the relaying and mcpctl's own start-up.
#
# Then the round trip each adds: bench/rtthost makes the same calls through
# each and prints the median and 90th percentile round trip (µs); the
# medians over ROUNDS runs are shown, with the shim's added median round
# trip against the direct connection (the goal: at most 100 µs) and
# against the plain relay. bench/relayc.c, the same relay in C (one
# thread, one poll), is measured beside them: what any relay adds on this
# machine, before a language runtime's share; and bench/relaypoll, that
# design in Go (Linux): what a Go relay adds however it does its I/O.
#
# Usage: bash scripts/bench-proxy.sh [ROUNDS] [CALLS]   (default 20, 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-20}"
calls="${2:-1000}"
if ! command -v cc >/dev/null 2>&1; then
	echo "bench-proxy: no C compiler (cc) on PATH" >&2
	exit 1
fi
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

go build -trimpath -o "$dir/mcpctl" .
go build -trimpath -o "$dir/echoserver" ./bench/echoserver
go build -trimpath -o "$dir/relayfloor" ./bench/relayfloor
go build -trimpath -tags libs -o "$dir/relayfloor-libs" ./bench/relayfloor
go build -trimpath -o "$dir/rtthost" ./bench/rtthost
go build -o "$dir/paired" ./internal/startupfloor/paired
cc -O2 -o "$dir/echoclient" bench/echoclient.c
cc -O2 -o "$dir/relayc" bench/relayc.c
go build -trimpath -o "$dir/relaypoll" ./bench/relaypoll
export XDG_STATE_HOME="$dir/state"

echo "$calls sequential echo calls, $rounds rounds; A = direct, B = relayfloor, C = mcpctl proxy --no-log, D = mcpctl proxy (session log), E = relayfloor linking the four libraries"
"$dir/paired" -n "$rounds" -warmup 2 -pair C/B -pair D/B -pair C/E -pair D/E -pair E/B -pair B/A \
	"$dir/echoclient $calls $dir/echoserver" \
	"$dir/echoclient $calls $dir/relayfloor $dir/echoserver" \
	"$dir/echoclient $calls $dir/mcpctl proxy --no-log -- $dir/echoserver" \
	"$dir/echoclient $calls $dir/mcpctl proxy --keep 2 -- $dir/echoserver" \
	"$dir/echoclient $calls $dir/relayfloor-libs $dir/echoserver"

echo
echo "round trips (µs), median over $rounds runs of each run's median and p90:"
for i in $(seq "$rounds"); do
	"$dir/rtthost" "$calls" "$dir/echoserver" >>"$dir/direct"
	"$dir/rtthost" "$calls" "$dir/relayc" "$dir/echoserver" >>"$dir/crelay"
	"$dir/rtthost" "$calls" "$dir/relaypoll" "$dir/echoserver" >>"$dir/gopoll"
	"$dir/rtthost" "$calls" "$dir/relayfloor" "$dir/echoserver" >>"$dir/floor"
	"$dir/rtthost" "$calls" "$dir/mcpctl" proxy --no-log -- "$dir/echoserver" >>"$dir/shim"
	"$dir/rtthost" "$calls" "$dir/mcpctl" proxy --keep 2 -- "$dir/echoserver" >>"$dir/shimlog"
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for k in direct crelay gopoll floor shim shimlog; do
	printf '%-8s median %8.1f  p90 %8.1f\n' "$k" "$(cut -d' ' -f1 "$dir/$k" | median)" "$(cut -d' ' -f2 "$dir/$k" | median)"
done
d=$(cut -d' ' -f1 "$dir/direct" | median)
f=$(cut -d' ' -f1 "$dir/floor" | median)
# paired prints the median of the round-by-round differences A − B.
paired() { paste -d' ' "$dir/$1" "$dir/$2" | awk '{print $1-$3}' | median; }
for k in crelay gopoll floor; do
	awk -v s="$(cut -d' ' -f1 "$dir/$k" | median)" -v d="$d" -v k="$k" -v p="$(paired "$k" direct)" \
		'BEGIN {printf "%s adds %.1f µs to the median round trip (paired %.1f µs)\n", k, s-d, p}'
done
for k in shim shimlog; do
	s=$(cut -d' ' -f1 "$dir/$k" | median)
	awk -v s="$s" -v d="$d" -v f="$f" -v k="$k" -v p="$(paired "$k" direct)" \
		'BEGIN {printf "%s adds %.1f µs to the median round trip (paired %.1f µs; %.1f µs over the plain relay)\n", k, s-d, p, s-f}'
done
