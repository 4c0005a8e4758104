package cmd

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/config"
)

// describe names the server for error messages.
func (o *ServerOptions) describe() string {
	if o.Server != "" {
		return fmt.Sprintf("server %q", o.Server)
	}
	if o.Demo {
		return "the demo server"
	}
	if o.URL != "" {
		// The URL itself, as every place that shows one shows it.
		return config.RedactURL(o.URL)
	}
	return fmt.Sprintf("%q", strings.Join(o.Command, " "))
}

// chosen reports whether the command line names a server in any way.
func (o *ServerOptions) chosen() bool {
	return o.Server != "" || o.Demo || o.URL != "" || len(o.Command) > 0
}

// validate checks the command line: one server chosen, and values that
// make sense. For -s NAME the checks that depend on the server's kind wait
// until its definition is known (see [Factory.resolve]).
func (o *ServerOptions) validate() error {
	chosen := 0
	for _, set := range []bool{o.Demo, o.URL != "", len(o.Command) > 0} {
		if set {
			chosen++
		}
	}
	switch {
	case o.Server != "" && chosen > 0:
		return flagErrorf("-s %s names the server already: drop --demo, --url or the command after --", o.Server)
	case chosen > 1:
		return flagErrorf("choose one server: --demo, --url URL, or a stdio command after --")
	case chosen == 0 && o.Server == "":
		return flagErrorf("no server given: pass -s NAME, --demo, --url URL, or a stdio server command after --, e.g. mcpctl list -- npx -y @modelcontextprotocol/server-everything")
	}
	return o.check()
}

// check validates the values of the options. Before a named server is
// resolved, what depends on its kind is left for later.
func (o *ServerOptions) check() error {
	unresolved := o.Server != "" && !o.Demo && o.URL == "" && len(o.Command) == 0
	switch {
	case !unresolved && o.URL == "" && (len(o.Headers) > 0 || o.Bearer != "" || o.CACert != "" || o.Insecure):
		return flagErrorf("-H, --bearer, --cacert and --insecure apply to --url servers only")
	case !unresolved && o.URL == "" && !o.Auth.IsZero():
		return flagErrorf("the OAuth flags (--client-id, --grant, --scope, …) apply to --url servers only")
	case !unresolved && o.URL != "" && o.InheritEnv:
		return flagErrorf("--inherit-env applies to stdio servers (a command after --), not to --url")
	case o.Timeout <= 0:
		return flagErrorf("--timeout must be positive, got %s", o.Timeout)
	case o.MaxMessageSize < 0:
		return flagErrorf("--max-message-size must be positive")
	}
	if o.URL != "" {
		u, err := url.Parse(o.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return flagErrorf("invalid --url %q: expected an http:// or https:// URL", config.RedactURL(o.URL))
		}
		switch o.Transport {
		case "auto", "http", "sse":
		default:
			return flagErrorf("invalid --transport %q: expected auto, http or sse", o.Transport)
		}
	}
	for _, h := range o.Headers {
		if _, _, err := parseHeader(h); err != nil {
			return err
		}
	}
	for _, kv := range o.Env {
		if _, _, err := parseEnvVar(kv); err != nil {
			return err
		}
	}
	if err := checkAuth(o.Auth); err != nil {
		return err
	}
	if o.ProtocolVersion != "" && !slices.Contains(client.KnownProtocolVersions(), o.ProtocolVersion) {
		return flagErrorf("unsupported --protocol-version %q (supported: %s)", o.ProtocolVersion, strings.Join(client.KnownProtocolVersions(), ", "))
	}
	return o.checkEra()
}

