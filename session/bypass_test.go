package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Which packages may hold the raw client or a transport connection: the
// client itself, the session that guards it, the transports, and the test
// servers under internal/. Every other package reaches a server only
// through a [Session], so policy, signing, checks and audit cannot be
// skipped by a new command.
var mayHoldRawClient = map[string]bool{
	"github.com/mcpctl/mcpctl/client":    true,
	"github.com/mcpctl/mcpctl/session":   true,
	"github.com/mcpctl/mcpctl/transport": true,
}

// mayRelayFrames are the packages that may move a host's frames over a
// transport connection themselves: the proxy relays frames byte for byte
// between a host and a server, and is the host's relay, not a client of
// its own. It still may not hold the raw client: requests it governs go
// through a [Session] (issue 34).
var mayRelayFrames = map[string]bool{
	"github.com/mcpctl/mcpctl/proxy": true,
}

// listedPackage is what `go list -json` says of a package.
type listedPackage struct {
	ImportPath string
	Dir        string
	Export     string
	GoFiles    []string
	Module     *struct{ Path string }
}

// TestNoPathAroundThePipeline type-checks every package of the module that
// is not allowed the raw client (cmd above all) and fails on any value of
// type client.Client, any call of client.Connect, and any use of a
// transport.Connection's methods: each would send requests around the
// pipeline.
func TestNoPathAroundThePipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the module")
	}
	pkgs := goList(t)
	exports := map[string]string{}
	for _, p := range pkgs {
		exports[p.ImportPath] = p.Export
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f := exports[path]
		if f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	checked := 0
	for _, p := range pkgs {
		if p.Module == nil || p.Module.Path != "github.com/mcpctl/mcpctl" || mayHoldRawClient[p.ImportPath] ||
			strings.Contains(p.ImportPath, "/internal/") || p.ImportPath == "github.com/mcpctl/mcpctl" {
			continue
		}
		for _, v := range violations(t, fset, imp, p, mayRelayFrames[p.ImportPath]) {
			t.Errorf("%s", v)
		}
		checked++
	}
	if checked < 5 {
		t.Fatalf("checked %d packages; the module's list looks wrong", checked)
	}
}

// violations type-checks one package's non-test files and lists each use
// of the raw client or a transport connection.
func violations(t *testing.T, fset *token.FileSet, imp types.Importer, p listedPackage, relay bool) []string {
	t.Helper()
	var files []*ast.File
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
		t.Fatalf("type-checking %s: %v", p.ImportPath, err)
	}
	return rawUses(fset, info, relay)
}

// rawUses lists the expressions info records that hold the raw client,
// call client.Connect, or (unless relay) use a transport.Connection's
// methods.
func rawUses(fset *token.FileSet, info *types.Info, relay bool) []string {
	var out []string
	for expr, tv := range info.Types {
		if isRawClient(tv.Type) {
			out = append(out, fmt.Sprintf("%s: %s has type %s: send through a session.Session instead", fset.Position(expr.Pos()), types.ExprString(expr), tv.Type))
		}
	}
	for id, obj := range info.Uses {
		if fn, ok := obj.(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "github.com/mcpctl/mcpctl/client" && fn.Name() == "Connect" {
			out = append(out, fmt.Sprintf("%s: calls client.Connect: open sessions with session.Connect", fset.Position(id.Pos())))
		}
	}
	for sel, s := range info.Selections {
		if relay || s.Kind() != types.MethodVal {
			continue
		}
		if named := namedOf(s.Recv()); named != nil && named.Obj().Pkg() != nil &&
			named.Obj().Pkg().Path() == "github.com/mcpctl/mcpctl/transport" && named.Obj().Name() == "Connection" {
			out = append(out, fmt.Sprintf("%s: uses transport.Connection.%s: messages go through a session.Session", fset.Position(sel.Pos()), s.Obj().Name()))
		}
	}
	return out
}

func isRawClient(t types.Type) bool {
	named := namedOf(t)
	return named != nil && named.Obj().Pkg() != nil &&
		named.Obj().Pkg().Path() == "github.com/mcpctl/mcpctl/client" && named.Obj().Name() == "Client"
}

func namedOf(t types.Type) *types.Named {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := t.(*types.Named)
	return n
}

// goList lists the module's packages and their dependencies with export
// data.
func goList(t *testing.T) []listedPackage {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-export", "-deps", "-json", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}
