#!/usr/bin/env python3
"""A complete MCP server over stdio that verifies signed tools/call requests
and signs its results the design's way: HMAC-SHA256 over Python's
json.dumps(payload, sort_keys=True) with timestamp = time.time().

Nothing but the standard library. The signing code is the one shown in
docs/signing.md, word for word (the tests check it). Run it under mcpctl:

    export MCP_SIGNING_KEY='a long random secret'
    mcpctl call --sign-key env:MCP_SIGNING_KEY --verify-key env:MCP_SIGNING_KEY \\
      --canonical python get_weather city=Lyon -- python3 docs/signing_server.py

It reads the key from MCP_SIGNING_KEY (the variable's bytes, as mcpctl does),
refuses a tools/call whose signature does not verify with JSON-RPC error
-32001 naming the reason, and answers with newline-delimited JSON-RPC on
stdout; anything else it has to say goes to stderr.
"""

import os
import sys

# --- signing: the code of docs/signing.md ---
import hashlib, hmac, json, math, time
from datetime import datetime

MAX_SKEW = 300  # seconds


def mac(key, payload):
    canonical = json.dumps(payload, sort_keys=True).encode("ascii")
    return hmac.new(key, canonical, hashlib.sha256).hexdigest()


def seconds(ts):
    """Unix seconds of a signature timestamp: a number of seconds (the
    design's time.time()) or an RFC 3339 string (mcpctl's default)."""
    if isinstance(ts, (int, float)) and not isinstance(ts, bool) and math.isfinite(ts):
        return float(ts)
    if isinstance(ts, str):
        try:
            when = datetime.fromisoformat(ts.replace("Z", "+00:00"))
        except ValueError:
            when = None
        if when is not None and when.tzinfo is not None:
            return when.timestamp()
    raise ValueError("malformed signature")


def verify_request(key, params, seen):
    """Check params._meta.signature of a tools/call; return the nonce to echo.
    seen maps accepted nonces to the time (epoch seconds) they expire."""
    sig = (params.get("_meta") or {}).get("signature")
    if not isinstance(sig, dict):
        raise ValueError("missing signature")
    if sig.get("alg") != "HMAC-SHA256":
        raise ValueError("unsupported signature algorithm")
    nonce, ts = sig.get("nonce"), sig.get("timestamp")
    if not (isinstance(nonce, str) and nonce):
        raise ValueError("malformed signature")
    signed_at = seconds(ts)
    # The timestamp is signed as it arrived: a float keeps its repr.
    payload = {"tool": params["name"], "params": params.get("arguments", {}),
               "nonce": nonce, "timestamp": ts}
    if not hmac.compare_digest(mac(key, payload), str(sig.get("value", "")).lower()):
        raise ValueError("signature value does not match")
    now = time.time()
    if now - signed_at > MAX_SKEW:
        raise ValueError("timestamp too old")
    if signed_at - now > MAX_SKEW:
        raise ValueError("timestamp in the future")
    for old in [n for n, until in seen.items() if until <= now]:
        del seen[old]
    if nonce in seen:
        raise ValueError("nonce already used")
    seen[nonce] = signed_at + MAX_SKEW
    return nonce


def sign_result(key, tool, result, nonce, kid=None):
    """Return a copy of result carrying _meta.signature for nonce."""
    result = dict(result)
    meta = dict(result.pop("_meta", None) or {})
    meta.pop("signature", None)
    if meta:
        result["_meta"] = meta
    ts = time.time()  # the design's timestamp: a float of Unix seconds
    sig = {"alg": "HMAC-SHA256", "nonce": nonce, "timestamp": ts,
           "value": mac(key, {"tool": tool, "result": result, "nonce": nonce, "timestamp": ts})}
    if kid:
        sig["kid"] = kid
    meta["signature"] = sig
    return dict(result, _meta=meta)
# --- end of the code of docs/signing.md ---


SERVER_INFO = {"name": "signing-example", "version": "1.0.0"}
PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
CODE_SIGNATURE_REJECTED = -32001

