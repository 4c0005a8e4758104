package cmd

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/auth"
	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/transport"
)

// addAuthFlags registers the OAuth flags, bound to o.Auth: for commands
// that talk to a server and for servers add (the config keys of the same
// names).
func addAuthFlags(cmd *cobra.Command, o *ServerOptions, use serverFlagUse) {
	inTopic(cmd, topicAuth, func() {
		fs := cmd.Flags()
		a := &o.Auth
		fs.StringVar(&a.ClientID, "client-id", "", "OAuth: a pre-registered client `ID` (else a client metadata document or dynamic registration is used)")
		fs.StringVar(&a.ClientSecret, "client-secret", "", "OAuth: the pre-registered client's secret, from `env:VAR` or file:PATH")
		fs.StringVar(&a.Issuer, "issuer", "", "OAuth: the authorization server `URL` (issuer) the pre-registered client belongs to; its secret or key goes to no other (default: the first one used)")
		fs.StringVar(&a.ClientKey, "client-key", "", "OAuth: a PEM private key for private_key_jwt client authentication, from `file:PATH` or env:VAR")
		fs.StringVar(&a.ClientMetadataURL, "client-metadata-url", "", "OAuth: an https `URL` serving mcpctl's Client ID Metadata Document, used as client_id where supported")
		fs.StringVar(&a.Grant, "grant", "", "OAuth: how to get a token: authorization-code (default, a browser), client-credentials, jwt-bearer or token-exchange")
		fs.StringVar(&a.Assertion, "assertion", "", "OAuth: the JWT for --grant jwt-bearer, from `env:VAR` or file:PATH")
		fs.StringVar(&a.IDToken, "id-token", "", "OAuth: the identity provider's ID token for --grant token-exchange, from `env:VAR` or file:PATH")
		fs.StringVar(&a.IDPTokenEndpoint, "idp-token-endpoint", "", "OAuth: the identity provider's token endpoint `URL` for --grant token-exchange")
		fs.StringVar(&a.IDPClientID, "idp-client-id", "", "OAuth: mcpctl's client `ID` at the identity provider for --grant token-exchange")
		fs.StringVar(&a.Scope, "scope", "", "OAuth: `SCOPES` to request besides those the server asks for (space-separated)")
		fs.StringVar(&a.DPoP, "dpop", "", "OAuth: bind tokens to a key with DPoP: auto (default: when the servers support it), always or never")
		if use == connectFlags {
			fs.StringVar(&o.AuthCACert, "auth-cacert", "", "OAuth: trust the CA certificates in PEM `FILE` for authorization servers on other origins than the server's")
			fs.BoolVar(&o.NoBrowser, "no-browser", false, "OAuth: print the authorization URL instead of opening a browser; paste the redirect URL if the callback cannot reach mcpctl")
		}
		_ = cmd.RegisterFlagCompletionFunc("grant", cobra.FixedCompletions([]cobra.Completion{auth.GrantAuthorizationCode, auth.GrantClientCredentials, auth.GrantJWTBearer, auth.GrantTokenExchange}, cobra.ShellCompDirectiveNoFileComp))
		_ = cmd.RegisterFlagCompletionFunc("dpop", cobra.FixedCompletions([]cobra.Completion{auth.DPoPAuto, auth.DPoPAlways, auth.DPoPNever}, cobra.ShellCompDirectiveNoFileComp))
	})
}

