#!/usr/bin/env bash
# Compares the start-up of `mcpctl version` with baselines, whole process:
#   floor       a program that links only cobra, viper, lipgloss and
#               jsonschema/v5 and does the same work (internal/startupfloor);
#   floor+gojq  the same program also linking gojq as mcpctl does for --jq
#               (-tags gojq): gojq's package initialisation builds its
#               builtin tables in every process, and Go cannot defer a
#               package's initialisation, so this is what mcpctl's own code
#               is measured against.
# All are built the way releases are (go build -trimpath), then run in
# turn, the order rotating, and the medians and their ratios printed. Read
# the "median of paired wall ratios": it is the least disturbed by other
# load on the machine.
#
# Usage: bash scripts/startup.sh [RUNS]   (default 200)
# With hyperfine installed, its figures for each program follow.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-200}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

go build -trimpath -o "$dir/mcpctl" .
go build -trimpath -o "$dir/floor" ./internal/startupfloor
go build -trimpath -tags gojq -o "$dir/floor+gojq" ./internal/startupfloor
go build -o "$dir/paired" ./internal/startupfloor/paired
printf 'binary sizes: mcpctl %s bytes, floor %s bytes, floor+gojq %s bytes\n' \
	"$(wc -c <"$dir/mcpctl")" "$(wc -c <"$dir/floor")" "$(wc -c <"$dir/floor+gojq")"

"$dir/paired" -n "$runs" "$dir/mcpctl version" "$dir/floor version" "$dir/floor+gojq version"

if command -v hyperfine >/dev/null 2>&1; then
	hyperfine -N --warmup 20 --runs "$runs" "$dir/mcpctl version" "$dir/floor version" "$dir/floor+gojq version"
fi
