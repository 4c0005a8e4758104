#!/usr/bin/env bash
# Runs the 1000-call batch of the benchmarks (bench/echoserver, the official
# Go SDK's stdio server) RUNS times and keeps everything about each run that
# fails: mcpctl's output and stderr, its --trace, the server's stderr and,
# with STRACE=1 and strace on PATH, the server's system calls with times
# (which show on which side of the pipe a stall is). A run fails when mcpctl
# exits non-zero; a call with no answer for --timeout (default 60 s) fails
# with exit 7. With DUMP_AFTER=SECONDS, a run still going after that long
# has its server sent SIGQUIT with GOTRACEBACK=crash: the server's stderr
# then holds every goroutine and thread of the stalled runtime (the run
# fails, as the server is gone). SERVER_FLAGS are given to the server
# (-poll: it reads stdin through the poller).
#
# Usage: bash scripts/soak-batch.sh [RUNS] [ERA] [CALLS]   (default 300, auto, 1000)
# Keeps failures in ./soak-<date>/ and prints one line per failure.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-300}"
era="${2:-auto}"
calls="${3:-1000}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
keep="soak-$(date +%Y%m%d-%H%M%S)"

go build -trimpath -o "$dir/mcpctl" .
go build -trimpath -o "$dir/echoserver" ./bench/echoserver
for i in $(seq "$calls"); do
	printf '{"tool":"echo","arguments":{"message":"hello %d"}}\n' "$i"
done >"$dir/calls.ndjson"
export XDG_STATE_HOME="$dir/state"
read -r -a flags <<<"${SERVER_FLAGS:-}"
server=("$dir/echoserver" "${flags[@]}")
if [ -n "${DUMP_AFTER:-}" ]; then
	server=(env GOTRACEBACK=crash "${server[@]}")
fi
if [ "${STRACE:-}" = 1 ] && command -v strace >/dev/null 2>&1; then
	server=(strace -f -tt -e trace=read,write,futex,epoll_pwait,nanosleep -o "$dir/strace.txt" "${server[@]}")
fi

failed=0
for i in $(seq "$runs"); do
	start=$(date +%s%N)
	rc=0
	"$dir/mcpctl" call --era "$era" --batch "$dir/calls.ndjson" --trace "$dir/trace.ndjson" \
		--server-stderr "$dir/server-stderr.txt" -- "${server[@]}" >"$dir/out.ndjson" 2>"$dir/stderr.txt" &
	pid=$!
	if [ -n "${DUMP_AFTER:-}" ]; then
		deadline=$((start + DUMP_AFTER * 1000000000))
		while kill -0 "$pid" 2>/dev/null; do
			if [ "$(date +%s%N)" -gt "$deadline" ]; then
				pkill -QUIT -P "$pid" || true
				break
			fi
			sleep 0.2
		done
	fi
	wait "$pid" || rc=$?
	if [ "$rc" != 0 ]; then
		failed=$((failed + 1))
		mkdir -p "$keep/$i"
		cp "$dir"/out.ndjson "$dir"/stderr.txt "$dir"/trace.ndjson "$dir"/server-stderr.txt "$keep/$i/"
		[ -f "$dir/strace.txt" ] && cp "$dir/strace.txt" "$keep/$i/"
		echo "run $i: exit $rc after $((($(date +%s%N) - start) / 1000000)) ms; kept in $keep/$i"
	fi
done
echo "$runs runs, $failed failed"
[ "$failed" = 0 ]
