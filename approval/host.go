package approval

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The host path: the messages that ask the host's own user to approve a
// held call, and the readers of the answers. They do no I/O; the proxy
// sends and receives them.

// Protocol revisions the host path depends on: elicitation came in
// elicitationSince, its "mode" field in modeSince, and input-required
// results (multi-round requests) in inputRequiredSince. Revisions are
// dates, so they compare as strings.
const (
	elicitationSince   = "2025-06-18"
	modeSince          = "2025-11-25"
	inputRequiredSince = "2026-07-28"
)

// FieldApprove is the yes/no field of the form the host's user answers.
const FieldApprove = "approve"

// InputKey is the key of the approval question in an input-required
// result's inputRequests, and of its answer in the retry's inputResponses.
const InputKey = "mcpctl-approval"

// statePrefix starts the requestState of an approval question, which is
// how a retry of a held call is told from one a server asked for.
const statePrefix = "mcpctl-approval/v1/"

// maxShownArguments bounds the arguments shown in the question: a form is
// no place for a megabyte of JSON, and the queue keeps them whole.
const maxShownArguments = 2048

// Prompt is what the host's user is shown about a held call.
type Prompt struct {
	// ID is the call's ID in the [Store], so that a person at a terminal
	// can decide it too.
	ID     string
	Server string
	Tool   string
	// Arguments are the call's arguments, sensitive ones already masked.
	Arguments json.RawMessage
}

// message is the question's text.
func (p Prompt) message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mcpctl proxy holds a call to the tool %q", p.Tool)
	if p.Server != "" {
		fmt.Fprintf(&b, " of %s", p.Server)
	}
	b.WriteString(" until someone approves it.\n")
	args := bytes.TrimSpace(p.Arguments)
	if len(args) == 0 {
		args = []byte("{}")
	}
	if len(args) > maxShownArguments {
		cut := maxShownArguments
		for cut > 0 && !utf8.RuneStart(args[cut]) {
			cut--
		}
		args = append(args[:cut:cut], fmt.Sprintf("… (%d bytes in all)", len(p.Arguments))...)
	}
	fmt.Fprintf(&b, "Arguments: %s\n", args)
	b.WriteString("Approve this call?")
	if p.ID != "" {
		fmt.Fprintf(&b, " (Or from a terminal: mcpctl proxy approve %s)", p.ID)
	}
	return b.String()
}

// formParams is an elicitation/create request's params in form mode.
type formParams struct {
	Mode            string     `json:"mode,omitempty"`
	Message         string     `json:"message"`
	RequestedSchema formSchema `json:"requestedSchema"`
}

// formSchema is the requestedSchema: a flat object of one boolean, which
// every revision's restricted schema allows.
type formSchema struct {
	Type       string                `json:"type"`
	Properties map[string]boolSchema `json:"properties"`
	Required   []string              `json:"required"`
}

type boolSchema struct {
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Default     bool   `json:"default"`
}

func form(version string, p Prompt) formParams {
	fp := formParams{
		Message: p.message(),
		RequestedSchema: formSchema{
			Type: "object",
			Properties: map[string]boolSchema{FieldApprove: {
				Type:        "boolean",
				Title:       "Approve",
				Description: "Yes lets the call through to the server; no refuses it.",
			}},
			Required: []string{FieldApprove},
		},
	}
	if version >= modeSince {
		fp.Mode = "form"
	}
	return fp
}

// ElicitParams returns the params of the elicitation/create request that
// asks the host's user about a held call in a legacy-era session
// (version 2025-06-18 or 2025-11-25); earlier revisions have no
// elicitation.
func ElicitParams(version string, p Prompt) (json.RawMessage, error) {
	if version < elicitationSince {
		return nil, fmt.Errorf("protocol %s has no elicitation (it came in %s)", version, elicitationSince)
	}
	return marshal(form(version, p))
}

// elicitResult is an ElicitResult, read leniently.
type elicitResult struct {
	Action  string                     `json:"action"`
	Content map[string]json.RawMessage `json:"content"`
}

