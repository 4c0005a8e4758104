package cmd

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/signing"
	"github.com/mcpctl/mcpctl/transport"
)

// signKeyHelp describes --key on every sign subcommand.
const signKeyHelp = "The HMAC key, as `env:NAME` or file:PATH (never the key itself)"

// exampleKey is the key the Example blocks export, so that they work when
// pasted in order.
const exampleKey = `  export MCP_SIGNING_KEY='a long random secret'`

// NewCmdSign builds `mcpctl sign` and its subcommands.
func NewCmdSign(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sign <command>",
		Short: "Sign and check payloads, requests and tokens offline",
		Long: `Work with mcpctl's signed tool calls (docs/signing.md) without a server:
sign a JSON payload or check a signature of one, print a complete signed
tools/call request, mint an HS256 JWT for a test server, or decode one.

Keys are given only as env:NAME or file:PATH, so they stay out of shell
history and process listings; they are never printed.

To sign calls to a server and verify its answers, use mcpctl call with
--sign-key and --verify-key.`,
		Example: exampleKey + `
  mcpctl sign request echo message=hi --key env:MCP_SIGNING_KEY
  mcpctl sign jwt --key env:MCP_SIGNING_KEY --sub alice | mcpctl sign inspect - --key env:MCP_SIGNING_KEY`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return flagErrorf("sign needs a subcommand: payload, verify, request, jwt or inspect (see mcpctl sign --help)")
		},
	}
	cmd.AddCommand(
		NewCmdSignPayload(f, nil),
		NewCmdSignVerify(f, nil),
		NewCmdSignRequest(f, nil),
		NewCmdSignJWT(f, nil),
		NewCmdSignInspect(f, nil),
	)
	return cmd
}

// requireKey refuses a missing --key as a usage error.
func requireKey(spec string) error {
	if spec == "" {
		return flagErrorf("--key is required: the HMAC key as env:NAME or file:PATH")
	}
	return nil
}

// addKeyFlags adds the --key and --canonical flags the sign commands that
// compute an HMAC share.
func addKeyFlags(cmd *cobra.Command, key, canonical *string) {
	cmd.Flags().StringVar(key, "key", "", signKeyHelp)
	addCanonicalFlag(cmd, canonical)
}

// checkKeyFlags refuses a missing --key or an unknown --canonical form as
// usage errors.
func checkKeyFlags(key, canonical string) error {
	if err := requireKey(key); err != nil {
		return err
	}
	return checkCanonical(canonical)
}

// readInput reads the file name, or standard input for "" and "-".
func readInput(f *Factory, name, what string) ([]byte, error) {
	if name == "" || name == "-" {
		if name == "" && f.IOStreams.IsStdinTTY() {
			return nil, flagErrorf("no %s: give a FILE, or - to read standard input", what)
		}
		data, err := io.ReadAll(f.IOStreams.In)
		if err != nil {
			return nil, fmt.Errorf("reading the %s from standard input: %w", what, err)
		}
		return data, nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("reading the %s: %w", what, err)
	}
	return data, nil
}

// --- sign payload ---

// SignPayloadOptions are the options of `mcpctl sign payload`.
type SignPayloadOptions struct {
	Factory       *Factory
	File          string // "" or "-" for standard input
	Key           string
	Canonical     string
	KID           string
	ShowCanonical bool
}

// payloadSignature is what sign payload prints: the parts of a signature
// object that do not depend on a nonce or a timestamp.
type payloadSignature struct {
	Alg   string `json:"alg"`
	KID   string `json:"kid,omitempty"`
	Value string `json:"value"`
}

// NewCmdSignPayload builds `mcpctl sign payload`. runF replaces the run
// function in tests.
func NewCmdSignPayload(f *Factory, runF func(*SignPayloadOptions) error) *cobra.Command {
	opts := &SignPayloadOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "payload [FILE | -] --key env:NAME [flags]",
		Short: "Sign a JSON payload",
		Long: `Print the HMAC-SHA256 signature of a JSON payload (a file, or standard
input) in the chosen canonical form. The value is the HMAC of the canonical
bytes, exactly as mcpctl computes it for a request or result payload such as
{"tool":…,"params":…,"nonce":…,"timestamp":…}: compare it with your server's
to find where the two differ. --show-canonical prints the canonical bytes on
stderr.`,
		Example: exampleKey + `
  echo '{"b":1.0,"a":"hi"}' > payload.json
  mcpctl sign payload payload.json --key env:MCP_SIGNING_KEY
  mcpctl sign payload payload.json --key env:MCP_SIGNING_KEY --canonical python --show-canonical
  echo '{"tool":"echo","params":{}}' | mcpctl sign payload - --key env:MCP_SIGNING_KEY --kid k1`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.File = args[0]
			}
			if err := checkKeyFlags(opts.Key, opts.Canonical); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return signPayloadRun(opts)
		},
	}
	addKeyFlags(cmd, &opts.Key, &opts.Canonical)
	cmd.Flags().StringVar(&opts.KID, "kid", "", "Key `id` to show in the signature object")
	cmd.Flags().BoolVar(&opts.ShowCanonical, "show-canonical", false, "Also print the canonical bytes on stderr")
	return cmd
}

