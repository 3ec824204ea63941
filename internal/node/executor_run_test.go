package node_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A batch job runs as a real process with CUDA_VISIBLE_DEVICES set to its
// GPUs; its output is readable while it runs and after; its exit code
// decides how it ends; its GPUs are released.
func TestNodeExecutorRunsJobs(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.startAgent(t)
	tests := map[string]struct {
		command string
		state   string
		exit    int
		output  string
	}{
		"success": {command: `echo "gpus=$CUDA_VISIBLE_DEVICES user=$(id -un)"; echo to-stderr >&2`, state: "completed", exit: 0,
			output: "gpus=0,1 user=" + jobUser(t) + "\n"},
		"failure": {command: `echo about to fail; exit 3`, state: "failed", exit: 3, output: "about to fail\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			id := c.submit(t, tc.command, 2, 0)
			j := c.waitState(t, id, tc.state)
			if j.ExitCode == nil || *j.ExitCode != tc.exit {
				t.Fatalf("exit code %v, want %d", j.ExitCode, tc.exit)
			}
			l := c.logs(t, id)
			if !strings.Contains(l.Data, tc.output) || !l.Done {
				t.Fatalf("logs = %+v, want %q and done", l, tc.output)
			}
			if name == "success" && !strings.Contains(l.Data, "to-stderr") {
				t.Fatalf("stderr not captured: %q", l.Data)
			}
			if n := c.liveAllocations(t, id); n != 0 {
				t.Fatalf("%d allocations still live", n)
			}
		})
	}
}

// Output is shipped while the job runs; cancel sends SIGTERM to the
// process group and the job ends canceled, with the exit code it chose.
func TestNodeExecutorLogsWhileRunningAndCancel(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.startAgent(t)
	id := c.submit(t, `trap 'echo got TERM; exit 0' TERM; echo started; while :; do sleep 0.1; done`, 1, 0)
	c.waitState(t, id, "running")
	waitFor(t, "output while running", func() bool { return strings.Contains(c.logs(t, id).Data, "started") })
	if status, out := c.s.Do(t, "DELETE", "/api/v1/queue/"+itoa(id), c.user, ""); status != 200 {
		t.Fatalf("cancel: %d %s", status, out)
	}
	j := c.waitState(t, id, "canceled")
	waitFor(t, "the TERM handler's output", func() bool { return strings.Contains(c.logs(t, id).Data, "got TERM") })
	// The job's own status, not the wrapper's interrupted wait (143): a
	// checkpointing job that saved and exited shows it did.
	switch {
	case j.ExitCode == nil:
		t.Error("no exit code after exiting 0 on SIGTERM")
	case *j.ExitCode != 0:
		t.Errorf("exit code %d after exiting 0 on SIGTERM, want 0", *j.ExitCode)
	}
}

// A job that ignores SIGTERM is killed after the grace period.
func TestNodeExecutorKillsAfterGrace(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.startAgent(t)
	id := c.submit(t, `trap '' TERM; echo stubborn; sleep 60`, 1, 0)
	c.waitState(t, id, "running")
	waitFor(t, "output", func() bool { return strings.Contains(c.logs(t, id).Data, "stubborn") })
	c.s.Do(t, "DELETE", "/api/v1/queue/"+itoa(id), c.user, "")
	j := c.waitState(t, id, "canceled")
	if j.EndedAt.Sub(*j.StartedAt) > 30e9 {
		t.Fatalf("took %v to kill", j.EndedAt.Sub(*j.StartedAt))
	}
}

// A job that is a script (the shell running the command line forks it)
// and saves on SIGTERM (0.3 s, within the tests' 1 s grace): the run ends
// when the script has saved and exited, with its exit code, not when the
// shell in between gets the signal.
func TestNodeExecutorStopWaitsForScript(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.startAgent(t)
	dir, err := os.MkdirTemp("", "node-save-") // the job's user (nobody under root) writes here
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "save.sh")
	body := "#!/bin/sh\ntrap 'sleep 0.3; echo saved > " + filepath.Join(dir, "saved") + "; exit 0' TERM\necho started\nwhile :; do sleep 0.1; done\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	id := c.submit(t, script, 1, 0)
	c.waitState(t, id, "running")
	waitFor(t, "output", func() bool { return strings.Contains(c.logs(t, id).Data, "started") })
	c.s.Do(t, "DELETE", "/api/v1/queue/"+itoa(id), c.user, "")
	j := c.waitState(t, id, "canceled")
	if _, err := os.Stat(filepath.Join(dir, "saved")); err != nil {
		t.Errorf("the run ended before the script saved: %v", err)
	}
	switch {
	case j.ExitCode == nil:
		t.Error("no exit code")
	case *j.ExitCode != 0:
		t.Errorf("exit code %d, want the script's 0", *j.ExitCode)
	}
}
