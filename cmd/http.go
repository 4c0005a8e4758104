package cmd

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/transport"
)

// httpOptions turns the HTTP flags into transport options. Header values
// and tokens go into the request headers and into the run's redactor, which
// the transport gets too: they stay out of errors, events and traces.
func (f *Factory) httpOptions(o *ServerOptions) (transport.HTTPOptions, error) {
	ios := f.IOStreams
	red := f.Redactor()
	opts := transport.HTTPOptions{URL: o.URL, Header: http.Header{}, OnViolation: violationReporter(f.Warner(), nil),
		MaxMessageSize: o.MaxMessageSize, Redactor: red}
	for _, h := range o.Headers {
		name, value, err := parseHeader(h)
		if err != nil {
			return opts, err
		}
		var missing string
		value = os.Expand(value, func(k string) string {
			v, ok := f.LookupEnv(k)
			if !ok && missing == "" {
				missing = k
			}
			return v
		})
		if missing != "" {
			return opts, flagErrorf("-H %s: environment variable %s is not set", name, missing)
		}
		addHeaderSecret(red, name, value)
		opts.Header.Add(name, value)
	}
	if o.Bearer != "" {
		token, err := f.LoadKey("bearer", o.Bearer)
		if err != nil {
			return opts, err
		}
		t := strings.TrimSpace(string(token))
		red.Add(t)
		opts.Header.Set("Authorization", "Bearer "+t)
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
