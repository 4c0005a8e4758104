package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// scriptedPages answers each cursor ("" for the first page) with a result, and any
// other cursor with a JSON-RPC error.
func scriptedPages(results map[string]string) CallFunc {
	return func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		var p struct{ Cursor string }
		if params != nil {
			if err := json.Unmarshal(params, &p); err != nil {
				return nil, err
			}
		}
		res, ok := results[p.Cursor]
		if !ok {
			return nil, &RPCError{Code: CodeInvalidParams, Message: "invalid cursor " + p.Cursor}
		}
		return json.RawMessage(res), nil
	}
}

// endlessPages answers every page with perPage items and a new cursor.
func endlessPages(perPage int) CallFunc {
	items := "[" + strings.TrimSuffix(strings.Repeat("1,", perPage), ",") + "]"
	return func(_ context.Context, _ string, params json.RawMessage) (json.RawMessage, error) {
		var p struct{ Cursor string }
		_ = json.Unmarshal(params, &p)
		n := 0
		fmt.Sscanf(p.Cursor, "c%d", &n)
		return json.RawMessage(fmt.Sprintf(`{"tools": %s, "nextCursor": "c%d"}`, items, n+1)), nil
	}
}

func TestPaginate(t *testing.T) {
	rpcErr := &RPCError{Code: CodeInvalidParams, Message: "invalid cursor c2"}
	tests := []struct {
		name      string
		call      CallFunc
		wantItems int
		wantPages []string // the cursor of each page onPage saw
		want      *PaginationError
		wantText  []string
	}{
		{
			name:      "three pages",
			call:      scriptedPages(map[string]string{"": `{"tools": [1, 2], "nextCursor": "c2"}`, "c2": `{"tools": [3], "nextCursor": "c3"}`, "c3": `{"tools": [4], "nextCursor": ""}`}),
			wantItems: 4, wantPages: []string{"", "c2", "c3"},
		},
		{
			name:      "first page fails",
			call:      scriptedPages(nil),
			wantPages: nil,
			want:      &PaginationError{Reason: PaginationRequestFailed, Page: 1},
			wantText:  []string{"server error -32602: invalid cursor "},
		},
		{
			name:      "cursor rejected",
			call:      scriptedPages(map[string]string{"": `{"tools": [1], "nextCursor": "c2"}`}),
			wantItems: 1, wantPages: []string{""},
			want:     &PaginationError{Reason: PaginationRequestFailed, Page: 2, Cursor: "c2", Items: 1},
			wantText: []string{rpcErr.Error()},
		},
		{
			name:      "repeated cursor",
			call:      scriptedPages(map[string]string{"": `{"tools": [1], "nextCursor": "x"}`, "x": `{"tools": [2], "nextCursor": "x"}`}),
			wantItems: 2, wantPages: []string{"", "x"},
			want:     &PaginationError{Reason: PaginationRepeatedCursor, Page: 2, Cursor: "x", NextCursor: "x", Items: 2},
			wantText: []string{`protocol error in tools/list: the server repeated cursor "x" on page 2`},
		},
		{
			name:      "result not an object",
			call:      scriptedPages(map[string]string{"": `{"tools": [1], "nextCursor": "c2"}`, "c2": `[]`}),
			wantItems: 1, wantPages: []string{"", "c2"},
			want:     &PaginationError{Reason: PaginationBadPage, Page: 2, Cursor: "c2", Items: 1},
			wantText: []string{"result is not an object: []"},
		},
		{
			name:      "nextCursor a number",
			call:      scriptedPages(map[string]string{"": `{"tools": [1], "nextCursor": 2}`}),
			wantPages: []string{""},
			want:      &PaginationError{Reason: PaginationBadPage, Page: 1},
			wantText:  []string{"nextCursor is not a string"},
		},
		{
			name:      "no array",
			call:      scriptedPages(map[string]string{"": `{"items": [], "nextCursor": "c2"}`}),
			wantPages: []string{""},
			want:      &PaginationError{Reason: PaginationBadPage, Page: 1},
			wantText:  []string{`result on page 1 has no "tools" array`},
		},
		{
			name:      "null array",
			call:      scriptedPages(map[string]string{"": `{"tools": null}`}),
			wantPages: []string{""},
			want:      &PaginationError{Reason: PaginationBadPage, Page: 1},
			wantText:  []string{`no "tools" array`},
		},
		{
			name:      "array not an array",
			call:      scriptedPages(map[string]string{"": `{"tools": {}}`}),
			wantPages: []string{""},
			want:      &PaginationError{Reason: PaginationBadPage, Page: 1},
			wantText:  []string{"tools on page 1: "},
		},
		{
			name:      "page limit",
			call:      endlessPages(0),
			wantPages: make([]string, MaxPages), // checked by count below
			want:      &PaginationError{Reason: PaginationPageLimit, Page: MaxPages, Cursor: fmt.Sprintf("c%d", MaxPages-1), NextCursor: fmt.Sprintf("c%d", MaxPages)},
			wantText:  []string{fmt.Sprintf("stopped after %d pages", MaxPages), "MaxPages"},
		},
		{
			name:      "item limit",
			call:      endlessPages(MaxListItems / 2),
			wantItems: MaxListItems, wantPages: []string{"", "c1"},
			want:     &PaginationError{Reason: PaginationItemLimit, Page: 2, Cursor: "c1", NextCursor: "c2", Items: MaxListItems},
			wantText: []string{fmt.Sprintf("stopped after %d items on 2 pages", MaxListItems), "MaxListItems"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen []string
			items, err := Paginate(t.Context(), tt.call, "tools/list", "tools", func(p ListPage) {
				if p.Number != len(seen)+1 {
					t.Errorf("page %d reported as number %d", len(seen)+1, p.Number)
				}
				seen = append(seen, p.Cursor)
			})
			if len(items) != tt.wantItems {
				t.Errorf("got %d items, want %d", len(items), tt.wantItems)
			}
			if tt.name == "page limit" {
				if len(seen) != MaxPages {
					t.Errorf("onPage saw %d pages, want %d", len(seen), MaxPages)
				}
			} else if diff := cmp.Diff(tt.wantPages, seen); diff != "" {
				t.Errorf("pages seen (-want +got):\n%s", diff)
			}
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Paginate: %v", err)
				}
				return
			}
			var pe *PaginationError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v (%T), want a *PaginationError", err, err)
			}
			tt.want.Method = "tools/list"
			if diff := cmp.Diff(tt.want, pe, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Err" }, cmp.Ignore())); diff != "" {
				t.Errorf("PaginationError (-want +got):\n%s", diff)
			}
			if pe.Error() != pe.Err.Error() {
				t.Errorf("Error() = %q, want the message of Err, %q", pe.Error(), pe.Err.Error())
			}
			for _, want := range tt.wantText {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			// The cause stays reachable: the request's own error, or a
			// protocol error describing the page.
			var (
				rpc   *RPCError
				proto *ProtocolError
			)
			if tt.want.Reason == PaginationRequestFailed && !errors.As(err, &rpc) {
				t.Errorf("err = %v, want it to wrap the *RPCError", err)
			}
			if tt.want.Reason != PaginationRequestFailed && !errors.As(err, &proto) {
				t.Errorf("err = %v, want it to wrap a *ProtocolError", err)
			}
		})
	}
}

func TestPaginateCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := Paginate(ctx, scriptedPages(map[string]string{"": `{"tools": []}`}), "tools/list", "tools", nil)
	var pe *PaginationError
	if !errors.As(err, &pe) || pe.Reason != PaginationRequestFailed || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want a request-failed *PaginationError wrapping context.Canceled", err)
	}
}

func TestPaginationReasonString(t *testing.T) {
	for r, want := range map[PaginationReason]string{
		PaginationRequestFailed:  "request failed",
		PaginationBadPage:        "bad page",
		PaginationRepeatedCursor: "repeated cursor",
		PaginationPageLimit:      "page limit",
		PaginationItemLimit:      "item limit",
		0:                        "PaginationReason(0)",
	} {
		if got := r.String(); got != want {
			t.Errorf("PaginationReason(%d).String() = %q, want %q", int(r), got, want)
		}
	}
}

// TestListAllPages checks that the client's lists go through the one
// paginator: each page is seen, and the error is typed.
func TestListAllPages(t *testing.T) {
	_, conn := startFake(t, map[string]handler{
		"tools/list": func(s *fakeServer, m message) {
			var p struct{ Cursor string }
			_ = json.Unmarshal(m.Params, &p)
			switch p.Cursor {
			case "":
				s.reply(m, `{"tools": [{"name": "a"}], "nextCursor": "c2"}`)
			case "c2":
				s.reply(m, `{"tools": [{"name": "b"}], "nextCursor": "c2"}`)
			}
		},
	})
	c := newClient(t, conn, Options{})
	var seen []ListPage
	items, err := c.ListAllPages(t.Context(), "tools/list", "tools", func(p ListPage) { seen = append(seen, p) })
	if len(items) != 2 || len(seen) != 2 || seen[1].Cursor != "c2" || string(seen[1].Result) != `{"tools": [{"name": "b"}], "nextCursor": "c2"}` {
		t.Errorf("got %d items and pages %+v, want 2 items and both pages as sent", len(items), seen)
	}
	var pe *PaginationError
	if !errors.As(err, &pe) || pe.Reason != PaginationRepeatedCursor || pe.Page != 2 || pe.NextCursor != "c2" {
		t.Errorf("err = %#v, want a repeated-cursor *PaginationError on page 2", err)
	}
}

// TestListTimeoutIsTyped checks that a list timing out on a later page is a
// request-failed *PaginationError holding the *TimeoutError, whose message
// says the timeout bounds the whole list.
func TestListTimeoutIsTyped(t *testing.T) {
	const timeout = time.Second
	_, conn := startFake(t, map[string]handler{"tools/list": pagedServer(timeout / 10)})
	c := newClient(t, conn, Options{Timeout: timeout})
	_, err := c.ListAll(t.Context(), "tools/list", "tools")
	var (
		pe *PaginationError
		te *TimeoutError
	)
	if !errors.As(err, &pe) || pe.Reason != PaginationRequestFailed || pe.Page < 2 || !errors.As(pe.Err, &te) {
		t.Fatalf("err = %#v, want a request-failed *PaginationError after page 1 holding a *TimeoutError", err)
	}
	if pe.Cursor != fmt.Sprintf("c%d", pe.Page-1) || !strings.Contains(err.Error(), fmt.Sprintf("%d pages (%d items) had arrived", pe.Page-1, pe.Items)) {
		t.Errorf("err = %v with cursor %q on page %d, want the cursor of that page and the pages that arrived", err, pe.Cursor, pe.Page)
	}
}
