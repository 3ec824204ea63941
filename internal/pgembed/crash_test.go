//go:build unix

package pgembed

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestStartAfterCrash kills the server the hard way, leaving a stale
// postmaster.pid, and checks the next Start is not blocked by it.
func TestStartAfterCrash(t *testing.T) {
	t.Parallel()
	needBinaries(t)
	dataDir := filepath.Join(reachableTempDir(t), "pg")
	s := startServer(t, dataDir, "")
	pid := postmasterPid(t, dataDir)
	children := childrenOf(pid)
	if err := exec.Command("kill", "-KILL", strconv.Itoa(pid)).Run(); err != nil {
		t.Fatal(err)
	}
	for _, p := range append(children, pid) {
		if !waitGone(t.Context(), p) {
			t.Fatalf("pid %d survived", p)
		}
	}
	if _, err := os.Stat(filepath.Join(dataDir, "postmaster.pid")); err != nil {
		t.Fatalf("want a stale postmaster.pid: %v", err)
	}
	if _, ok := Running(dataDir, ""); ok {
		t.Error("Running with a stale postmaster.pid = true")
	}

	s2 := startServer(t, dataDir, "")
	if got := query(t, s2.URL(), "SELECT 1"); got != "1" {
		t.Errorf("SELECT 1 after crash = %q", got)
	}
	if err := s.Stop(t.Context()); err != nil { // the dead server's Stop must not touch s2
		t.Errorf("Stop of crashed server: %v", err)
	}
	if _, ok := Running(dataDir, ""); !ok {
		t.Error("Stop of the crashed server stopped its successor")
	}
}

// childrenOf lists the processes whose parent is pid (Linux; else none).
func childrenOf(pid int) []int {
	var kids []int
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			if k, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil {
				kids = append(kids, k)
			}
		}
	}
	return kids
}

// TestStartStopsOrphan checks that a server whose starter died without
// Stop is stopped and replaced by the next Start.
func TestStartStopsOrphan(t *testing.T) {
	t.Parallel()
	needBinaries(t)
	dataDir := filepath.Join(reachableTempDir(t), "pg")
	s1 := startServer(t, dataDir, "")
	// Pretend the process that started s1 has exited.
	rec := fmt.Sprintf("%d %d\n", deadPid(t), s1.pid)
	if err := os.WriteFile(s1.ownerFile(), []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
	s2 := startServer(t, dataDir, "")
	if s2.pid == s1.pid || alive(s1.pid) {
		t.Fatalf("orphan pid %d still serving (new pid %d)", s1.pid, s2.pid)
	}
	if got := query(t, s2.URL(), "SELECT 1"); got != "1" {
		t.Errorf("SELECT 1 = %q", got)
	}
	if err := s1.Stop(t.Context()); err != nil {
		t.Errorf("Stop of the orphan: %v", err)
	}
	if _, ok := Running(dataDir, ""); !ok {
		t.Error("Stop of the orphan stopped its successor")
	}
}
