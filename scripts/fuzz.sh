#!/usr/bin/env bash
# Runs every fuzz target of the repository for a short, fixed time each
# (FUZZTIME, default 5s): the parsers that read what users and servers send.
# Crashers found land in the package's testdata/fuzz/ and become regression
# cases of the ordinary `go test` run. Part of scripts/test.sh.
#
#   bash scripts/fuzz.sh              # every target, 5s each
#   FUZZTIME=60s bash scripts/fuzz.sh FuzzPython
#   FUZZ_PARALLEL=1 bash scripts/fuzz.sh  # one worker per target
#   FUZZ_JOBS=2 bash scripts/fuzz.sh      # two targets at a time
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-5s}
# Workers per target: 2 by default, the machines this runs on have two
# cores; scripts/test.sh gives 1, as it runs the targets beside other tests.
parallel=${FUZZ_PARALLEL:-2}
# Targets at a time: 1 by default; scripts/test.sh gives 2 (of one worker
# each), so that the targets, which run for a fixed time whatever the
# load, end with the end-to-end tier beside them rather than after it.
jobs=${FUZZ_JOBS:-1}
only=${1:-}

# The targets, as package and function; a test in scripts_test keeps this
# list equal to the Fuzz functions in the tree.
targets=(
  "./auth FuzzParseChallenges"
  "./client FuzzParseEnvelope"
  "./config FuzzExpand"
  "./internal/jsonscan FuzzMembers"
  "./lint FuzzParamHeadersAgreeWithClient"
  "./pin FuzzCanonical"
  "./render FuzzJSON"
  "./render FuzzSanitize"
  "./render FuzzWriteJSONString"
  "./schema FuzzParseArgs"
  "./signing FuzzCheckIJSONScan"
  "./signing FuzzJCSMatchesReference"
  "./signing FuzzPlainString"
  "./signing FuzzPython"
  "./signing FuzzScanMembers"
  "./signing FuzzSignatureTimestamp"
  "./textguard FuzzSafe"
  "./transport FuzzSSEParse"
  "./transport FuzzStdioLines"
)
# fuzz_one PKG FN runs one target, again when the engine stops at the
# time limit without a finding, and prints its log when it fails.
fuzz_one() {
  local pkg=$1 fn=$2 log attempt start
  start=$(date +%s)
  log=$(mktemp)
  for attempt in 1 2 3; do
    if go test -run='^$' -fuzz="^${fn}\$" -fuzztime="$fuzztime" -parallel "$parallel" "$pkg" >"$log" 2>&1; then
      echo "fuzz: $fn ($pkg) for $fuzztime: passed in $(($(date +%s) - start))s" >&2
      rm -f "$log"
      return 0
    fi
    # A real finding always writes its input; the engine also fails now and
    # then with a bare "context deadline exceeded" when -fuzztime ends while
    # a worker is busy (golang/go#51484), having found nothing: run again.
    if grep -q 'Failing input written to' "$log" || ! grep -q 'context deadline exceeded' "$log" || [ "$attempt" = 3 ]; then
      cat "$log" >&2
      rm -f "$log"
      echo "fuzz: $fn failed; a failing input is in $pkg/testdata/fuzz/$fn/ when one was found" >&2
      return 1
    fi
    echo "fuzz: $fn: the engine stopped at the time limit without a finding (golang/go#51484); again" >&2
  done
}
export -f fuzz_one
export fuzztime parallel

selected=()
for t in "${targets[@]}"; do
  read -r pkg fn <<<"$t"
  if [ -z "$only" ] || [ "$only" = "$fn" ]; then
    selected+=("$t")
  fi
done
if [ "${#selected[@]}" -eq 0 ]; then
  echo "fuzz: no target named $only" >&2
  exit 2
fi
# xargs runs every target even when one fails, and exits non-zero then.
printf '%s\n' "${selected[@]}" | xargs -P "$jobs" -L 1 bash -c 'fuzz_one "$@"' _
