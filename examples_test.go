package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// The examples runner: `docexamples run SOURCE...` runs every command line
// the documentation shows, as written, and lists (with the reason) those
// it cannot run here. A SOURCE is a Markdown file (its ```sh and ```bash
// blocks, and the "$ " lines of its ```console blocks) or the word "help":
// the Examples of `mcpctl --help` and of every command's --help, read from
// the mcpctl on the script's PATH, so that a new command or example is
// covered without a list to update.
//
// The lines of one block (one fenced block, one command's Examples) run in
// order in a folder of their own, which holds links to the repository's top
// level (README.md, docs/, …) as a fresh clone does; a `cd` or `export`
// line carries over to the block's later lines. $EVERYTHING is the
// installed server-everything, and `npx -y @modelcontextprotocol/server-everything`
// runs it too; HOME is the block's own, and the go command is offline
// (GOPROXY=off, the module cache of mcpctl's build). An example passes when
// it exits with the status its trailing comment announces ("# … (exit 5)"),
// or without one, with 0: an example that shows a failure says so, and any
// other status fails the script. A here-document's lines are part of the
// command that opens it.
//
// An example is listed rather than run when the documentation marks it
// (a trailing comment with "needs: WHAT", or an HTML comment
// `<!-- needs: WHAT -->` just before a fenced block, for all of its lines),
// or when it needs what a test must not use: the network (a URL that is not
// 127.0.0.1, npx or npm fetching packages), a browser (auth login), a human
// (a command that runs until interrupted), a server the reader runs (a
// local URL, a server command, file, test files or scaffolded project that
// does not exist, a named server the block did not add) or the reader's
// shell setup. An example on --demo is never listed for want of a network
// or a server: the runner fails instead.
//
// What ran and what was listed go to $WORK/examples-ran.txt and
// $WORK/examples-listed.txt (source, line, status or reason), and the
// listed ones to the test log.

// everythingNPX is how the documentation starts server-everything.
const everythingNPX = "npx -y @modelcontextprotocol/server-everything"

// docExample is one command line of the documentation.
type docExample struct {
	source string // "README.md:203", "mcpctl call --help"
	block  int    // lines of one block share a folder, cd and export
	line   string
	marked string // what the documentation says the line needs
}

// exampleWorkers is how many blocks run at once. Blocks share nothing
// but the document's exports, which are known before any line runs, and
// most of an example's time is spent waiting (on node, a server's sleep,
// the go command), so a few run side by side.
const exampleWorkers = 3

// exampleOutcome is what became of one example: run (with its status) or
// listed (with the reason).
type exampleOutcome struct {
	listed string // why it was not run, or ""
	status string // "ok", "ok (exit N)" or why it failed, when run
	fatal  string // a rule the runner breaks: the script fails at once
}

