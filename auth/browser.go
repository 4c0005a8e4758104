package auth

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cli/browser"
)

func init() {
	// github.com/cli/browser writes its opener's output to its own
	// package variables, os.Stdout by default; browsers print notices
	// ("Opening in existing browser session.") that would corrupt
	// mcpctl's output. Set once here, before any goroutine can use them.
	browser.Stdout = os.Stderr
	browser.Stderr = os.Stderr
}

// BrowserOpener returns a function that opens a URL with the user's
// browser, honouring $BROWSER as lookupEnv reads it.
//
// $BROWSER is a list of commands separated by the path list separator
// (":" on Unix), tried in order; a command is split on white space (no
// shell), and "%s" in it is replaced by url, else url is its last
// argument. Without $BROWSER, the platform's opener (xdg-open, open,
// ...) is used. The function returns when the command exits: run it in a
// goroutine when a browser may stay in the foreground. The command's
// output goes to stderr. Only http and https URLs are opened.
func BrowserOpener(lookupEnv func(string) (string, bool)) func(url string) error {
	return func(url string) error {
		if err := checkBrowserURL(url); err != nil {
			return err
		}
		if env, _ := lookupEnv("BROWSER"); strings.TrimSpace(env) != "" {
			return runBrowserEnv(env, url)
		}
		if err := browser.OpenURL(url); err != nil {
			return fmt.Errorf("opening a browser: %w (set $BROWSER, or open the URL yourself)", err)
		}
		return nil
	}
}

// checkBrowserURL allows only http and https URLs: a file: or javascript:
// URL from a hostile server's metadata must never reach an opener.
func checkBrowserURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("opening a browser: %q is not an http(s) URL; refusing to open it", raw)
	}
	return nil
}

// runBrowserEnv runs the commands of $BROWSER in turn until one succeeds.
func runBrowserEnv(env, url string) error {
	var errs []error
	for _, command := range filepath.SplitList(env) {
		args := strings.Fields(command)
		if len(args) == 0 {
			continue
		}
		substituted := false
		for i, a := range args {
			if strings.Contains(a, "%s") {
				args[i] = strings.ReplaceAll(a, "%s", url)
				substituted = true
			}
		}
		if !substituted {
			args = append(args, url)
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Stdout = os.Stderr
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			errs = append(errs, fmt.Errorf("$BROWSER command %q: %w", args[0], err))
			continue
		}
		return nil
	}
	if len(errs) == 0 {
		return errors.New("opening a browser: $BROWSER names no command")
	}
	return fmt.Errorf("opening a browser: %w", errors.Join(errs...))
}
