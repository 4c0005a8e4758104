package loadtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/policy"
	"github.com/mcpctl/mcpctl/session"
)

// Kind names the kind of a request's failure, as reports count them:
// "isError", "timeout", "rpc <code>", "outputSchema", "policy",
// "connection" or "other".
func Kind(err error) string {
	var rpc *client.RPCError
	switch {
	case errors.Is(err, errToolError):
		return "isError"
	case errors.As(err, new(*client.TimeoutError)):
		return "timeout"
	case errors.As(err, &rpc):
		return fmt.Sprintf("rpc %d", rpc.Code)
	case errors.As(err, new(*session.OutputError)):
		return "outputSchema"
	case policy.IsRefusal(err):
		return "policy"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, os.ErrClosed):
		return "connection"
	}
	return "other"
}

// Report is a run's figures as printed and saved (`-o json`), the form a
// baseline for --compare is read in.
type Report struct {
	Target      string `json:"target"`
	Transport   string `json:"transport"`
	Concurrency int    `json:"concurrency"`
	Sessions    int    `json:"sessions"`
	// Requests counts completed requests, failed ones included.
	Requests uint64            `json:"requests"`
	Errors   uint64            `json:"errors"`
	ByKind   map[string]uint64 `json:"errorsByKind,omitempty"`
	Seconds  float64           `json:"seconds"`
	// Throughput is completed requests per second.
	Throughput float64 `json:"throughput"`
	// LatencyMS are the successful requests' latencies in milliseconds.
	LatencyMS Latency `json:"latencyMs"`
}

// Latency are latency figures in milliseconds.
type Latency struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// NewReport turns a run's result into its report.
func NewReport(o Options, transport string, r *Result) Report {
	rep := Report{
		Target: o.Target.String(), Transport: transport,
		Concurrency: o.Concurrency, Sessions: len(o.Sessions),
		Requests: r.Done, Errors: r.Failed, ByKind: r.ByKind,
		Seconds: r.Elapsed.Seconds(),
		LatencyMS: Latency{
			Min: ms(r.Latency.Min()), Mean: ms(r.Latency.Mean()),
			P50: ms(r.Latency.Quantile(0.50)), P90: ms(r.Latency.Quantile(0.90)),
			P99: ms(r.Latency.Quantile(0.99)), Max: ms(r.Latency.Max()),
		},
	}
	if r.Elapsed > 0 {
		rep.Throughput = float64(r.Done) / r.Elapsed.Seconds()
	}
	if len(rep.ByKind) == 0 {
		rep.ByKind = nil
	}
	return rep
}

// WriteText prints the report for a person.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	sessions := "1 session"
	if r.Sessions != 1 {
		sessions = fmt.Sprintf("%d sessions", r.Sessions)
	}
	fmt.Fprintf(&b, "%s over %s: %d requests in %.2fs, concurrency %d (%s)\n",
		r.Target, r.Transport, r.Requests, r.Seconds, r.Concurrency, sessions)
	fmt.Fprintf(&b, "throughput  %.1f requests/s\n", r.Throughput)
	l := r.LatencyMS
	fmt.Fprintf(&b, "latency     min %s  mean %s  p50 %s  p90 %s  p99 %s  max %s\n",
		fmtMS(l.Min), fmtMS(l.Mean), fmtMS(l.P50), fmtMS(l.P90), fmtMS(l.P99), fmtMS(l.Max))
	fmt.Fprintf(&b, "errors      %d", r.Errors)
	kinds := make([]string, 0, len(r.ByKind))
	for k := range r.ByKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for i, k := range kinds {
		sep := ", "
		if i == 0 {
			sep = " ("
		}
		fmt.Fprintf(&b, "%s%s: %d", sep, k, r.ByKind[k])
		if i == len(kinds)-1 {
			b.WriteString(")")
		}
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// fmtMS prints milliseconds with three significant figures or so.
func fmtMS(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0fms", v)
	case v >= 10:
		return fmt.Sprintf("%.1fms", v)
	case v >= 1:
		return fmt.Sprintf("%.2fms", v)
	}
	return fmt.Sprintf("%.0fµs", v*1000)
}

// ReadReport reads a report saved with `-o json`.
func ReadReport(path string) (Report, error) {
	var r Report
	data, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("%s is not a report of mcpctl bench -o json: %w", path, err)
	}
	if r.Requests == 0 || r.Throughput <= 0 {
		return r, fmt.Errorf("%s holds no measurement (no requests, or no throughput)", path)
	}
	return r, nil
}

// Change is one figure of a comparison with a baseline.
type Change struct {
	Figure   string  `json:"figure"`
	Baseline float64 `json:"baseline"`
	Current  float64 `json:"current"`
	// Percent is how much worse the current figure is, in percent of the
	// baseline's (negative: better).
	Percent   float64 `json:"percent"`
	Regressed bool    `json:"regressed"`
}

// Compare compares cur with base: throughput, p50 and p90 latency. A
// figure regressed when it is worse by more than maxPercent.
func Compare(base, cur Report, maxPercent float64) []Change {
	worse := func(figure string, b, c float64, higherIsBetter bool) Change {
		ch := Change{Figure: figure, Baseline: b, Current: c}
		if b > 0 {
			ch.Percent = (c - b) / b * 100
			if higherIsBetter {
				ch.Percent = -ch.Percent
			}
		}
		ch.Regressed = ch.Percent > maxPercent
		return ch
	}
	return []Change{
		worse("throughput", base.Throughput, cur.Throughput, true),
		worse("p50", base.LatencyMS.P50, cur.LatencyMS.P50, false),
		worse("p90", base.LatencyMS.P90, cur.LatencyMS.P90, false),
	}
}

// WriteComparison prints the changes, one a line.
func WriteComparison(w io.Writer, baseline string, changes []Change, maxPercent float64) error {
	var b strings.Builder
	fmt.Fprintf(&b, "compared with %s (a regression is more than %g%% worse):\n", baseline, maxPercent)
	for _, c := range changes {
		verdict := "ok"
		if c.Regressed {
			verdict = "REGRESSED"
		}
		unit := func(v float64) string { return fmtMS(v) }
		if c.Figure == "throughput" {
			unit = func(v float64) string { return fmt.Sprintf("%.1f/s", v) }
		}
		fmt.Fprintf(&b, "  %-10s %s → %s  %+.1f%% worse  %s\n", c.Figure, unit(c.Baseline), unit(c.Current), c.Percent, verdict)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Regressed reports whether any change regressed.
func Regressed(changes []Change) bool {
	for _, c := range changes {
		if c.Regressed {
			return true
		}
	}
	return false
}
