package auth

import (
	"context"
	"errors"
	"io"
)

// STUB: owned by the grants helper; replaced wholesale (with pkce.go,
// loopback.go, browser.go).

// Loopback is the redirect receiver: an HTTP server on 127.0.0.1 that
// takes one authorization response.
type Loopback struct{}

// ListenLoopback listens on 127.0.0.1:port (0: an ephemeral port).
func ListenLoopback(port int) (*Loopback, error) { return nil, errors.New("not implemented") }

// RedirectURI is http://127.0.0.1:PORT/callback.
func (l *Loopback) RedirectURI() string { return "" }

// Close stops the receiver.
func (l *Loopback) Close() error { return nil }

// AuthCodeRequest is one run of the authorization code grant's front
// channel.
type AuthCodeRequest struct {
	Metadata     *ServerMetadata
	Registration *Registration
	Scopes       []string
	Resource     string
	Redirect     *Loopback
	// Open opens the authorization URL in the user's browser (nil: do not
	// open; only print it).
	Open func(url string) error
	// Prompt receives the lines for the user: the URL to open, and, when
	// Paste is set, how to paste the redirect URL.
	Prompt io.Writer
	// Paste, if set, is read for a pasted redirect URL, as an alternative
	// to the loopback receiving it (--no-browser on a machine whose
	// browser cannot reach 127.0.0.1).
	Paste io.Reader
}

// AuthorizeCode sends the user to the authorization endpoint with PKCE
// S256 (refusing a server that does not list S256), state and the resource
// parameter, waits for the redirect (bounded by ctx), and checks state and
// iss (RFC 9207: required when the server advertises
// authorization_response_iss_parameter_supported, compared with the
// issuer; refused when present but not advertised... as the 2026-07-28
// text says). It returns the code and the PKCE verifier.
func AuthorizeCode(ctx context.Context, r AuthCodeRequest) (code, verifier string, err error) {
	return "", "", errors.New("not implemented")
}

// OpenBrowser opens url with the user's browser (honouring $BROWSER).
func OpenBrowser(url string) error { return errors.New("not implemented") }
