package cmd

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/signing"
)

// SignOptions are the flags that sign a tools/call request and verify the
// signature of its result (docs/signing.md). Keys are named by env:NAME or
// file:PATH and loaded once, by validate; they are never printed, and never
// reach the wire or a --trace file: only signatures do.
type SignOptions struct {
	SignKey   string // key spec of --sign-key; "" means do not sign
	VerifyKey string // key spec of --verify-key; "" means do not verify
	Canonical string // signing.FormJCS or signing.FormPython
	// Timestamp is how the request signature's timestamp is written:
	// signing.TimestampRFC3339 (the default) or signing.TimestampUnix.
	Timestamp string
	KID       string
	MaxSkew   time.Duration
	// LoadKey loads a key spec for the flag it was given to: the
	// Factory's (see [Factory.LoadKey]), so that env:NAME is read from the
	// run's environment. It must be set when a key is given.
	LoadKey func(flag, spec string) ([]byte, error)

	loaded    bool
	signKey   []byte
	verifyKey []byte
	now       func() time.Time // nil means time.Now; tests set it
}

// addSignFlags registers the call-signing flags on cmd.
func addSignFlags(cmd *cobra.Command, o *SignOptions) {
	inTopic(cmd, topicSigning, func() { registerSignFlags(cmd, o) })
}

// registerSignFlags is [addSignFlags] without the help topic.
func registerSignFlags(cmd *cobra.Command, o *SignOptions) {
	fs := cmd.Flags()
	fs.StringVar(&o.SignKey, "sign-key", "", "Sign the request with the HMAC key in `env:NAME|file:PATH`")
	fs.StringVar(&o.VerifyKey, "verify-key", "", "Verify the result's signature with the key in `env:NAME|file:PATH` (exit 6 if it fails; needs --sign-key)")
	addCanonicalFlag(cmd, &o.Canonical)
	addSignTimestampFlag(cmd, &o.Timestamp)
	fs.StringVar(&o.KID, "kid", "", "Key `id` written in the request signature")
	fs.DurationVar(&o.MaxSkew, "max-skew", signing.DefaultMaxSkew, "How far the result signature's timestamp may be from this clock")
}

// addCanonicalFlag registers --canonical, shared by call and the sign commands.
func addCanonicalFlag(cmd *cobra.Command, form *string) {
	cmd.Flags().StringVar(form, "canonical", signing.FormJCS, "Canonical JSON `form` that signatures cover: jcs or python")
}

// addSignTimestampFlag registers --sign-timestamp, shared by call and sign request.
func addSignTimestampFlag(cmd *cobra.Command, style *string) {
	cmd.Flags().StringVar(style, "sign-timestamp", signing.TimestampRFC3339,
		"Write the request signature's timestamp as `rfc3339` or unix (seconds, like Python's time.time())")
	_ = cmd.RegisterFlagCompletionFunc("sign-timestamp", cobra.FixedCompletions(
		[]string{signing.TimestampRFC3339, signing.TimestampUnix}, cobra.ShellCompDirectiveNoFileComp))
}

// checkSignTimestamp refuses an unknown --sign-timestamp value as a usage error.
func checkSignTimestamp(style string) error {
	if style != signing.TimestampRFC3339 && style != signing.TimestampUnix {
		return flagErrorf("invalid --sign-timestamp %q: expected %s or %s", style, signing.TimestampRFC3339, signing.TimestampUnix)
	}
	return nil
}

// checkCanonical refuses an unknown --canonical value as a usage error.
func checkCanonical(form string) error {
	if form != signing.FormJCS && form != signing.FormPython {
		return flagErrorf("invalid --canonical %q: expected %s or %s", form, signing.FormJCS, signing.FormPython)
	}
	return nil
}

func (o *SignOptions) loadKey(flag, spec string) ([]byte, error) {
	if o.LoadKey == nil {
		return nil, fmt.Errorf("--%s: internal error: no key loader", flag)
	}
	return o.LoadKey(flag, spec)
}

