package cmd

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/signing"
	"github.com/mcpctl/mcpctl/transport"
)

// httpOptions turns the HTTP flags into transport options. Header values
// and tokens go only into the request headers: the transport keeps them out
// of errors and events, and the trace records messages, not headers.
func httpOptions(o *ServerOptions, environ func() []string, ios *IOStreams) (transport.HTTPOptions, error) {
	opts := transport.HTTPOptions{URL: o.URL, Header: http.Header{}, Warn: ios.ErrOut}
	env := map[string]string{}
	for _, kv := range environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	for _, h := range o.Headers {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			// The value may be a secret: name only the header.
			return opts, flagErrorf("invalid -H for header %q: expected 'Name: value'", name)
		}
		var missing string
		value = os.Expand(strings.TrimSpace(value), func(k string) string {
			v, ok := env[k]
			if !ok && missing == "" {
				missing = k
			}
			return v
		})
		if missing != "" {
			return opts, flagErrorf("-H %s: environment variable %s is not set", name, missing)
		}
		opts.Header.Add(name, value)
	}
	if o.Bearer != "" {
		token, err := signing.LoadKey(o.Bearer)
		if err != nil {
			return opts, &FlagError{Err: fmt.Errorf("--bearer: %w", err)}
		}
		opts.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	}
	if o.CACert != "" || o.Insecure {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if o.CACert != "" {
			pem, err := os.ReadFile(o.CACert)
			if err != nil {
				return opts, flagErrorf("--cacert: %v", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return opts, flagErrorf("--cacert %s: no PEM certificates found", o.CACert)
			}
			cfg.RootCAs = pool
		}
		if o.Insecure {
			cfg.InsecureSkipVerify = true
			fmt.Fprintln(ios.ErrOut, render.Warning("--insecure: the server's TLS certificate is not verified; anyone on the network path can read and change this session", ios.ColorErrEnabled()))
		}
		opts.TLSConfig = cfg
	}
	return opts, nil
}

// elicitation parses --elicit: accept-defaults, decline, cancel or
// @answers.json (a JSON object of field values, accepted with the schema's
// defaults filling the fields it leaves out).
func elicitation(spec string) (*client.Elicitation, error) {
	switch spec {
	case "accept-defaults":
		return &client.Elicitation{Action: "accept"}, nil
	case "decline", "cancel":
		return &client.Elicitation{Action: spec}, nil
	}
	file, ok := strings.CutPrefix(spec, "@")
	if !ok {
		return nil, flagErrorf("invalid --elicit %q: expected accept-defaults, decline, cancel or @answers.json", spec)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, flagErrorf("--elicit: %v", err)
	}
	var answers map[string]any
	if err := json.Unmarshal(data, &answers); err != nil {
		return nil, flagErrorf("--elicit %s: want a JSON object of field values: %v", file, err)
	}
	return &client.Elicitation{Action: "accept", Answers: answers}, nil
}
