// Package puretest checks, from a package's own tests, that the package is
// a pure core: it imports only the standard library, and it neither reads
// the clock, draws random numbers, starts goroutines nor does I/O. The
// scheduling core and the scoring model run it on themselves; the wire
// contract checks only its imports (StdlibOnly), and a package may refuse
// some imports (DoesNotImport).
package puretest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// banned are the standard packages a pure core may not import.
var banned = map[string]bool{"math/rand": true, "math/rand/v2": true, "crypto/rand": true, "os": true,
	"io": true, "net": true, "sync": true, "unsafe": true, "log": true}

// Check fails t for every non-test file of the current directory's package
// that imports anything outside the standard library (a path whose first
// element has a dot) or a banned package, starts a goroutine or reads the
// clock. what names the package in the messages ("the scheduling core");
// clock says where its time comes from ("use Snapshot.Now").
func Check(t *testing.T, what, clock string) {
	t.Helper()
	StdlibOnly(t, what)
	for name, f := range sources(t) {
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); banned[path] {
				t.Errorf("%s imports %s: %s does no I/O, randomness or concurrency", name, path, what)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s starts a goroutine", name)
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "time" &&
					(n.Sel.Name == "Now" || n.Sel.Name == "Since" || n.Sel.Name == "Until") {
					t.Errorf("%s reads the clock (time.%s); %s", name, n.Sel.Name, clock)
				}
			}
			return true
		})
	}
}

// StdlibOnly fails t for every non-test file of the current directory's
// package that imports anything outside the standard library (a path whose
// first element has a dot). what names the package in the messages.
func StdlibOnly(t *testing.T, what string) {
	t.Helper()
	for name, f := range sources(t) {
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
				t.Errorf("%s imports %s: %s may import only the standard library", name, path, what)
			}
		}
	}
}

// DoesNotImport fails t for every non-test file of the current directory's
// package that imports one of paths or a package under it; why ends the
// message ("models speak the wire contract through internal/api").
func DoesNotImport(t *testing.T, why string, paths ...string) {
	t.Helper()
	for name, f := range sources(t) {
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, p := range paths {
				if path == p || strings.HasPrefix(path, p+"/") {
					t.Errorf("%s imports %s: %s", name, path, why)
				}
			}
		}
	}
}

// sources parses the package's non-test files.
func sources(t *testing.T) map[string]*ast.File {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*ast.File{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = f
	}
	if len(out) == 0 {
		t.Fatal("no source files found")
	}
	return out
}
