package handlers_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sqlCalls are the database calls that would put a query in a handler.
var sqlCalls = map[string]bool{"NewRaw": true, "NewSelect": true, "NewUpdate": true, "NewInsert": true, "NewDelete": true,
	"ExecContext": true, "QueryContext": true, "QueryRowContext": true, "QueryRow": true, "Query": true, "Exec": true}

// TestHandlersHoldNoSQL keeps the layering of DESIGN.md: handlers parse,
// validate, call the domain and render; queries live in models, and the
// schema's migrations are not a handler's business.
func TestHandlersHoldNoSQL(t *testing.T) {
	t.Parallel()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasSuffix(p, "/migrations") {
				t.Errorf("%s imports %s", name, p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sqlCalls[sel.Sel.Name] {
					t.Errorf("%s calls %s: queries belong in models", name, sel.Sel.Name)
				}
			}
			return true
		})
	}
}
