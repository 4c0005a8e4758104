#!/usr/bin/env bash
# Compares the start-up of `mcpctl version` with the floor: a program that
# links only cobra, viper, lipgloss and jsonschema/v5 and does the same work
# (internal/startupfloor). Both are built the way releases are, then run
# alternately, whole process, and the medians and their ratio printed. The
# goal is a ratio of at most 1.10.
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
go build -o "$dir/paired" ./internal/startupfloor/paired
printf 'binary sizes: mcpctl %s bytes, floor %s bytes\n' "$(wc -c <"$dir/mcpctl")" "$(wc -c <"$dir/floor")"

"$dir/paired" -n "$runs" "$dir/mcpctl version" "$dir/floor version"

if command -v hyperfine >/dev/null 2>&1; then
	hyperfine -N --warmup 20 --runs "$runs" "$dir/mcpctl version" "$dir/floor version"
fi
