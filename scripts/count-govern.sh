#!/usr/bin/env bash
# Counts what one call costs the stdio shim itself, with and without a
# policy (issue 34, point 8): bench/rtthost makes CALLS sequential echo
# calls through `mcpctl proxy --no-log [--policy P] -- echoserver`, and
# `perf stat -p` counts the shim's own context switches, CPU migrations
# and CPU time (its threads only: the server and the host are other
# processes). The server is held until perf is attached, so every call is
# counted. Prints one line per run, per call; the modes alternate so that
# the machine's load hits them alike. Needs perf and the right to attach
# to a process (root, or kernel.perf_event_paranoid ≤ 1).
#
# Usage: bash scripts/count-govern.sh [ROUNDS] [CALLS]   (default 4, 5000)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-4}"
calls="${2:-5000}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

go build -trimpath -o "$dir/mcpctl" .
go build -trimpath -o "$dir/echoserver" ./bench/echoserver
go build -trimpath -o "$dir/rtthost" ./bench/rtthost
export XDG_STATE_HOME="$dir/state"
printf 'echo:\n  sensitivity: low\n' >"$dir/policy.yaml"

# The host's command: the shim, whose server waits for $dir/go; perf is
# attached to the shim once the server is its child, then the server goes.
cat >"$dir/shim.sh" <<EOF
#!/usr/bin/env bash
rm -f "$dir/go"
"\$@" -- sh -c 'while [ ! -e "$dir/go" ]; do sleep 0.01; done; exec "$dir/echoserver"' <&0 &
shim=\$!
while ! pgrep -P \$shim >/dev/null; do sleep 0.005; done
perf stat -x, -e context-switches,cpu-migrations,task-clock -p \$shim -o "$dir/stat" &
perf=\$!
sleep 0.3
touch "$dir/go"
wait \$shim
rc=\$?
kill -INT \$perf
wait \$perf || true
exit \$rc
EOF
chmod +x "$dir/shim.sh"

echo "$calls calls a run; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$rounds"); do
	for mode in plain policy; do
		p=()
		[ "$mode" = policy ] && p=(--policy "$dir/policy.yaml")
		rtt=$("$dir/rtthost" "$calls" "$dir/shim.sh" "$dir/mcpctl" proxy --no-log "${p[@]}")
		awk -F, -v m="$mode" -v n="$calls" -v rtt="$rtt" '
			/context-switches/ {cs = $1} /cpu-migrations/ {mg = $1} /task-clock/ {tc = $1}
			END {printf "%-6s context switches %.2f  migrations %.3f  CPU %.1f µs  (round trip median, p90: %s µs)\n", m, cs / n, mg / n, tc * 1000 / n, rtt}' "$dir/stat"
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
