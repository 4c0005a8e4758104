package auth

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCanonicalResource(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{in: "https://mcp.example.com/mcp", want: "https://mcp.example.com/mcp"},
		{in: "https://mcp.example.com", want: "https://mcp.example.com"},
		{in: "https://mcp.example.com/", want: "https://mcp.example.com"},
		{in: "HTTPS://MCP.Example.COM/MCP", want: "https://mcp.example.com/MCP"},
		{in: "https://mcp.example.com:443/mcp", want: "https://mcp.example.com/mcp"},
		{in: "http://localhost:80/mcp", want: "http://localhost/mcp"},
		{in: "https://mcp.example.com:8443", want: "https://mcp.example.com:8443"},
		{in: "http://127.0.0.1:3000/mcp#frag", want: "http://127.0.0.1:3000/mcp"},
		{in: "https://mcp.example.com/server/mcp/", want: "https://mcp.example.com/server/mcp/"},
		{in: "https://user:pw@mcp.example.com/mcp", want: "https://mcp.example.com/mcp"},
		{in: "https://mcp.example.com/mcp?tenant=a", want: "https://mcp.example.com/mcp?tenant=a"},
		{in: "https://[::1]:8080/mcp", want: "https://[::1]:8080/mcp"},
		{in: "https://mcp.example.com/a%2Fb", want: "https://mcp.example.com/a%2Fb"},
		{in: "mcp.example.com", wantErr: true},
		{in: "ftp://mcp.example.com", wantErr: true},
		{in: "https:///mcp", wantErr: true},
		{in: "://bad", wantErr: true},
	}
	for _, tt := range tests {
		got, err := CanonicalResource(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("CanonicalResource(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestResourceMatches(t *testing.T) {
	tests := []struct {
		resource, server string
		want             bool
	}{
		{"https://mcp.example.com/mcp", "https://mcp.example.com/mcp", true},
		{"https://mcp.example.com", "https://mcp.example.com/mcp", true},         // root PRM (metadata-var2)
		{"https://mcp.example.com/", "https://mcp.example.com/mcp", true},        // root with slash
		{"https://mcp.example.com/mcp/", "https://mcp.example.com/mcp", true},    // trailing slash
		{"https://MCP.example.com:443/mcp", "https://mcp.example.com/mcp", true}, // case, default port
		{"https://mcp.example.com/a", "https://mcp.example.com/a/b/mcp", true},
		{"https://evil.example.com/mcp", "http://localhost:3000/mcp", false}, // resource-mismatch
		{"https://mcp.example.com/mc", "https://mcp.example.com/mcp", false},
		{"https://mcp.example.com/other", "https://mcp.example.com/mcp", false},
		{"https://mcp.example.com/mcp/sub", "https://mcp.example.com/mcp", false},
		{"http://mcp.example.com/mcp", "https://mcp.example.com/mcp", false},
		{"https://mcp.example.com:8443/mcp", "https://mcp.example.com/mcp", false},
		{"https://mcp.example.com/mcp?t=b", "https://mcp.example.com/mcp?t=a", false},
		{"https://mcp.example.com/mcp#f", "https://mcp.example.com/mcp", false},
		{"not a url", "https://mcp.example.com/mcp", false},
	}
	for _, tt := range tests {
		if got := ResourceMatches(tt.resource, tt.server); got != tt.want {
			t.Errorf("ResourceMatches(%q, %q) = %v, want %v", tt.resource, tt.server, got, tt.want)
		}
	}
}

func TestServerMetadataURLs(t *testing.T) {
	tests := []struct {
		issuer string
		want   []string
	}{
		{"https://auth.example.com", []string{
			"https://auth.example.com/.well-known/oauth-authorization-server",
			"https://auth.example.com/.well-known/openid-configuration"}},
		{"https://auth.example.com/", []string{
			"https://auth.example.com/.well-known/oauth-authorization-server",
			"https://auth.example.com/.well-known/openid-configuration"}},
		{"https://auth.example.com/tenant1", []string{
			"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
			"https://auth.example.com/.well-known/openid-configuration/tenant1",
			"https://auth.example.com/tenant1/.well-known/openid-configuration"}},
		{"https://auth.example.com:8443/a/b/", []string{
			"https://auth.example.com:8443/.well-known/oauth-authorization-server/a/b",
			"https://auth.example.com:8443/.well-known/openid-configuration/a/b",
			"https://auth.example.com:8443/a/b/.well-known/openid-configuration"}},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.issuer)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, ServerMetadataURLs(u)); diff != "" {
			t.Errorf("ServerMetadataURLs(%q) (-want +got):\n%s", tt.issuer, diff)
		}
	}
}