// checkAuth validates the OAuth settings' values (not the secrets they
// name, which are read when used).
func checkAuth(a config.Auth) error {
	switch a.Grant {
	case "", auth.GrantAuthorizationCode, auth.GrantClientCredentials, auth.GrantJWTBearer, auth.GrantTokenExchange:
	default:
		return flagErrorf("invalid --grant %q: expected authorization-code, client-credentials, jwt-bearer or token-exchange", a.Grant)
	}
	switch a.DPoP {
	case "", auth.DPoPAuto, auth.DPoPAlways, auth.DPoPNever:
	default:
		return flagErrorf("invalid --dpop %q: expected auto, always or never", a.DPoP)
	}
	for _, f := range []struct{ name, v string }{{"client-metadata-url", a.ClientMetadataURL}, {"idp-token-endpoint", a.IDPTokenEndpoint}, {"issuer", a.Issuer}} {
		if f.v == "" {
			continue
		}
		if u, err := url.Parse(f.v); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return flagErrorf("invalid --%s %q: expected an https:// URL", f.name, config.RedactURL(f.v))
		}
	}
	switch {
	case a.Grant == auth.GrantClientCredentials && a.ClientID == "":
		return flagErrorf("--grant client-credentials needs --client-id, and --client-secret or --client-key")
	case a.Grant == auth.GrantJWTBearer && a.Assertion == "":
		return flagErrorf("--grant jwt-bearer needs --assertion env:VAR or file:PATH")
	case a.Grant == auth.GrantTokenExchange && (a.IDToken == "" || a.IDPTokenEndpoint == ""):
		return flagErrorf("--grant token-exchange needs --id-token env:VAR and --idp-token-endpoint URL")
	}
	return nil
}

// mergeAuth fills the settings the command line leaves empty from a named
// server's definition: given flags win.
func mergeAuth(flags, def config.Auth) config.Auth {
	pick := func(a, b string) string {
		if a != "" {
			return a
		}
		return b
	}
	return config.Auth{
		ClientID:          pick(flags.ClientID, def.ClientID),
		ClientSecret:      pick(flags.ClientSecret, def.ClientSecret),
		Issuer:            pick(flags.Issuer, def.Issuer),
		ClientKey:         pick(flags.ClientKey, def.ClientKey),
		ClientMetadataURL: pick(flags.ClientMetadataURL, def.ClientMetadataURL),
		Grant:             pick(flags.Grant, def.Grant),
		Assertion:         pick(flags.Assertion, def.Assertion),
		IDToken:           pick(flags.IDToken, def.IDToken),
		IDPTokenEndpoint:  pick(flags.IDPTokenEndpoint, def.IDPTokenEndpoint),
		IDPClientID:       pick(flags.IDPClientID, def.IDPClientID),
		Scope:             pick(flags.Scope, def.Scope),
		DPoP:              pick(flags.DPoP, def.DPoP),
	}
}

// stateDir is where mcpctl keeps state, the token store among it:
// $XDG_STATE_HOME/mcpctl, else ~/.local/state/mcpctl.
func (f *Factory) stateDir() (string, error) {
	if d, ok := f.LookupEnv("XDG_STATE_HOME"); ok && filepath.IsAbs(d) {
		return filepath.Join(d, "mcpctl"), nil
	}
	home := f.home()
	if home == "" {
		return "", fmt.Errorf("no home directory (HOME is not set) and no XDG_STATE_HOME: nowhere to keep OAuth tokens")
	}
	return filepath.Join(home, ".local", "state", "mcpctl"), nil
}

// interactive reports whether a browser sign-in can be completed here. CI
// set to "true" says no one is there: a CI job fails at once (exit 8) rather
// than wait for a browser, whatever else is set. Otherwise $BROWSER (an
// explicit way to open the URL) or a terminal on stdin or stderr says yes.
func (f *Factory) interactive() bool {
	if ci, _ := f.LookupEnv("CI"); strings.EqualFold(ci, "true") {
		return false
	}
	if b, ok := f.LookupEnv("BROWSER"); ok && b != "" {
		return true
	}
	ios := f.IOStreams
	return ios.IsStdinTTY() || ios.IsStderrTTY()
}

// loginHint is the command a user runs to sign in to o's server.
func loginHint(o *ServerOptions) string {
	target := "--url " + config.RedactURL(o.URL)
	if o.Server != "" {
		target = "-s " + o.Server
	}
	return "run: mcpctl auth login " + target + " on a terminal, or use --grant client-credentials --client-id ID --client-secret env:VAR"
}

