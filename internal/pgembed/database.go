//go:build unix

package pgembed

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// ensureDatabase creates the database unless it exists, with psql (from
// the server's folder, else PATH) over TCP as the postgres superuser;
// trust authentication lets any Unix account do that.
func (s *Server) ensureDatabase(ctx context.Context) error {
	if s.database == "postgres" {
		return nil
	}
	psql, err := s.psqlPath()
	if err != nil {
		return err
	}
	exists := func() (bool, error) {
		out, err := s.psql(ctx, psql, "-tAc", "SELECT 1 FROM pg_database WHERE datname = "+quoteLiteral(s.database))
		return strings.TrimSpace(string(out)) == "1", err
	}
	ok, err := exists()
	if err != nil {
		return fmt.Errorf("pgembed: look up database %q: %w", s.database, err)
	}
	if ok {
		return nil
	}
	if _, err := s.psql(ctx, psql, "-c", "CREATE DATABASE "+quoteIdent(s.database)); err != nil {
		if ok, _ := exists(); ok { // created meanwhile by another client
			return nil
		}
		return fmt.Errorf("pgembed: create database %q: %w", s.database, err)
	}
	s.logger.Debug("embedded postgres database created", "database", s.database)
	return nil
}

// psql runs one psql command against the maintenance database, ignoring
// ~/.psqlrc and stopping on the first error.
func (s *Server) psql(ctx context.Context, psql string, args ...string) ([]byte, error) {
	base := []string{"-X", "-q", "-v", "ON_ERROR_STOP=1",
		"-h", "127.0.0.1", "-p", strconv.Itoa(s.port), "-U", "postgres", "-d", "postgres"}
	return s.run.run(ctx, psql, append(base, args...)...)
}

// psqlPath finds psql beside the server programs, else on PATH.
func (s *Server) psqlPath() (string, error) {
	if p := filepath.Join(s.run.binDir, "psql"); isExecutable(p) {
		return p, nil
	}
	if p, err := exec.LookPath("psql"); err == nil {
		return filepath.Abs(p)
	}
	return "", fmt.Errorf("pgembed: psql, needed to create database %q, is neither in %s nor on PATH: install the PostgreSQL client", s.database, s.run.binDir)
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// quoteIdent quotes s as an SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
