#!/usr/bin/env bash
# The whole test suite: installs what the tests need (Go modules, Node tools
# into .tools/), checks formatting and vet, then runs every test with -race,
# including the interop tests against the npm reference server.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-tools.sh
go mod download

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.tools/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change these files:" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...
# MCPCTL_REQUIRE_INTEROP makes a missing reference server a failure, not a skip.
# -timeout 30m: on a busy 2-core machine the scripts of the root package run
# longer than go test's default of 10 minutes per package.
MCPCTL_REQUIRE_INTEROP=1 go test -race -count=1 -timeout 30m ./... "$@"
# The memory bound, measured on a binary without the race detector's
# shadow memory (under -race the test skips itself).
go test -count=1 -run '^TestPeakRSS$' .
# The official client conformance scenarios, against the real binary.
bash scripts/conformance.sh
# Every fuzz target for a few seconds: the parsers of untrusted input.
FUZZTIME=${FUZZTIME:-5s} bash scripts/fuzz.sh