// canonicalPayload reads and canonicalises the payload of sign payload and
// sign verify.
func canonicalPayload(f *Factory, file, form string, show bool) ([]byte, error) {
	data, err := readInput(f, file, "payload")
	if err != nil {
		return nil, err
	}
	// Text readers may take for two values cannot be signed or verified
	// (I-JSON); the check walks the raw text, before any decoding.
	if err := signing.CheckIJSON(data, ""); err != nil {
		return nil, err
	}
	canon, err := signing.Canonical(form, data)
	if err != nil {
		return nil, fmt.Errorf("the payload cannot be put in %s canonical form: %w", form, err)
	}
	if show {
		fmt.Fprintf(f.IOStreams.ErrOut, "%s\n", canon)
	}
	return canon, nil
}

func signPayloadRun(opts *SignPayloadOptions) error {
	f := opts.Factory
	key, err := opts.Factory.LoadKey("key", opts.Key)
	if err != nil {
		return err
	}
	canon, err := canonicalPayload(f, opts.File, opts.Canonical, opts.ShowCanonical)
	if err != nil {
		return fmt.Errorf("signing: %w", err)
	}
	return f.printer().JSON(payloadSignature{Alg: signing.AlgHMACSHA256, KID: opts.KID, Value: signing.Sign(key, canon)})
}

// --- sign verify ---

// SignVerifyOptions are the options of `mcpctl sign verify`.
type SignVerifyOptions struct {
	Factory       *Factory
	File          string
	Key           string
	Canonical     string
	Signature     string
	ShowCanonical bool
}

// NewCmdSignVerify builds `mcpctl sign verify`. runF replaces the run
// function in tests.
func NewCmdSignVerify(f *Factory, runF func(*SignVerifyOptions) error) *cobra.Command {
	opts := &SignVerifyOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "verify [FILE | -] --key env:NAME --signature HEX [flags]",
		Short: "Check the signature of a JSON payload",
		Long: `Check that HEX is the HMAC-SHA256 of the payload's canonical form under the
key. Prints "signature valid" and exits 0, or exits 6 with the length and a
SHA-256 prefix of mcpctl's canonical payload (never the expected value), so
you can compare them with yours.`,
		Example: exampleKey + `
  echo '{"b":1.0,"a":"hi"}' > payload.json
  mcpctl sign verify payload.json --key env:MCP_SIGNING_KEY --signature 5040fef799c91f43555760632cdcad936e5b319ef0fd49b62623923fb62a394d
  mcpctl sign verify payload.json --key env:MCP_SIGNING_KEY --canonical python --signature 556d6f9563b65367012f31d3608df745ceff681441fd5d4b5b8ff3892c70ccd2`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.File = args[0]
			}
			if err := checkKeyFlags(opts.Key, opts.Canonical); err != nil {
				return err
			}
			if b, err := hex.DecodeString(opts.Signature); err != nil || len(b) != 32 {
				return flagErrorf("--signature must be the 64 hex digits of an HMAC-SHA256 value")
			}
			if runF != nil {
				return runF(opts)
			}
			return signVerifyRun(opts)
		},
	}
	addKeyFlags(cmd, &opts.Key, &opts.Canonical)
	cmd.Flags().StringVar(&opts.Signature, "signature", "", "The signature value to check, 64 `hex` digits")
	cmd.Flags().BoolVar(&opts.ShowCanonical, "show-canonical", false, "Also print the canonical bytes on stderr")
	return cmd
}

