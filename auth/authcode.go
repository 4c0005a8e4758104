package auth

import (
	"bufio"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"sync"
)

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
// iss (RFC 9207 as the 2026-07-28 text applies it: a present iss is
// compared with the issuer whether advertised or not; a missing one is
// refused when the server advertises
// authorization_response_iss_parameter_supported). It returns the code
// and the PKCE verifier.
//
// In detail: a server whose metadata lacks S256 in
// code_challenge_methods_supported, or lacks the field (the MCP
// specification: clients MUST refuse), is refused, except a 2025-03-26
// server with no metadata at all (Metadata.Legacy), which is sent S256.
// The URL is always printed on Prompt ("Opening URL" when Open is set,
// "Open this URL to sign in: URL" when not); Open runs in its own
// goroutine and its failure is only reported, since the user can still
// open the printed URL. The loopback takes only a response that carries
// the state sent (others are answered with an error page and ignored); the
// first response it takes or that is pasted is the one checked: state
// must equal the one sent; an iss that is
// present must equal Metadata.Issuer by simple string comparison (no
// normalization, RFC 9207 §2.4), and a missing one is refused when the
// server advertises authorization_response_iss_parameter_supported; an
// error response becomes an [*Error] whose cause is a [*ResponseError].
// A goroutine reading Paste may outlive the call: a read from a terminal
// cannot be interrupted.
func AuthorizeCode(ctx context.Context, r AuthCodeRequest) (code, verifier string, err error) {
	const op = "signing in with the browser"
	md := r.Metadata
	switch {
	case md == nil || md.AuthorizationEndpoint == "":
		return "", "", errorf(op, "the authorization server has no authorization endpoint")
	case r.Registration == nil || r.Registration.ClientID == "":
		return "", "", errorf(op, "no client_id: the client is not registered with %s", md.Issuer)
	case r.Redirect == nil:
		return "", "", errorf(op, "no redirect receiver")
	}
	if !md.Legacy && !slices.Contains(md.CodeChallengeMethodsSupported, "S256") {
		if len(md.CodeChallengeMethodsSupported) == 0 {
			return "", "", &Error{Op: op, Err: fmt.Errorf("the authorization server %s does not advertise code_challenge_methods_supported, so it may not support PKCE; the MCP specification requires refusing it", md.Issuer), Hint: "ask the server's operator to support PKCE with S256"}
		}
		return "", "", &Error{Op: op, Err: fmt.Errorf("the authorization server %s does not support PKCE with S256 (code_challenge_methods_supported: %s); refusing it as the MCP specification requires", md.Issuer, strings.Join(md.CodeChallengeMethodsSupported, ", ")), Hint: "ask the server's operator to support PKCE with S256"}
	}
	if err := checkOAuthEndpointURL(md.AuthorizationEndpoint); err != nil {
		return "", "", &Error{Op: op, Err: err}
	}
	verifier, challenge := NewPKCE()
	state := randomBase64URL(32)
	authURL, err := authorizationURL(md.AuthorizationEndpoint, url.Values{
		"response_type":         {"code"},
		"client_id":             {r.Registration.ClientID},
		"redirect_uri":          {r.Redirect.RedirectURI()},
		"code_challenge":        {challenge},
		"code_challenge_method": {"S256"},
		"state":                 {state},
	}, r.Scopes, r.Resource)
	if err != nil {
		return "", "", &Error{Op: op, Err: err}
	}

	prompt := &syncWriter{w: r.Prompt}
	if prompt.w == nil {
		prompt.w = io.Discard
	}
	defer prompt.close()
	r.Redirect.arm(state)
	if r.Open != nil {
		fmt.Fprintf(prompt, "Opening %s\n", authURL)
	} else {
		fmt.Fprintf(prompt, "Open this URL to sign in: %s\n", authURL)
	}
	if r.Paste != nil {
		fmt.Fprintf(prompt, "If the browser cannot reach this machine, paste the address it ends on (%s?...) here and press Enter:\n", r.Redirect.RedirectURI())
	}
	if r.Open != nil {
		go func() {
			if err := r.Open(authURL); err != nil {
				fmt.Fprintf(prompt, "Could not open a browser (%v); open the URL above yourself.\n", err)
			}
		}()
	}
	pasted := make(chan url.Values, 1)
	if r.Paste != nil {
		go readPasted(ctx, r.Paste, prompt, pasted)
	}

	var q url.Values
	var reply chan string
	select {
	case cb := <-r.Redirect.results:
		q, reply = cb.query, cb.reply
	case q = <-pasted:
	case <-ctx.Done():
		return "", "", &Error{Op: op, Err: fmt.Errorf("no answer from the browser: %w", ctx.Err()), Hint: "sign in within the time allowed (--timeout), or use --grant client-credentials where there is no browser",
			waiting: "waiting for the browser sign-in (open the URL above and sign in within --timeout, or use --grant client-credentials where there is no browser)"}
	}
	code, err = checkAuthResponse(q, state, md)
	if reply != nil {
		if err != nil {
			reply <- "Sign-in failed: " + err.Error() + ". Return to the terminal."
		} else {
			reply <- "Signed in to mcpctl. You can close this tab."
		}
	}
	if err != nil {
		return "", "", err
	}
	return code, verifier, nil
}

