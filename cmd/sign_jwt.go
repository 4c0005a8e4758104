package cmd

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/signing"
)

// SignJWTOptions are the options of `mcpctl sign jwt`.
type SignJWTOptions struct {
	Factory  *Factory
	Key      string
	Subject  string
	Scopes   []string
	Audience string
	Issuer   string
	KID      string
	TTL      time.Duration
}

// NewCmdSignJWT builds `mcpctl sign jwt`. runF replaces the run function in
// tests.
func NewCmdSignJWT(f *Factory, runF func(*SignJWTOptions) error) *cobra.Command {
	opts := &SignJWTOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "jwt --key env:NAME [--sub S] [--scope a,b] [--aud A] [--iss I] [--kid K] [--ttl D]",
		Short: "Mint an HS256 JWT for a test server",
		Long: `Mint a bearer token signed with HS256 under the key, for a test server that
checks tokens with a shared key, and print the token alone. iat and nbf are
now, exp is now plus --ttl; scopes become one space-separated "scope" claim.`,
		Example: exampleKey + `
  mcpctl sign jwt --key env:MCP_SIGNING_KEY --sub alice --scope tools:read,tools:call --aud http://127.0.0.1:3001/mcp --ttl 5m
  mcpctl sign jwt --key env:MCP_SIGNING_KEY --sub alice --kid k1 --iss https://auth.example --ttl 1h`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := requireKey(opts.Key); err != nil {
				return err
			}
			if opts.TTL <= 0 {
				return flagErrorf("--ttl must be positive, got %s", opts.TTL)
			}
			if runF != nil {
				return runF(opts)
			}
			return signJWTRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Key, "key", "", signKeyHelp)
	cmd.Flags().StringVar(&opts.Subject, "sub", "", "Subject claim `sub`")
	cmd.Flags().StringSliceVar(&opts.Scopes, "scope", nil, "Scopes, comma-separated or repeated")
	cmd.Flags().StringVar(&opts.Audience, "aud", "", "Audience claim `aud` (the server's resource URI)")
	cmd.Flags().StringVar(&opts.Issuer, "iss", "", "Issuer claim `iss`")
	cmd.Flags().StringVar(&opts.KID, "kid", "", "Key `id` written in the token header")
	durationVar(cmd.Flags(), &opts.TTL, "ttl", 5*time.Minute, "Lifetime: exp is now plus this `duration` (e.g. 10m, or a number of seconds)")
	return cmd
}

func signJWTRun(opts *SignJWTOptions) error {
	key, err := opts.Factory.LoadKey("key", opts.Key)
	if err != nil {
		return err
	}
	token, err := signing.MintJWT(key, signing.JWTClaims{
		Subject:  opts.Subject,
		Scopes:   opts.Scopes,
		Audience: opts.Audience,
		Issuer:   opts.Issuer,
		TTL:      opts.TTL,
		KID:      opts.KID,
	}, time.Now())
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(opts.Factory.IOStreams.Out, token)
	return err
}

// --- sign inspect ---

// SignInspectOptions are the options of `mcpctl sign inspect`.
type SignInspectOptions struct {
	Factory *Factory
	Token   string // "-" for standard input
	Key     string // "" means decode only
}

// NewCmdSignInspect builds `mcpctl sign inspect`. runF replaces the run
// function in tests.
func NewCmdSignInspect(f *Factory, runF func(*SignInspectOptions) error) *cobra.Command {
	opts := &SignInspectOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "inspect <token | -> [--key env:NAME]",
		Short: "Decode a JWT, and verify it with --key",
		Long: `Print a JWT's header and claims as JSON. With --key, also check that it is
HS256, signed with the key and valid now (exp, nbf, iat); if not, the
header and claims are still printed and mcpctl exits 6. Without --key the
token is only decoded, and stderr says so. - reads the token from standard
input, which keeps it out of shell history.`,
		Example: exampleKey + `
  mcpctl sign jwt --key env:MCP_SIGNING_KEY --sub alice | mcpctl sign inspect - --key env:MCP_SIGNING_KEY
  mcpctl sign inspect eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhbGljZSJ9.bm90LXZlcmlmaWVk`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Token = args[0]
			if runF != nil {
				return runF(opts)
			}
			return signInspectRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Key, "key", "", "Verify with the HMAC key in `env:NAME|file:PATH`")
	return cmd
}

// inspectedJWT is what sign inspect prints.
type inspectedJWT struct {
	Header map[string]any `json:"header"`
	Claims map[string]any `json:"claims"`
}

func signInspectRun(opts *SignInspectOptions) error {
	f := opts.Factory
	var key []byte
	if opts.Key != "" {
		var err error
		if key, err = opts.Factory.LoadKey("key", opts.Key); err != nil {
			return err
		}
	}
	token := opts.Token
	if token == "-" {
		data, err := readInput(f, "-", "token")
		if err != nil {
			return err
		}
		token = string(data)
	}
	header, claims, verified, err := signing.InspectJWT(token, key)
	if header == nil {
		if key != nil {
			return &signing.VerifyError{Reason: signing.ErrMalformedSignature, Detail: err.Error()}
		}
		return err
	}
	if perr := f.printer().JSON(inspectedJWT{Header: header, Claims: claims}); perr != nil {
		return perr
	}
	switch {
	case key == nil:
		fmt.Fprintln(f.IOStreams.ErrOut, "not verified (no --key)")
	case verified:
		fmt.Fprintln(f.IOStreams.ErrOut, "signature verified")
	default:
		return &signing.VerifyError{Reason: jwtReason(header, err), Detail: err.Error()}
	}
	return nil
}

// jwtReason names a failed JWT check in the terms of the signing package.
func jwtReason(header map[string]any, err error) error {
	switch {
	case header["alg"] != jwt.SigningMethodHS256.Alg():
		return signing.ErrUnsupportedAlg
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return signing.ErrValueMismatch
	case errors.Is(err, jwt.ErrTokenExpired):
		return signing.ErrTimestampTooOld
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return signing.ErrTimestampInFuture
	}
	return signing.ErrMalformedSignature
}

// sha256Prefix returns the first 8 bytes of the SHA-256 of b in hex: enough
// to compare canonical payloads, and nothing secret.
func sha256Prefix(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
