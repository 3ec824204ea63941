package opstest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// jobProcesses lists the pids whose command line names stateDir: the job
// wrappers a node agent started there and what they run.
func jobProcesses(stateDir string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(b), stateDir+"/") { // the agent names the folder, its jobs files in it
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			s := string(st)
			if i := strings.LastIndexByte(s, ')'); i > 0 && i+2 < len(s) && s[i+2] == 'Z' {
				continue // a zombie has ended
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

// killJobProcesses ends what a test's node agents left, whatever the test's outcome.
func killJobProcesses(t testing.TB, stateDir string) {
	t.Cleanup(func() {
		for _, pid := range jobProcesses(stateDir) {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// waitOrphans waits until at most want job processes remain, and returns how many do.
func waitOrphans(stateDir string, want int, limit time.Duration) int {
	var n int
	poll(limit, 100*time.Millisecond, func() bool { n = len(jobProcesses(stateDir)); return n <= want })
	return n
}

// A node agent killed with SIGKILL while jobs run, then restarted, follows
// the job still running, reports the ones that ended meanwhile with their
// exit codes, and leaves no process behind; an agent that stays away has
// its node marked down in the configured time and its job handled by the
// policy (failed: no retries left), and the job's process is stopped when
// the agent returns.
func TestNodeAgentKill9AndRestart(t *testing.T) {
	t.Parallel()
	pg := startPG(t)
	pool := pg.Pool()
	const downAfter = 4 * time.Second
	s := startServer(t, "server", pg.URL, "GPUSCHED_NODE_DOWN_AFTER="+downAfter.String())
	token := adminToken(t, pg.URL)
	nodeTok := cli(t, pg.URL, "token", "create", "--node", "gpu-k")
	state := openDir(t, "opstest-node-state-")
	killJobProcesses(t, state)
	agent := startNode(t, "gpu-k", s.URL, nodeTok, state)
	if waitNodeUp(t, pool, "gpu-k", 20*time.Second) < 0 {
		t.Fatal("node not up")
	}
	ctx := context.Background()
	mustSubmit := func(cmd string) Job {
		t.Helper()
		j, err := submit(ctx, s.URL, token, cmd, 1)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	failing, passing, long := mustSubmit("sleep 2; exit 3"), mustSubmit("sleep 2"), mustSubmit("sleep 60")
	for _, j := range []Job{failing, passing, long} {
		if _, d := waitState(t, s.URL, token, j.ID, 15*time.Second, "running"); d < 0 {
			t.Fatalf("job %d not running", j.ID)
		}
	}
	agent.Kill()
	// Two jobs end while the agent is away.
	if n := waitOrphans(state, 1, 15*time.Second); n != 1 {
		t.Errorf("%d job processes while the agent is away, want 1 (the long job)", n)
	}
	restarted := time.Now()
	agent = startNode(t, "gpu-k", s.URL, nodeTok, state)
	got, d := waitState(t, s.URL, token, failing.ID, 15*time.Second, "failed", "completed")
	if d < 0 || got.State != "failed" || got.ExitCode == nil || *got.ExitCode != 3 {
		t.Errorf("job that exited 3 while the agent was away: %+v", got)
	}
	got, d2 := waitState(t, s.URL, token, passing.ID, 15*time.Second, "failed", "completed")
	if d2 < 0 || got.State != "completed" || got.ExitCode == nil || *got.ExitCode != 0 {
		t.Errorf("job that exited 0 while the agent was away: %+v", got)
	}
	t.Logf("restarted agent reported the jobs that ended while away in %s", time.Since(restarted).Round(time.Millisecond))
	if got, _ := job(ctx, s.URL, token, long.ID); got.State != "running" {
		t.Errorf("the job still running was not reattached: %+v", got)
	}
	if _, err := api(ctx, http.MethodDelete, fmt.Sprintf("%s/api/v1/queue/%d", s.URL, long.ID), token, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, d := waitState(t, s.URL, token, long.ID, 15*time.Second, terminal...); d < 0 {
		t.Errorf("the reattached job did not end on cancel")
	}
	orphans := waitOrphans(state, 0, 10*time.Second)
	t.Logf("orphan processes after the restart and a cancel: %d", orphans)
	if orphans != 0 {
		t.Errorf("%d orphan job processes: %s", orphans, describe(jobProcesses(state)))
	}

	// The agent goes away for good: the node is marked down within the
	// configured time, and its running job is handled by the policy.
	away := mustSubmit("sleep 60")
	if _, d := waitState(t, s.URL, token, away.ID, 15*time.Second, "running"); d < 0 {
		t.Fatal("job not running")
	}
	agent.Kill()
	killed := time.Now()
	var down time.Duration = -1
	if poll(downAfter+10*time.Second, 100*time.Millisecond, func() bool {
		var status string
		err := pool.QueryRow(ctx, `SELECT status FROM nodes WHERE name = 'gpu-k'`).Scan(&status)
		return err == nil && status == "down"
	}) >= 0 {
		down = time.Since(killed)
	}
	t.Logf("node marked down %s after its agent was killed (configured %s, heartbeat 1s)", down.Round(time.Millisecond), downAfter)
	if down < 0 || down > downAfter+5*time.Second {
		t.Errorf("node marked down after %s, want within %s", down, downAfter+5*time.Second)
	}
	got, d = waitState(t, s.URL, token, away.ID, 10*time.Second, append([]string{"queued"}, terminal...)...)
	t.Logf("the down node's job: %s", got.State)
	if d < 0 {
		t.Errorf("the down node's job was left %q", got.State)
	}
	// Its process still runs on the host; the agent's return stops it.
	agent = startNode(t, "gpu-k", s.URL, nodeTok, state)
	orphans = waitOrphans(state, 0, 15*time.Second)
	t.Logf("orphan processes after the agent came back: %d", orphans)
	if orphans != 0 {
		t.Errorf("%d orphan job processes after the agent came back: %s", orphans, describe(jobProcesses(state)))
	}
}

// describe names processes by pid, parent and command line.
func describe(pids []int) string {
	var out []string
	for _, pid := range pids {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		out = append(out, fmt.Sprintf("[%d %q stat %q]", pid, strings.ReplaceAll(string(b), "\x00", " "), st))
	}
	return strings.Join(out, " ")
}
