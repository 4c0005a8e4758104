#!/usr/bin/env bash
# Client driver for the official MCP conformance harness
# (@modelcontextprotocol/conformance). The harness runs this script with the
# mock server's URL as the last argument, the scenario's name in
# MCP_CONFORMANCE_SCENARIO and, for scenarios that hand the client
# credentials, a JSON object in MCP_CONFORMANCE_CONTEXT. The driver turns each
# scenario into an ordinary mcpctl command line, one a user could type: the
# credentials become flags (secrets through env:VAR or file:PATH, never on the
# command line). mcpctl itself knows nothing about scenarios.
#
# The browser of the authorization-code flow is scripts/oauth-follow.sh,
# through $BROWSER, the way a user's own browser is found. Each scenario gets
# a state and config folder of its own, so runs share no tokens and no user
# settings.
#
# MCPCTL_CONFORMANCE_DRY_RUN=1 prints the command lines (and the environment
# they add) instead of running them: a check of the mapping without mcpctl.
set -euo pipefail
url="${!#}"
here=$(cd "$(dirname "$0")" && pwd)
mcpctl="${MCPCTL:-mcpctl}"
scenario="${MCP_CONFORMANCE_SCENARIO:-}"
dry="${MCPCTL_CONFORMANCE_DRY_RUN:-}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/state" "$work/config"

# ctx FIELD prints a field of MCP_CONFORMANCE_CONTEXT. Node is on PATH
# wherever the harness runs (it is a Node program); python3 may not be.
ctx() {
  node -e '
    const [field] = process.argv.slice(1);
    const raw = process.env.MCP_CONFORMANCE_CONTEXT;
    if (!raw) { console.error("conformance-client: MCP_CONFORMANCE_CONTEXT is not set"); process.exit(2); }
    const v = JSON.parse(raw)[field];
    if (typeof v !== "string" || v === "") { console.error(`conformance-client: MCP_CONFORMANCE_CONTEXT has no "${field}"`); process.exit(2); }
    process.stdout.write(v);
  ' "$1"
}

# run prints or runs one mcpctl command line, in the environment of a user
# whose browser is the redirect follower. CI is unset: the harness may run
# under CI=true (our CI does), which tells mcpctl that nobody can finish a
# browser flow, while here the follower finishes it.
run() {
  local envs=(BROWSER="$here/oauth-follow.sh" XDG_STATE_HOME="$work/state" XDG_CONFIG_HOME="$work/config")
  if [ -n "$dry" ]; then
    printf '%s' "${envs[*]} mcpctl"
    printf ' %q' "$@" ${version[@]+"${version[@]}"}
    printf '\n'
    return 0
  fi
  env -u CI "${envs[@]}" "$mcpctl" "$@" ${version[@]+"${version[@]}"}
}

# The harness may run a scenario at a given wire
# (MCP_CONFORMANCE_PROTOCOL_VERSION): a legacy revision, or 2026-07-28 with a
# stateless mock. mcpctl is not told which: --era auto (the default) finds
# out, as it does for a user. MCPCTL_CONFORMANCE_PIN=1 passes the revision
# with --protocol-version instead, to compare.
# Through the proxy (scripts/conformance.sh's "proxy" runs): mcpctl proxy
# listens on a free loopback port in front of the mock server, and mcpctl
# talks to the proxy, at the same path.
if [ -n "${MCPCTL_CONFORMANCE_PROXY:-}" ] && [ -z "$dry" ]; then
  "$mcpctl" proxy --no-log --listen 127.0.0.1:0 --url "$url" 2>"$work/proxy.err" &
  proxy_pid=$!
  trap 'kill "$proxy_pid" 2>/dev/null; wait "$proxy_pid" 2>/dev/null; rm -rf "$work"' EXIT
  for _ in $(seq 200); do
    proxied=$(sed -n 's/^mcpctl proxy: \(http:[^ ]*\) .*/\1/p' "$work/proxy.err" | head -1)
    [ -n "$proxied" ] && break
    kill -0 "$proxy_pid" 2>/dev/null || { cat "$work/proxy.err" >&2; exit 1; }
    sleep 0.05
  done
  if [ -z "$proxied" ]; then
    echo "conformance-client: mcpctl proxy did not start listening" >&2
    cat "$work/proxy.err" >&2
    exit 1
  fi
  url=$proxied