// runExamples is `docexamples run SOURCE...`.
func runExamples(ts *testscript.TestScript, sources []string) {
	var all []docExample
	// A source numbers its blocks from first, the one after the last
	// source's last block: a document counts every fenced block, run or
	// not, so its blocks may outnumber its examples.
	first := 0
	for _, src := range sources {
		var exs []docExample
		if src == "help" {
			exs = helpExamples(ts, first)
		} else {
			data, err := os.ReadFile(ts.MkAbs(src))
			ts.Check(err)
			exs = markdownExamples(filepath.Base(src), string(data), first)
		}
		if len(exs) == 0 {
			ts.Fatalf("%s has no examples", src)
		}
		first = exs[len(exs)-1].block + 1
		all = append(all, exs...)
	}

	// Each example's prelude (its block's cd lines and the document's
	// exports so far) depends only on the lines before it, so it is
	// worked out first, and the blocks then run in any order.
	type job struct {
		first, end int // the block's examples: all[first:end]
		dir        string
		prelude    []string // at the block's start
	}
	var jobs []job
	var prelude []string
	doc := ""
	for i, ex := range all {
		if i == 0 || ex.block != all[i-1].block {
			// An export holds for the rest of a document, as in the
			// reader's shell; a cd only for its block.
			src, _, _ := strings.Cut(ex.source, ":")
			if src != doc {
				prelude = nil
			}
			doc = src
			prelude = slices.DeleteFunc(prelude, func(l string) bool { return !strings.HasPrefix(l, "export ") })
			jobs = append(jobs, job{first: i, dir: exampleDir(ts, ex.block), prelude: slices.Clone(prelude)})
		}
		jobs[len(jobs)-1].end = i + 1
		// A line the documentation marks is listed, not run, and so
		// changes nothing for the lines after it.
		if line := strings.ReplaceAll(ex.line, everythingNPX, "$EVERYTHING"); isStateLine(line) && ex.marked == "" && !needsMarkRE.MatchString(line) {
			prelude = append(prelude, line)
		}
	}

	outcomes := make([]exampleOutcome, len(all))
	var mu sync.Mutex
	done := map[string]string{} // prelude + line → its status, to run each once
	work := make(chan job)
	var wg sync.WaitGroup
	for range exampleWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				prelude := slices.Clone(j.prelude)
				var added []string // servers the block added
				for i := j.first; i < j.end; i++ {
					ex := all[i]
					line := strings.ReplaceAll(ex.line, everythingNPX, "$EVERYTHING")
					cwd := blockCwd(j.dir, prelude)
					why, fatal := exampleNeeds(ts, ex, line, cwd, added)
					if fatal != "" {
						outcomes[i].fatal = fatal
						break
					}
					if why != "" {
						outcomes[i].listed = why
						continue
					}
					key := strings.Join(prelude, "\n") + "\n" + line
					mu.Lock()
					status, seen := done[key]
					mu.Unlock()
					if !seen || isStateful(line) {
						status = runExample(ts, j.dir, prelude, line, expectedExit(line))
						mu.Lock()
						done[key] = status
						mu.Unlock()
					}
					if isStateLine(line) {
						prelude = append(prelude, line)
					}
					if name, ok := addsServer(ex.line); ok && strings.HasPrefix(status, "ok") {
						added = append(added, name)
					}
					outcomes[i].status = status
				}
			}
		}()
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()

	var ran, listed, failed []string
	for i, ex := range all {
		o := outcomes[i]
		switch {
		case o.fatal != "":
			ts.Fatalf("%s", o.fatal)
		case o.listed != "":
			listed = append(listed, fmt.Sprintf("%s\t%s\t%s", ex.source, ex.line, o.listed))
			ts.Logf("not run (%s): %s: %s", o.listed, ex.source, ex.line)
		case o.status != "":
			ran = append(ran, fmt.Sprintf("%s\t%s\t%s", ex.source, ex.line, o.status))
			if !strings.HasPrefix(o.status, "ok") {
				failed = append(failed, fmt.Sprintf("%s: %s\n\t%s", ex.source, ex.line, o.status))
			}
		}
	}
	write := func(name string, lines []string) {
		ts.Check(os.WriteFile(ts.MkAbs(name), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	}
	write("examples-ran.txt", ran)
	write("examples-listed.txt", listed)
	ts.Logf("%d examples ran, %d listed as not runnable here", len(ran), len(listed))
	if len(failed) > 0 {
		ts.Fatalf("%d documented examples failed:\n%s", len(failed), strings.Join(failed, "\n"))
	}
}

// markdownExamples extracts the command lines of a Markdown document's
// ```sh, ```bash and ```console blocks, numbering blocks from first.
func markdownExamples(name, doc string, first int) []docExample {
	var (
		out     []docExample
		inBlock bool
		console bool
		marked  string
		block   = first
		prev    string // the last non-blank line outside blocks
		pending string // a line continued with a backslash
		start   int
		heredoc string   // the word that ends the here-document being read
		hereDoc []string // the example's lines so far, when one is
	)
	lines := strings.Split(doc, "\n")
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "```") {
			if inBlock {
				// A mark belongs to the block right after it only.
				inBlock, prev = false, ""
				continue
			}
			lang := strings.TrimPrefix(trimmed, "```")
			if lang == "sh" || lang == "bash" || lang == "console" {
				inBlock, console, block = true, lang == "console", block+1
				marked = ""
				if m := needsComment.FindStringSubmatch(prev); m != nil {
					marked = m[1]
				}
			} else if lang != "" {
				inBlock, console = true, true // a block of another language: skip its lines
				block++
				marked = "-"
			}
			continue
		}
		if !inBlock {
			if trimmed != "" {
				prev = trimmed
			}
			continue
		}
		if marked == "-" {
			continue
		}
		if heredoc != "" {
			// A here-document's body is part of its command, up to the
			// line that ends it.
			hereDoc = append(hereDoc, l)
			if strings.TrimSpace(l) == heredoc {
				out[len(out)-1].line = strings.Join(hereDoc, "\n")
				heredoc, hereDoc = "", nil
			}
			continue
		}
		if console {
			if !strings.HasPrefix(l, "$ ") {
				continue
			}
			l = strings.TrimPrefix(l, "$ ")
		}
		if pending == "" {
			start = i + 1
		}
		if more, ok := continued(l); ok {
			pending += more
			continue
		}
		l, pending = pending+l, ""
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		out = append(out, docExample{source: fmt.Sprintf("%s:%d", name, start), block: block, line: strings.TrimSpace(l), marked: marked})
		if m := hereDocStart.FindStringSubmatch(l); m != nil {
			heredoc, hereDoc = m[1], []string{strings.TrimSpace(l)}
		}
	}
	return out
}