// ParseElicitResult reads the host's answer to the question: an accept
// whose approve field is yes approves the call (by [ByHost]); a decline,
// a cancel, a no or anything unreadable denies it, with a reason saying
// which. The verdict's Time is left for [Store.Decide] to set.
func ParseElicitResult(result json.RawMessage) Verdict {
	var r elicitResult
	if err := json.Unmarshal(result, &r); err != nil {
		return Verdict{By: ByHost, Reason: "the host's answer to the approval question was not readable"}
	}
	switch r.Action {
	case "accept":
		if yes(r.Content[FieldApprove]) {
			return Verdict{Approved: true, By: ByHost}
		}
		return Verdict{By: ByHost, Reason: "the host's user answered no"}
	case "decline":
		return Verdict{By: ByHost, Reason: "the host's user declined it"}
	case "cancel":
		return Verdict{By: ByHost, Reason: "the host's user dismissed the question"}
	}
	return Verdict{By: ByHost, Reason: fmt.Sprintf("the host answered the approval question with action %q", r.Action)}
}

// yes reads the approve field: a boolean true, or the strings "true" and
// "yes" from a host that sends form values as text.
func yes(v json.RawMessage) bool {
	var b bool
	if json.Unmarshal(v, &b) == nil {
		return b
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		s = strings.ToLower(strings.TrimSpace(s))
		return s == "true" || s == "yes"
	}
	return false
}

// inputRequest is one of an input-required result's inputRequests.
type inputRequest struct {
	Method string     `json:"method"`
	Params formParams `json:"params"`
}

// inputRequiredResult is the InputRequiredResult the proxy answers a held
// tools/call with in the 2026-07-28 era.
type inputRequiredResult struct {
	ResultType    string                  `json:"resultType"`
	InputRequests map[string]inputRequest `json:"inputRequests"`
	RequestState  string                  `json:"requestState"`
}

// InputRequired returns the result of a held tools/call in a session of
// the 2026-07-28 era or later: an input-required result asking the host's
// user the question, whose requestState names the held call and binds it
// to the tool and the call's arguments (args, unmasked), so that the
// host's retry can be matched to the held call ([ParseRetry]) and cannot
// carry the approval over to other arguments.
func InputRequired(version string, p Prompt, args json.RawMessage) (json.RawMessage, error) {
	if version < inputRequiredSince {
		return nil, fmt.Errorf("protocol %s has no input-required results (they came in %s)", version, inputRequiredSince)
	}
	if !validID(p.ID) {
		return nil, fmt.Errorf("input-required result for held call %q: not an ID the queue gives", p.ID)
	}
	d, err := digest(p.Tool, args)
	if err != nil {
		return nil, err
	}
	return marshal(inputRequiredResult{
		ResultType:    "input_required",
		InputRequests: map[string]inputRequest{InputKey: {Method: "elicitation/create", Params: form(version, p)}},
		RequestState:  statePrefix + p.ID + "/" + d,
	})
}

// digest binds a call: a hash of the tool's name and its arguments in a
// canonical form (keys sorted, numbers as written), so that a host that
// re-encodes the arguments on retry still matches.
func digest(tool string, args json.RawMessage) (string, error) {
	canon := []byte("{}")
	if err := CheckArguments(args); err != nil {
		return "", err
	}
	if a := bytes.TrimSpace(args); len(a) > 0 && string(a) != "null" {
		dec := json.NewDecoder(bytes.NewReader(a))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return "", fmt.Errorf("the call's arguments are not JSON: %w", err)
		}
		var err error
		if canon, err = json.Marshal(v); err != nil {
			return "", err
		}
	}
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(canon)
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// TwiceGivenError reports arguments in which an object gives a member
// twice, or in two cases ("path" and "Path"): encoding/json reads the last
// copy whatever its case, some servers' parsers the first or only the one
// in the case they expect, so what a person approves could be other than
// what the server runs.
type TwiceGivenError struct {
	// Member is the member's name; Other the other case it is given in,
	// empty when it is given twice as written.
	Member, Other string
}

func (e *TwiceGivenError) Error() string {
	if e.Other != "" {
		return fmt.Sprintf("its arguments give the member %q twice (also as %q), and a server may read either copy", e.Member, e.Other)
	}
	return fmt.Sprintf("its arguments give the member %q twice, and a server may read either copy", e.Member)
}

// CheckArguments returns a [*TwiceGivenError] when an object anywhere in
// args gives a member twice, and an error for arguments that are not
// JSON; empty or null arguments pass.
func CheckArguments(args json.RawMessage) error {
	a := bytes.TrimSpace(args)
	if len(a) == 0 || string(a) == "null" || !bytes.ContainsRune(a, '{') {
		return nil
	}
	if err := checkMembers(json.NewDecoder(bytes.NewReader(a))); err != nil {
		if _, ok := err.(*TwiceGivenError); ok {
			return err
		}
		return fmt.Errorf("the call's arguments are not JSON: %w", err)
	}
	return nil
}

