package testserver

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/mcpctl/mcpctl/internal/signserver"
	"github.com/mcpctl/mcpctl/signing"
)

// signFlags configure the sign mode.
type signFlags struct {
	keyEnv    string
	mode      string
	canonical string
	kid       string
}

func (f *signFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.keyEnv, "sign-key-env", "MCPCTL_TEST_KEY", "sign mode: `NAME` of the environment variable holding the HMAC key")
	fs.StringVar(&f.mode, "sign-mode", signserver.ModeGood, "sign mode: how results are signed (`M`): good, wrong-signature, stale, replay or unsigned")
	fs.StringVar(&f.canonical, "canonical", signing.FormJCS, "sign mode: canonical `form`, jcs or python")
	fs.StringVar(&f.kid, "kid", "", "sign mode: key id `K` written in result signatures")
}

// signMode runs the reference signing server. The key is read from the
// environment; without it the server still starts (so the mode can be
// started like any other) and refuses every tools/call.
func signMode(ctx context.Context, e *env) int {
	s, err := signserver.New(signserver.Options{
		Key:  []byte(os.Getenv(e.sign.keyEnv)),
		Form: e.sign.canonical,
		KID:  e.sign.kid,
		Mode: e.sign.mode,
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "testserver: %v\n", err)
		return exitUsage
	}
	return e.exitStatus(e.serve(ctx, s))
}
