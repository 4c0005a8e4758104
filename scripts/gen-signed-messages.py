#!/usr/bin/env python3
"""Write testdata/signing/python-signed-messages.json: tools/call requests and
results signed the design's way, by Python, with numeric timestamps.

The design mcpctl learned from signs with
    hmac.new(key, json.dumps(payload, sort_keys=True).encode(), sha256)
over payload = {"tool", "params" (or "result"), "nonce", "timestamp"}, where
timestamp = time.time() -- a float of Unix seconds, sent as a JSON number.
Each vector is {name, kind, tool, key, nonce, timestamp, canonical, message}:
  kind       "request" (message is tools/call params) or "result"
  timestamp  the number as Python's json.dumps writes it (repr of the float)
  canonical  the exact bytes the HMAC covers
  message    the params or result carrying _meta.signature, as json.dumps
             sends it on the wire
The Go tests in signing/ verify every message with the python canonical form
at its own timestamp, and check that tampering with it fails. Timestamps are
fixed values, not time.time() at generation, so the output is reproducible:

    python3 scripts/gen-signed-messages.py [OUTPUT]

OUTPUT defaults to testdata/signing/python-signed-messages.json; the Go tests
pass another path to check that the committed file is what Python prints.
"""

import hashlib
import hmac
import json
import os
import sys

KEY = "mcpctl-test-key"
NONCE = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"

# (name, kind, tool, arguments or result, timestamp, key)
CASES = [
    ("result, time.time() float", "result", "get_weather",
     {"content": [{"type": "text", "text": "21\u00b0C, l\u00e9ger"}]}, 1750239001.1234567, KEY),
    ("result, float with few digits", "result", "get_weather",
     {"content": [{"type": "text", "text": "sunny"}], "isError": False}, 1750239001.5, KEY),
    ("result, whole float", "result", "get_weather",
     {"content": [{"type": "text", "text": "sunny"}]}, 1750239001.0, KEY),
    ("result, integer seconds", "result", "get_weather",
     {"content": [{"type": "text", "text": "sunny"}]}, 1750239001, KEY),
    ("result, microseconds as mcpctl writes them", "result", "add",
     {"content": [{"type": "text", "text": "1.5"}], "structuredContent": {"sum": 1.5}}, 1750239001.000001, KEY),
    ("result, floats, astral characters and other _meta", "result", "echo",
     {"content": [{"type": "text", "text": "\U0001f600 \"q\"\n"}],
      "structuredContent": {"temp": 21.0, "n": -0.0, "tiny": 1e-7, "big": 2**53 - 1},
      "_meta": {"progressToken": "p1"}}, 1750239001.9999998, "cl\u00e9-\u00e9t\u00e9"),
    ("request, time.time() float", "request", "get_weather",
     {"city": "Lyon", "days": 3, "threshold": 0.5}, 1750239000.1234567, KEY),
    ("request, no arguments", "request", "ping", None, 1750239000.25, KEY),
]


def mac(key, payload):
    canonical = json.dumps(payload, sort_keys=True)
    return canonical, hmac.new(key.encode("utf-8"), canonical.encode("ascii"), hashlib.sha256).hexdigest()


def vector(name, kind, tool, body, ts, key):
    field = "params" if kind == "request" else "result"
    signed = body if body is not None else {}
    canonical, value = mac(key, {"tool": tool, field: signed, "nonce": NONCE, "timestamp": ts})
    sig = {"alg": "HMAC-SHA256", "nonce": NONCE, "timestamp": ts, "value": value}
    if kind == "request":
        message = {"name": tool, "_meta": {"signature": sig}}
        if body is not None:
            message["arguments"] = body
    else:
        message = dict(body)
        message["_meta"] = dict(body.get("_meta", {}), signature=sig)
    return {"name": name, "kind": kind, "tool": tool, "key": key, "nonce": NONCE,
            "timestamp": json.dumps(ts), "canonical": canonical, "message": json.dumps(message)}


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out_path = os.path.join(root, "testdata", "signing", "python-signed-messages.json")
    if len(sys.argv) > 1:
        out_path = os.path.abspath(sys.argv[1])
    vectors = [vector(*case) for case in CASES]
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w", encoding="ascii") as f:
        json.dump(vectors, f, indent=2)
        f.write("\n")
    print("wrote %d vectors to %s" % (len(vectors), out_path), file=sys.stderr)


if __name__ == "__main__":
    main()
