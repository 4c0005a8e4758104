#!/usr/bin/env python3
"""Write testdata/signing/python-vectors.json, the Python canonical form test vectors.

Each vector is {name, input, canonical, key, hmac}:
  input      JSON text, as given to json.loads
  canonical  json.dumps(json.loads(input), sort_keys=True)
  key        HMAC key, used as its UTF-8 bytes
  hmac       hex HMAC-SHA256 of canonical (ASCII bytes) under key

The Go tests in signing/ reproduce every canonical string byte for byte and
every HMAC. Python is the reference here, so rerun this script with any
python3 (standard library only) after changing the inputs:

    python3 scripts/gen-signing-vectors.py [OUTPUT]

OUTPUT defaults to testdata/signing/python-vectors.json; the Go tests pass
another path to check that the committed file is what Python prints today.
"""

import hashlib
import hmac
import json
import os
import sys

KEY = "mcpctl-test-key"

# (name, JSON text). Texts are written out by hand, not produced by
# json.dumps, so that escapes, spacing and number spellings reach json.loads
# exactly as a peer might send them.
INPUTS = [
    ("empty object", "{}"),
    ("empty array", "[]"),
    ("empty containers nested", '{"a": {}, "b": [], "c": [{}, []]}'),
    ("literals", "[true, false, null]"),
    ("top-level string", '"hello"'),
    ("whitespace everywhere", ' \t\n{ "b" :\r\n[ 1 ,2 ] , "a":{ } }\n '),
    ("separators", '{"a":1,"b":[1,2,{"c":3}]}'),
    ("key order ascii", '{"b": 1, "a": 2, "B": 3, "_": 4, "aa": 5, "": 6}'),
    # Python sorts str by code point: U+E000..U+FFFF come before astral
    # characters, unlike RFC 8785's UTF-16 order.
    ("key order unicode", '{"\\u20ac": 1, "\\r": 2, "\\ufb33": 3, "1": 4, "\\ud83d\\ude00": 5, "\\u0080": 6, "\\u00f6": 7}'),
    ("key order raw utf-8", '{"z\u00e8bre": 1, "Zo\u00e9": 2, "p\u00e9ch\u00e9": 3, "p\u00eache": 4, "peach": 5, "\u00c9lan": 6}'),
    ("duplicate keys keep the last", '{"a": 1, "b": 2, "a": 3}'),
    ("bmp characters", '"caf\u00e9 \u20ac \u4e2d\u6587 \uffff"'),
    ("astral characters", '"\U0001f600 \U0001d11e \U0010ffff"'),
    ("escaped astral pair", '"\\ud83d\\ude00"'),
    ("lone surrogates", '["\\ud800", "\\udfff", "\\udc00\\ud800", "\\ud83dx"]'),
    ("short escapes", '"quote \\" backslash \\\\ slash \\/ nl \\n cr \\r tab \\t bs \\b ff \\f"'),
    ("control characters", '"\\u0000\\u0001\\u001f\\u000b\\u001b\\u007f"'),
    ("del and latin-1", '"\u007f\u0080\u00ff"'),
    ("escaped ascii", '"\\u0041\\u0062\\u0020"'),
    ("floats", "[1.0, 0.1, 0.5, 100.0, 1e2, 1E+2, 2.50, 123456789.123456789]"),
    ("float 1e21", "1e21"),
    ("float 1e16", "1e16"),
    ("float 9999999999999998", "9999999999999998.0"),
    ("float 1e-7", "1e-7"),
    ("float 0.0001", "0.0001"),
    ("float 0.00001", "0.00001"),
    ("float 5e-324", "5e-324"),
    ("float max", "1.7976931348623157e308"),
    ("float negative zero", "-0.0"),
    ("float underflow", "[1e-400, -1e-400]"),
    ("float long mantissa", "0.1000000000000000055511151231257827021181583404541015625"),
    ("floats rfc 8785", "[333333333.33333329, 1E30, 4.50, 2e-3, 0.000001, 1e-27]"),
    ("integers", "[0, -0, 1, -1, 42, 9007199254740993]"),
    ("integer 2**64", str(2**64)),
    ("integer 10**30", str(10**30)),
    ("integer -2**63", str(-(2**63))),
    ("integer 1 and float 1.0 differ", '{"i": 1, "f": 1.0}'),
    ("nested", '{"z": {"y": [1, {"b": null, "a": true}], "x": "\\u00e9"}, "a": [[[]]]}'),
    ("tools/call request payload", (
        '{"tool": "get_weather", "params": {"city": "Lyon", "units": "metric", "days": 3,'
        ' "threshold": 0.5, "tags": ["caf\\u00e9", "\\ud83c\\udf27"]},'
        ' "nonce": "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "timestamp": "2025-06-18T09:30:00Z"}')),
    ("tools/call result payload", (
        '{"tool": "get_weather", "result": {"content": [{"type": "text", "text": "L\\u00e9ger, 21\\u00b0C"}],'
        ' "structuredContent": {"temp": 21.0, "rain": 0}, "isError": false},'
        ' "nonce": "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "timestamp": "2025-06-18T09:30:01Z"}')),
    # The design's own timestamps: timestamp = time.time(), a float of Unix
    # seconds sent as a JSON number; the canonical form holds its repr.
    ("float timestamps", (
        "[1750239000.1234567, 1750239000.0, 1750239000, 1.7502390001e9, 1750239000.10,"
        " 1750239000.123456789, 1750239000.99999999999, 1750239000.000001, 17502390001e-1]")),
    ("tools/call request payload, float timestamp", (
        '{"tool": "get_weather", "params": {"city": "Lyon", "threshold": 0.5},'
        ' "nonce": "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "timestamp": 1750239000.1234567}')),
    ("tools/call result payload, float timestamp as sent", (
        '{"tool": "get_weather", "result": {"content": [{"type": "text", "text": "21\u00b0C"}]},'
        ' "nonce": "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "timestamp": 1750239001.10}')),
    ("tools/call result payload, integer timestamp", (
        '{"tool": "get_weather", "result": {"content": []},'
        ' "nonce": "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "timestamp": 1750239001}')),
]

# A few vectors under other keys, so a key is not accidentally hard-wired.
KEYS = {
    "key order unicode": "another key, with spaces",
    "tools/call result payload": "cl\u00e9-\u00e9t\u00e9",
}


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out_path = os.path.join(root, "testdata", "signing", "python-vectors.json")
    if len(sys.argv) > 1:
        out_path = os.path.abspath(sys.argv[1])
    vectors = []
    for name, text in INPUTS:
        canonical = json.dumps(json.loads(text), sort_keys=True)
        key = KEYS.get(name, KEY)
        mac = hmac.new(key.encode("utf-8"), canonical.encode("ascii"), hashlib.sha256).hexdigest()
        vectors.append({"name": name, "input": text, "canonical": canonical, "key": key, "hmac": mac})
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w", encoding="ascii") as f:
        json.dump(vectors, f, indent=2)
        f.write("\n")
    print("wrote %d vectors to %s" % (len(vectors), out_path), file=sys.stderr)


if __name__ == "__main__":
    main()