// checkMembers reads one JSON value from dec, failing at the first
// member an object gives twice.
func checkMembers(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		// The names given so far, by their case-folded form.
		names := map[string]string{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			name, _ := k.(string)
			if first, ok := names[foldCase(name)]; ok {
				e := &TwiceGivenError{Member: first}
				if first != name {
					e.Other = name
				}
				return e
			}
			names[foldCase(name)] = name
			if err := checkMembers(dec); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	case json.Delim('['):
		for dec.More() {
			if err := checkMembers(dec); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	return nil
}

// foldCase maps s to one form for all its case variants, as
// encoding/json matches member names: each rune becomes the least of its
// simple case folding orbit (K, k and the Kelvin sign alike).
func foldCase(s string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, s)
}

// Retry is a host's retry of a tools/call held with [InputRequired].
type Retry struct {
	// ID is the held call's ID in the [Store].
	ID string
	// Verdict is the host's user's answer; a retry without one is denied.
	Verdict Verdict
	digest  string
}

// Matches reports whether the retry is for the call of tool with args
// that was held: a host that changed the arguments between the question
// and the retry gets no approval for the new ones.
func (r Retry) Matches(tool string, args json.RawMessage) bool {
	d, err := digest(tool, args)
	return err == nil && d == r.digest
}

// retryParams are the members of a retried tools/call's params that
// answer an input-required result.
type retryParams struct {
	RequestState   string                     `json:"requestState"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

// ParseRetry reads a tools/call's params for the answer to an approval
// question. ok is false when the call is not a retry of one (no
// requestState of the proxy's; a server's own multi-round state passes
// through untouched). The caller must also check that r.ID is a call it
// holds, and [Retry.Matches].
func ParseRetry(params json.RawMessage) (r Retry, ok bool, err error) {
	var rp retryParams
	if err := json.Unmarshal(params, &rp); err != nil {
		return Retry{}, false, fmt.Errorf("tools/call params: %w", err)
	}
	rest, ok := strings.CutPrefix(rp.RequestState, statePrefix)
	if !ok {
		return Retry{}, false, nil
	}
	id, d, found := strings.Cut(rest, "/")
	if !found || !validID(id) || d == "" {
		return Retry{}, true, fmt.Errorf("requestState %q is not one mcpctl proxy gave", rp.RequestState)
	}
	r = Retry{ID: id, digest: d}
	answer, answered := rp.InputResponses[InputKey]
	if !answered {
		r.Verdict = Verdict{By: ByHost, Reason: "the host retried the call without its user's answer"}
	} else {
		r.Verdict = ParseElicitResult(answer)
	}
	return r, true, nil
}

// StripRetry returns a retried call's params without requestState and
// inputResponses, which answered the proxy and mean nothing to the
// server: the call it forwards is the one the host first sent. Every
// other member keeps its bytes.
func StripRetry(params json.RawMessage) (json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if err := json.Unmarshal(params, &fields); err != nil {
		return nil, fmt.Errorf("tools/call params: %w", err)
	}
	delete(fields, "requestState")
	delete(fields, "inputResponses")
	return marshal(fields)
}

// ProgressToken returns the progressToken of a request's params
// (params._meta.progressToken), if the host asked for progress.
func ProgressToken(params json.RawMessage) (json.RawMessage, bool) {
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return nil, false
	}
	t := bytes.TrimSpace(p.Meta.ProgressToken)
	if len(t) == 0 || string(t) == "null" {
		return nil, false
	}
	return t, true
}

// progressParams are a notifications/progress's params.
type progressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         float64         `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

// Progress returns a notifications/progress message (the whole JSON-RPC
// notification) for a held call whose request carried token: progress
// must grow from one notification to the next (the seconds waited, say),
// total is left out when zero.
func Progress(token json.RawMessage, progress, total float64, message string) ([]byte, error) {
	return marshal(struct {
		JSONRPC string         `json:"jsonrpc"`
		Method  string         `json:"method"`
		Params  progressParams `json:"params"`
	}{"2.0", "notifications/progress", progressParams{token, progress, total, message}})
}

// WaitingMessage is the text of a progress notification for a held call.
func WaitingMessage(id string, left float64) string {
	return fmt.Sprintf("waiting for approval of call %s (mcpctl proxy approve %s), %.0f s left", id, id, left)
}

// marshal encodes v without escaping <, > and &, so that arguments shown
// to a person read as they were written.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
