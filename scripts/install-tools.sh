#!/usr/bin/env bash
# Installs the Node tools the tests use into .tools/ (git-ignored):
# the MCP reference server @modelcontextprotocol/server-everything.
# Idempotent: does nothing when the pinned versions are already there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tools="$root/.tools"

# Pinned so that a test run today and a year from now see the same servers.
packages=(
  "@modelcontextprotocol/server-everything@2026.8.31"
)

stamp="$tools/.installed"
want=$(printf '%s\n' "${packages[@]}")
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "install-tools: npm not found; install Node.js and npm to run the interop tests" >&2
  exit 1
fi
mkdir -p "$tools"
echo "install-tools: installing ${packages[*]} into $tools" >&2
npm install --prefix "$tools" --no-audit --no-fund --loglevel=error "${packages[@]}" >&2
printf '%s\n' "$want" >"$stamp"