// definition checks the options of servers add and returns the definition
// they describe, named name, with values as given (${…} unexpanded).
func (o *ServerOptions) definition(name string) (config.Server, error) {
	s := config.Server{Name: name, URL: o.URL, Cwd: o.Cwd, Transport: o.Transport, Timeout: o.Timeout,
		MaxMessageSize: o.MaxMessageSize, InheritEnv: o.InheritEnv, Era: o.Era, Auth: o.Auth}
	switch {
	case o.URL != "" && len(o.Command) > 0:
		return s, flagErrorf("a server is either --url URL or a command after --, not both")
	case o.URL == "" && len(o.Command) == 0:
		return s, flagErrorf("servers add %s needs --url URL or a command after --", name)
	case o.URL != "" && (len(o.Env) > 0 || o.Cwd != "" || o.InheritEnv):
		return s, flagErrorf("-e, --cwd and --inherit-env apply to stdio servers (a command after --), not to --url")
	case o.URL == "" && (len(o.Headers) > 0 || o.Transport != ""):
		return s, flagErrorf("-H and --transport apply to --url servers, not to a command")
	case o.URL == "" && !o.Auth.IsZero():
		return s, flagErrorf("the OAuth flags (--client-id, --grant, --scope, …) apply to --url servers, not to a command")
	case o.Timeout < 0:
		return s, flagErrorf("--timeout must be positive, got %s", o.Timeout)
	}
	if err := checkAuth(o.Auth); err != nil {
		return s, err
	}
	if err := config.CheckEra(o.Era); err != nil {
		return s, flagErrorf("invalid --era %q: expected auto, legacy or modern", o.Era)
	}
	switch o.Transport {
	case "", "auto", "http", "sse":
	default:
		return s, flagErrorf("invalid --transport %q: expected http or sse", o.Transport)
	}
	if len(o.Command) > 0 {
		s.Command, s.Args = o.Command[0], o.Command[1:]
	}
	for _, kv := range o.Env {
		k, v, err := parseEnvVar(kv)
		if err != nil {
			return s, err
		}
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env[k] = v
	}
	for _, h := range o.Headers {
		k, v, err := parseHeader(h)
		if err != nil {
			return s, err
		}
		if s.Headers == nil {
			s.Headers = map[string]string{}
		}
		s.Headers[k] = v
	}
	return s, nil
}

// parseHeader splits a -H argument into the header's name and value: the
// one parser of -H. A malformed argument's error shows at most the name it
// starts with, never a value: `invalid -H "X-Api-Key …": expected
// 'Name: value'`.
func parseHeader(h string) (name, value string, err error) {
	name, value, ok := strings.Cut(h, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.IndexFunc(name, func(r rune) bool { return !isTokenChar(r) }) >= 0 {
		return "", "", flagErrorf("invalid -H %s: expected 'Name: value'", shownPrefix(strings.TrimSpace(h), isTokenChar))
	}
	return name, strings.TrimSpace(value), nil
}

// parseEnvVar splits a -e argument into the variable's name and value: the
// one parser of -e. A malformed argument's error shows at most the name it
// starts with, never a value.
func parseEnvVar(kv string) (name, value string, err error) {
	name, value, ok := strings.Cut(kv, "=")
	if !ok || name == "" || strings.IndexFunc(name, func(r rune) bool { return !isEnvNameChar(r) }) >= 0 {
		return "", "", flagErrorf("invalid -e %s: expected KEY=VAL", shownPrefix(kv, isEnvNameChar))
	}
	return name, value, nil
}

// shownPrefix is what an error may show of a malformed flag argument that
// may hold a secret: the name it starts with, quoted, followed by "…" for
// the rest, when a separator (a space, ":" or "=") ends the name. Anything
// else shows nothing: an argument without such a separator may be a token
// pasted without its name.
func shownPrefix(arg string, isName func(rune) bool) string {
	i := strings.IndexFunc(arg, func(r rune) bool { return !isName(r) })
	if i <= 0 || !strings.ContainsRune(" \t:=", rune(arg[i])) {
		return "argument (not shown: it may hold a secret)"
	}
	return fmt.Sprintf("%q", arg[:i]+" …")
}

// isTokenChar reports whether r may be in an HTTP header name (RFC 9110
// token).
func isTokenChar(r rune) bool {
	return r < 0x7f && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r))
}

// isEnvNameChar reports whether r may be in an environment variable name.
func isEnvNameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_'
}
