#!/usr/bin/env bash
# Compares governance at mcpctl proxy between two trees (issue 34, point
# 8): this one ("after") and another checkout ("before", e.g. made with
# `git worktree add` or `git archive REV | tar -x -C DIR`). Each round runs
# scripts/bench-govern.sh's five kinds (plain, policy, audit, sself,
# signed) with both trees' mcpctl, all ten in turn, the order rotating, so
# that the machine's load hits both trees alike; the servers and the host
# are this tree's. It prints each tree's medians and, per tree, the median
# of the paired differences policy − plain, audit − policy and
# signed − sself; then after − before, paired, for each kind (plain, the
# same code in both, shows the noise).
#
# Usage: bash scripts/bench-govern-ab.sh BEFORE_DIR [ROUNDS] [CALLS]   (default 12, 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
before_src="$(cd "${1:?usage: bench-govern-ab.sh BEFORE_DIR [ROUNDS] [CALLS]}" && pwd)"
rounds="${2:-12}"
calls="${3:-1000}"
d="$(mktemp -d)"
trap 'rm -rf "$d"' EXIT

(cd "$before_src" && go build -trimpath -o "$d/before-mcpctl" .)
go build -trimpath -o "$d/after-mcpctl" .
go build -trimpath -o "$d/echoserver" ./bench/echoserver
go build -trimpath -o "$d/signechoserver" ./bench/signechoserver
go build -trimpath -o "$d/rtthost" ./bench/rtthost
export XDG_STATE_HOME="$d/state"
export SIGNECHO_KEY=bench-govern-key-0123456789abcdef
printf 'echo:\n  sensitivity: low\n' >"$d/policy.yaml"

run() {
	local m="$d/$1-mcpctl proxy --no-log" p="--policy $d/policy.yaml"
	case "$2" in
	plain) "$d/rtthost" "$calls" $m -- "$d/echoserver" ;;
	policy) "$d/rtthost" "$calls" $m $p -- "$d/echoserver" ;;
	audit) "$d/rtthost" "$calls" $m $p --audit "$d/audit-$1.jsonl" -- "$d/echoserver" ;;
	sself) "$d/rtthost" "$calls" $m $p -- env SIGNECHO_SELF=1 "$d/signechoserver" ;;
	signed) "$d/rtthost" "$calls" $m $p --sign-key env:SIGNECHO_KEY --verify-key env:SIGNECHO_KEY -- "$d/signechoserver" ;;
	esac
}
kinds=(plain policy audit sself signed)
runs=()
for t in before after; do
	for k in "${kinds[@]}"; do runs+=("$t $k"); done
done
# One warm-up round, not counted.
for r in "${runs[@]}"; do run $r >/dev/null; done
echo "$calls sequential echo calls, $rounds rounds, both trees, order rotating; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
n=${#runs[@]}
for i in $(seq 0 $((rounds - 1))); do
	for j in $(seq 0 $((n - 1))); do
		r=${runs[$(((i + j) % n))]}
		run $r >>"$d/res.${r/ /.}"
	done
	rm -f "$d"/audit-*.jsonl "$d"/audit-*.jsonl.head
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
paired() { paste -d' ' "$d/res.$1" "$d/res.$2" | awk '{print $1-$3}' | median; }
echo "median round trips (µs) over $rounds runs of each run's median:"
for t in before after; do
	for k in "${kinds[@]}"; do
		printf '%-6s %-7s %8.1f\n' "$t" "$k" "$(cut -d' ' -f1 "$d/res.$t.$k" | median)"
	done
done
echo "median of paired differences (µs):"
for t in before after; do
	printf '%-6s governance (policy − plain) %7.1f   audit (audit − policy) %7.1f   proxy signing (signed − sself) %7.1f\n' "$t" \
		"$(paired "$t.policy" "$t.plain")" "$(paired "$t.audit" "$t.policy")" "$(paired "$t.signed" "$t.sself")"
done
for k in "${kinds[@]}"; do
	printf 'after − before, %-7s %7.1f\n' "$k" "$(paired "after.$k" "before.$k")"
done
