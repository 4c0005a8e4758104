package loadtest

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/policy"
)

func TestHistogramQuantilesWithinPrecision(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h Histogram
	var vals []time.Duration
	for range 10000 {
		// Spread over six orders of magnitude, as latencies can be.
		v := time.Duration(math.Exp(r.Float64()*14)) * time.Nanosecond
		vals = append(vals, v)
		h.Record(v)
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	for _, q := range []float64{0.5, 0.9, 0.99, 1} {
		want := vals[int(q*float64(len(vals))+0.5)-1]
		got := h.Quantile(q)
		if rel := math.Abs(float64(got-want)) / float64(want); rel > 1.0/subCount {
			t.Errorf("quantile %g = %v, want %v within 1/%d (off by %.4f)", q, got, want, subCount, rel)
		}
	}
	if h.Min() != vals[0] || h.Max() != vals[len(vals)-1] || h.Count() != uint64(len(vals)) {
		t.Errorf("min %v max %v count %d, want %v %v %d", h.Min(), h.Max(), h.Count(), vals[0], vals[len(vals)-1], len(vals))
	}
}

func TestHistogramMerge(t *testing.T) {
	var a, b, all Histogram
	for i := 1; i <= 1000; i++ {
		d := time.Duration(i) * time.Microsecond
		all.Record(d)
		if i%2 == 0 {
			a.Record(d)
		} else {
			b.Record(d)
		}
	}
	a.Merge(&b)
	for _, q := range []float64{0.5, 0.9, 0.99} {
		if a.Quantile(q) != all.Quantile(q) {
			t.Errorf("merged quantile %g = %v, want %v", q, a.Quantile(q), all.Quantile(q))
		}
	}
	if a.Mean() != all.Mean() {
		t.Errorf("merged mean %v, want %v", a.Mean(), all.Mean())
	}
}

func TestCompare(t *testing.T) {
	base := Report{Throughput: 1000, LatencyMS: Latency{P50: 1, P90: 2}}
	tests := []struct {
		name string
		cur  Report
		want bool
	}{
		{"same", base, false},
		{"a little slower", Report{Throughput: 950, LatencyMS: Latency{P50: 1.05, P90: 2.1}}, false},
		{"throughput dropped", Report{Throughput: 800, LatencyMS: Latency{P50: 1, P90: 2}}, true},
		{"p50 rose", Report{Throughput: 1000, LatencyMS: Latency{P50: 1.2, P90: 2}}, true},
		{"faster", Report{Throughput: 2000, LatencyMS: Latency{P50: 0.5, P90: 1}}, false},
	}
	for _, tt := range tests {
		if got := Regressed(Compare(base, tt.cur, 10)); got != tt.want {
			t.Errorf("%s: regressed = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// fakeSession answers every call at once; refuseAfter > 0 makes calls from
// that one on refused by policy.
type fakeSession struct {
	calls       atomic.Int64
	refuseAfter int64
	done        chan struct{}
}

func (f *fakeSession) CallToolWith(context.Context, string, json.RawMessage, client.CallOptions) (*client.CallToolResult, error) {
	n := f.calls.Add(1)
	if f.refuseAfter > 0 && n >= f.refuseAfter {
		return nil, &policy.Refusal{}
	}
	return &client.CallToolResult{IsError: n%10 == 0}, nil
}
func (f *fakeSession) ListTools(context.Context) ([]client.Tool, error) { return nil, nil }
func (f *fakeSession) Ping(context.Context) error                       { return nil }
func (f *fakeSession) Done() <-chan struct{}                            { return f.done }

func TestRunCountsRequestsAndErrors(t *testing.T) {
	s := &fakeSession{done: make(chan struct{})}
	r, err := Run(context.Background(), Options{Target: Target{Tool: "echo", Args: json.RawMessage(`{}`)},
		Sessions: []Session{s}, Concurrency: 4, Requests: 100})
	if err != nil {
		t.Fatal(err)
	}
	if r.Done != 100 || r.Failed != 10 || r.ByKind["isError"] != 10 || r.Latency.Count() != 90 {
		t.Errorf("done %d failed %d kinds %v latencies %d, want 100, 10, isError 10, 90", r.Done, r.Failed, r.ByKind, r.Latency.Count())
	}
}

func TestRunStopsOnPolicyRefusal(t *testing.T) {
	s := &fakeSession{done: make(chan struct{}), refuseAfter: 5}
	_, err := Run(context.Background(), Options{Target: Target{Tool: "echo"},
		Sessions: []Session{s}, Concurrency: 2, Duration: time.Hour})
	if !policy.IsRefusal(err) {
		t.Fatalf("err = %v, want a policy refusal", err)
	}
}
