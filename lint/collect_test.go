package lint_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/internal/defectserver"
	"github.com/mcpctl/mcpctl/lint"
)

// scripted is a Caller that answers from a function and records the calls
// as "method cursor".
type scripted struct {
	calls  []string
	answer func(method, cursor string) (string, error)
}

func (s *scripted) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	var p struct {
		Cursor string `json:"cursor"`
	}
	if params != nil {
		b, _ := json.Marshal(params)
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, err
		}
	}
	s.calls = append(s.calls, strings.TrimSpace(method+" "+p.Cursor))
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	res, err := s.answer(method, p.Cursor)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(res), nil
}

// onlyTools answers tools/list with answer and refuses every other list.
func onlyTools(answer func(cursor string) (string, error)) func(method, cursor string) (string, error) {
	return func(method, cursor string) (string, error) {
		if method == "tools/list" {
			return answer(cursor)
		}
		return "", errMethodNotFound
	}
}

const toolsOnlyInit = `{"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}`

func collectTools(t *testing.T, answer func(cursor string) (string, error)) (lint.List, []string) {
	t.Helper()
	c := &scripted{answer: onlyTools(answer)}
	s, err := lint.Collect(context.Background(), c, json.RawMessage(toolsOnlyInit), lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s.Lists[0], c.calls
}

func TestCollectPages(t *testing.T) {
	l, calls := collectTools(t, func(cursor string) (string, error) {
		switch cursor {
		case "":
			return `{"tools": [], "nextCursor": "b"}`, nil
		case "b":
			return `{"tools": [], "nextCursor": "c"}`, nil
		}
		return `{"tools": [], "nextCursor": ""}`, nil // an empty cursor ends the list too
	})
	if diff := cmp.Diff([]string{"tools/list", "tools/list b", "tools/list c"}, calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	var cursors []string
	for _, p := range l.Pages {
		cursors = append(cursors, p.Cursor)
	}
	if diff := cmp.Diff([]string{"", "b", "c"}, cursors); diff != "" {
		t.Errorf("page cursors (-want +got):\n%s", diff)
	}
	if l.Stopped != nil {
		t.Errorf("list stopped: %v, want it to end well", l.Stopped)
	}
}

func TestCollectRepeatedCursor(t *testing.T) {
	l, calls := collectTools(t, func(cursor string) (string, error) {
		if cursor == "" {
			return `{"tools": [], "nextCursor": "x"}`, nil
		}
		return `{"tools": [], "nextCursor": "x"}`, nil
	})
	want := &client.PaginationError{Method: "tools/list", Reason: client.PaginationRepeatedCursor, Page: 2, Cursor: "x", NextCursor: "x"}
	if diff := cmp.Diff(want, l.Stopped, cmpopts.IgnoreFields(client.PaginationError{}, "Err")); diff != "" || len(l.Pages) != 2 {
		t.Errorf("after %d pages (want 2), Stopped (-want +got):\n%s", len(l.Pages), diff)
	}
	if got := strings.Count(strings.Join(calls, "\n"), "tools/list"); got != 2 {
		t.Errorf("tools/list called %d times, want 2", got)
	}
}

func TestCollectEndless(t *testing.T) {
	n := 0
	l, _ := collectTools(t, func(string) (string, error) {
		n++
		return fmt.Sprintf(`{"tools": [], "nextCursor": "c%d"}`, n), nil
	})
	if l.Stopped == nil || l.Stopped.Reason != client.PaginationPageLimit || len(l.Pages) != client.MaxPages {
		t.Errorf("Stopped %v after %d pages, want the page limit after %d", l.Stopped, len(l.Pages), client.MaxPages)
	}
}

func TestCollectErrors(t *testing.T) {
	rpcErr := &client.RPCError{Code: -32602, Message: "invalid cursor"}
	timeout := &client.TimeoutError{Method: "tools/list"}
	lost := errors.New("connection lost while waiting for the answer to tools/list: EOF")
	tests := []struct {
		name      string
		err       error
		wantPages int
		recorded  bool // in List.Err, rather than returned
	}{
		{"JSON-RPC error is recorded", rpcErr, 1, true},
		{"timeout is recorded", timeout, 1, true},
		{"lost connection ends Collect", lost, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &scripted{answer: onlyTools(func(cursor string) (string, error) {
				if cursor == "" {
					return `{"tools": [], "nextCursor": "2"}`, nil
				}
				return "", tt.err
			})}
			s, err := lint.Collect(context.Background(), c, json.RawMessage(toolsOnlyInit), lint.Options{})
			if !tt.recorded {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want it to wrap %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			l := s.Lists[0]
			if l.Stopped == nil || !errors.Is(l.Stopped, tt.err) || len(l.Pages) != tt.wantPages {
				t.Fatalf("list stopped by %v after %d pages, want %v after %d", l.Stopped, len(l.Pages), tt.err, tt.wantPages)
			}
			if l.Stopped.Reason != client.PaginationRequestFailed || l.Stopped.Page != 2 || l.Stopped.Cursor != "2" {
				t.Errorf("Stopped = %+v, want the request for page 2, cursor \"2\", failed", l.Stopped)
			}
		})
	}
}

func TestCollectCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := &scripted{answer: onlyTools(func(string) (string, error) { return `{"tools": []}`, nil })}
	if _, err := lint.Collect(ctx, c, json.RawMessage(toolsOnlyInit), lint.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestCollectOrder checks that only declared lists are asked for unless
// ProbeUndeclared is set, then after the declared ones; and that Lists
// keeps the order of ListMethods either way.
func TestCollectOrder(t *testing.T) {
	for _, tc := range []struct {
		probe bool
		calls []string
	}{
		{false, []string{"prompts/list"}},
		{true, []string{"prompts/list", "tools/list", "resources/list", "resources/templates/list"}},
	} {
		t.Run(fmt.Sprintf("probe %v", tc.probe), func(t *testing.T) {
			c := &scripted{answer: func(method, cursor string) (string, error) {
				if method == "prompts/list" {
					return `{"prompts": []}`, nil
				}
				return "", errMethodNotFound
			}}
			init := `{"protocolVersion": "2025-11-25", "capabilities": {"prompts": {}}, "serverInfo": {"name": "s", "version": "1"}}`
			s, err := lint.Collect(context.Background(), c, json.RawMessage(init), lint.Options{ProbeUndeclared: tc.probe})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.calls, c.calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			var methods []string
			for _, l := range s.Lists {
				methods = append(methods, l.Method)
			}
			if diff := cmp.Diff([]string{"tools/list", "resources/list", "resources/templates/list", "prompts/list"}, methods); diff != "" {
				t.Errorf("Lists (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUndeclaredNotProbed checks that without ProbeUndeclared a server
// that would answer an undeclared list is not asked, so nothing is found.
func TestUndeclaredNotProbed(t *testing.T) {
	s := defectserver.Server{}
	init, rpcErr := s.Handle("initialize", json.RawMessage(`{"protocolVersion": "2025-11-25"}`))
	if rpcErr != nil {
		t.Fatal(rpcErr)
	}
	findings, err := lint.Lint(context.Background(), defectCaller{s}, init, lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		if f.RuleID == lint.CapabilityUndeclared || strings.HasPrefix(f.Subject, "prompt") {
			t.Errorf("found %s %s without --probe-undeclared", f.RuleID, f.Subject)
		}
	}
}

// defectCaller calls a defect server's handler in-process.
type defectCaller struct{ s defectserver.Server }

func (c defectCaller) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	res, rpcErr := c.s.Handle(method, p)
	if rpcErr != nil {
		return nil, &client.RPCError{Code: rpcErr.Code, Message: rpcErr.Message}
	}
	return res, nil
}

// TestDefectServer checks that lint reports every seeded defect, and
// nothing else; and that the full server seeds a defect for every rule.
func TestDefectServer(t *testing.T) {
	for _, s := range []defectserver.Server{{}, {WarningsOnly: true}} {
		for _, version := range []string{"2025-11-25", "2025-06-18"} {
			t.Run(fmt.Sprintf("warnings only %v %s", s.WarningsOnly, version), func(t *testing.T) {
				init, rpcErr := s.Handle("initialize", json.RawMessage(`{"protocolVersion": "`+version+`"}`))
				if rpcErr != nil {
					t.Fatal(rpcErr)
				}
				findings, err := lint.Lint(context.Background(), defectCaller{s}, init, lint.Options{ProbeUndeclared: true})
				if err != nil {
					t.Fatal(err)
				}
				type key struct{ Rule, Subject string }
				var want, got []key
				for _, d := range s.Defects() {
					want = append(want, key{d.RuleID, d.Subject})
				}
				for _, f := range findings {
					got = append(got, key{f.RuleID, f.Subject})
				}
				less := func(a, b key) bool { return a.Rule+a.Subject < b.Rule+b.Subject }
				if diff := cmp.Diff(want, got, cmpopts.SortSlices(less)); diff != "" {
					t.Errorf("findings (-seeded +found):\n%s", diff)
				}
				if s.WarningsOnly {
					return
				}
				rules := map[string]bool{}
				for _, f := range findings {
					rules[f.RuleID] = true
				}
				for _, r := range lint.Rules() {
					if strings.Contains(r.SpecRef, "/2026-07-28/") {
						continue // the modern era's rules: the defect server speaks only legacy revisions
					}
					if r.ID == lint.StdoutNotJSONRPC {
						continue // the transport sees those lines, not Collect: TestCheckStdoutNoise
					}
					if !rules[r.ID] {
						t.Errorf("no seeded defect for rule %s", r.ID)
					}
				}
			})
		}
	}
}

// TestCollectBadPage checks that a page that is not a list result stops
// the list there, and that lint reports the page's shape and nothing about
// its pagination.
func TestCollectBadPage(t *testing.T) {
	pages := map[string]string{
		"":  `{"tools": [{"name": "a", "description": "d", "inputSchema": {"type": "object"}}], "nextCursor": "2"}`,
		"2": `{"tools": "none", "nextCursor": "3"}`,
		"3": `{"tools": []}`,
	}
	c := &scripted{answer: onlyTools(func(cursor string) (string, error) { return pages[cursor], nil })}
	findings, err := lint.Lint(context.Background(), c, json.RawMessage(toolsOnlyInit), lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(strings.Join(c.calls, "\n"), "tools/list"); got != 2 {
		t.Errorf("tools/list called %d times (%q), want 2: the list stops at the bad page", got, c.calls)
	}
	var got []string
	for _, f := range findings {
		got = append(got, f.RuleID+" "+f.Subject)
	}
	if diff := cmp.Diff([]string{"message-schema tools/list page 2"}, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}