// hereDocStart finds a here-document's start on a shell line: <<EOF,
// <<'EOF', <<"EOF" or <<-EOF.
var hereDocStart = regexp.MustCompile(`<<-?\s*['"]?(\w+)['"]?`)

// continued reports whether a shell line goes on on the next one (a
// trailing backslash, pipe or && / ||), and what of it to keep.
func continued(l string) (string, bool) {
	t := strings.TrimRight(l, " ")
	switch {
	case strings.HasSuffix(t, "\\"):
		return strings.TrimSuffix(t, "\\") + " ", true
	case strings.HasSuffix(t, "|"), strings.HasSuffix(t, "&&"):
		return t + " ", true
	}
	return "", false
}

// needsComment is the mark before a fenced block: <!-- needs: WHAT -->.
var needsComment = regexp.MustCompile(`^<!--\s*needs:\s*(.*?)\s*-->$`)

// helpExamples walks the commands of the mcpctl on PATH through their
// --help output and returns the lines of each one's Examples section, one
// block per command.
func helpExamples(ts *testscript.TestScript, first int) []docExample {
	var out []docExample
	block := first
	var walk func(path []string)
	walk = func(path []string) {
		if len(path) > 3 {
			// mcpctl's tree is three levels deep at most: a deeper path
			// means a help page listed as a command what is not one.
			ts.Fatalf("mcpctl %s: deeper than any command; a help page lists a command that is not one", strings.Join(path, " "))
		}
		help := mcpctlHelp(ts, path)
		block++
		name := strings.Join(append([]string{"mcpctl"}, path...), " ") + " --help"
		pending := ""
		for _, l := range helpSection(help, func(h string) bool { return h == "Examples:" }) {
			if more, ok := continued(l); ok {
				pending += more
				continue
			}
			l, pending = strings.TrimSpace(pending+l), ""
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			out = append(out, docExample{source: name, block: block, line: l})
		}
		for _, l := range helpSection(help, func(h string) bool { return strings.HasSuffix(h, "Commands:") }) {
			f := strings.Fields(l)
			if len(f) == 0 || f[0] == "help" {
				continue
			}
			walk(append(slices.Clone(path), f[0]))
		}
	}
	walk(nil)
	return out
}

// mcpctlHelp is the --help output of the command at path.
func mcpctlHelp(ts *testscript.TestScript, path []string) string {
	bin, err := lookPath(ts, "mcpctl")
	ts.Check(err)
	c := exec.Command(bin, append(slices.Clone(path), "--help")...)
	c.Env = append(environ(ts), "COLUMNS=200")
	out, err := c.Output()
	if err != nil {
		ts.Fatalf("mcpctl %s --help: %v", strings.Join(path, " "), err)
	}
	return string(out)
}

// helpSection returns the lines of the sections whose heading (a line
// that is not indented and ends with ":") is chosen, up to the next
// heading; blank lines inside a section are kept.
func helpSection(help string, chosen func(heading string) bool) []string {
	var out []string
	in := false
	for _, l := range strings.Split(help, "\n") {
		if l != "" && l[0] != ' ' && l[0] != '\t' {
			in = strings.HasSuffix(l, ":") && chosen(l)
			continue
		}
		if in {
			out = append(out, l)
		}
	}
	return out
}

