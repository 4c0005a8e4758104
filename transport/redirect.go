package transport

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
)

// MaxRedirects is how many same-origin redirects one HTTP request follows.
const MaxRedirects = 5

// Why a redirect was refused; see [RedirectError].
const (
	// RedirectCrossOrigin: the target is on another origin (scheme, host
	// or port), where the request's credentials must not go.
	RedirectCrossOrigin = "cross-origin"
	// RedirectMethodChange: a 301, 302 or 303 answer to a POST, which
	// would turn it into a GET without its message.
	RedirectMethodChange = "method change"
	// RedirectTooMany: more than [MaxRedirects] redirects in a row.
	RedirectTooMany = "too many"
)

// RedirectError is a redirect the HTTP transports refused to follow.
// Credentials (Authorization, every header of [HTTPOptions].Header) never
// leave the origin of the URL they were given for, so a redirect to another
// origin is not followed; nor is a redirect that would turn a POST into a
// GET, nor a chain of more than [MaxRedirects]. Same-origin 307 and 308
// redirects are followed and reported as [EventRedirect].
type RedirectError struct {
	// Method and From are the request as mcpctl sent it first (the URL
	// without any password).
	Method string
	From   string
	// To is the target of the refused redirect.
	To string
	// Status is the redirect's HTTP status.
	Status int
	// Reason is [RedirectCrossOrigin], [RedirectMethodChange] or
	// [RedirectTooMany].
	Reason string
}

// Error reads like `POST http://127.0.0.1:1234/mcp: the server redirects to
// http://127.0.0.1:5678/mcp, another origin; mcpctl does not follow it with
// your credentials (use --url http://127.0.0.1:5678/mcp if you trust it)`.
func (e *RedirectError) Error() string {
	switch e.Reason {
	case RedirectMethodChange:
		return fmt.Sprintf("%s %s: the server redirects with %d %s to %s, which would turn the POST into a GET; mcpctl follows only 307 and 308 redirects of a POST (use --url %s if that is the endpoint)",
			e.Method, e.From, e.Status, http.StatusText(e.Status), e.To, e.To)
	case RedirectTooMany:
		return fmt.Sprintf("%s %s: stopped after %d redirects (the last to %s); is the server redirecting in a loop?",
			e.Method, e.From, MaxRedirects, e.To)
	}
	return fmt.Sprintf("%s %s: the server redirects to %s, another origin; mcpctl does not follow it with your credentials (use --url %s if you trust it)",
		e.Method, e.From, e.To, e.To)
}

// withRedirectPolicy returns a shallow copy of c whose CheckRedirect
// enforces the policy of [RedirectError] before c's own CheckRedirect, if
// any. The caller's client is left as it is.
func (b *httpBase) withRedirectPolicy(c *http.Client) *http.Client {
	cp := *c
	next := c.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := b.checkRedirect(req, via); err != nil {
			return err
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	return &cp
}

// checkRedirect is called by net/http before it follows a redirect: req is
// the request it would send, via those already sent, oldest first. An error
// stops it before anything reaches the target.
func (b *httpBase) checkRedirect(req *http.Request, via []*http.Request) error {
	first, last := via[0], via[len(via)-1]
	status := 0
	if req.Response != nil {
		status = req.Response.StatusCode
	}
	refuse := func(reason string) error {
		return &RedirectError{
			Method: first.Method,
			From:   b.redactor.String(redactURL(first.URL)),
			To:     b.redactor.String(redactURL(req.URL)),
			Status: status,
			Reason: reason,
		}
	}
	// Every hop is checked against the origin the credentials were given
	// for, and against the previous hop (the same, by induction).
	if !sameOrigin(req.URL, first.URL) || !sameOrigin(req.URL, last.URL) {
		return refuse(RedirectCrossOrigin)
	}
	if first.Method != http.MethodGet && status != http.StatusTemporaryRedirect && status != http.StatusPermanentRedirect {
		return refuse(RedirectMethodChange)
	}
	if len(via) > MaxRedirects {
		return refuse(RedirectTooMany)
	}
	b.event(EventRedirect, fmt.Sprintf("%d → %s", status, b.redactor.String(redactURL(req.URL))))
	return nil
}

// redirectError finds a *RedirectError in err, which net/http wraps in a
// *url.Error.
func redirectError(err error) (*RedirectError, bool) {
	var re *RedirectError
	if errors.As(err, &re) {
		return re, true
	}
	return nil, false
}

// finalURL is the URL a response came from, after redirects.
func finalURL(resp *http.Response, fallback *url.URL) *url.URL {
	if resp != nil && resp.Request != nil && resp.Request.URL != nil {
		return resp.Request.URL
	}
	return fallback
}