fi

version=()
if [ -n "${MCPCTL_CONFORMANCE_PIN:-}" ] && [ -n "${MCP_CONFORMANCE_PROTOCOL_VERSION:-}" ]; then
  version=(--protocol-version "$MCP_CONFORMANCE_PROTOCOL_VERSION")
fi

case "$scenario" in
  initialize)
    run connect --url "$url" ;;
  tools_call)
    run call add_numbers a=2 b=3 --url "$url" ;;
  elicitation-sep1034-client-defaults)
    run call test_client_elicitation_defaults --elicit accept-defaults --url "$url" ;;
  sse-retry)
    run call test_reconnection --url "$url" ;;
  request-metadata)
    run connect --url "$url" ;;
  http-standard-headers | json-schema-ref-no-deref)
    run list --url "$url" ;;
  sep-2322-client-request-state)
    # Multi-round tool calls: each tool asks for input (an elicitation form)
    # before it finishes; mcpctl answers with the form's defaults.
    for t in test_mrtr_echo_state test_mrtr_no_state test_mrtr_unrelated test_mrtr_no_result_type; do
      run call "$t" --elicit accept-defaults --url "$url" || exit 1
    done ;;
  http-custom-headers)
    # The calls the scenario gives in its context, sent as given
    # (--no-validate: one passes null where the schema says boolean).
    node -e '
      for (const c of JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT).toolCalls)
        console.log(c.name + "\t" + JSON.stringify(c.arguments));
    ' | while IFS=$'\t' read -r name args; do
      run call "$name" --args "$args" --no-validate --url "$url" || exit 1
    done ;;
  http-invalid-tool-headers)
    # Call every tool mcpctl lists: those with invalid x-mcp-header
    # annotations must not be among them.
    tools=$(run list -o json --jq '.tools[].name' --url "$url")
    if [ -n "$dry" ]; then tools=valid_tool; fi
    for t in $tools; do
      run call "$t" region=us-west1 --url "$url" || exit 1
    done ;;
  sep-2640-client-no-prefetch)
    # Listing skills must read none of their files.
    run skills list --url "$url" ;;
  sep-2640-client-verify-digest | sep-2640-client-verify-size | sep-2640-client-verify-frontmatter)
    # The server's SKILL.md does not match its entry (digest, size or
    # frontmatter): mcpctl refuses it, exits 5 and reads no other file (the
    # scenarios allow the client's failing exit).
    run skills get pdf-processing --verify --url "$url" ;;
  json-schema-2020-12-preservation)
    # List the tools, then send the focal tool's inputSchema back through the
    # echo tool as it was received: two commands a user could type.
    schema=$(run list -o json --jq '.tools[] | select(.name == "json_schema_2020_12_tool") | .inputSchema' --url "$url")
    if [ -n "$dry" ]; then schema='{}'; fi
    run call json_schema_echo "schema:=$schema" --url "$url" ;;

  # The authorization-code flow, with Dynamic Client Registration or with
  # what the server's metadata offers; the follower plays the browser. These
  # differ only in the server's behaviour (discovery paths, scopes, token
  # endpoint authentication, iss, DPoP, refusals the client must make).
  auth/metadata-default | auth/metadata-var1 | auth/metadata-var2 | auth/metadata-var3 | \
    auth/2025-03-26-oauth-metadata-backcompat | auth/2025-03-26-oauth-endpoint-fallback | \
    auth/scope-from-www-authenticate | auth/scope-from-scopes-supported | \
    auth/scope-omitted-when-undefined | auth/scope-step-up | auth/scope-retry-limit | \
    auth/token-endpoint-auth-basic | auth/token-endpoint-auth-post | auth/token-endpoint-auth-none | \
    auth/resource-mismatch | auth/offline-access-scope | auth/offline-access-not-supported | \
    auth/iss-supported | auth/iss-not-advertised | auth/iss-supported-missing | \
    auth/iss-wrong-issuer | auth/iss-unexpected | auth/iss-normalized | \
    auth/metadata-issuer-mismatch | auth/dpop | auth/dpop-nonce)
    run call test-tool --url "$url" ;;

  # A Client ID Metadata Document: the scenario's server accepts this fixed
  # URL as the client_id without fetching it (basic-cimd.ts).
  auth/basic-cimd)
    run call test-tool --client-metadata-url https://conformance-test.local/client-metadata.json --url "$url" ;;

  # The authorization server moves between two commands: the first command
  # gets and stores a token from the first server; the second finds it
  # refused, rediscovers, and must register anew with the second server.
  auth/authorization-server-migration)
    run call test-tool --url "$url"
    run call test-tool --url "$url" ;;

  # A pre-registered client (no registration endpoint), authorization code.
  auth/pre-registration)
    export MCPCTL_CONFORMANCE_CLIENT_SECRET
    MCPCTL_CONFORMANCE_CLIENT_SECRET=$(ctx client_secret)
    client_id=$(ctx client_id)
    run call test-tool --client-id "$client_id" \
      --client-secret env:MCPCTL_CONFORMANCE_CLIENT_SECRET --url "$url" ;;

  # Client credentials, authenticated with a secret (client_secret_basic)...
  auth/client-credentials-basic)
    export MCPCTL_CONFORMANCE_CLIENT_SECRET
    MCPCTL_CONFORMANCE_CLIENT_SECRET=$(ctx client_secret)
    client_id=$(ctx client_id)
    run call test-tool --grant client-credentials --client-id "$client_id" \
      --client-secret env:MCPCTL_CONFORMANCE_CLIENT_SECRET --url "$url" ;;

  # ...or with a private key (private_key_jwt; the algorithm follows the key).
  auth/client-credentials-jwt)
    key="$work/client-key.pem"
    (umask 077 && ctx private_key_pem >"$key")
    client_id=$(ctx client_id)
    run call test-tool --grant client-credentials --client-id "$client_id" \
      --client-key "file:$key" --url "$url" ;;

  # Enterprise-managed authorization (SEP-990, named cross-app access in
  # 0.1.16): the IdP's ID token is exchanged at the IdP for an ID-JAG, which
  # is then presented to the authorization server as a JWT bearer grant.
  auth/enterprise-managed-authorization | auth/cross-app-access-complete-flow)
    export MCPCTL_CONFORMANCE_ID_TOKEN MCPCTL_CONFORMANCE_CLIENT_SECRET
    MCPCTL_CONFORMANCE_ID_TOKEN=$(ctx idp_id_token)
    MCPCTL_CONFORMANCE_CLIENT_SECRET=$(ctx client_secret)
    idp_token_endpoint=$(ctx idp_token_endpoint)
    idp_client_id=$(ctx idp_client_id)
    client_id=$(ctx client_id)
    run call test-tool --grant token-exchange \
      --id-token env:MCPCTL_CONFORMANCE_ID_TOKEN \
      --idp-token-endpoint "$idp_token_endpoint" --idp-client-id "$idp_client_id" \
      --client-id "$client_id" --client-secret env:MCPCTL_CONFORMANCE_CLIENT_SECRET \
      --url "$url" ;;

  # Workload identity federation: a JWT from the workload's platform is the
  # grant (RFC 7523). The context's expired and wrong-audience JWTs are for
  # broken clients; a correct one presents the valid JWT.
  auth/wif-jwt-bearer)
    export MCPCTL_CONFORMANCE_ASSERTION
    MCPCTL_CONFORMANCE_ASSERTION=$(ctx valid_jwt)
    client_id=$(ctx client_id)
    run call test-tool --grant jwt-bearer --assertion env:MCPCTL_CONFORMANCE_ASSERTION \
      --client-id "$client_id" --url "$url" ;;

  *)
    echo "conformance-client: no mcpctl command for scenario '$scenario'" >&2
    exit 2 ;;
esac
