package node_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A node that stops heartbeating is marked down: its job is lost and goes
// back to the queue (it has a retry left), its GPUs are released and no
// longer offered. When the agent comes back, the old run — still going,
// orphaned — is killed rather than left to run twice, and the job runs
// again.
func TestNodeDownRequeuesAndKillsOrphan(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	shared, err := os.MkdirTemp("", "gpusched-node-down-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(shared) })
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(shared, "ran-once")
	stop := c.startAgent(t)
	id := c.submit(t, `if [ -e `+marker+` ]; then echo second run; exit 0; fi; touch `+marker+`; echo first run; sleep 60`, 1, 1)
	c.waitState(t, id, "running")
	var first api.CommandResult
	waitFor(t, "the start's answer", func() bool {
		start, _ := models.LatestCommand(context.Background(), c.s.DB.Bun, id, models.CommandStart)
		return start.Result != nil && jsonUnmarshal(start.Result, &first) == nil && first.PID > 0
	})
	stop()

	// Time passes beyond the down window without heartbeats.
	later := *c.s.Deps
	later.Now = func() time.Time { return time.Now().Add(2 * later.Config.NodeDownAfter) }
	if err := jobs.SweepNodes(context.Background(), later); err != nil {
		t.Fatal(err)
	}
	j := c.job(t, id)
	if j.State != models.JobQueued || j.RetryCount != 1 || c.liveAllocations(t, id) != 0 {
		t.Fatalf("after the node went down: state %s, retries %d, %d allocations; want queued, 1, 0", j.State, j.RetryCount, c.liveAllocations(t, id))
	}
	n, _ := models.GetNode(context.Background(), c.s.DB.Bun, c.node.ID)
	if n.Status != models.NodeDown {
		t.Fatalf("node status %s, want down", n.Status)
	}
	if syscall.Kill(first.PID, 0) != nil {
		t.Fatal("the orphaned run should still be going before the agent returns")
	}

	c.startAgent(t)
	c.waitState(t, id, "completed")
	waitFor(t, "the orphan killed", func() bool { return syscall.Kill(first.PID, 0) != nil })
	if got := c.starts(t, id); got != 2 {
		t.Fatalf("%d start commands, want 2", got)
	}
	if l := c.logs(t, id); l.Data != "second run\n" {
		t.Fatalf("output of the second run = %q", l.Data)
	}
}
