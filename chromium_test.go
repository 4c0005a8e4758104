package main

import (
	"fmt"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// chromiumFlags start Debian's Chromium headless on a machine whose
// network is closed: without the background-networking flags it keeps
// trying Google's hosts, and as root it runs only without its sandbox.
var chromiumFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
}

// The window size of the screenshots.
const chromiumWidth, chromiumHeight = 1280, 900

// chromiumAvailable reports whether Debian's Chromium is on PATH, for the
// scripts that open a page in it; under CI (see interopRequired) its
// absence is an error, not a skip: scripts/install-tools.sh installs it.
func chromiumAvailable() (bool, error) {
	if _, err := exec.LookPath("chromium"); err != nil {
		if interopRequired() {
			return false, fmt.Errorf("chromium is required under CI (CI=true or MCPCTL_REQUIRE_INTEROP=1); as root, bash scripts/install-tools.sh installs Debian's: %w", err)
		}
		return false, nil
	}
	return true, nil
}

// artifactsDir is where tests leave what a person may want to look at
// after a run (screenshots): $MCPCTL_ARTIFACTS, or .ci/artifacts/ in the
// repository (git-ignored).
func artifactsDir(repo string) string {
	if d := os.Getenv("MCPCTL_ARTIFACTS"); d != "" {
		return d
	}
	return filepath.Join(repo, ".ci", "artifacts")
}

// chromium dump-dom PAGE[#FRAGMENT] opens a file of the script's in headless
// Chromium and prints the DOM after the page's scripts ran, for stdout
// assertions.
//
// chromium screenshot PAGE[#FRAGMENT] PNG writes a screenshot of the page,
// 1280×900, to PNG (its folder is created) and checks that it is a PNG of
// that size with something drawn on it.
//
// Each run gets a new empty profile.
func cmdChromium(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: chromium dump-dom PAGE[#FRAGMENT] | chromium screenshot PAGE[#FRAGMENT] PNG")
	}
	page, frag, _ := strings.Cut(args[1], "#")
	u := url.URL{Scheme: "file", Path: ts.MkAbs(page), Fragment: frag}
	// Chromium puts a socket in TMPDIR, and the script's ($WORK/.tmp) can
	// be longer than a socket's path may be: it gets a short one of its
	// own, with the profile in it, removed when it is done.
	tmp, err := os.MkdirTemp("", "chromium-")
	ts.Check(err)
	defer os.RemoveAll(tmp)
	scriptTmp := ts.Getenv("TMPDIR")
	ts.Setenv("TMPDIR", tmp)
	defer ts.Setenv("TMPDIR", scriptTmp)
	flags := append(append([]string(nil), chromiumFlags...), "--user-data-dir="+filepath.Join(tmp, "profile"))
	switch {
	case args[0] == "dump-dom" && len(args) == 2:
		runChromium(ts, append(flags, "--dump-dom", u.String()))
	case args[0] == "screenshot" && len(args) == 3:
		shot := ts.MkAbs(args[2])
		ts.Check(os.MkdirAll(filepath.Dir(shot), 0o755))
		size := fmt.Sprintf("--window-size=%d,%d", chromiumWidth, chromiumHeight)
		runChromium(ts, append(flags, "--screenshot="+shot, size, u.String()))
		checkScreenshot(ts, shot)
	default:
		ts.Fatalf("usage: chromium dump-dom PAGE[#FRAGMENT] | chromium screenshot PAGE[#FRAGMENT] PNG")
	}
}

// runChromium runs chromium with args, keeping its stdout and stderr for
// the script's assertions as exec does, and shows its stderr when it fails.
func runChromium(ts *testscript.TestScript, args []string) {
	if err := ts.Exec("chromium", args...); err != nil {
		ts.Logf("[chromium stderr]\n%s", ts.ReadFile("stderr"))
		ts.Fatalf("chromium: %v", err)
	}
}

// checkScreenshot fails unless path is a PNG of the window's size in more
// than two colours: a blank or one-colour page is not a rendered page.
func checkScreenshot(ts *testscript.TestScript, path string) {
	f, err := os.Open(path)
	ts.Check(err)
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		ts.Fatalf("%s: %v", path, err)
	}
	if got := img.Bounds().Size(); got != image.Pt(chromiumWidth, chromiumHeight) {
		ts.Fatalf("%s is %dx%d, want %dx%d", path, got.X, got.Y, chromiumWidth, chromiumHeight)
	}
	colours := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y && len(colours) <= 2; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, bl, a}] = true
		}
	}
	if len(colours) <= 2 {
		ts.Fatalf("%s has %d colours: nothing was rendered", path, len(colours))
	}
	ts.Logf("screenshot: %s", path)
}
