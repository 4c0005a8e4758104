package cmd

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/transport"
)

// httpOptions turns the HTTP flags into transport options. Header values
// and tokens go into the request headers and into the run's redactor, which
// the transport gets too: they stay out of errors, events and traces.
func (f *Factory) httpOptions(o *ServerOptions) (transport.HTTPOptions, error) {
	ios := f.IOStreams
	red := f.Redactor()
	opts := transport.HTTPOptions{URL: o.URL, Header: http.Header{}, OnViolation: violationReporter(f.Warner(), nil, o.OnViolation),
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
	cfg, err := tlsConfig("cacert", o.CACert, o.Insecure)
	if err != nil {
		return opts, err
	}
	if o.Insecure {
		fmt.Fprintln(ios.ErrOut, render.Warning("--insecure: the certificate of "+urlOrigin(o.URL)+" is not verified; anyone on the network path can read and change this session", ios.ColorErrEnabled()))
	}
	opts.TLSConfig = cfg
	return opts, nil
}

// tlsConfig is the TLS configuration for a CA file (--cacert,
// --auth-cacert) and --insecure; nil when neither is given (the system
// roots).
func tlsConfig(flag, caFile string, insecure bool) (*tls.Config, error) {
	if caFile == "" && !insecure {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: insecure}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, flagErrorf("--%s: %v", flag, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, flagErrorf("--%s %s: no PEM certificates found", flag, caFile)
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}

// urlOrigin is scheme://host[:port] of raw, the scope of --cacert and
// --insecure.
func urlOrigin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return config.RedactURL(raw)
	}
	return u.Scheme + "://" + u.Host
}
