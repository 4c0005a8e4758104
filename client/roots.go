package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Root is one filesystem root the client exposes (client/roots.mdx): a
// file:// URI and an optional name for display.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// RootFromDir makes the root of directory dir: its absolute, cleaned path
// as a file:// URI (each path segment percent-encoded, so spaces, "%", "#"
// and "?" survive) named after its last element. dir must exist and be a
// directory; the error says which it is not.
func RootFromDir(dir string) (Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Root{}, fmt.Errorf("root %q: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return Root{}, fmt.Errorf("root %q: %w", dir, err)
	}
	if !fi.IsDir() {
		return Root{}, fmt.Errorf("root %q is not a directory", dir)
	}
	name := filepath.Base(abs)
	if name == string(filepath.Separator) || name == "." {
		name = abs
	}
	return Root{URI: FileURI(abs), Name: name}, nil
}

// FileURI returns the file:// URI of the absolute path p (RFC 8089):
// "file:///home/a%20b". A Windows path "C:\x" becomes "file:///C:/x".
func FileURI(p string) string {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	u := url.URL{Scheme: "file", Path: p}
	// url.URL leaves the authority out for a path without a host; the
	// empty authority is what file URIs of local paths are written with.
	s := u.String()
	if !strings.HasPrefix(s, "file://") {
		s = "file://" + strings.TrimPrefix(s, "file:")
	}
	return s
}

// Roots answers roots/list from a list the caller may change during the
// session (the shell's roots command): [Roots.Set], then
// [Client.NotifyRootsChanged]. The zero value holds no roots.
type Roots struct {
	mu   sync.Mutex
	list []Root
}

// NewRoots returns Roots holding list.
func NewRoots(list []Root) *Roots {
	return &Roots{list: append([]Root(nil), list...)}
}

// Set replaces the roots.
func (r *Roots) Set(list []Root) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append([]Root(nil), list...)
}

// List returns a copy of the roots.
func (r *Roots) List() []Root {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Root(nil), r.list...)
}

// Capability is what a client declares for roots: listChanged, since
// [Roots.Set] may change them (a 2026-07-28 server ignores the member).
func (r *Roots) Capability() map[string]any {
	return map[string]any{"listChanged": true}
}

// Handler answers roots/list, in both eras (a modern server asks for it
// as an input request).
func (r *Roots) Handler() RequestHandler {
	return func(ctx context.Context, params json.RawMessage) (any, error) {
		list := r.List()
		if list == nil {
			list = []Root{}
		}
		return map[string]any{"roots": list}, nil
	}
}

// NotifyRootsChanged tells a legacy server that the roots changed
// (notifications/roots/list_changed); it asks for roots/list again when it
// wants them. A modern server asks for roots with each request that needs
// them, so nothing is sent in that era.
func (c *Client) NotifyRootsChanged(ctx context.Context) error {
	if c.isModern() {
		return nil
	}
	return c.Notify(ctx, "notifications/roots/list_changed", nil)
}
