package auth

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// CanonicalResource returns the canonical URI of an MCP server URL, the
// value of the RFC 8707 resource parameter (MCP "Canonical Server URI"):
// scheme and host lower case, the default port (80 for http, 443 for
// https) removed, no fragment, no user info; a bare "/" path is dropped
// (the spec prefers https://mcp.example.com to https://mcp.example.com/),
// any other path is kept as written, trailing slash included, since it may
// be significant. A query is kept: RFC 8707 discourages one but allows it
// where it is needed to identify the resource, and dropping it could make
// two servers one audience.
func CanonicalResource(serverURL string) (string, error) {
	u, err := parseAbsolute(serverURL)
	if err != nil {
		return "", err
	}
	s := originOf(u) + canonicalPath(u)
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	return s, nil
}

// ResourceMatches reports whether resource (a Protected Resource
// Metadata "resource" value, or a token's audience) identifies the MCP
// server at serverURL: the same origin after canonicalization (scheme and
// host case, default port), and a path that is the server's path or one
// of its parent paths at a "/" boundary — the root resource of a server
// whose metadata is served at the root well-known URL (RFC 9728 §3 as the
// MCP spec extends it). A resource with a query must have the server's
// query.
func ResourceMatches(resource, serverURL string) bool {
	r, err := parseAbsolute(resource)
	if err != nil || r.Fragment != "" {
		return false
	}
	s, err := parseAbsolute(serverURL)
	if err != nil {
		return false
	}
	if originOf(r) != originOf(s) {
		return false
	}
	if r.RawQuery != "" && r.RawQuery != s.RawQuery {
		return false
	}
	rp := strings.TrimSuffix(r.EscapedPath(), "/")
	sp := s.EscapedPath()
	return rp == "" || sp == rp || strings.HasPrefix(sp, rp+"/")
}

// parseAbsolute parses an http or https URL with a host.
func parseAbsolute(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%q is not an http or https URL", raw)
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("%q has no host", raw)
	}
	return u, nil
}

// originOf is scheme://host[:port] in canonical form: lower case, no
// default port.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	port := u.Port()
	if port != "" && !(scheme == "https" && port == "443") && !(scheme == "http" && port == "80") {
		host += ":" + port
	}
	return scheme + "://" + host
}

// canonicalPath is u's path as written, "" for "/".
func canonicalPath(u *url.URL) string {
	p := u.EscapedPath()
	if p == "/" {
		return ""
	}
	return p
}

// wellKnown inserts the well-known suffix between u's origin and path (RFC
// 8414 §3.1, RFC 9728 §3.1): a terminating "/" of the path is removed
// first; the query and fragment are not part of the result.
func wellKnown(u *url.URL, suffix string) string {
	return originOf(u) + "/.well-known/" + suffix + strings.TrimSuffix(u.EscapedPath(), "/")
}

// hostKind classifies a host for the SSRF rule.
type hostKind int

const (
	kindPublic hostKind = iota
	kindLoopback
	kindPrivate
	kindLinkLocal
	kindMetadata
	kindUnspecified
)

func (k hostKind) String() string {
	switch k {
	case kindLoopback:
		return "a loopback address"
	case kindPrivate:
		return "a private-network address"
	case kindLinkLocal:
		return "a link-local address"
	case kindMetadata:
		return "a cloud metadata address"
	case kindUnspecified:
		return "an unspecified, multicast or broadcast address"
	}
	return "a public address"
}

// metadataHosts are the names and addresses of cloud instance metadata
// services (AWS, Azure, GCP, Oracle: 169.254.169.254; AWS over IPv6:
// fd00:ec2::254; Alibaba: 100.100.100.200), which hand out credentials to
// whoever asks from inside the instance.
var metadataHosts = [...]string{
	"169.254.169.254", "fd00:ec2::254", "100.100.100.200",
	"metadata.google.internal", "metadata.goog", "metadata",
}

var privatePrefixes = [...]netip.Prefix{
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT
	netip.MustParsePrefix("fc00::/7"),
}

