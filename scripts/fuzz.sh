#!/usr/bin/env bash
# Runs every fuzz target of the repository for a short, fixed time each
# (FUZZTIME, default 5s): the parsers that read what users and servers send.
# Crashers found land in the package's testdata/fuzz/ and become regression
# cases of the ordinary `go test` run. Part of scripts/test.sh.
#
#   bash scripts/fuzz.sh              # every target, 5s each
#   FUZZTIME=60s bash scripts/fuzz.sh FuzzPython
#   FUZZ_PARALLEL=1 bash scripts/fuzz.sh  # one worker per target
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-5s}
# Workers per target: 2 by default, the machines this runs on have two
# cores; scripts/test.sh gives 1, as it runs the targets beside other tests.
parallel=${FUZZ_PARALLEL:-2}
only=${1:-}

# The targets, as package and function; a test in scripts_test keeps this
# list equal to the Fuzz functions in the tree.
targets=(
  "./auth FuzzParseChallenges"
  "./client FuzzParseEnvelope"
  "./config FuzzExpand"
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
for t in "${targets[@]}"; do
  read -r pkg fn <<<"$t"
  if [ -n "$only" ] && [ "$only" != "$fn" ]; then
    continue
  fi
  echo "fuzz: $fn ($pkg) for $fuzztime" >&2
  log=$(mktemp)
  for attempt in 1 2 3; do
    if go test -run='^$' -fuzz="^${fn}\$" -fuzztime="$fuzztime" -parallel "$parallel" "$pkg" >"$log" 2>&1; then
      break
    fi
    # A real finding always writes its input; the engine also fails now and
    # then with a bare "context deadline exceeded" when -fuzztime ends while
    # a worker is busy (golang/go#51484), having found nothing: run again.
    if grep -q 'Failing input written to' "$log" || ! grep -q 'context deadline exceeded' "$log" || [ "$attempt" = 3 ]; then
      cat "$log" >&2
      rm -f "$log"
      echo "fuzz: $fn failed; a failing input is in $pkg/testdata/fuzz/$fn/ when one was found" >&2
      exit 1
    fi
    echo "fuzz: $fn: the engine stopped at the time limit without a finding (golang/go#51484); again" >&2
  done
  rm -f "$log"
done
