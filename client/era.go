package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mcpctl/mcpctl/transport"
)

// EraAuto, as [Options.Era], detects the server's era on connect: a
// modern request first, then initialize (2026-07-28/basic/versioning,
// "Backward Compatibility with Initialization-Based Versions").
const EraAuto = "auto"

// DefaultProbeTimeout is the bound mcpctl gives the server/discover probe
// of a stdio server: a legacy server may ignore the unknown request, and
// silence is one of its answers.
const DefaultProbeTimeout = 2 * time.Second

// EventEraDetected is the event [Options.OnEvent] receives when the era is
// settled, with a detail saying how.
const EventEraDetected = "era detected"

// Detection sources, as [Detection].Source reports them.
const (
	// SourcePinned: the era came from the options (--era, or a protocol
	// version of one era); nothing was probed.
	SourcePinned = "pinned"
	// SourceProbe: the client asked the server.
	SourceProbe = "probe"
	// SourceCache: a previous detection, given as [Options.KnownEra],
	// held.
	SourceCache = "cache"
)

// Detection says how the session's era was chosen.
type Detection struct {
	// Era is [EraLegacy] or [EraModern].
	Era string `json:"era"`
	// Source is [SourcePinned], [SourceProbe] or [SourceCache].
	Source string `json:"source"`
	// How says in one line what settled it: "server/discover answered
	// (2026-07-28)", "server/discover is unknown to the server (-32601)".
	How string `json:"how"`
	// Remember is the era worth caching for the next connection to the
	// same server: the server's, when an answer showed it. It is "" when
	// nothing new was learnt (pinned, or the cache held) or when the
	// outcome rests on a guess.
	Remember string `json:"-"`
}

// Detection reports how the session's era was chosen.
func (c *Client) Detection() Detection {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.detection
}

// eraOutcome classifies the answer to the era probe.
type eraOutcome int

const (
	outcomeLegacy eraOutcome = iota // any other answer: fall back to initialize
	outcomeModern                   // a DiscoverResult or a recognised modern error
	outcomeFatal                    // an error that says nothing about the era
)

// classifyProbe reads the answer to server/discover as the backward
// compatibility sections of 2026-07-28 say: a DiscoverResult or a
// recognised modern error means a modern server; any other error, whatever
// its code, means a legacy one. Errors of the connection, authorization
// and (over HTTP) timeouts are not answers: they are returned as they are.
// A DiscoverResult that lists no modern revision mcpctl speaks but a
// legacy one it does is a dual-era server that serves the modern era on
// another transport only (the SDKs' stateful HTTP handlers): initialize
// it is.
func classifyProbe(raw json.RawMessage, err error) (eraOutcome, string) {
	if err == nil {
		var res DiscoverResult
		if json.Unmarshal(raw, &res) != nil || len(res.SupportedVersions) == 0 {
			// supportedVersions is required: this is a server answering
			// any method it does not know with an empty result.
			return outcomeLegacy, "server/discover answered with something that is not a DiscoverResult (no supportedVersions)"
		}
		modern := slices.ContainsFunc(res.SupportedVersions, func(v string) bool { return slices.Contains(ModernProtocolVersions(), v) })
		legacy := slices.ContainsFunc(res.SupportedVersions, func(v string) bool { return slices.Contains(SupportedProtocolVersions(), v) })
		if !modern && legacy {
			return outcomeLegacy, fmt.Sprintf("server/discover lists only legacy revisions (%s)", joinVersions(res.SupportedVersions))
		}
		return outcomeModern, fmt.Sprintf("server/discover answered (%s)", joinVersions(res.SupportedVersions))
	}
	var rpc *RPCError
	if errors.As(err, &rpc) {
		if isModernCode(rpc.Code) {
			return outcomeModern, fmt.Sprintf("server/discover answered with the modern error %d", rpc.Code)
		}
		return outcomeLegacy, fmt.Sprintf("server/discover is unknown to the server (error %d)", rpc.Code)
	}
	var he *transport.HTTPError
	if errors.As(err, &he) {
		switch {
		case isModernCode(he.RPCErrorCode):
			return outcomeModern, fmt.Sprintf("server/discover answered with HTTP %d and the modern error %d", he.Status, he.RPCErrorCode)
		case he.Status == 401 || he.Status == 403:
			return outcomeFatal, ""
		}
		return outcomeLegacy, fmt.Sprintf("server/discover refused with HTTP %d", he.Status)
	}
	var pe *ProtocolError
	if errors.As(err, &pe) {
		return outcomeLegacy, "server/discover answered with a malformed message"
	}
	return outcomeFatal, ""
}

// isModernCode reports whether code is one of the errors only modern
// servers send.
func isModernCode(code int) bool {
	return code == CodeHeaderMismatch || code == CodeMissingClientCapability || code == CodeUnsupportedProtocolVersion
}

func joinVersions(v []string) string {
	if len(v) == 0 {
		return "no versions listed"
	}
	s := v[0]
	for _, x := range v[1:] {
		s += ", " + x
	}
	return s
}

