package node

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDependsOnTheAPIContract fails if the node agent's code imports the
// server's packages: it speaks to the server only through internal/apiclient
// and the wire types of internal/api (its tests may use the server to run
// against).
func TestDependsOnTheAPIContract(t *testing.T) {
	t.Parallel()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	server := []string{"/models", "/handlers", "/jobs", "/web", "/views", "github.com/uptrace/bun"}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, s := range server {
				if strings.HasSuffix(path, s) || strings.HasPrefix(path, s) {
					t.Errorf("%s imports %s: the node agent depends on internal/api and internal/apiclient, not the server", name, path)
				}
			}
		}
	}
}