// authorizationURL adds params, scope and resource to the endpoint,
// keeping its own query (RFC 6749 §3.1).
func authorizationURL(endpoint string, params url.Values, scopes []string, resource string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", fmt.Errorf("authorization endpoint %q: %w", endpoint, err)
	}
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	if len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	if resource != "" {
		q.Set("resource", resource)
	}
	u.RawQuery = q.Encode()
	u.Fragment, u.RawFragment = "", ""
	return u.String(), nil
}

// checkAuthResponse checks an authorization response (RFC 6749 §4.1.2,
// RFC 9207 §2.4) and returns its code.
func checkAuthResponse(q url.Values, state string, md *ServerMetadata) (string, error) {
	const op = "checking the authorization response"
	for _, name := range []string{"code", "state", "iss", "error"} {
		if len(q[name]) > 1 {
			return "", errorf(op, "the parameter %s appears %d times", name, len(q[name]))
		}
	}
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
		return "", &Error{Op: op, Err: errors.New("its state does not match the request's (a forged or stale response)"), Hint: "sign in again"}
	}
	if iss, ok := q["iss"]; ok {
		// Simple string comparison: an issuer that is equal only after
		// normalization is another issuer (RFC 9207 §2.4).
		if iss[0] != md.Issuer {
			return "", &Error{Op: op, Err: fmt.Errorf("it comes from issuer %q, not %q (a mix-up attack, or a misconfigured server)", cleanServerText(iss[0], 200), md.Issuer)}
		}
	} else if md.AuthorizationResponseIssParameterSupported {
		return "", &Error{Op: op, Err: fmt.Errorf("it has no iss parameter although %s advertises authorization_response_iss_parameter_supported", md.Issuer)}
	}
	if e := q.Get("error"); e != "" {
		re := &ResponseError{Code: cleanServerText(e, 100), Description: cleanServerText(q.Get("error_description"), 300), URI: cleanServerText(q.Get("error_uri"), 300)}
		hint := ""
		if e == "access_denied" {
			hint = "the sign-in was refused or cancelled; run the command again to retry"
		}
		return "", &Error{Op: "authorization", Err: re, Hint: hint}
	}
	code := q.Get("code")
	if code == "" {
		return "", errorf(op, "it has neither a code nor an error")
	}
	return code, nil
}

// readPasted reads lines from r until one is an authorization response
// (a redirect URL, or its query), and sends its parameters on out.
func readPasted(ctx context.Context, r io.Reader, prompt io.Writer, out chan<- url.Values) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		q := pastedParams(line)
		if q == nil {
			fmt.Fprintln(prompt, "That is not the redirect address (it has no code or error parameter); paste the whole address from the browser's address bar:")
			continue
		}
		select {
		case out <- q:
		case <-ctx.Done():
		}
		return
	}
}

// pastedParams returns the response parameters of a pasted redirect URL
// (or bare query string), or nil.
func pastedParams(s string) url.Values {
	var q url.Values
	if u, err := url.Parse(s); err == nil && u.RawQuery != "" {
		q = u.Query()
	} else if v, err := url.ParseQuery(strings.TrimPrefix(s, "?")); err == nil {
		q = v
	}
	if !q.Has("code") && !q.Has("error") {
		return nil
	}
	return q
}

// syncWriter serializes writes from the goroutines of one run, and drops
// those that come after the run has returned (an Open that fails late):
// the caller owns its writer again then.
type syncWriter struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return len(p), nil
	}
	return s.w.Write(p)
}

func (s *syncWriter) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
}