// start settles the era and opens the session in it.
func (c *Client) start(ctx context.Context) error {
	switch c.eraMode {
	case EraModern:
		c.setDetection(Detection{Era: EraModern, Source: SourcePinned, How: "pinned"})
		return c.discover(ctx)
	case EraAuto:
		return c.detect(ctx)
	}
	c.setDetection(Detection{Era: EraLegacy, Source: SourcePinned, How: "pinned"})
	return c.initialize(ctx)
}

func (c *Client) setDetection(d Detection) {
	c.mu.Lock()
	c.detection = d
	c.mu.Unlock()
	if c.opts.OnEvent != nil && d.Source != SourcePinned {
		c.opts.OnEvent(EventEraDetected, fmt.Sprintf("%s, from the %s: %s", d.Era, d.Source, d.How))
	}
}

// detect settles the era of a server whose era is not pinned: from the
// cache when it holds, else by probing.
func (c *Client) detect(ctx context.Context) error {
	switch c.opts.KnownEra {
	case EraModern:
		// A modern session needs no handshake: the first request is the
		// command's own, and server/discover is sent only if something
		// needs what it says (see Discover). A server that turns out not
		// to be modern any more is probed again (see call).
		c.modern.Store(true)
		c.setWire(c.wireVersion())
		c.mu.Lock()
		c.lazy = true
		c.mu.Unlock()
		c.setDetection(Detection{Era: EraModern, Source: SourceCache, How: "cached from an earlier detection"})
		return nil
	case EraLegacy:
		err := c.initialize(ctx)
		if err == nil {
			c.setDetection(Detection{Era: EraLegacy, Source: SourceCache, How: "cached from an earlier detection"})
			return nil
		}
		if !legacyRefused(err) {
			return err
		}
		// The server no longer takes initialize: ask it what it is.
	}
	return c.probe(ctx)
}

// legacyRefused reports whether err, the outcome of initialize, may mean
// the server stopped speaking the legacy era: a JSON-RPC error or an HTTP
// refusal, as opposed to a connection that failed.
func legacyRefused(err error) bool {
	var rpc *RPCError
	var he *transport.HTTPError
	var ve *VersionError
	return errors.As(err, &rpc) || errors.As(err, &ve) || (errors.As(err, &he) && he.Status != 401 && he.Status != 403)
}

// probe sends server/discover as a modern request and settles the era on
// the answer. With [Options.ProbeTimeout] (stdio), a server silent past
// the bound gets initialize as well, and whichever answer settles the
// era first wins (see probeRace); without it (HTTP, where every POST is
// answered), the probe is bounded by the request timeout like any request.
func (c *Client) probe(ctx context.Context) error {
	c.setWire(c.wireVersion()) // MCP-Protocol-Version of the probe's POST
	start := time.Now()
	if c.opts.ProbeTimeout <= 0 {
		raw, _, err := c.roundTripAs(ctx, "server/discover", nil, false, true, requestOptions{probe: true})
		return c.settle(ctx, raw, err, start)
	}
	type answer struct {
		raw json.RawMessage
		err error
	}
	probeCtx, cancelProbe := context.WithCancel(ctx)
	defer cancelProbe()
	answers := make(chan answer, 1)
	go func() {
		raw, _, err := c.roundTripAs(probeCtx, "server/discover", nil, false, true, requestOptions{probe: true})
		answers <- answer{raw, err}
	}()
	// The probe's own answer must have time to arrive within the
	// request timeout once initialize is sent too.
	bound := time.NewTimer(min(c.opts.ProbeTimeout, c.opts.Timeout/2))
	defer bound.Stop()
	select {
	case a := <-answers:
		return c.settle(ctx, a.raw, a.err, start)
	case <-bound.C:
	case <-ctx.Done():
		return fmt.Errorf("server/discover: %w", ctx.Err())
	}
	// The handshake as a whole is bounded by the request timeout: the
	// time the probe waited is not given to initialize again.
	hctx := ctx
	if c.opts.Timeout > 0 {
		var cancel context.CancelFunc
		hctx, cancel = context.WithDeadline(ctx, start.Add(c.opts.Timeout))
		defer cancel()
	}
	err := c.probeRace(hctx, func() (json.RawMessage, error) {
		a := <-answers
		return a.raw, a.err
	}, cancelProbe, start)
	var te *TimeoutError
	if errors.As(err, &te) && te.Method == "initialize" && ctx.Err() == nil {
		te.After = c.opts.Timeout
		te.Detail = "server/discover went unanswered, then initialize: the two share the timeout"
	}
	return err
}

