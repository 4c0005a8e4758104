package authserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"
)

// FollowMain is the testscript command oauthfollow, a stand-in for the
// user's browser ($BROWSER): `oauthfollow URL` GETs the authorization URL
// without following redirects and then GETs the Location it is sent to,
// which is the client's loopback callback. With OAUTHFOLLOW_LOG set it
// first appends the authorization endpoint (no query) to that file, so a
// script can tell whether the browser was opened. With OAUTHFOLLOW_FORGE
// set it first plays an attacker who reached the client's loopback: a
// callback with a forged code and state, whose status it appends to the
// OAUTHFOLLOW_LOG file as "forged callback: STATUS". It prints nothing on
// stdout and returns 1 with a message on stderr when a step fails.
func FollowMain() int {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: oauthfollow AUTHORIZATION-URL")
		return 2
	}
	target := os.Args[len(os.Args)-1]
	if log := os.Getenv("OAUTHFOLLOW_LOG"); log != "" {
		if err := appendLine(log, withoutQuery(target)); err != nil {
			fmt.Fprintf(os.Stderr, "oauthfollow: %v\n", err)
			return 1
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if os.Getenv("OAUTHFOLLOW_FORGE") != "" {
		status, err := forge(ctx, target)
		if log := os.Getenv("OAUTHFOLLOW_LOG"); err == nil && log != "" {
			err = appendLine(log, fmt.Sprintf("forged callback: %d", status))
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "oauthfollow: %v\n", err)
			return 1
		}
	}
	if err := Follow(ctx, http.DefaultTransport, target); err != nil {
		fmt.Fprintf(os.Stderr, "oauthfollow: %v\n", err)
		return 1
	}
	return 0
}

// Follow does what a user's browser does with an authorization URL when
// the user approves: it GETs authURL, expects a redirect, and GETs the
// redirect's target (the client's callback), which must answer 2xx.
func Follow(ctx context.Context, rt http.RoundTripper, authURL string) error {
	c := &http.Client{
		Transport:     rt,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	get := func(u string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		return resp, nil
	}
	resp, err := get(authURL)
	if err != nil {
		return fmt.Errorf("GET of the authorization URL %s: %w", withoutQuery(authURL), err)
	}
	loc, err := resp.Location()
	if resp.StatusCode < 300 || resp.StatusCode > 399 || err != nil {
		return fmt.Errorf("the authorization endpoint %s answered %d, not a redirect to the callback", withoutQuery(authURL), resp.StatusCode)
	}
	cb, err := get(loc.String())
	if err != nil {
		return fmt.Errorf("GET of the callback %s: %w", withoutQuery(loc.String()), err)
	}
	if cb.StatusCode < 200 || cb.StatusCode > 299 {
		return fmt.Errorf("the callback %s answered %d", withoutQuery(loc.String()), cb.StatusCode)
	}
	return nil
}

// forge GETs the redirect URI of authURL with a code and a state of its
// own, and returns the status of the answer.
func forge(ctx context.Context, authURL string) (int, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return 0, err
	}
	cb, err := url.Parse(u.Query().Get("redirect_uri"))
	if err != nil || cb.Host == "" {
		return 0, fmt.Errorf("the authorization URL has no redirect_uri")
	}
	cb.RawQuery = url.Values{"code": {CodePrefix + "forged"}, "state": {"forged"}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cb.String(), nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("GET of the forged callback: %w", err)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	return resp.StatusCode, nil
}

func withoutQuery(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	p.RawQuery, p.Fragment = "", ""
	return p.String()
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
