//go:build unix

package pgembed

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// needBinaries skips the test on machines without PostgreSQL.
func needBinaries(t *testing.T) {
	t.Helper()
	if _, err := FindBinaries(); err != nil {
		t.Fatalf("these tests need PostgreSQL's server binaries (apt-get install postgresql): %v", err)
	}
}

// reachableTempDir returns a fresh folder the server account can enter:
// t.TempDir and its parent are mode 0700, which shuts out the postgres
// user when the tests run as root.
func reachableTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() == 0 {
		for _, d := range []string{dir, filepath.Dir(dir)} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// testLogger logs into the test's output.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// startServer starts a server on dataDir and stops it when the test ends.
func startServer(t *testing.T, dataDir, database string) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{DataDir: dataDir, Database: database, Logger: testLogger(t)})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(context.Background()); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return s
}

// query runs sql through psql against url and returns its unaligned output.
func query(t *testing.T, url, sql string) string {
	t.Helper()
	psql := filepath.Join(mustFind(t), "psql")
	cmd := exec.Command(psql, "-X", "-v", "ON_ERROR_STOP=1", "-tA", "-d", url, "-c", sql)
	cmd.Env = cleanEnv(os.Environ())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psql %q: %v: %s", sql, err, out)
	}
	return strings.TrimSpace(string(out))
}

func mustFind(t *testing.T) string {
	t.Helper()
	dir, err := FindBinaries()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// postmasterPid returns the pid in dataDir's postmaster.pid.
func postmasterPid(t *testing.T, dataDir string) int {
	t.Helper()
	pf, err := readPidFile(dataDir)
	if err != nil {
		t.Fatalf("postmaster.pid: %v", err)
	}
	return pf.pid
}

func TestStartStopRestart(t *testing.T) {
	t.Parallel()
	needBinaries(t)
	dataDir := filepath.Join(reachableTempDir(t), "data", "postgres") // parents missing too

	s := startServer(t, dataDir, "gpusched")
	if !strings.Contains(s.URL(), "@127.0.0.1:") || !strings.Contains(s.URL(), "/gpusched?") {
		t.Errorf("URL() = %q, want the 127.0.0.1 form for database gpusched", s.URL())
	}
	if got := query(t, s.URL(), "SELECT 1"); got != "1" {
		t.Fatalf("SELECT 1 = %q", got)
	}
	query(t, s.URL(), "CREATE TABLE kept (x int); INSERT INTO kept VALUES (42)")

	if url, ok := Running(dataDir, "gpusched"); !ok || url != s.URL() {
		t.Errorf("Running = %q, %v; want %q, true", url, ok, s.URL())
	}
	if _, err := Start(t.Context(), Options{DataDir: dataDir, Logger: testLogger(t)}); err == nil ||
		!strings.Contains(err.Error(), "already running") {
		t.Errorf("second Start while running: err = %v, want already running", err)
	}

	pid := postmasterPid(t, dataDir)
	// A Ctrl-C sent to the terminal's process group must not reach the server.
	if mine, theirs := sessionOf(os.Getpid()), sessionOf(pid); mine != "" && mine == theirs {
		t.Errorf("postgres runs in this process's session %s", mine)
	}
	pidFileContent, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(t.Context()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if alive(pid) {
		t.Errorf("postgres pid %d still alive after Stop", pid)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "postmaster.pid")); !os.IsNotExist(err) {
		t.Errorf("postmaster.pid after Stop: %v", err)
	}
	if url, ok := Running(dataDir, "gpusched"); ok {
		t.Errorf("Running after Stop = %q, true", url)
	}
	if err := s.Stop(t.Context()); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if fi, err := os.Stat(dataDir + ".log"); err != nil || fi.Size() == 0 {
		t.Errorf("server log %s.log: %v", dataDir, err)
	}

	// Restarts reuse the data, and a stale postmaster.pid, as a crash
	// leaves, does not block them, whatever process its pid now names.
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() })
	for _, stalePid := range []int{deadPid(t), sleeper.Process.Pid} {
		stale := strings.Replace(string(pidFileContent), strconv.Itoa(pid), strconv.Itoa(stalePid), 1)
		if err := os.WriteFile(filepath.Join(dataDir, "postmaster.pid"), []byte(stale), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, ok := Running(dataDir, "gpusched"); ok {
			t.Errorf("Running with a stale postmaster.pid naming pid %d = true", stalePid)
		}
		s2 := startServer(t, dataDir, "gpusched")
		if got := query(t, s2.URL(), "SELECT x FROM kept"); got != "42" {
			t.Errorf("after restart SELECT x = %q, want 42", got)
		}
		if err := s2.Stop(t.Context()); err != nil {
			t.Fatalf("Stop: %v", err)
		}
	}
	if !alive(sleeper.Process.Pid) {
		t.Error("the process a stale postmaster.pid named was hurt")
	}
}

// deadPid returns the pid of a process that has exited and been reaped.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// sessionOf returns the session id of pid from /proc (Linux), or "".
func sessionOf(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	// After ")": state, ppid, pgrp, session.
	if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) > 3 {
		return f[3]
	}
	return ""
}