TOOLS = [
    {
        "name": "get_weather",
        "title": "Weather forecast",
        "description": "A made-up forecast for a city; the result is signed.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name"},
                "days": {"type": "integer", "minimum": 1, "maximum": 7, "description": "Days ahead (default 1)"},
            },
            "required": ["city"],
        },
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "add",
        "description": "Add two numbers; the result is signed.",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
        "annotations": {"readOnlyHint": True},
    },
]


class RPCError(Exception):
    def __init__(self, code, message, data=None):
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


def get_weather(args):
    city = args.get("city")
    days = args.get("days", 1)
    if not isinstance(city, str) or not city:
        raise RPCError(-32602, "get_weather: city must be a non-empty string")
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= 7:
        raise RPCError(-32602, "get_weather: days must be an integer from 1 to 7")
    # Deterministic, so a test can check the text: no network, no randomness.
    temp = 12.5 + sum(map(ord, city)) % 15
    forecast = [{"day": d + 1, "temp": temp + d * 0.5} for d in range(days)]
    text = "%s: %s" % (city, ", ".join("%.1f\u00b0C" % f["temp"] for f in forecast))
    return {"content": [{"type": "text", "text": text}],
            "structuredContent": {"city": city, "forecast": forecast}}


def add(args):
    a, b = args.get("a"), args.get("b")
    for v in (a, b):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise RPCError(-32602, "add: a and b must be numbers")
    total = a + b
    return {"content": [{"type": "text", "text": json.dumps(total)}], "structuredContent": {"sum": total}}


HANDLERS = {"get_weather": get_weather, "add": add}


class Server:
    def __init__(self, key):
        self.key = key
        self.seen = {}  # nonces accepted within the skew window

    def handle(self, method, params):
        if method == "initialize":
            asked = params.get("protocolVersion")
            return {
                "protocolVersion": asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0],
                "capabilities": {"tools": {}},
                "serverInfo": SERVER_INFO,
                "instructions": "Every tools/call must be signed (docs/signing.md, python canonical form).",
            }
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": TOOLS}
        if method == "tools/call":
            return self.call(params)
        raise RPCError(-32601, "method not found: %s" % method)

    def call(self, params):
        name = params.get("name")
        if name not in HANDLERS:
            raise RPCError(-32602, "unknown tool: %s" % name)
        try:
            nonce = verify_request(self.key, params, self.seen)
        except ValueError as e:
            raise RPCError(CODE_SIGNATURE_REJECTED, "request signature verification failed: %s" % e,
                           {"reason": str(e)})
        args = params.get("arguments") or {}
        if not isinstance(args, dict):
            raise RPCError(-32602, "arguments must be an object")
        return sign_result(self.key, name, HANDLERS[name](args), nonce)

    def answer(self, line):
        """The response line to a request line, or None for a notification."""
        try:
            msg = json.loads(line, parse_constant=reject_constant)
        except ValueError as e:
            return {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error: %s" % e}}
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
            return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "invalid request"}}
        if "method" not in msg:
            return None  # a response to nothing we asked
        if "id" not in msg:
            return None  # notifications/initialized and the like
        params = msg.get("params") or {}
        try:
            if not isinstance(params, dict):
                raise RPCError(-32602, "params must be an object")
            return {"jsonrpc": "2.0", "id": msg["id"], "result": self.handle(msg["method"], params)}
        except RPCError as e:
            error = {"code": e.code, "message": e.message}
            if e.data is not None:
                error["data"] = e.data
            return {"jsonrpc": "2.0", "id": msg["id"], "error": error}


def reject_constant(name):
    raise ValueError("%s is not JSON" % name)


def main():
    key = os.environ.get("MCP_SIGNING_KEY")
    if not key:
        print("signing_server: set MCP_SIGNING_KEY to the shared key (mcpctl ... -e MCP_SIGNING_KEY=...)",
              file=sys.stderr)
        return 2
    server = Server(key.encode())
    for line in sys.stdin:
        if not line.strip():
            continue
        response = server.answer(line)
        if response is not None:
            sys.stdout.write(json.dumps(response) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
