#!/usr/bin/env bash
# Renders screenshots of mcpctl ui's main views into docs/images/ (SVG),
# for docs/ui.md and the README: each view is drawn by the real program in
# a tmux session, captured with its colours (tmux capture-pane -e -p) and
# rendered by Charm's freeze, run from the Go module proxy at a pinned
# version (it is not a dependency of mcpctl). Needs tmux (Debian's; as root
# scripts/install-tools.sh installs it under CI or with MCPCTL_TMUX=1).
#
#   bash scripts/ui-screenshots.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/docs/images"
freeze_version=v0.2.2
cols=100 rows=30

command -v tmux >/dev/null || { echo "ui-screenshots: tmux not found (as root: MCPCTL_TMUX=1 bash scripts/install-tools.sh)" >&2; exit 1; }

work=$(mktemp -d)
sock="$work/tmux.sock"
cleanup() { tmux -S "$sock" kill-server 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
(cd "$root" && go build -o "$work/mcpctl" .)
freeze="$work/freeze"
GOBIN="$work" go install "github.com/charmbracelet/freeze@$freeze_version"

# The recorded proxy session the ui's tests browse, as the newest session
# of a state dir of the script's own.
state="$work/state"
mkdir -p "$state/mcpctl/proxy"
cp "$root/ui/testdata/session.ndjson" "$state/mcpctl/proxy/20261127T232753688Z-30861.ndjson"

start() { # start NAME ARGS...: the ui in a tmux session of its own, in colour
  local name=$1
  shift
  tmux -S "$sock" -f /dev/null new-session -d -s "$name" -x "$cols" -y "$rows" \
    env -u NO_COLOR TERM=xterm-256color COLORTERM=truecolor XDG_STATE_HOME="$state" TZ=UTC "$work/mcpctl" ui "$@"
}
keys() { tmux -S "$sock" send-keys -t "$1" "${@:2}"; }
wait_for() { # wait_for NAME TEXT: until the pane shows TEXT (a minute at most)
  for _ in $(seq 600); do
    if tmux -S "$sock" capture-pane -p -t "$1" | grep -qF -- "$2"; then return 0; fi
    sleep 0.1
  done
  echo "ui-screenshots: $1 never showed $2" >&2
  tmux -S "$sock" capture-pane -p -t "$1" >&2
  exit 1
}
shot() { # shot NAME FILE: the pane, coloured, to docs/images/FILE.svg
  tmux -S "$sock" capture-pane -e -p -t "$1" >"$work/$2.ans"
  "$freeze" --language ansi --window --padding 20 --margin 0 --font.size 14 \
    --output "$out/$2.svg" <"$work/$2.ans" >/dev/null
  echo "ui-screenshots: docs/images/$2.svg" >&2
}

mkdir -p "$out"
# Both programs start at once: the tmux server ends with its last session.
start demo --demo
start session --session latest
wait_for demo "Tools 12"
keys demo Down Down
wait_for demo "> count_words"
shot demo ui-tools
keys demo /add Enter Enter
wait_for demo "Call add"
keys demo 2 Tab 3
wait_for demo "✓ valid"
shot demo ui-form
keys demo Enter
wait_for demo "Result of add"
shot demo ui-result
keys demo Escape
wait_for demo "enter send"
keys demo Escape
wait_for demo "/ filter"
keys demo 7
wait_for demo "[Frames"
keys demo Down Down Down Down
wait_for demo "> ← response  id 2"
shot demo ui-frames
keys demo q

wait_for session "(ended)"
shot session ui-session
keys session 4
wait_for session "P95"
shot session ui-session-tools
keys session q