// probeRace runs when a stdio server has not answered the probe within
// the bound: it may be a legacy server that ignores unknown requests, or
// any server still starting. initialize goes out too, and the answers
// arrive in the order the server read the requests:
//   - initialize succeeds: legacy, whatever the probe's answer (a dual-era
//     server may now hold the process to legacy semantics). If the probe
//     had a modern answer before it, the server is dual-era and modern is
//     remembered for the next connection; if it had none at all, the
//     server is one that ignores unknown requests, and legacy is.
//   - initialize fails: the probe's answer, when it comes, decides.
func (c *Client) probeRace(ctx context.Context, probeAnswer func() (json.RawMessage, error), cancelProbe func(), start time.Time) error {
	c.legacyWire()
	initDone := make(chan error, 1)
	go func() { initDone <- c.initialize(ctx) }()
	probeDone := make(chan struct{})
	var praw json.RawMessage
	var perr error
	go func() {
		praw, perr = probeAnswer()
		close(probeDone)
	}()
	var initErr error
	select {
	case initErr = <-initDone:
	case <-probeDone:
		// The probe's answer came first: keep it, then take initialize's.
		initErr = <-initDone
	}
	probeAnswered := false
	select {
	case <-probeDone:
		probeAnswered = true
	default:
	}
	if initErr == nil {
		cancelProbe()
		<-probeDone
		d := Detection{Era: EraLegacy, Source: SourceProbe}
		switch outcome, how := classifyProbe(praw, perr); {
		case probeAnswered && outcome == outcomeModern:
			d.How = fmt.Sprintf("initialize answered after server/discover went unanswered for %s; the late %s, so modern is remembered for next time", min(c.opts.ProbeTimeout, c.opts.Timeout/2), how)
			d.Remember = EraModern
		case probeAnswered:
			d.How = fmt.Sprintf("initialize answered; %s", how)
			d.Remember = EraLegacy
		default:
			d.How = "server/discover went unanswered; initialize answered"
			d.Remember = EraLegacy
		}
		c.setDetection(d)
		return nil
	}
	<-probeDone
	if outcome, _ := classifyProbe(praw, perr); outcome == outcomeModern {
		return c.settle(ctx, praw, perr, start)
	}
	return initErr
}

// settle finishes detection on the probe's answer: a modern session on a
// modern answer, initialize on any other, the error itself when it says
// nothing about the era.
func (c *Client) settle(ctx context.Context, raw json.RawMessage, err error, start time.Time) error {
	outcome, how := classifyProbe(raw, err)
	switch outcome {
	case outcomeFatal:
		return err
	case outcomeModern:
		c.modern.Store(true)
		if err := c.acceptDiscover(ctx, raw, err, start); err != nil {
			return err
		}
		c.setDetection(Detection{Era: EraModern, Source: SourceProbe, How: how, Remember: EraModern})
		return nil
	}
	c.legacyWire()
	if err := c.initialize(ctx); err != nil {
		return fmt.Errorf("%w (the server is taken for a legacy one: %s)", err, how)
	}
	c.setDetection(Detection{Era: EraLegacy, Source: SourceProbe, How: how, Remember: EraLegacy})
	return nil
}

// legacyWire gives the connection the legacy revision initialize offers,
// after the modern probe gave it the modern one: with it go the legacy
// rules of the transport (a broken stream is resumed, not lost).
func (c *Client) legacyWire() {
	if s, ok := c.conn.(transport.ProtocolVersionSetter); ok {
		s.SetProtocolVersion(c.opts.ProtocolVersion)
	}
}

// Discover makes sure the session knows what server/discover says (a
// modern session opened from the cache skips it until something needs the
// server's capabilities, name or instructions). It does nothing in a
// legacy session, where initialize told all that, or when it was done.
func (c *Client) Discover(ctx context.Context) error {
	c.mu.Lock()
	lazy := c.lazy
	c.mu.Unlock()
	if !lazy {
		return nil
	}
	if err := c.discover(ctx); err != nil {
		if retry, err := c.staleCache(ctx, err); !retry {
			return err
		}
		return nil // legacy now: initialize told all
	}
	c.mu.Lock()
	c.lazy = false
	c.mu.Unlock()
	return nil
}

// staleCache handles the failure of a modern request of a session opened
// from the cache, before any modern request succeeded: the server may have
// changed eras since it was cached. An error answer (JSON-RPC or an HTTP
// refusal) makes the client probe again: if the server is still modern the
// error was its real answer and is returned; otherwise the session is now
// legacy and the request should be sent again (retry).
func (c *Client) staleCache(ctx context.Context, err error) (retry bool, _ error) {
	c.mu.Lock()
	cached := c.detection.Source == SourceCache && c.detection.Era == EraModern && !c.confirmed
	c.mu.Unlock()
	var rpc *RPCError
	var he *transport.HTTPError
	if !cached || !(errors.As(err, &rpc) || errors.As(err, &he) && he.Status != 401 && he.Status != 403) {
		return false, err
	}
	c.modern.Store(false)
	c.mu.Lock()
	c.lazy = false
	c.confirmed = true // probe once
	c.mu.Unlock()
	if perr := c.probe(ctx); perr != nil {
		return false, fmt.Errorf("%w (the era cached for this server is modern; probing it again failed: %v)", err, perr)
	}
	if c.isModern() {
		return false, err
	}
	return true, nil
}
