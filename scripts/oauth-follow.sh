#!/usr/bin/env bash
# A stand-in for a browser in OAuth tests: mcpctl opens the authorization URL
# with $BROWSER (github.com/cli/browser runs `$BROWSER URL`); set
# BROWSER=scripts/oauth-follow.sh and this script plays the user who
# approves. It GETs the authorization URL without following redirects, takes
# the Location the authorization server answers with (the redirect to
# mcpctl's loopback callback, carrying the code or an error), and GETs that.
#
# It prints nothing on stdout (a browser launcher's stdout may be mcpctl's),
# and exits non-zero with a message on stderr when the authorization server
# does not redirect or the callback does not answer with a success.
#
# usage: oauth-follow.sh URL
set -euo pipefail
if [ $# -lt 1 ] || [ -z "$1" ]; then
  echo "oauth-follow: usage: oauth-follow.sh AUTHORIZATION-URL" >&2
  exit 2
fi
auth_url="${!#}"

if command -v curl >/dev/null 2>&1; then
  # -w prints the status and the resolved Location; no -L, so nothing is
  # followed behind our back.
  out=$(curl -sS --max-time 30 --noproxy '*' -o /dev/null -w '%{http_code} %{redirect_url}' "$auth_url") || {
    echo "oauth-follow: GET of the authorization URL failed: $auth_url" >&2
    exit 1
  }
  status=${out%% *}
  location=${out#* }
  case "$status" in
    30[1237]) ;;
    *)
      echo "oauth-follow: the authorization endpoint answered $status, not a redirect to the callback: $auth_url" >&2
      exit 1 ;;
  esac
  if [ -z "$location" ]; then
    echo "oauth-follow: the authorization endpoint's $status has no Location: $auth_url" >&2
    exit 1
  fi
  cb=$(curl -sS --max-time 30 --noproxy '*' -o /dev/null -w '%{http_code}' "$location") || {
    echo "oauth-follow: GET of the callback failed: $location" >&2
    exit 1
  }
  case "$cb" in
    2??) exit 0 ;;
    *)
      echo "oauth-follow: the callback answered $cb: $location" >&2
      exit 1 ;;
  esac
fi

if ! command -v node >/dev/null 2>&1; then
  echo "oauth-follow: neither curl nor node is on PATH; install one of them" >&2
  exit 1
fi
exec node - "$auth_url" <<'EOF'
const authURL = process.argv[2];
const fail = (msg) => { process.stderr.write(`oauth-follow: ${msg}\n`); process.exit(1); };
(async () => {
  let res;
  try {
    res = await fetch(authURL, { redirect: "manual", signal: AbortSignal.timeout(30000) });
  } catch (e) {
    fail(`GET of the authorization URL failed (${e.message}): ${authURL}`);
  }
  if (![301, 302, 303, 307].includes(res.status)) {
    fail(`the authorization endpoint answered ${res.status}, not a redirect to the callback: ${authURL}`);
  }
  const loc = res.headers.get("location");
  if (!loc) fail(`the authorization endpoint's ${res.status} has no Location: ${authURL}`);
  const cbURL = new URL(loc, authURL).toString();
  let cb;
  try {
    cb = await fetch(cbURL, { redirect: "manual", signal: AbortSignal.timeout(30000) });
  } catch (e) {
    fail(`GET of the callback failed (${e.message}): ${cbURL}`);
  }
  if (cb.status < 200 || cb.status > 299) fail(`the callback answered ${cb.status}: ${cbURL}`);
})();
EOF
