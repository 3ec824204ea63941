package pgembed

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
)

// ErrNoBinaries reports that no folder holding initdb, pg_ctl and postgres
// was found. Errors from FindBinaries and Start wrap it.
var ErrNoBinaries = errors.New("no PostgreSQL server binaries (initdb, pg_ctl, postgres) found on PATH or in the usual install folders: install PostgreSQL or set DATABASE_URL")

// serverPrograms must all sit in one folder: pg_ctl runs the postgres beside it.
var serverPrograms = []string{"initdb", "pg_ctl", "postgres"}

// installDirs are the usual install folders, as filepath.Glob patterns,
// searched after PATH. Within one pattern the highest version wins.
// A variable so tests can replace it.
var installDirs = []string{
	"/usr/lib/postgresql/*/bin",                               // Debian, Ubuntu
	"/usr/local/pgsql/bin",                                    // built from source
	"/opt/homebrew/opt/postgresql*/bin",                       // Homebrew, Apple silicon
	"/usr/local/opt/postgresql*/bin",                          // Homebrew, Intel
	"/usr/pgsql-*/bin",                                        // PGDG RPMs (RHEL, Fedora)
	"/Applications/Postgres.app/Contents/Versions/latest/bin", // Postgres.app
}

// FindBinaries returns the folder holding initdb, pg_ctl and postgres. It
// looks in the extra folders first, then on PATH, then in the usual
// install folders (/usr/lib/postgresql/*/bin highest version first,
// /usr/local/pgsql/bin, Homebrew, /usr/pgsql-*/bin, Postgres.app).
// Symbolic links are resolved, so a PATH folder of wrapper links such as
// /usr/local/bin yields the real folder. With none found the error wraps
// ErrNoBinaries.
func FindBinaries(extra ...string) (string, error) {
	return findBinaries(extra, os.Getenv("PATH"), installDirs)
}

// findBinaries is FindBinaries with PATH and the install folders passed in.
func findBinaries(extra []string, pathEnv string, patterns []string) (string, error) {
	for _, dir := range extra {
		if d, ok := serverDir(dir); ok {
			return d, nil
		}
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // "" and relative entries mean the working directory: skip them
		}
		if d, ok := serverDir(dir); ok {
			return d, nil
		}
	}
	for _, pattern := range patterns {
		matches, _ := filepath.Glob(pattern) // the only error is a bad pattern
		sortNewestFirst(matches)
		for _, dir := range matches {
			if d, ok := serverDir(dir); ok {
				return d, nil
			}
		}
	}
	return "", ErrNoBinaries
}

// serverDir reports the folder really holding the server programs when dir
// offers them: the folder initdb's symbolic link resolves to if that holds
// all three, else dir itself if it does.
func serverDir(dir string) (string, bool) {
	initdb := filepath.Join(dir, "initdb")
	if !isExecutable(initdb) {
		return "", false
	}
	if real, err := filepath.EvalSymlinks(initdb); err == nil {
		if d := filepath.Dir(real); hasAll(d) {
			return d, true
		}
	}
	if hasAll(dir) {
		if abs, err := filepath.Abs(dir); err == nil {
			return abs, true
		}
		return dir, true
	}
	return "", false
}

// hasAll reports whether dir holds every server program.
func hasAll(dir string) bool {
	for _, p := range serverPrograms {
		if !isExecutable(filepath.Join(dir, p)) {
			return false
		}
	}
	return true
}

// isExecutable reports whether path (after links) is an executable file.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

var digitRuns = regexp.MustCompile(`[0-9]+`)

// sortNewestFirst orders paths by the version numbers in them, highest
// first, so ".../17/bin" precedes ".../9.6/bin"; paths without numbers go last.
func sortNewestFirst(paths []string) {
	key := func(p string) []int {
		var v []int
		for _, run := range digitRuns.FindAllString(p, -1) {
			n, _ := strconv.Atoi(run)
			v = append(v, n)
		}
		return v
	}
	slices.SortStableFunc(paths, func(a, b string) int {
		return slices.Compare(key(b), key(a))
	})
}
