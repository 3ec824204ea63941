//go:build unix

package pgembed

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// stopGrace bounds Stop when its context is already cancelled, and the
// clean-up of a half-started server.
const stopGrace = 30 * time.Second

// start runs the server under pg_ctl on a free port, retrying with another
// port when the chosen one was taken in the meantime, and records where it
// listens.
func (s *Server) start(ctx context.Context) error {
	if out, err := s.run.run(ctx, "postgres", "--version"); err == nil {
		s.version = parseVersion(string(out))
	}
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var port int
		if port, err = freePort(); err != nil {
			return fmt.Errorf("pgembed: pick a port: %w", err)
		}
		if s.fixedPort > 0 {
			port = s.fixedPort
		}
		if err = s.pgctlStart(ctx, port); err == nil || !strings.Contains(err.Error(), "already in use") {
			break
		}
	}
	if err != nil {
		return err
	}
	pf, err := readPidFile(s.dataDir)
	if err != nil {
		return fmt.Errorf("pgembed: started, but: %w", err)
	}
	s.pid, s.port, s.url = pf.pid, pf.port, pf.url(s.database)
	s.writeOwner()
	return nil
}

// pgctlStart runs `pg_ctl start -w`. On failure the error carries the new
// part of the server's log, which says why, and a server left half-started
// (timeout, cancelled ctx) is shut down.
func (s *Server) pgctlStart(ctx context.Context, port int) error {
	var logStart int64
	if fi, err := os.Stat(s.logFile); err == nil {
		logStart = fi.Size()
	}
	began := time.Now().Unix()
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -c port=%d -c unix_socket_directories=%s", port, s.socketDir)
	_, err := s.run.run(ctx, "pg_ctl", "start", "-w", "-t", waitSeconds(ctx), "-D", s.dataDir, "-l", s.logFile, "-o", opts)
	if err == nil {
		return nil
	}
	if pf, perr := readPidFile(s.dataDir); perr == nil && pf.started >= began-1 && alive(pf.pid) {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopGrace)
		_, _ = s.run.run(cctx, "pg_ctl", "stop", "-D", s.dataDir, "-m", "immediate", "-w")
		waitGone(cctx, pf.pid)
		cancel()
	}
	if log := s.logSince(logStart); log != "" {
		return fmt.Errorf("pgembed: start: %w; server log %s: %s", err, s.logFile, log)
	}
	return fmt.Errorf("pgembed: start: %w", err)
}

// PID returns the postmaster's process id.
func (s *Server) PID() int { return s.pid }

// Stop shuts the server down (pg_ctl stop -m fast: sessions are ended,
// data is kept) and waits until its process is gone. It is idempotent, and
// a server that already died counts as stopped. Stop runs even when ctx is
// already cancelled, as it is after Ctrl-C with signal.NotifyContext,
// bounded then by 30 seconds; a live ctx's deadline is honoured.
func (s *Server) Stop(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil
	}
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), stopGrace)
		defer cancel()
	}
	// Only a postmaster.pid naming our server is acted on: after a crash it
	// may name a successor started by someone else.
	if pf, err := readPidFile(s.dataDir); err == nil && pf.pid == s.pid && alive(s.pid) {
		_, err = s.run.run(ctx, "pg_ctl", "stop", "-D", s.dataDir, "-m", "fast", "-w", "-t", waitSeconds(ctx))
		if err != nil && alive(s.pid) {
			return fmt.Errorf("pgembed: stop: %w", err)
		}
	}
	if !waitGone(ctx, s.pid) {
		return fmt.Errorf("pgembed: stop: postgres (pid %d) still running: %w", s.pid, ctx.Err())
	}
	s.stopped = true
	s.cleanSocketDir()
	s.logger.Info("embedded postgres stopped", "dir", s.dataDir)
	return nil
}

// stopOrphan deals with a server already running on the data folder: one
// whose starter exited without Stop is stopped so Start can begin afresh;
// one whose starter lives on, or that gpusched did not start, is an error.
// A stale postmaster.pid naming a dead pid is left to PostgreSQL, which
// ignores it; one naming a zombie or another program, which PostgreSQL
// takes for a live server, is removed. (Should that be wrong, PostgreSQL's
// shared memory interlock still refuses a second server on the folder.)
func (s *Server) stopOrphan(ctx context.Context) error {
	pidPath := filepath.Join(s.dataDir, "postmaster.pid")
	pf, err := readPidFile(s.dataDir)
	if err != nil {
		return nil
	}
	if zombie(pf.pid) || (alive(pf.pid) && stale(pf.pid)) {
		s.logger.Warn("removing stale postmaster.pid of a crashed postgres", "dir", s.dataDir, "pid", pf.pid)
		if err := os.Remove(pidPath); err != nil {
			return fmt.Errorf("pgembed: remove stale lock file: %w", err)
		}
		s.cleanSocketDir()
		return nil
	}
	if !alive(pf.pid) {
		s.cleanSocketDir()
		return nil
	}
	owner := s.readOwner(pf.pid)
	if owner == 0 || alive(owner) {
		by := "not by gpusched"
		if owner != 0 {
			by = "by process " + strconv.Itoa(owner)
		}
		return fmt.Errorf("pgembed: PostgreSQL is already running on %s (pid %d, started %s): use it (DATABASE_URL=%s), or stop it first (pg_ctl stop -D %s)",
			s.dataDir, pf.pid, by, pf.url(s.database), s.dataDir)
	}
	s.logger.Warn("stopping embedded postgres left running by a process that exited without stopping it",
		"dir", s.dataDir, "pid", pf.pid, "owner", owner)
	if _, err := s.run.run(ctx, "pg_ctl", "stop", "-D", s.dataDir, "-m", "fast", "-w", "-t", waitSeconds(ctx)); err != nil && alive(pf.pid) {
		return fmt.Errorf("pgembed: stop leftover server: %w", err)
	}
	if !waitGone(ctx, pf.pid) {
		return fmt.Errorf("pgembed: leftover postgres (pid %d) still running: %w", pf.pid, ctx.Err())
	}
	s.cleanSocketDir()
	return nil
}

// waitGone polls until process pid is gone; false if ctx ends first.
func waitGone(ctx context.Context, pid int) bool {
	for alive(pid) {
		select {
		case <-ctx.Done():
			return !alive(pid)
		case <-time.After(20 * time.Millisecond):
		}
	}
	return true
}

// waitSeconds is pg_ctl's -t: what is left of ctx's deadline, else 60.
func waitSeconds(ctx context.Context) string {
	secs := 60.0
	if d, ok := ctx.Deadline(); ok {
		secs = max(1, math.Ceil(time.Until(d).Seconds()))
	}
	return strconv.Itoa(int(secs))
}

// parseVersion extracts "15.4" from "postgres (PostgreSQL) 15.4 (Debian ...)".
func parseVersion(out string) string {
	out = strings.TrimSpace(out)
	if _, after, ok := strings.Cut(out, "(PostgreSQL) "); ok {
		if f := strings.Fields(after); len(f) > 0 {
			return f[0]
		}
	}
	return out
}

// logSince returns the tail of what the server logged from offset on.
func (s *Server) logSince(offset int64) string {
	f, err := os.Open(s.logFile)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	if fi.Size() <= offset {
		return ""
	}
	start := max(offset, fi.Size()-4*tailBytes)
	buf := make([]byte, fi.Size()-start)
	n, _ := f.ReadAt(buf, start)
	return tail(buf[:n])
}
