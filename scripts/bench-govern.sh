#!/usr/bin/env bash
# Measures what governance costs a host at mcpctl proxy (issue 34, point 8):
# bench/rtthost makes CALLS sequential echo calls through the stdio shim
# and prints its median and 90th percentile round trip (µs), for
#   plain   mcpctl proxy --no-log -- echoserver
#   policy  the same with --policy P (P allows echo: no approval, no
#           rate limit, no scopes)
#   audit   policy, and --audit FILE (a hash-chained record per call)
#   sself   policy, against bench/signechoserver in its self-signing mode:
#           the server verifies a request signature it made itself and
#           signs each result, the cryptography of a signing server,
#           while the proxy signs and verifies nothing
#   signed  policy, --sign-key and --verify-key, against
#           bench/signechoserver: the proxy signs each request and
#           verifies each result, the server verifies and signs
# Each round runs all five in turn, the order rotating, so that the
# machine's load hits them alike. The medians over ROUNDS runs are shown,
# with what each adds to the median round trip of the one before it in
# the chain plain → policy → audit, plain → policy → signed:
#   policy − plain   governance, unsigned (the goal: at most 50 µs)
#   signed − sself   the proxy's signing and verification (the goal: at
#                    most 100 µs more); the server's own share is in both
#   sself − policy   the server's share (its crypto and middleware), for
#                    reference
#
# Usage: bash scripts/bench-govern.sh [ROUNDS] [CALLS]   (default 12, 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-12}"
calls="${2:-1000}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

go build -trimpath -o "$dir/mcpctl" .
go build -trimpath -o "$dir/echoserver" ./bench/echoserver
go build -trimpath -o "$dir/signechoserver" ./bench/signechoserver
go build -trimpath -o "$dir/rtthost" ./bench/rtthost
export XDG_STATE_HOME="$dir/state"
export SIGNECHO_KEY=bench-govern-key-0123456789abcdef
printf 'echo:\n  sensitivity: low\n' >"$dir/policy.yaml"

m="$dir/mcpctl proxy --no-log"
p="--policy $dir/policy.yaml"
run() {
	case "$1" in
	plain) "$dir/rtthost" "$calls" $m -- "$dir/echoserver" ;;
	policy) "$dir/rtthost" "$calls" $m $p -- "$dir/echoserver" ;;
	audit) "$dir/rtthost" "$calls" $m $p --audit "$dir/audit.jsonl" -- "$dir/echoserver" ;;
	sself) "$dir/rtthost" "$calls" $m $p -- env SIGNECHO_SELF=1 "$dir/signechoserver" ;;
	signed) "$dir/rtthost" "$calls" $m $p --sign-key env:SIGNECHO_KEY --verify-key env:SIGNECHO_KEY -- "$dir/signechoserver" ;;
	esac
}
kinds=(plain policy audit sself signed)
# One warm-up round, not counted.
for k in "${kinds[@]}"; do run "$k" >/dev/null; done
echo "$calls sequential echo calls, $rounds rounds, order rotating; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 0 $((rounds - 1))); do
	for j in $(seq 0 $((${#kinds[@]} - 1))); do
		k=${kinds[$(((i + j) % ${#kinds[@]}))]}
		run "$k" >>"$dir/$k"
	done
	rm -f "$dir/audit.jsonl" "$dir/audit.jsonl.head"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# range prints the lowest and highest of the runs' medians.
spread() { cut -d' ' -f1 | sort -n | awk 'NR==1 {lo=$1} {hi=$1} END {printf "%.1f–%.1f", lo, hi}'; }
echo "round trips (µs), median over $rounds runs of each run's median and p90 (runs' medians lowest–highest):"
declare -A med
for k in "${kinds[@]}"; do
	med[$k]=$(cut -d' ' -f1 "$dir/$k" | median)
	printf '%-7s median %8.1f  p90 %8.1f  (%s)\n' "$k" "${med[$k]}" "$(cut -d' ' -f2 "$dir/$k" | median)" "$(spread <"$dir/$k")"
done
# Paired: the difference round by round (the runs of one round ran one
# after the other), then its median.
paired() { paste -d' ' "$dir/$1" "$dir/$2" | awk '{print $1-$3}' | median; }
added() {
	printf '%-36s %7.1f µs (median of paired differences %.1f µs)\n' "$1" \
		"$(awk -v a="${med[$2]}" -v b="${med[$3]}" 'BEGIN {print a-b}')" "$(paired "$2" "$3")"
}
added "governance (policy − plain):" policy plain
added "audit trail (audit − policy):" audit policy
added "proxy's signing (signed − sself):" signed sself
added "server's signing share (sself − policy):" sself policy
added "signed, all told (signed − policy):" signed policy
