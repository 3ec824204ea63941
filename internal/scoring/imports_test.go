package scoring

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

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

// TestStandardLibraryOnly fails if a non-test file of the package imports
// anything outside the standard library (a path whose first element has a
// dot, such as github.com/…).
func TestStandardLibraryOnly(t *testing.T) {
	t.Parallel()
	for name, f := range sources(t) {
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
				t.Errorf("%s imports %s: the scoring model may import only the standard library", name, path)
			}
		}
	}
}

// TestPure fails if the model reads the clock, draws random numbers, starts
// goroutines or does I/O: time is passed in.
func TestPure(t *testing.T) {
	t.Parallel()
	banned := map[string]bool{"math/rand": true, "math/rand/v2": true, "crypto/rand": true, "os": true,
		"io": true, "net": true, "sync": true, "unsafe": true, "log": true}
	for name, f := range sources(t) {
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); banned[path] {
				t.Errorf("%s imports %s", name, path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s starts a goroutine", name)
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "time" &&
					(n.Sel.Name == "Now" || n.Sel.Name == "Since" || n.Sel.Name == "Until") {
					t.Errorf("%s reads the clock (time.%s); time is passed in", name, n.Sel.Name)
				}
			}
			return true
		})
	}
}
