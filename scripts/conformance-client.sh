#!/usr/bin/env bash
# Client driver for the official MCP conformance harness
# (@modelcontextprotocol/conformance). The harness runs this script with the
# mock server's URL as the last argument and the scenario's name in
# MCP_CONFORMANCE_SCENARIO; the driver turns each scenario into an ordinary
# mcpctl command line. mcpctl itself knows nothing about scenarios.
set -euo pipefail
url="${!#}"
mcpctl="${MCPCTL:-mcpctl}"
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  initialize)
    exec "$mcpctl" connect --url "$url" ;;
  tools_call)
    exec "$mcpctl" call add_numbers a=2 b=3 --url "$url" ;;
  elicitation-sep1034-client-defaults)
    exec "$mcpctl" call test_client_elicitation_defaults --elicit accept-defaults --url "$url" ;;
  sse-retry)
    exec "$mcpctl" call test_reconnection --url "$url" ;;
  *)
    echo "conformance-client: no mcpctl command for scenario '${MCP_CONFORMANCE_SCENARIO:-}'" >&2
    exit 2 ;;
esac