// exampleDir makes the folder of a block: links to the repository's top
// level, and a home of its own.
func exampleDir(ts *testscript.TestScript, block int) string {
	dir := ts.MkAbs(fmt.Sprintf("examples/%d", block))
	ts.Check(os.MkdirAll(filepath.Join(dir, "home"), 0o755))
	repo := ts.Getenv("REPO")
	entries, err := os.ReadDir(repo)
	ts.Check(err)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || e.Name() == "home" {
			continue
		}
		ts.Check(os.Symlink(filepath.Join(repo, e.Name()), filepath.Join(dir, e.Name())))
	}
	return dir
}

// isStateLine reports whether a line changes what the block's later lines
// see beyond files: its directory or environment.
func isStateLine(line string) bool {
	return strings.HasPrefix(line, "cd ") || strings.HasPrefix(line, "export ")
}

// isStateful reports whether a line's effect is on files, so that running
// it once for another block does not do for this one.
func isStateful(line string) bool {
	return !strings.HasPrefix(line, "mcpctl ") || strings.Contains(line, ">") || strings.Contains(line, "--save-dir") ||
		strings.Contains(line, "--record") || strings.Contains(line, "--file") || strings.HasPrefix(line, "mcpctl servers") ||
		strings.HasPrefix(line, "mcpctl scaffold")
}

// blockCwd is the folder the block's cd lines lead to.
func blockCwd(dir string, prelude []string) string {
	cwd := dir
	for _, l := range prelude {
		if d, ok := strings.CutPrefix(l, "cd "); ok {
			d, _, _ = strings.Cut(d, "&&")
			cwd = filepath.Join(cwd, strings.TrimSpace(d))
		}
	}
	return cwd
}

// addsServer reports the name a `mcpctl servers add NAME` line adds.
func addsServer(line string) (string, bool) {
	f := strings.Fields(line)
	if len(f) >= 4 && f[0] == "mcpctl" && f[1] == "servers" && f[2] == "add" {
		return f[3], true
	}
	return "", false
}

var (
	urlRE       = regexp.MustCompile(`https?://[^\s'"]+`)
	needsMarkRE = regexp.MustCompile(`#.*\bneeds:\s*([^)#]*)`)
	inputFileRE = regexp.MustCompile(`^(?:@|exec:|<)?(\.?\.?/?[\w./-]+\.(?:json|ya?ml|txt|ndjson|md|py|sh|js))$`)
)

// exampleNeeds says why an example cannot run here ("" when it can): what
// the documentation marks, else what the rules of the runner find. fatal
// reports an example the runner must not list. It only reads ts, so blocks
// call it from their own goroutines.
func exampleNeeds(ts *testscript.TestScript, ex docExample, line, cwd string, added []string) (why, fatal string) {
	if ex.marked != "" {
		return "marked: " + ex.marked, ""
	}
	if m := needsMarkRE.FindStringSubmatch(line); m != nil {
		return "marked: " + strings.TrimSpace(m[1]), ""
	}
	code, _, _ := strings.Cut(line, " #") // the trailing comment says nothing to run
	words := strings.Fields(code)
	demo := slices.Contains(words, "--demo")
	why = ruleNeeds(ts, words, code, cwd, added)
	// The demo server is built in: what an example on it may lack is a
	// file or a person, never a network or another server.
	if demo && (strings.HasPrefix(why, "the network") || strings.HasPrefix(why, "a server") || strings.HasPrefix(why, "a browser")) {
		return why, fmt.Sprintf("%s: %s: an example on --demo must run, but the runner would list it (%s): fix the example or the rule", ex.source, ex.line, why)
	}
	return why, ""
}

