package models_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// lifecycleFile reports whether a file is the job lifecycle's own, or a
// test kit's (test fixtures may write rows as they need).
func lifecycleFile(path string) bool {
	p := filepath.ToSlash(path)
	return strings.HasPrefix(p, "models/lifecycle") || strings.HasPrefix(p, "internal/testkit/")
}

// SQL that moves a job or writes an allocation.
var (
	jobUpdateSQL  = regexp.MustCompile(`(?is)\bupdate\s+jobs\b(.*?)(\bwhere\b|$)`)
	jobMovedSet   = regexp.MustCompile(`(?is)(^|[\s,.])(state|scheduled_at|started_at|ended_at|stop_kind)\s*=`)
	allocationSQL = regexp.MustCompile(`(?is)\b(update|insert\s+into|delete\s+from)\s+allocations\b`)
	movedColumn   = regexp.MustCompile(`^(state|scheduled_at|started_at|ended_at|stop_kind|released_at)\s*=`)
)

// TestOnlyTheLifecycleMovesJobs fails for any code outside the job
// lifecycle (models/lifecycle*.go) that changes a job's state (or the
// timestamps and stop that go with it) or writes an allocation, in SQL or
// through bun: every start, stop and end goes through one locked path
// (DESIGN.md invariants 2, 3 and 8). Tests may set up rows as they need.
func TestOnlyTheLifecycleMovesJobs(t *testing.T) {
	t.Parallel()
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "migrations" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || lifecycleFile(rel) {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					return true
				}
				s, _ := strconv.Unquote(n.Value)
				if m := jobUpdateSQL.FindStringSubmatch(s); (m != nil && jobMovedSet.MatchString(m[1])) || allocationSQL.MatchString(s) {
					t.Errorf("%s: SQL that moves a job or writes an allocation outside the lifecycle: %.80q", rel, s)
				}
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok || len(n.Args) == 0 {
					return true
				}
				if sel.Sel.Name == "Set" {
					if lit, ok := n.Args[0].(*ast.BasicLit); ok {
						s, _ := strconv.Unquote(lit.Value)
						if movedColumn.MatchString(s) && writesJobs(sel.X) {
							t.Errorf("%s: %s on jobs or allocations outside the lifecycle", rel, s)
						}
					}
				}
				if sel.Sel.Name == "Model" && isAllocationModel(n.Args[0]) && writes(sel.X) {
					t.Errorf("%s: writes allocations outside the lifecycle", rel)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// writesJobs reports whether a bun chain updates the jobs (or allocations)
// table: it contains .Model of a Job or Allocation, or .Table("jobs").
func writesJobs(x ast.Expr) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := c.Fun.(*ast.SelectorExpr)
		if !ok || len(c.Args) == 0 {
			return true
		}
		switch sel.Sel.Name {
		case "Model":
			if src := exprText(c.Args[0]); strings.Contains(src, "Job") || strings.Contains(src, "Allocation") {
				found = true
			}
		case "Table":
			if lit, ok := c.Args[0].(*ast.BasicLit); ok && (lit.Value == `"jobs"` || lit.Value == `"allocations"`) {
				found = true
			}
		}
		return true
	})
	return found && writes(x)
}

// writes reports whether a bun chain is an update, insert or delete.
func writes(x ast.Expr) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			switch sel.Sel.Name {
			case "NewUpdate", "NewInsert", "NewDelete":
				found = true
			}
		}
		return true
	})
	return found
}

func isAllocationModel(x ast.Expr) bool { return strings.Contains(exprText(x), "Allocation") }

// exprText renders the identifiers of an expression, enough to recognise
// a model's type.
func exprText(x ast.Expr) string {
	var b strings.Builder
	ast.Inspect(x, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			b.WriteString(id.Name + " ")
		}
		return true
	})
	return b.String()
}