// validate checks the flags and loads the keys, once. Errors are usage
// errors.
func (o *SignOptions) validate() error {
	if o.loaded {
		return nil
	}
	if err := checkCanonical(o.Canonical); err != nil {
		return err
	}
	if o.Timestamp == "" {
		o.Timestamp = signing.TimestampRFC3339
	}
	if err := checkSignTimestamp(o.Timestamp); err != nil {
		return err
	}
	if o.MaxSkew <= 0 {
		return flagErrorf("--max-skew must be positive, got %s", o.MaxSkew)
	}
	if o.VerifyKey != "" && o.SignKey == "" {
		return flagErrorf("--verify-key needs --sign-key: a signed result echoes the nonce of a signed request")
	}
	var err error
	if o.SignKey != "" {
		if o.signKey, err = o.loadKey("sign-key", o.SignKey); err != nil {
			return err
		}
	}
	if o.VerifyKey != "" {
		if o.verifyKey, err = o.loadKey("verify-key", o.VerifyKey); err != nil {
			return err
		}
	}
	o.loaded = true
	return nil
}

// verifying reports whether results are to be verified.
func (o *SignOptions) verifying() bool { return o.VerifyKey != "" }

func (o *SignOptions) clock() time.Time {
	if o.now != nil {
		return o.now()
	}
	return time.Now()
}

// Sign signs a call to tool with arguments exactly as sent, for the
// pipeline's signing stage ([session.Signer]); it returns the signature
// and the nonce in it, which the result must echo.
func (o *SignOptions) Sign(tool string, arguments json.RawMessage) (any, string, error) {
	if err := o.validate(); err != nil {
		return nil, "", err
	}
	sig, err := signing.SignRequestAs(o.signKey, o.Canonical, o.KID, o.Timestamp, tool, arguments, o.clock())
	if err != nil {
		return nil, "", err
	}
	return sig, sig.Nonce, nil
}

// signHook returns the hook that signs a tools/call for
// client.CallOptions.Sign when --sign-key is given, and nil without it. The
// hook stores the nonce it chose in *nonce.
func (o *SignOptions) signHook(nonce *string) func(tool string, arguments json.RawMessage) (any, error) {
	if o.SignKey == "" {
		return nil
	}
	return func(tool string, arguments json.RawMessage) (any, error) {
		sig, n, err := o.Sign(tool, arguments)
		*nonce = n
		return sig, err
	}
}

// VerifyResult checks the signature of raw, the result of calling tool
// with a request signed with nonce, for the pipeline's verification stage
// ([session.Verifier]). It returns nil or a *signing.VerifyError (exit
// code 6).
func (o *SignOptions) VerifyResult(tool string, raw json.RawMessage, nonce string) error {
	if !o.verifying() {
		return nil
	}
	if err := o.validate(); err != nil {
		return err
	}
	return signing.VerifyResult(o.verifyKey, o.Canonical, tool, raw, nonce, o.clock(), o.MaxSkew)
}

// stages returns the pipeline's signing and verification stages these
// options ask for, nil for each that is not asked for.
func (o *SignOptions) stages() (session.Signer, session.Verifier) {
	var (
		s session.Signer
		v session.Verifier
	)
	if o == nil {
		return nil, nil
	}
	if o.SignKey != "" {
		s = o
	}
	if o.verifying() {
		v = o
	}
	return s, v
}

// verifiedJSON is what -o json prints when a result was verified: the
// protocol result unchanged, and mcpctl's verdict beside it rather than
// inside it.
type verifiedJSON struct {
	Result json.RawMessage `json:"result"`
	MCPCtl struct {
		SignatureVerified bool `json:"signatureVerified"`
	} `json:"mcpctl"`
}

// jsonOutput is the value -o json prints for a result: the protocol result
// as the server sent it, or, when --verify-key was given (and verification
// passed), {"result": <protocol result>, "mcpctl": {"signatureVerified": true}}.
func (o *SignOptions) jsonOutput(raw json.RawMessage) any {
	if !o.verifying() {
		return raw
	}
	v := verifiedJSON{Result: raw}
	v.MCPCtl.SignatureVerified = true
	return v
}
