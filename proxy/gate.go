package proxy

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Gate is what `mcpctl check` holds a captured session to in CI: no
// protocol findings (schema violations, stdout pollution, bad ids, error
// answers, unanswered calls, tools changing mid-session, frames the checks
// missed) except the kinds in Allow; the tools of a pinned baseline; the
// tools that must and must not be called; and the slowest call.
type Gate struct {
	// Allow are flag kinds that do not fail the session.
	Allow []string
	// ExpectTools must each be called at least once; ForbidTools never.
	ExpectTools, ForbidTools []string
	// MaxDuration bounds every answered call's latency; zero: no bound.
	MaxDuration time.Duration
	// Baseline are the pinned tool definitions by name; nil: none pinned.
	Baseline map[string]json.RawMessage
}

// Verdict is one thing a [Gate] checked.
type Verdict struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	// Failure says what did not hold.
	Failure string `json:"failure,omitempty"`
}

// gateGroups are the flag kinds each verdict gathers, in report order.
var gateGroups = []struct {
	name  string
	kinds []string
}{
	{"messages follow the official schema", []string{FlagSchema}},
	{"no stdout pollution or malformed frames", []string{FlagPollution, FlagMalformed}},
	{"responses match requests", []string{FlagUnknownID, FlagDuplicate}},
	{"no JSON-RPC error answers", []string{FlagError}},
	{"every request answered", []string{FlagPending}},
	{"tools unchanged, and as pinned", []string{FlagTools, PinChanged, PinHidden}},
	{"every frame checked", []string{FlagDropped}},
}

// Judge checks s and returns a verdict per check, in a stable order.
func (g Gate) Judge(s Summary) []Verdict {
	var out []Verdict
	for _, grp := range gateGroups {
		if allowed := slices.ContainsFunc(grp.kinds, func(k string) bool { return slices.Contains(g.Allow, k) }); allowed {
			continue
		}
		var msgs []string
		for _, fl := range s.Flags {
			if slices.Contains(grp.kinds, fl.Kind) {
				msgs = append(msgs, fl.Msg)
			}
		}
		out = append(out, verdictOf(grp.name, msgs))
	}
	if g.Baseline != nil {
		out = append(out, verdictOf("tools match the baseline", toolChanges(g.Baseline, s.Tools)))
	}
	called := map[string]int{}
	for _, c := range s.Calls {
		if c.Method == "tools/call" {
			called[c.Tool]++
		}
	}
	for _, name := range g.ExpectTools {
		var msgs []string
		if called[name] == 0 {
			msgs = append(msgs, fmt.Sprintf("tool %q was never called", name))
		}
		out = append(out, verdictOf(fmt.Sprintf("tool %s called", name), msgs))
	}
	for _, name := range g.ForbidTools {
		var msgs []string
		if n := called[name]; n > 0 {
			msgs = append(msgs, fmt.Sprintf("tool %q was called %d times", name, n))
		}
		out = append(out, verdictOf(fmt.Sprintf("tool %s not called", name), msgs))
	}
	if g.MaxDuration > 0 {
		var msgs []string
		for _, c := range s.Calls {
			if !c.Pending && c.Latency > g.MaxDuration {
				what := c.Method
				if c.Tool != "" {
					what += " " + c.Tool
				}
				msgs = append(msgs, fmt.Sprintf("%s (id %s) took %v", what, c.ID, c.Latency.Round(time.Millisecond)))
			}
		}
		out = append(out, verdictOf(fmt.Sprintf("every call within %v", g.MaxDuration), msgs))
	}
	return out
}

// verdictOf passes when msgs is empty; otherwise its failure lists them
// (the first ten, and how many more).
func verdictOf(name string, msgs []string) Verdict {
	if len(msgs) == 0 {
		return Verdict{Name: name, Passed: true}
	}
	shown := msgs
	if len(shown) > 10 {
		shown = shown[:10]
	}
	failure := strings.Join(shown, "\n")
	if len(msgs) > len(shown) {
		failure += fmt.Sprintf("\n… and %d more", len(msgs)-len(shown))
	}
	return Verdict{Name: name, Failure: failure}
}

// toolChanges says how the session's tools differ from the baseline's.
func toolChanges(base, now map[string]json.RawMessage) []string {
	if now == nil {
		return []string{"the session never listed its tools (tools/list), so they cannot be compared with the baseline"}
	}
	var out []string
	for name, def := range now {
		old, ok := base[name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("tool %q is new", name))
		case string(canonical(old)) != string(canonical(def)):
			out = append(out, fmt.Sprintf("tool %q changed", name))
		}
	}
	for name := range base {
		if _, ok := now[name]; !ok {
			out = append(out, fmt.Sprintf("tool %q is gone", name))
		}
	}
	sort.Strings(out)
	return out
}
