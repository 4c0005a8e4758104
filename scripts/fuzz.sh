#!/usr/bin/env bash
# Runs every fuzz target of the repository for a short, fixed time each
# (FUZZTIME, default 5s): the parsers that read what users and servers send.
# Crashers found land in the package's testdata/fuzz/ and become regression
# cases of the ordinary `go test` run. Part of scripts/test.sh.
#
#   bash scripts/fuzz.sh              # every target, 5s each
#   FUZZTIME=60s bash scripts/fuzz.sh FuzzPython
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-5s}
only=${1:-}

# The targets, as package and function; a test in scripts_test keeps this
# list equal to the Fuzz functions in the tree.
targets=(
  "./client FuzzParseEnvelope"
  "./config FuzzExpand"
  "./render FuzzJSON"
  "./render FuzzSanitize"
  "./render FuzzWriteJSONString"
  "./schema FuzzParseArgs"
  "./signing FuzzJCSMatchesReference"
  "./signing FuzzPython"
  "./transport FuzzSSEParse"
  "./transport FuzzStdioLines"
)
for t in "${targets[@]}"; do
  read -r pkg fn <<<"$t"
  if [ -n "$only" ] && [ "$only" != "$fn" ]; then
    continue
  fi
  echo "fuzz: $fn ($pkg) for $fuzztime" >&2
  # -parallel 2: the machines this runs on have two cores.
  go test -run='^$' -fuzz="^${fn}\$" -fuzztime="$fuzztime" -parallel 2 "$pkg" >/tmp/mcpctl-fuzz.$$ 2>&1 || {
    cat /tmp/mcpctl-fuzz.$$ >&2
    rm -f /tmp/mcpctl-fuzz.$$
    echo "fuzz: $fn failed; the crasher is in $pkg/testdata/fuzz/$fn/" >&2
    exit 1
  }
  rm -f /tmp/mcpctl-fuzz.$$
done
