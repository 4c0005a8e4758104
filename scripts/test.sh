#!/usr/bin/env bash
# The whole test suite, both tiers: installs what the tests need (Go modules,
# Node tools into .tools/), checks formatting and vet, then runs the quick
# tier of every package with -race, the end-to-end tier (interop with the
# npm reference server, scaffold toolchains, the documentation's examples,
# large results, the memory tests) without it, the official conformance
# scenarios beside them, and every fuzz target and the release check beside
# the end-to-end tier. `go test ./...` alone is the quick tier.
#
# Each phase prints its wall time on stderr ("test.sh: ... took Ns"), so a
# slow run shows which phase grew.
set -euo pipefail
cd "$(dirname "$0")/.."

# MCPCTL_E2E turns the end-to-end tier on (main_test.go); under CI=true a
# run without it fails rather than skipping the tier. MCPCTL_REQUIRE_INTEROP
# makes a missing reference server or python3 a failure, not a skip.
export MCPCTL_E2E=1 MCPCTL_REQUIRE_INTEROP=1

phase() {
  echo "test.sh: $1 took $(($(date +%s) - $2))s" >&2
}

# What the run started in the background and the temporary files it made.
# On every exit, an early failure or Ctrl-C included, each background job
# is stopped with everything it started (a killed `go test` leaves its test
# binary running, and a killed script its `go test`), and the files go.
background=()
temps=()
stop_tree() {
  local pid=$1 child
  kill -STOP "$pid" 2>/dev/null || return 0 # no new children while we look
  for child in $(pgrep -P "$pid" 2>/dev/null); do
    stop_tree "$child"
  done
  kill -TERM "$pid" 2>/dev/null || true
  kill -CONT "$pid" 2>/dev/null || true
}
cleanup() {
  local pid
  for pid in "${background[@]}"; do
    stop_tree "$pid"
  done
  rm -rf "${temps[@]}"
}
# waited PID: the job has ended and been waited for; its number may be
# given to another process, which cleanup must then leave alone.
waited() {
  local keep=() pid
  for pid in "${background[@]}"; do
    [ "$pid" = "$1" ] || keep+=("$pid")
  done
  background=("${keep[@]}")
}
# collect VAR PID: waits for the background job PID and sets VAR to its
# exit status.
collect() {
  local status=0
  wait "$2" || status=$?
  waited "$2"
  printf -v "$1" '%s' "$status"
}
# foreground VAR CMD...: runs CMD as a job of its own and collects it. A
# `go test` catches Ctrl-C and exits with a status of its own, which bash
# takes as the interrupt handled and goes on to the next phase; the `wait`
# builtin instead returns at once on a trapped signal, and the traps below
# end the run.
foreground() {
  local var=$1
  shift
  "$@" &
  background+=("$!")
  collect "$var" "$!"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start=$(date +%s)
# The Node tools install (mostly waiting on the npm registry) beside the Go
# modules' download and vet (mostly CPU); both are needed before the tests.
tools_log=$(mktemp)
bash scripts/install-tools.sh >"$tools_log" 2>&1 &
tools_pid=$!
background+=("$tools_pid")
temps+=("$tools_log")
go mod download

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.tools/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change these files:" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...
collect tools_status "$tools_pid"
cat "$tools_log" >&2
if [ "$tools_status" -ne 0 ]; then
  echo "test.sh: scripts/install-tools.sh exited $tools_status" >&2
  exit 1
fi
phase "tools, gofmt and vet" "$start"

# The conformance scenarios run beside the race run, two at a time: each
# scenario is a chain of process starts (the harness, mcpctl) that the
# load beside it slows, and one at a time they ended last, after both
# tiers; their output is shown once they end, so the two logs do not
# interleave (its last line gives its own wall time).
conformance_log=$(mktemp)
CONFORMANCE_JOBS=${CONFORMANCE_JOBS:-2} bash scripts/conformance.sh >"$conformance_log" 2>&1 &
conformance_pid=$!
background+=("$conformance_pid")
temps+=("$conformance_log")

# The quick tier of every package under the race detector; the end-to-end
# tier (MCPCTL_E2E=0 here) runs after it without the race detector: its
# scripts exec mcpctl hundreds of times, a race-built mcpctl is several
# times slower, and the same code paths are already raced by the quick
# tier's scripts. -timeout 30m: on a busy 2-core machine the scripts of the
# root package run longer than go test's default of 10 minutes per
# package. -p 4: the root package, the longest, then starts beside the
# others instead of waiting for a free slot, and its waits leave the CPU to
# them.
# GORACE: a program built with the race detector sleeps a second before
# it exits by default (atexit_sleep_ms), so that goroutines still running
# may report a race; the scripts start the race-built mcpctl and its test
# servers over a thousand times, and those seconds were most of the tier's
# wall time. A tenth of a second leaves that grace without the idle wait.
# The in-repo test servers, built once without the race detector, run in
# both tiers (MCPCTL_TEST_SERVERS; otherwise each test binary builds them,
# main_test.go): under -race only mcpctl carries the detector
# (internal/testservers says why).
servers_dir=$(mktemp -d)
temps+=("$servers_dir")
go build -o "$servers_dir/testserver" ./internal/testservers
for name in faultserver authserver oauthfollow; do
  ln "$servers_dir/testserver" "$servers_dir/$name"
done
export MCPCTL_TEST_SERVERS=$servers_dir

t=$(date +%s)
foreground race_status env GORACE="${GORACE:-atexit_sleep_ms=100}" MCPCTL_E2E=0 go test -race -count=1 -timeout 30m -p 4 ./... "$@"
phase "go test -race ./... (quick tier)" "$t"

# The release check (scripts/release-check.sh: the Windows and macOS
# builds vet, the six release binaries build and stamp their version) runs
# beside the end-to-end tier and the fuzz targets: the tier's scripts wait
# on the processes they start and the fuzz targets run for a fixed time,
# so neither is lengthened much by it. Its output is shown when it ends.
# It builds with a plain `go build` loop unless RELEASE_BUILDER=goreleaser:
# building GoReleaser itself from a cold cache costs more CPU than the
# whole run has to spare (docs/install.md).
release_log=$(mktemp)
RELEASE_BUILDER=${RELEASE_BUILDER:-go} bash scripts/release-check.sh >"$release_log" 2>&1 &
release_pid=$!
background+=("$release_pid")
temps+=("$release_log")

# Every fuzz target for a few seconds (the parsers of untrusted input),
# beside the end-to-end tier: each target runs for a fixed time whatever
# the load, and the tier's scripts mostly wait on the processes they
# start. One worker each (FUZZ_PARALLEL), two targets at a time
# (FUZZ_JOBS): one at a time, the targets' start-up, slowed by the load,
# made them end well after the tier on a busy machine.
fuzz_log=$(mktemp)
FUZZTIME=${FUZZTIME:-5s} FUZZ_PARALLEL=${FUZZ_PARALLEL:-1} FUZZ_JOBS=${FUZZ_JOBS:-2} bash scripts/fuzz.sh >"$fuzz_log" 2>&1 &
fuzz_pid=$!
fuzz_start=$(date +%s)
background+=("$fuzz_pid")
temps+=("$fuzz_log")

# The end-to-end tier: the scripts that have end-to-end parts (interop
# with the npm reference server, scaffold toolchains, the documentation's
# examples, large results), the memory tests, which need a binary without
# the race detector's shadow memory, and mcpctl bench's agreement with the
# C client, a measurement the race detector would skew.
t=$(date +%s)
e2e_scripts=$(grep -l -E '\[!?(e2e|everything|tsmodules)\]' testdata/script/*.txtar | xargs -n1 basename | sed 's/\.txtar$//' | paste -sd'|' -)
# The measurements run beside the scripts: each compares paired rounds
# (or bounds memory), so the scripts' load hits both sides alike, and most
# of their time is spent waiting on the servers' answers.
# One test binary, built once, runs both.
e2e_dir=$(mktemp -d)
temps+=("$e2e_dir")
e2e_status=0
foreground e2e_status go test -c -o "$e2e_dir/mcpctl.test" .
"$e2e_dir/mcpctl.test" -test.count=1 -test.run '^(TestPeakRSS|TestBenchAgreesOverStdio|TestBenchAgreesOverHTTP)' &
measure_pid=$!
background+=("$measure_pid")
foreground scripts_status "$e2e_dir/mcpctl.test" -test.count=1 -test.timeout=30m -test.run "^TestScript\$/^(${e2e_scripts})\$"
[ "$scripts_status" -eq 0 ] || e2e_status=$scripts_status
collect measure_status "$measure_pid"
[ "$measure_status" -eq 0 ] || e2e_status=$measure_status
phase "go test . (end-to-end tier)" "$t"

collect conformance_status "$conformance_pid"
cat "$conformance_log"
if [ "$race_status" -ne 0 ] || [ "$e2e_status" -ne 0 ] || [ "$conformance_status" -ne 0 ]; then
  echo "test.sh: go test -race exited $race_status, the end-to-end tier $e2e_status, conformance $conformance_status" >&2
  exit 1
fi

collect fuzz_status "$fuzz_pid"
cat "$fuzz_log" >&2
phase "fuzz (beside the end-to-end tier)" "$fuzz_start"
if [ "$fuzz_status" -ne 0 ]; then
  echo "test.sh: scripts/fuzz.sh exited $fuzz_status" >&2
  exit 1
fi

t=$(date +%s)
collect release_status "$release_pid"
cat "$release_log"
phase "waiting for the release check" "$t"
if [ "$release_status" -ne 0 ]; then
  echo "test.sh: scripts/release-check.sh exited $release_status" >&2
  exit 1
fi
phase "the whole suite" "$start"