func ruleNeeds(ts *testscript.TestScript, words []string, code, cwd string, added []string) string {
	has := func(w string) bool { return slices.Contains(words, w) }
	sub := func(i int) string {
		if i < len(words) {
			return words[i]
		}
		return ""
	}
	if strings.Contains(code, "$EVERYTHING") && ts.Getenv("EVERYTHING") == "" {
		return "server-everything, which is not installed (bash scripts/install-tools.sh)"
	}
	mcpctl := sub(0) == "mcpctl"
	offline := mcpctl && (sub(1) == "sign" || sub(1) == "servers" || sub(1) == "completion" || sub(1) == "scaffold")
	switch {
	case strings.Contains(code, "scripts/"):
		return "the repository's own scripts (development)"
	case mcpctl && sub(1) == "auth" && sub(2) == "login":
		return "a browser (and the network): auth login"
	case strings.Contains(code, "npx ") || has("npm") && has("install") || has("curl") || has("uvx") || has("docker") ||
		sub(0) == "go" && sub(1) == "install":
		return "the network: packages or a remote server"
	}
	for _, u := range urlRE.FindAllString(code, -1) {
		pu, err := url.Parse(u)
		if err != nil {
			continue
		}
		local := pu.Hostname() == "127.0.0.1" || pu.Hostname() == "localhost"
		switch {
		case !local && !offline:
			return "the network: " + pu.Host
		case local && !offline && has("--url"):
			return "a server the reader runs at " + u
		}
	}
	if strings.Contains(code, "${fpath") || strings.Contains(code, "> ~/") || has("Invoke-Expression") {
		return "the reader's shell setup"
	}
	if strings.HasSuffix(strings.TrimSpace(code), "&") || mcpctl && sub(1) == "watch" && !has("--duration") ||
		mcpctl && sub(1) == "mock" && has("--http") || mcpctl && sub(1) == "shell" && len(words) == 3 && !strings.Contains(code, "|") {
		return "a human: it runs until interrupted, or reads a terminal"
	}
	for i, w := range words {
		if (w == "-s" || w == "--server") && i+1 < len(words) && !slices.Contains(added, words[i+1]) {
			return "a server named " + words[i+1] + " in the reader's config"
		}
	}
	if mcpctl && sub(1) == "servers" && (sub(2) == "show" || sub(2) == "remove" || sub(2) == "trust" || sub(2) == "untrust") && sub(3) != "" && !strings.HasPrefix(sub(3), "-") &&
		!slices.Contains(added, sub(3)) {
		return "a server named " + sub(3) + " in the reader's config"
	}
	if mcpctl && sub(1) == "servers" && (sub(2) == "trust" || sub(2) == "untrust") && has("--all") {
		return "the reader's project files (.mcp.json and the like)"
	}
	if mcpctl && sub(1) == "scaffold" && sub(2) == "tool" {
		proj := cwd
		if i := slices.Index(words, "--dir"); i >= 0 && i+1 < len(words) {
			proj = filepath.Join(cwd, words[i+1])
		}
		if _, err := os.Stat(filepath.Join(proj, ".mcpctl-scaffold.json")); err != nil {
			return "a project made by mcpctl scaffold server, to run in"
		}
	}
	if mcpctl && sub(1) == "test" && !has("--init") && !hasTestFiles(cwd, words[2:]) {
		return "the reader's test files (mcpctl-tests/ or *.mcptest.yaml)"
	}
	// A stdio server after "--": a program on PATH, or a file here.
	if i := slices.Index(words, "--"); i >= 0 && i+1 < len(words) && mcpctl {
		prog := words[i+1]
		if strings.HasPrefix(prog, "$") {
			if ts.Getenv(strings.Trim(prog, "${}")) == "" {
				return "server-everything, which is not installed (bash scripts/install-tools.sh)"
			}
		} else if strings.Contains(prog, "/") {
			if _, err := os.Stat(filepath.Join(cwd, prog)); err != nil {
				return "the reader's server " + prog
			}
		} else if _, err := lookPath(ts, prog); err != nil {
			return "a server the reader names: " + prog
		} else if i+2 < len(words) && (prog == "python3" || prog == "node" || prog == "python") {
			if _, err := os.Stat(filepath.Join(cwd, words[i+2])); err != nil {
				return "the reader's server " + prog + " " + words[i+2]
			}
		}
	}
	// Input files the reader has.
	for i, w := range words {
		w = strings.Trim(w, `'"`)
		if strings.HasPrefix(w, "~/") && (i == 0 || words[i-1] != ">") {
			return "the reader's file " + w
		}
		m := inputFileRE.FindStringSubmatch(w)
		if m == nil || i > 0 && slices.Contains([]string{"--junit", "--record", "--file", "--save-dir", ">", "--dir"}, words[i-1]) {
			continue
		}
		if _, err := os.Stat(filepath.Join(cwd, m[1])); err != nil && !producedEarlier(words, i) {
			return "the reader's file " + m[1]
		}
	}
	for _, tool := range []string{"go", "npm", "node", "python3", "jq", "bash"} {
		if sub(0) == tool || strings.Contains(code, "&& "+tool+" ") || strings.Contains(code, "| "+tool+" ") {
			if _, err := exec.LookPath(tool); err != nil {
				return tool + ", which is not installed"
			}
		}
	}
	return ""
}

