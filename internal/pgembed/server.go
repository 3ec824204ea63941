//go:build unix

package pgembed

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Server is a running private PostgreSQL. Its methods are safe for
// concurrent use.
type Server struct {
	dataDir   string
	logFile   string
	socketDir string
	database  string
	version   string
	port      int
	fixedPort int // Options.Port
	pid       int // the postmaster's
	url       string
	acct      account
	run       runner
	logger    *slog.Logger

	mu      sync.Mutex
	stopped bool
}

// Start initialises opts.DataDir if it holds no cluster yet, starts the
// server, creates opts.Database if missing, and returns once connections
// are accepted. Cancelling ctx aborts the start. The caller must call Stop;
// see the package documentation for Ctrl-C.
//
// PostgreSQL refuses to run as root, so under root the server runs as the
// "postgres" system user, or a "gpusched" system user created for it when
// there is none; the data folder must then be reachable by that user (a
// folder under /root is not), which Start checks, naming the folder in the
// way.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if opts.Logger == nil {
		return nil, errors.New("pgembed: Options.Logger is required")
	}
	if opts.DataDir == "" {
		return nil, errors.New("pgembed: Options.DataDir is required")
	}
	database := opts.Database
	if database == "" {
		database = "postgres"
	}
	if len(database) > 63 || strings.ContainsRune(database, 0) {
		return nil, fmt.Errorf("pgembed: invalid database name %q", database)
	}
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("pgembed: data folder: %w", err)
	}
	binDir, err := binaries(opts.BinDir)
	if err != nil {
		return nil, err
	}
	acct, created, err := serverAccount(ctx)
	if err != nil {
		return nil, err
	}
	if created {
		opts.Logger.Info("created system user to run embedded postgres", "user", acct.name)
	}
	s := &Server{
		dataDir:   dataDir,
		logFile:   dataDir + ".log",
		socketDir: socketDir(dataDir),
		database:  database,
		fixedPort: opts.Port,
		acct:      acct,
		run:       runner{binDir: binDir, cred: acct.cred},
		logger:    opts.Logger,
	}
	if err := s.stopOrphan(ctx); err != nil {
		return nil, err
	}
	for _, step := range []func(context.Context) error{s.prepare, s.initdb, s.start} {
		if err := step(ctx); err != nil {
			s.cleanSocketDir() // kept while a server runs on the folder
			return nil, err
		}
	}
	if err := s.ensureDatabase(ctx); err != nil {
		_ = s.Stop(context.WithoutCancel(ctx))
		return nil, err
	}
	s.logger.Info("embedded postgres started", "dir", s.dataDir, "port", s.port,
		"version", s.version, "log", s.logFile, "user", s.acct.name)
	return s, nil
}

// URL returns a DATABASE_URL for the server's database, e.g.
// postgres://postgres@127.0.0.1:41234/gpusched?sslmode=disable.
func (s *Server) URL() string { return s.url }

// binaries returns the folder with the server programs: binDir when set
// (which must hold them), else what FindBinaries finds.
func binaries(binDir string) (string, error) {
	if binDir == "" {
		return FindBinaries()
	}
	if d, ok := serverDir(binDir); ok {
		return d, nil
	}
	return "", binDirError{binDir}
}

// binDirError reports an Options.BinDir without the server programs; it
// matches ErrNoBinaries with errors.Is.
type binDirError struct{ dir string }

func (e binDirError) Error() string {
	return "pgembed: " + e.dir + " (Options.BinDir) does not hold the PostgreSQL server binaries initdb, pg_ctl and postgres"
}

func (e binDirError) Is(target error) bool { return target == ErrNoBinaries }

// prepare creates the data folder (mode 0700, as PostgreSQL demands), the
// log file and the socket folder, hands them to the server account, and
// checks that account can reach the data folder.
func (s *Server) prepare(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Dir(s.dataDir), 0o755); err != nil {
		return fmt.Errorf("pgembed: create data folder: %w", err)
	}
	if err := os.Mkdir(s.dataDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("pgembed: create data folder: %w", err)
	}
	fi, err := os.Stat(s.dataDir)
	if err != nil {
		return fmt.Errorf("pgembed: data folder: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("pgembed: data folder %s is not a folder", s.dataDir)
	}
	if fi.Mode().Perm()&0o027 != 0 { // PostgreSQL accepts 0700 or 0750 only
		if err := os.Chmod(s.dataDir, 0o700); err != nil {
			return fmt.Errorf("pgembed: data folder: %w", err)
		}
	}
	if err := s.acct.chownTree(s.dataDir); err != nil {
		return fmt.Errorf("pgembed: hand data folder to user %q: %w", s.acct.name, err)
	}
	if err := s.acct.checkReachable(ctx, s.dataDir); err != nil {
		return err
	}
	f, err := os.OpenFile(s.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("pgembed: log file: %w", err)
	}
	_ = f.Close()
	if err := s.acct.chown(s.logFile); err != nil {
		return fmt.Errorf("pgembed: hand log file to user %q: %w", s.acct.name, err)
	}
	return s.prepareSocketDir()
}

// initdb creates the cluster unless the data folder already holds one,
// with superuser postgres, trust authentication, UTF8 and the C locale
// (present everywhere, unlike the caller's). It works in a sibling folder
// renamed into place when done, so an interrupted initdb (Ctrl-C, a
// cancelled ctx) never leaves a half-made cluster behind.
func (s *Server) initdb(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(s.dataDir, "PG_VERSION")); err == nil {
		return nil
	}
	tmp := s.dataDir + ".initdb"
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("pgembed: initdb: %w", err)
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return fmt.Errorf("pgembed: initdb: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := s.acct.chown(tmp); err != nil {
		return fmt.Errorf("pgembed: initdb: %w", err)
	}
	args := []string{"-D", tmp, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C"}
	if help, err := s.run.run(ctx, "initdb", "--help"); err == nil && strings.Contains(string(help), "--no-instructions") {
		args = append(args, "--no-instructions") // PostgreSQL 13 and later
	}
	if _, err := s.run.run(ctx, "initdb", args...); err != nil {
		return fmt.Errorf("pgembed: initdb: %w", err)
	}
	// The data folder exists (prepare made it): replace it if empty, and
	// leave a non-empty one, not ours, alone.
	if err := os.Remove(s.dataDir); err != nil {
		return fmt.Errorf("pgembed: data folder %s holds files but no cluster (no PG_VERSION): empty it or choose another: %w", s.dataDir, err)
	}
	if err := os.Rename(tmp, s.dataDir); err != nil {
		return fmt.Errorf("pgembed: initdb: %w", err)
	}
	s.logger.Debug("embedded postgres initialised", "dir", s.dataDir)
	return nil
}
