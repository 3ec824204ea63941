//go:build unix

package pgembed

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeBin makes dir/<name> an executable stub for each name.
func fakeBin(t *testing.T, dir string, names ...string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFindBinaries(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	real := fakeBin(t, filepath.Join(root, "real"), serverPrograms...)
	// A Debian-style folder of wrapper links, like /usr/local/bin.
	links := filepath.Join(root, "links")
	if err := os.Mkdir(links, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range serverPrograms {
		if err := os.Symlink(filepath.Join(real, p), filepath.Join(links, p)); err != nil {
			t.Fatal(err)
		}
	}
	partial := fakeBin(t, filepath.Join(root, "partial"), "initdb", "pg_ctl") // no postgres
	notExec := filepath.Join(root, "notexec")
	fakeBin(t, notExec, serverPrograms...)
	if err := os.Chmod(filepath.Join(notExec, "postgres"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"9.6", "10", "15"} {
		fakeBin(t, filepath.Join(root, "lib", "postgresql", v, "bin"), serverPrograms...)
	}
	fakeBin(t, filepath.Join(root, "lib", "postgresql", "17", "bin"), "initdb") // incomplete
	versions := filepath.Join(root, "lib", "postgresql", "*", "bin")
	empty := t.TempDir()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	relReal, err := filepath.Rel(wd, real) // would be found, were relative entries used
	if err != nil {
		t.Fatal(err)
	}

	tests := map[string]struct {
		extra    []string
		path     []string
		patterns []string
		want     string // "" for ErrNoBinaries
	}{
		"nothing anywhere":        {path: []string{empty}},
		"empty PATH":              {},
		"incomplete PATH folder":  {path: []string{partial}},
		"non-executable postgres": {path: []string{notExec}},
		"PATH folder":             {path: []string{empty, real}, want: real},
		"PATH links resolved":     {path: []string{links}, want: real},
		"relative PATH skipped":   {path: []string{relReal}},
		"install folder, highest complete version first": {
			path: []string{empty}, patterns: []string{filepath.Join(root, "nowhere"), versions},
			want: filepath.Join(root, "lib", "postgresql", "15", "bin"),
		},
		"PATH before install folders": {path: []string{links}, patterns: []string{versions}, want: real},
		"extra before PATH":           {extra: []string{partial, notExec, real}, path: []string{links}, want: real},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// A leading empty entry, which means the working folder, is skipped.
			pathEnv := string(os.PathListSeparator) + strings.Join(tc.path, string(os.PathListSeparator))
			got, err := findBinaries(tc.extra, pathEnv, tc.patterns)
			if tc.want == "" {
				if !errors.Is(err, ErrNoBinaries) {
					t.Fatalf("got %q, %v; want ErrNoBinaries", got, err)
				}
				const msg = "no PostgreSQL server binaries (initdb, pg_ctl, postgres) found on PATH or in the usual install folders: install PostgreSQL or set DATABASE_URL"
				if err.Error() != msg {
					t.Errorf("message %q, want %q", err, msg)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestSortNewestFirst(t *testing.T) {
	t.Parallel()
	got := []string{
		"/usr/lib/postgresql/9.6/bin", "/usr/lib/postgresql/15/bin",
		"/opt/homebrew/opt/postgresql/bin", "/usr/lib/postgresql/10/bin",
		"/opt/homebrew/opt/postgresql@14/bin",
	}
	sortNewestFirst(got)
	want := []string{
		"/usr/lib/postgresql/15/bin", "/opt/homebrew/opt/postgresql@14/bin",
		"/usr/lib/postgresql/10/bin", "/usr/lib/postgresql/9.6/bin",
		"/opt/homebrew/opt/postgresql/bin",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestFindBinariesHere checks discovery on this machine, when it has
// PostgreSQL: the folder found holds all three programs for real.
func TestFindBinariesHere(t *testing.T) {
	t.Parallel()
	dir, err := FindBinaries()
	if errors.Is(err, ErrNoBinaries) {
		t.Fatal("the tests need PostgreSQL's server binaries (apt-get install postgresql)")
	}
	if err != nil || !hasAll(dir) {
		t.Fatalf("FindBinaries = %q, %v", dir, err)
	}
	if real, err := filepath.EvalSymlinks(filepath.Join(dir, "initdb")); err != nil || filepath.Dir(real) != dir {
		t.Errorf("FindBinaries = %q, but initdb there is really %q (%v)", dir, real, err)
	}
}