// hasTestFiles reports whether `mcpctl test ARGS` finds test files in
// cwd: a file or folder it names, or mcpctl-tests/ or *.mcptest.yaml.
func hasTestFiles(cwd string, args []string) bool {
	for i, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") || i > 0 && strings.HasPrefix(args[i-1], "-") && !strings.Contains(args[i-1], "=") {
			continue
		}
		if _, err := os.Stat(filepath.Join(cwd, a)); err == nil {
			return true
		}
	}
	if _, err := os.Stat(filepath.Join(cwd, "mcpctl-tests")); err == nil {
		return true
	}
	m, _ := filepath.Glob(filepath.Join(cwd, "*.mcptest.yaml"))
	return len(m) > 0
}

// producedEarlier reports whether the file at words[i] is written by the
// same line before it is read (echo … > f && mcpctl … f).
func producedEarlier(words []string, i int) bool {
	for j := 0; j < i; j++ {
		if words[j] == ">" && j+1 < len(words) && words[j+1] == words[i] {
			return true
		}
	}
	return false
}

// exitMarkRE finds the status an example's trailing comment announces:
// "# … (exit 5)".
var exitMarkRE = regexp.MustCompile(`#.*\bexit (\d+)\b`)

// expectedExit is the status the line's comment announces, or -1.
func expectedExit(line string) int {
	m := exitMarkRE.FindStringSubmatch(line)
	if m == nil {
		return -1
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return -1
	}
	return n
}

// exampleTimeout bounds one example: server-everything starts node, and
// scaffolded projects build with go.
const exampleTimeout = 3 * time.Minute

// allowedExit are the statuses with which an example that announces none
// has run as written: success only. One that shows a failure says which
// ("# … (exit 5)"), so a failure the documentation does not expect is
// caught.
var allowedExit = []int{0}

// runExample runs line with bash in the block's folder after its cd and
// export lines, and returns "ok" (with the status when not 0) or why it
// failed, with the end of its output.
func runExample(ts *testscript.TestScript, dir string, prelude []string, line string, want int) string {
	script := "set -o pipefail\n" + strings.Join(prelude, "\n") + "\n" + line + "\n"
	ctx, cancel := context.WithTimeout(context.Background(), exampleTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, "bash", "-c", script)
	c.Dir = dir
	env := environ(ts)
	// The go command's settings from main_test.go (module and build
	// caches), offline: a scaffolded project must build from the cache.
	for _, k := range []string{"GOPATH", "GOMODCACHE", "GOCACHE", "GOENV", "GOFLAGS", "GOTOOLCHAIN", "npm_config_cache", "npm_config_userconfig"} {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	env = append(env, "GOPROXY=off", "HOME="+filepath.Join(dir, "home"), "MCPCTL_TIMEOUT=5m", "XDG_CONFIG_HOME="+filepath.Join(dir, "home", ".config"),
		"BROWSER=false", "EVERYTHING="+ts.Getenv("EVERYTHING"))
	c.Env = env
	c.Stdin = nil // /dev/null: a command that reads a terminal ends at once
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	killGroupOnCancel(c)
	c.WaitDelay = 10 * time.Second
	start := time.Now()
	err := c.Run()
	if os.Getenv("MCPCTL_EXAMPLES_PROGRESS") == "1" {
		fmt.Fprintf(os.Stderr, "example (%v): %s\n", time.Since(start).Round(time.Millisecond), line)
	}
	status := 0
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return fmt.Sprintf("did not finish within %v: %s", exampleTimeout, tail(out.String()))
	case errors.As(err, &exitErr):
		status = exitErr.ExitCode()
	case err != nil:
		return fmt.Sprintf("could not run: %v", err)
	}
	if want >= 0 && status != want {
		return fmt.Sprintf("exit status %d, but the documentation says %d: %s", status, want, tail(out.String()))
	}
	if want < 0 && !slices.Contains(allowedExit, status) {
		return fmt.Sprintf("exit status %d: %s", status, tail(out.String()))
	}
	if status != 0 {
		return fmt.Sprintf("ok (exit %d)", status)
	}
	return "ok"
}

// tail is the last lines of an example's output, for a failure message.
func tail(s string) string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > 6 {
		lines = lines[len(lines)-6:]
	}
	return strings.Join(lines, "\n\t")
}