// kindOfHost classifies a host name or literal address. A name other than
// localhost and the metadata names is public here: what it resolves to is
// checked when connecting (see [Fetcher]).
func kindOfHost(host string) hostKind {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, m := range metadataHosts {
		if host == m {
			return kindMetadata
		}
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return kindLoopback
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return kindPublic
	}
	return kindOfAddr(addr)
}

func kindOfAddr(addr netip.Addr) hostKind {
	addr = addr.Unmap().WithZone("")
	for _, m := range metadataHosts {
		if a, err := netip.ParseAddr(m); err == nil && a == addr {
			return kindMetadata
		}
	}
	switch {
	case addr.IsLoopback():
		return kindLoopback
	case addr.IsLinkLocalUnicast():
		return kindLinkLocal
	case addr.IsUnspecified(), addr.IsMulticast(), addr == netip.AddrFrom4([4]byte{255, 255, 255, 255}),
		addr.Is4() && addr.As4()[0] == 0:
		return kindUnspecified
	}
	for _, p := range privatePrefixes {
		if p.Contains(addr) {
			return kindPrivate
		}
	}
	return kindPublic
}

// serverKind is the kind of the MCP server's own host: discovery may reach
// hosts of that kind (a server on a private network has its authorization
// server there too), and public ones.
func (f *Fetcher) serverKind() hostKind {
	u, err := url.Parse(f.ServerURL)
	if err != nil {
		return kindPublic
	}
	return kindOfHost(u.Hostname())
}

// CheckURL reports whether u may be fetched or sent to under the rules of
// [Fetcher]; the error says which rule u breaks. The rules:
//   - u is an absolute http or https URL without user info;
//   - a loopback, private-network, link-local, cloud-metadata or
//     unspecified host is allowed only when the MCP server's own host is
//     of the same kind (localhost and 127.0.0.1 are both loopback);
//     public hosts are always allowed;
//   - http is allowed for loopback hosts and for the MCP server's own
//     origin (which the user chose to reach over http); everything else
//     must use https.
//
// Host names are classified by name here (localhost, *.localhost and the
// metadata names are known); the address a name resolves to is checked
// again when the Fetcher connects.
func (f *Fetcher) CheckURL(u string) error {
	p, err := url.Parse(u)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %w", u, err)
	}
	if p.Scheme != "http" && p.Scheme != "https" {
		return fmt.Errorf("%q: only https (or http to a loopback host) URLs may be used", u)
	}
	if p.Hostname() == "" {
		return fmt.Errorf("%q has no host", u)
	}
	if p.User != nil {
		return fmt.Errorf("%q: URLs with user info (credentials) are refused", redactUserinfo(p))
	}
	k := kindOfHost(p.Hostname())
	if k != kindPublic && k != f.serverKind() {
		return fmt.Errorf("%q points to %s, and the MCP server %s does not: refused (SSRF protection)", u, k, f.ServerURL)
	}
	if p.Scheme == "http" && k != kindLoopback && !f.sameOriginAsServer(p) {
		return fmt.Errorf("%q: authorization metadata and endpoints must use https (http only to a loopback host)", u)
	}
	return nil
}

func (f *Fetcher) sameOriginAsServer(p *url.URL) bool {
	s, err := parseAbsolute(f.ServerURL)
	return err == nil && originOf(s) == originOf(p)
}

func redactUserinfo(p *url.URL) string {
	c := *p
	c.User = url.User("REDACTED")
	return c.String()
}

// dialControl refuses connections to addresses that a name resolved to and
// that are link-local, cloud-metadata or unspecified while the MCP server
// is not of that kind: a DNS answer must not turn a public-looking
// authorization server into the instance's metadata service. Loopback and
// private answers are let through: split-horizon DNS puts real
// authorization servers there, and https to them needs a certificate for
// the name anyway.
func (f *Fetcher) dialControl(sk hostKind) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		addr, err := netip.ParseAddr(host)
		if err != nil {
			return nil
		}
		switch k := kindOfAddr(addr); k {
		case kindLinkLocal, kindMetadata, kindUnspecified:
			if k != sk {
				return fmt.Errorf("connecting to %s refused: %s (SSRF protection)", address, k)
			}
		}
		return nil
	}
}