func TestCheckURL(t *testing.T) {
	const (
		public   = "https://mcp.example.com/mcp"
		loopback = "http://127.0.0.1:3000/mcp"
		private  = "http://10.1.2.3:8080/mcp"
		linkLoc  = "http://169.254.10.10/mcp"
		metadata = "http://169.254.169.254/mcp"
	)
	tests := []struct {
		server, u string
		// wantErr is a substring of the error, "" for no error.
		wantErr string
	}{
		// https rule
		{public, "https://auth.example.com/.well-known/oauth-authorization-server", ""},
		{public, "http://auth.example.com/token", "must use https"},
		{public, "ftp://auth.example.com/x", "only https"},
		{public, "/relative", "only https"},
		{public, "https://user:secret@auth.example.com/", "user info"},
		{public, "http://mcp.example.com/.well-known/x", "must use https"},
		{"http://mcp.example.com/mcp", "http://mcp.example.com/.well-known/x", ""}, // the server's own http origin
		{"http://mcp.example.com/mcp", "http://mcp.example.com:8080/x", "must use https"},
		// loopback
		{loopback, "http://127.0.0.1:4000/token", ""},
		{loopback, "http://localhost:4000/token", ""},
		{loopback, "http://[::1]:4000/token", ""},
		{loopback, "http://127.8.9.10/token", ""},
		{loopback, "http://app.localhost/token", ""},
		{"http://localhost:3000/mcp", "http://127.0.0.1:4000/token", ""},
		{loopback, "https://auth.example.com/token", ""},
		{public, "http://127.0.0.1:4000/token", "loopback"},
		{public, "https://localhost/token", "loopback"},
		{public, "https://[::ffff:127.0.0.1]/token", "loopback"},
		// private networks
		{public, "https://10.0.0.1/token", "private"},
		{public, "https://172.16.5.4/token", "private"},
		{public, "https://192.168.1.1/token", "private"},
		{public, "https://[fd12::1]/token", "private"},
		{public, "https://100.64.0.1/token", "private"},
		{private, "https://10.9.9.9/token", ""},
		{private, "http://10.9.9.9/token", "must use https"},
		{private, "http://10.1.2.3:8080/.well-known/oauth-protected-resource", ""},
		{loopback, "https://192.168.1.1/token", "private"},
		{private, "http://127.0.0.1/token", "loopback"},
		// link-local and cloud metadata
		{public, "https://169.254.10.10/x", "link-local"},
		{public, "https://[fe80::1]/x", "link-local"},
		{public, "https://[fe80::1%25eth0]/x", "link-local"},
		{public, "http://169.254.169.254/latest/meta-data/", "cloud metadata"},
		{public, "https://169.254.169.254/latest/meta-data/", "cloud metadata"},
		{loopback, "http://169.254.169.254/latest/meta-data/", "cloud metadata"},
		{linkLoc, "https://169.254.169.254/x", "cloud metadata"},
		{public, "https://[fd00:ec2::254]/x", "cloud metadata"},
		{public, "http://metadata.google.internal/computeMetadata/v1/", "cloud metadata"},
		{public, "https://METADATA.GOOGLE.INTERNAL./x", "cloud metadata"},
		{public, "https://100.100.100.200/x", "cloud metadata"},
		{public, "https://[::ffff:169.254.169.254]/x", "cloud metadata"},
		{linkLoc, "https://169.254.1.1/x", ""},
		{metadata, "http://169.254.169.254/.well-known/x", ""},
		// unspecified and multicast
		{public, "https://0.0.0.0/x", "unspecified"},
		{public, "https://[::]/x", "unspecified"},
		{public, "https://224.0.0.1/x", "unspecified"},
		{public, "https://255.255.255.255/x", "unspecified"},
		// public literals
		{public, "https://93.184.216.34/x", ""},
		{public, "https://[2606:4700::1]/x", ""},
	}
	for _, tt := range tests {
		f := &Fetcher{ServerURL: tt.server}
		err := f.CheckURL(tt.u)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("server %s: CheckURL(%q) = %v, want nil", tt.server, tt.u, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("server %s: CheckURL(%q) = %v, want an error with %q", tt.server, tt.u, err, tt.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("CheckURL(%q) error shows the user info: %v", tt.u, err)
		}
	}
}

func TestDialControl(t *testing.T) {
	tests := []struct {
		server, address string
		ok              bool
	}{
		{"https://mcp.example.com/mcp", "93.184.216.34:443", true},
		{"https://mcp.example.com/mcp", "10.0.0.1:443", true}, // split-horizon DNS
		{"https://mcp.example.com/mcp", "127.0.0.1:443", true},
		{"https://mcp.example.com/mcp", "169.254.169.254:80", false},
		{"https://mcp.example.com/mcp", "[fd00:ec2::254]:80", false},
		{"https://mcp.example.com/mcp", "169.254.3.3:443", false},
		{"https://mcp.example.com/mcp", "[fe80::1%eth0]:443", false},
		{"https://mcp.example.com/mcp", "0.0.0.0:443", false},
		{"http://169.254.3.3/mcp", "169.254.9.9:443", true},
	}
	for _, tt := range tests {
		f := &Fetcher{ServerURL: tt.server}
		err := f.dialControl(f.serverKind())("tcp", tt.address, nil)
		if (err == nil) != tt.ok {
			t.Errorf("server %s: dial %s: %v, want ok=%v", tt.server, tt.address, err, tt.ok)
		}
	}
}
