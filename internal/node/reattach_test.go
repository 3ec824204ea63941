package node_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// The agent is stopped while its job runs and started again: the job is
// not started twice, the new agent follows it to its end, and the final
// state and output are right — whether it ended while the agent was away
// or after it came back. The job runs until the test creates its release
// file.
func TestAgentRestartReattaches(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		command  string // %s: the release file
		endsAway bool   // the job ends while the agent is down
		state    string
		output   string
	}{
		"ends after the agent is back": {command: `echo begin; until [ -e %s ]; do sleep 0.05; done; echo end`, state: "completed", output: "begin\nend\n"},
		"ends while the agent is away": {command: `echo begin; until [ -e %s ]; do sleep 0.05; done; echo end; exit 4`, endsAway: true, state: "failed", output: "begin\nend\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := newCluster(t)
			release := filepath.Join(filepath.Dir(c.stateDir), "release") // reachable by the job's user
			stop := c.startAgent(t)
			id := c.submit(t, fmt.Sprintf(tc.command, release), 1, 0)
			c.waitState(t, id, "running")
			stop()
			if tc.endsAway {
				touch(t, release)
				waitFor(t, "the job's end while the agent is away", func() bool { return exited(t, c.stateDir) })
			}
			c.startAgent(t)
			if !tc.endsAway {
				touch(t, release)
			}
			j := c.waitState(t, id, tc.state)
			if got := c.starts(t, id); got != 1 {
				t.Fatalf("%d start commands, want 1", got)
			}
			waitFor(t, "all output", func() bool { return c.logs(t, id).Data == tc.output })
			if tc.state == "failed" && (j.ExitCode == nil || *j.ExitCode != 4) {
				t.Fatalf("exit code %v, want 4", j.ExitCode)
			}
		})
	}
}

// touch creates the file at path.
func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// exited reports whether a run in the agent's state folder has ended: its
// wrapper wrote the exit status into the run's exit file.
func exited(t *testing.T, stateDir string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(stateDir, "*.exit"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && len(b) > 0 {
			return true
		}
	}
	return false
}

// A run whose process vanished while the agent was away (killed, host
// rebooted) is reported lost: the job goes back to the queue while its
// retries last.
func TestAgentReportsVanishedRunLost(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	stop := c.startAgent(t)
	id := c.submit(t, `echo begin; sleep 60`, 1, 1)
	c.waitState(t, id, "running")
	start, err := models.LatestCommand(context.Background(), c.s.DB.Bun, id, models.CommandStart)
	if err != nil {
		t.Fatal(err)
	}
	var res api.CommandResult
	waitFor(t, "the start's answer", func() bool {
		start, _ = models.LatestCommand(context.Background(), c.s.DB.Bun, id, models.CommandStart)
		return start.Result != nil
	})
	_ = jsonUnmarshal(start.Result, &res)
	stop()
	if err := syscall.Kill(-res.PID, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the run's process group %d: %v", res.PID, err)
	}
	c.startAgent(t)
	// Lost, requeued (retry 1 of 1), and run again on the same node.
	waitFor(t, "a second start", func() bool { return c.starts(t, id) == 2 })
	j := c.job(t, id)
	if j.RetryCount != 1 {
		t.Fatalf("retry_count %d, want 1", j.RetryCount)
	}
	evs, _ := models.JobEvents(context.Background(), c.s.DB.Bun, id)
	var reasons []string
	for _, e := range evs {
		reasons = append(reasons, e.ToState+": "+e.Reason)
	}
	if !strings.Contains(strings.Join(reasons, "\n"), "lost on its node") {
		t.Fatalf("no lost move in %q", reasons)
	}
}
