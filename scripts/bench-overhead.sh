#!/usr/bin/env bash
# Measures the measuring client's own share of what `mcpctl bench` reports:
# CALLS sequential echo calls to a go-sdk stdio server (bench/echoserver),
# once timed by `mcpctl bench -c 1` (its mean latency) and once by the
# minimal C client of the batch benchmark (bench/echoclient.c, which times
# its call loop itself with ECHOCLIENT_TIME). The server answers at once,
# so the difference per call is what mcpctl adds to every request it
# measures: the session pipeline (policy, result checks), the client and
# the Go runtime, beside the C floor's raw round trip.
#
# The two run in turn, the order rotating each round, so a change in the
# machine's load hits both alike; read the medians.
#
# Usage: bash scripts/bench-overhead.sh [ROUNDS] [CALLS]   (default 10, 2000)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-10}"
calls="${2:-2000}"
if ! command -v cc >/dev/null 2>&1; then
	echo "bench-overhead: no C compiler (cc) on PATH" >&2
	exit 1
fi
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

go build -trimpath -o "$dir/mcpctl" .
go build -trimpath -o "$dir/echoserver" ./bench/echoserver
cc -O2 -o "$dir/echoclient" bench/echoclient.c
export XDG_STATE_HOME="$dir/state" XDG_CONFIG_HOME="$dir/config"

c_call() { # prints the C client's mean µs a call
	ECHOCLIENT_TIME=1 "$dir/echoclient" "$calls" "$dir/echoserver" 2>&1 >/dev/null |
		awk -v n="$calls" '/^calls_ns /{printf "%.1f\n", $2/n/1000}'
}
mcpctl_call() { # prints mcpctl bench's mean and p50 µs a call
	"$dir/mcpctl" bench echo message=hello -n "$calls" -c 1 -o json --server-stderr quiet -- "$dir/echoserver" |
		awk -F'[:,]' '/"mean"/{m=$2*1000} /"p50"/{p=$2*1000} END{printf "%.1f %.1f\n", m, p}'
}

printf 'round\tC µs/call\tmcpctl mean µs\tmcpctl p50 µs\tmcpctl − C µs\n'
for r in $(seq "$rounds"); do
	if ((r % 2)); then
		c=$(c_call)
		read -r m p < <(mcpctl_call)
	else
		read -r m p < <(mcpctl_call)
		c=$(c_call)
	fi
	printf '%d\t%s\t%s\t%s\t%.1f\n' "$r" "$c" "$m" "$p" "$(awk -v m="$m" -v c="$c" 'BEGIN{print m - c}')"
done | tee "$dir/rounds.tsv"
awk -F'\t' 'NR>0{c[NR]=$2; m[NR]=$3; d[NR]=$5; n=NR}
	function median(a, n,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END{printf "median: C %.1f µs a call, mcpctl bench mean %.1f µs, the share of mcpctl %.1f µs a call\n", median(c, n), median(m, n), median(d, n)}' "$dir/rounds.tsv"
