package policy

import (
	"encoding/base64"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const designPolicy = `web_search:
  required_scopes:
    - tool:web_search
  sensitivity: low
  rate_limit: 60          # calls per minute
  requires_approval: false
database_query:
  required_scopes:
    - tool:database
  sensitivity: high
  rate_limit: 30
  requires_approval: true # a person must approve
db_*:
  sensitivity: medium
  sensitive_arguments: [password]
"*":
  sensitivity: low
plain:
`

func TestParse(t *testing.T) {
	p, err := Parse([]byte(designPolicy))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range p.Entries {
		got = append(got, e.Pattern)
	}
	if diff := cmp.Diff([]string{"web_search", "database_query", "db_*", "*", "plain"}, got); diff != "" {
		t.Errorf("patterns (-want +got):\n%s", diff)
	}
	want := Rule{RequiredScopes: []string{"tool:database"}, Sensitivity: "high", RateLimit: 30, RequiresApproval: true}
	if diff := cmp.Diff(want, p.Entries[1].Rule); diff != "" {
		t.Errorf("database_query (-want +got):\n%s", diff)
	}
	if p.Entries[1].Line != 7 {
		t.Errorf("database_query line = %d, want 7", p.Entries[1].Line)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"not a mapping", "- a\n- b\n", "line 1: want a mapping"},
		{"unknown key", "t:\n  requires_aproval: true\n", `line 2: t: unknown key "requires_aproval"`},
		{"bad sensitivity", "t:\n  sensitivity: extreme\n", `sensitivity "extreme" is not one of low, medium, high, critical`},
		{"negative rate", "t:\n  rate_limit: -1\n", "rate_limit -1"},
		{"bad glob", "\"db_[\":\n  sensitivity: low\n", "not a valid glob"},
		{"duplicate", "t:\n  sensitivity: low\nt:\n  sensitivity: high\n", `line 3: "t" is already given on line 1`},
		{"rule not a mapping", "t: yes\n", "t: want a mapping"},
		{"wrong type", "t:\n  rate_limit: many\n", "t: yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	p, err := Parse([]byte(designPolicy))
	if err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	destructive := Annotations{Destructive: &yes}
	tests := []struct {
		tool       string
		ann        Annotations
		wantSource string
		wantSens   string
		approval   bool
	}{
		{"database_query", Annotations{}, "database_query", "high", true},
		{"db_drop", destructive, "db_*", "medium", false},
		{"other", destructive, "*", "low", false},
		{"plain", Annotations{}, "plain", "", false},
	}
	for _, tt := range tests {
		rule, source := p.Decide(tt.tool, tt.ann)
		if source != tt.wantSource || rule.Sensitivity != tt.wantSens || rule.RequiresApproval != tt.approval {
			t.Errorf("Decide(%s) = %+v from %q, want sensitivity %q approval %v from %q", tt.tool, rule, source, tt.wantSens, tt.approval, tt.wantSource)
		}
	}

	// Without "*", unmatched tools fall back to their annotations.
	p2, _ := Parse([]byte("web_search:\n  sensitivity: low\n"))
	fallback := []struct {
		ann      Annotations
		sens     string
		approval bool
	}{
		{Annotations{}, "low", false},
		{destructive, "high", true},
		{Annotations{Destructive: &yes, ReadOnly: &yes}, "low", false},
		{Annotations{Destructive: &no}, "low", false},
	}
	for _, tt := range fallback {
		rule, source := p2.Decide("rm", tt.ann)
		if source != AnnotationsRule || rule.Sensitivity != tt.sens || rule.RequiresApproval != tt.approval {
			t.Errorf("Decide(rm, %+v) = %+v from %q", tt.ann, rule, source)
		}
	}
}

func jwt(payload string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"HS256"}`)) + "." + enc([]byte(payload)) + ".sig"
}

func TestJWTScopes(t *testing.T) {
	tests := []struct {
		token  string
		want   []string
		wantOK bool
	}{
		{jwt(`{"scope":"tools:read tools:call"}`), []string{"tools:read", "tools:call"}, true},
		{jwt(`{"scp":["a","b"]}`), []string{"a", "b"}, true},
		{jwt(`{"scp":"a b","scope":"c"}`), []string{"c", "a", "b"}, true},
		{jwt(`{"sub":"alice"}`), []string{}, true},
		{"opaque-token", nil, false},
		{"a.!!!.c", nil, false},
	}
	for _, tt := range tests {
		got, ok := JWTScopes(tt.token)
		if ok != tt.wantOK || !cmp.Equal(got, tt.want) {
			t.Errorf("JWTScopes(%s) = %q, %v; want %q, %v", tt.token, got, ok, tt.want, tt.wantOK)
		}
	}
	if got := MissingScopes([]string{"a", "b", "c"}, []string{"b"}); !cmp.Equal(got, []string{"a", "c"}) {
		t.Errorf("MissingScopes = %q", got)
	}
}

func TestLimiter(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	// Separate limiters stand for separate processes: only the file is shared.
	take := func(key string, limit int) (bool, time.Time) {
		t.Helper()
		ok, next, err := (&Limiter{Dir: dir, Now: clock}).Take(key, limit)
		if err != nil {
			t.Fatal(err)
		}
		return ok, next
	}
	for i := range 2 {
		if ok, _ := take("srv add", 2); !ok {
			t.Fatalf("call %d refused", i+1)
		}
		now = now.Add(10 * time.Second)
	}
	ok, next := take("srv add", 2)
	if ok {
		t.Fatal("third call within a minute allowed")
	}
	if want := time.Unix(1_800_000_060, 0); !next.Equal(want) {
		t.Errorf("next slot = %v, want %v", next, want)
	}
	if ok, _ := take("srv echo", 2); !ok {
		t.Error("another tool shares the count")
	}
	now = time.Unix(1_800_000_060, 1)
	if ok, _ := take("srv add", 2); !ok {
		t.Error("call after the window refused")
	}
	if ok, _ := take("srv add", 0); !ok {
		t.Error("limit 0 refused")
	}
}

func TestLimiterConcurrent(t *testing.T) {
	dir := t.TempDir()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		allowed int
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, _, err := (&Limiter{Dir: dir, LockWait: time.Minute}).Take("k", 3)
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if allowed != 3 {
		t.Errorf("%d calls allowed, want 3", allowed)
	}
}

func TestLint(t *testing.T) {
	p, err := Parse([]byte("add:\n  sensitivity: low\nrm:\n  sensitivity: low\nghost:\n  sensitivity: low\nx_*:\n  sensitivity: low\n"))
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	tools := []Tool{{Name: "add"}, {Name: "rm", Annotations: Annotations{Destructive: &yes}}, {Name: "echo"}}
	var got []string
	for _, f := range Lint(p, tools) {
		got = append(got, f.ID+" "+f.Tool+f.Entry)
	}
	want := []string{LintLowDestructive + " rmrm", LintNoEntry + " echo", LintUnknownTool + " ghost", LintUnknownTool + " x_*"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}