// issuerHint is what a user can do when o's server names another
// authorization server than the one its client's credentials belong to.
func issuerHint(o *ServerOptions) string {
	target := "--url " + config.RedactURL(o.URL)
	if o.Auth.ClientID != "" {
		target += " --client-id " + o.Auth.ClientID
	}
	if o.Server != "" {
		target = "-s " + o.Server
	}
	return "if the server moved on purpose, run: mcpctl auth logout " + target + " to forget the old one, or pass --issuer URL naming the new one"
}

// authorizer builds the OAuth round tripper for o's HTTP server, sending
// through base. Secrets it loads (and those the flow learns) go to the
// run's redactor; its events go to onEvent.
func (f *Factory) authorizer(o *ServerOptions, base http.RoundTripper, onEvent func(string, any)) (*auth.Authorizer, error) {
	opts, err := f.authorizerOptions(o, base, onEvent)
	if err != nil {
		return nil, err
	}
	return auth.NewAuthorizer(opts), nil
}

// authorizerOptions are the [auth.Options] of [Factory.authorizer].
func (f *Factory) authorizerOptions(o *ServerOptions, base http.RoundTripper, onEvent func(string, any)) (auth.Options, error) {
	ios := f.IOStreams
	red := f.Redactor()
	a := o.Auth
	opts := auth.Options{
		Base:             base,
		ServerURL:        o.URL,
		Grant:            a.Grant,
		DPoP:             a.DPoP,
		Scopes:           strings.Fields(a.Scope),
		IDPTokenEndpoint: a.IDPTokenEndpoint,
		IDPClientID:      a.IDPClientID,
		Interactive:      f.interactive(),
		Prompt:           ios.ErrOut,
		Hint:             loginHint(o),
		IssuerHint:       issuerHint(o),
		Secret:           func(s string) { red.Add(s) },
		OnEvent:          onEvent,
		Client: auth.ClientConfig{ClientID: a.ClientID, Issuer: a.Issuer, ClientMetadataURL: a.ClientMetadataURL,
			ClientName: "mcpctl"},
	}
	if !o.NoBrowser {
		opts.Open = auth.BrowserOpener(f.LookupEnv)
	} else if ios.IsStdinTTY() {
		opts.Paste = ios.In
	}
	load := func(flag, spec string) (string, error) {
		if spec == "" {
			return "", nil
		}
		b, err := f.LoadKey(flag, spec)
		if err != nil {
			return "", err
		}
		return strings.TrimSpace(string(b)), nil
	}
	var err error
	if opts.Client.ClientSecret, err = load("client-secret", a.ClientSecret); err != nil {
		return opts, err
	}
	if a.ClientKey != "" {
		key, err := f.LoadKey("client-key", a.ClientKey)
		if err != nil {
			return opts, err
		}
		opts.Client.ClientKey = key
	}
	if opts.Assertion, err = load("assertion", a.Assertion); err != nil {
		return opts, err
	}
	if opts.IDToken, err = load("id-token", a.IDToken); err != nil {
		return opts, err
	}
	dir, err := f.stateDir()
	if err == nil {
		opts.Store = &auth.Store{Dir: dir, Warn: func(msg string) {
			fmt.Fprintln(ios.ErrOut, "mcpctl: warning: "+msg)
		}}
	}
	return opts, nil
}

// authTransport returns the round tripper the HTTP transport sends
// through: o's TLS settings (serverTLS, from --cacert and --insecure) for
// the server's origin, --auth-cacert or the system roots for every other
// origin (the authorization servers), wrapped in the OAuth
// [auth.Authorizer].
func (f *Factory) authTransport(o *ServerOptions, serverTLS *tls.Config, onEvent func(string, any)) (*auth.Authorizer, error) {
	authTLS, err := tlsConfig("auth-cacert", o.AuthCACert, false)
	if err != nil {
		return nil, err
	}
	opts, err := f.authorizerOptions(o, transport.NewHTTPClient(serverTLS).Transport, onEvent)
	if err != nil {
		return nil, err
	}
	opts.AuthServerBase = transport.NewHTTPClient(authTLS).Transport
	return auth.NewAuthorizer(opts), nil
}