func signVerifyRun(opts *SignVerifyOptions) error {
	f := opts.Factory
	key, err := opts.Factory.LoadKey("key", opts.Key)
	if err != nil {
		return err
	}
	canon, err := canonicalPayload(f, opts.File, opts.Canonical, opts.ShowCanonical)
	if ije := (*signing.IJSONError)(nil); errors.As(err, &ije) {
		return &signing.VerifyError{Reason: signing.ErrAmbiguousPayload, Detail: ije.Error()}
	}
	if err != nil {
		return err
	}
	if !signing.Equal(strings.ToLower(opts.Signature), signing.Sign(key, canon)) {
		return &signing.VerifyError{Reason: signing.ErrValueMismatch, Detail: fmt.Sprintf(
			"--signature is not the HMAC-SHA256 of the %s canonical payload (%d bytes, sha256 %s) under the key; check the key and the canonical form (jcs or python)",
			opts.Canonical, len(canon), sha256Prefix(canon))}
	}
	_, err = fmt.Fprintln(f.IOStreams.Out, "signature valid")
	return err
}

// --- sign request ---

// SignRequestOptions are the options of `mcpctl sign request`.
type SignRequestOptions struct {
	Factory   *Factory
	Tool      string
	Args      []string
	ArgsJSON  string
	Key       string
	Canonical string
	Timestamp string // --sign-timestamp: signing.TimestampRFC3339 or signing.TimestampUnix
	KID       string
	ID        int64
}

// NewCmdSignRequest builds `mcpctl sign request`. runF replaces the run
// function in tests.
func NewCmdSignRequest(f *Factory, runF func(*SignRequestOptions) error) *cobra.Command {
	opts := &SignRequestOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "request <tool> [key=value | key:=json | key=@file ...] --key env:NAME [flags]",
		Short: "Print a signed tools/call request",
		Long: `Print a complete JSON-RPC tools/call request, signed with a fresh nonce and
the current time, on one line: ready for curl -d or a stdio server's
standard input. Its params are those mcpctl call --sign-key sends, without
the progress token.

No server is asked for the tool's inputSchema, so key=value values stay
strings; give other types as key:=json (n:=3, ok:=true, tags:='["a"]'), or
the whole object with --args.`,
		Example: exampleKey + `
  mcpctl sign request echo message=hi --key env:MCP_SIGNING_KEY
  mcpctl sign request add a:=2 b:=3 --key env:MCP_SIGNING_KEY --canonical python --id 7
  mcpctl sign request add a:=2 b:=3 --key env:MCP_SIGNING_KEY --canonical python --sign-timestamp unix
  mcpctl sign request add --args '{"a":2,"b":3}' --key env:MCP_SIGNING_KEY --kid k1`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Tool, opts.Args = args[0], args[1:]
			if err := checkKeyFlags(opts.Key, opts.Canonical); err != nil {
				return err
			}
			if err := checkSignTimestamp(opts.Timestamp); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return signRequestRun(opts)
		},
	}
	addKeyFlags(cmd, &opts.Key, &opts.Canonical)
	addSignTimestampFlag(cmd, &opts.Timestamp)
	cmd.Flags().StringVar(&opts.KID, "kid", "", "Key `id` written in the signature")
	cmd.Flags().Int64Var(&opts.ID, "id", 1, "JSON-RPC request `id`")
	cmd.Flags().StringVar(&opts.ArgsJSON, "args", "", "The arguments as a JSON object, @file, or - for stdin")
	return cmd
}

func signRequestRun(opts *SignRequestOptions) error {
	f := opts.Factory
	args, err := schema.ParseArgs(opts.Args, nil, schema.ArgOptions{Stdin: f.IOStreams.In, ArgsJSON: opts.ArgsJSON, MaxSize: transport.DefaultMaxMessageSize})
	if err != nil {
		return err
	}
	so := &SignOptions{LoadKey: f.LoadKey, SignKey: opts.Key, Canonical: opts.Canonical, Timestamp: opts.Timestamp, KID: opts.KID, MaxSkew: signing.DefaultMaxSkew}
	data, err := client.MarshalArguments(args)
	if err != nil {
		return err
	}
	// The client's own builder, with the hook mcpctl call uses: the request
	// printed is the request mcpctl call --sign-key would send (without the
	// progress token), signed over the bytes it carries.
	var nonce string
	msg, err := client.NewCallToolRequest(opts.ID, opts.Tool, data, client.CallOptions{Sign: so.signHook(&nonce)})
	if err != nil {
		return err
	}
	line := append(msg, '\n')
	_, err = f.IOStreams.Out.Write(line)
	return err
}

// --- sign jwt ---
