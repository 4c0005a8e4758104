package signing

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
)

// LoadKey reads a key named by spec, which is either env:NAME (the bytes of
// environment variable NAME) or file:PATH (the bytes of the file, without
// trailing line breaks). The key is used as the HMAC key as it is, not
// decoded from hex or base64. A key given directly is refused so that it
// never lands in shell history or process listings. No error message
// contains the key or spec text that might be one.
func LoadKey(spec string) ([]byte, error) {
	return LoadKeyFrom(spec, os.LookupEnv)
}

// LoadKeyFrom is [LoadKey] reading env:NAME from lookupEnv rather than the
// process environment, so that a caller can give each run its own.
func LoadKeyFrom(spec string, lookupEnv func(string) (string, bool)) ([]byte, error) {
	kind, ref, _ := strings.Cut(spec, ":")
	switch kind {
	case "env":
		if ref == "" {
			return nil, errors.New("key spec env: needs a variable name, as in env:MCP_SIGNING_KEY")
		}
		v, ok := lookupEnv(ref)
		if !ok {
			return nil, fmt.Errorf("key environment variable %s is not set", ref)
		}
		if v == "" {
			return nil, fmt.Errorf("key environment variable %s is empty", ref)
		}
		return []byte(v), nil
	case "file":
		if ref == "" {
			return nil, errors.New("key spec file: needs a path, as in file:/run/secrets/mcp-key")
		}
		b, err := os.ReadFile(ref)
		if err != nil {
			// os errors name the path and the cause, never the content.
			return nil, fmt.Errorf("reading key file: %w", err)
		}
		b = bytes.TrimRight(b, "\r\n")
		if len(b) == 0 {
			return nil, fmt.Errorf("key file %s is empty", ref)
		}
		return b, nil
	default:
		// spec itself is not echoed: it may be the key, pasted by mistake.
		return nil, errors.New("key must be given as env:NAME or file:PATH (the key itself is not accepted on the command line)")
	}
}
