package node_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os/user"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// timelineSays reports whether job id's timeline has a move to state whose
// reason holds want.
func (c *cluster) timelineSays(t testing.TB, id int64, state, want string) bool {
	t.Helper()
	evs, err := models.JobEvents(context.Background(), c.s.DB.Bun, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.ToState == state && strings.Contains(e.Reason, want) {
			return true
		}
	}
	return false
}

// localJobsOf lists agent a's leases through its local API's /jobs.
func localJobsOf(t testing.TB, c *cluster, a *node.Agent) []map[string]any {
	t.Helper()
	srv := httptest.NewServer((&node.Local{Agent: a, Port: 9123, Version: "test", Logger: c.s.Logger}).Handler())
	defer srv.Close()
	return localJobs(t, srv.URL)
}

// An /acquire lease is recorded with its process, so that an agent that
// restarts finds it: the lease whose process still runs is adopted (still
// running, renewed by the new agent's heartbeats, ended when its process
// exits); the one whose process died meanwhile is ended; a request whose
// waiting client is gone is withdrawn.
func TestAgentRestartAdoptsLiveLeases(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	stop := c.startAgent(t)
	url := c.localAPI(t, false)
	live, dead := sleeper(t, time.Minute), sleeper(t, time.Minute)
	gpus := map[int]any{}
	for _, p := range []int{live.Process.Pid, dead.Process.Pid} {
		status, out := post(t, url+"/acquire", fmt.Sprintf(`{"pid": %d, "num_gpus": 2}`, p))
		if status != 200 {
			t.Fatalf("acquire for %d: %d %v", p, status, out)
		}
		gpus[p] = out["gpus"]
	}
	liveJob, deadJob := leaseJob(t, c, live.Process.Pid), leaseJob(t, c, dead.Process.Pid)
	start, err := gpu.HostProc.StartTime(live.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if liveJob.State != models.JobRunning || liveJob.LeasePID == nil || *liveJob.LeasePID != live.Process.Pid ||
		liveJob.LeasePIDStart == nil || uint64(*liveJob.LeasePIDStart) != start || liveJob.LeaseConfirmedAt == nil ||
		liveJob.LeaseTTLS == nil || *liveJob.LeaseTTLS != 60 {
		t.Fatalf("granted lease %+v: want running, confirmed, with its process (%d, started %d) and the 1m node TTL", liveJob, live.Process.Pid, start)
	}
	// A request the stopped agent took, whose client is gone with it.
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	waiter := sleeper(t, time.Minute)
	ws, _ := gpu.HostProc.StartTime(waiter.Process.Pid)
	waiting, err := apiclient.New(c.s.URL, c.nodeToken).CreateLease(context.Background(), c.node.ID,
		api.NodeLeaseRequest{PID: waiter.Process.Pid, PIDStart: ws, UnixUser: me.Username, GPUCount: 1})
	if err != nil {
		t.Fatal(err)
	}

	stop()
	renewedBefore := *c.job(t, liveJob.ID).LeaseExpiresAt
	_ = dead.Process.Kill()
	_ = dead.Wait()
	c.startAgent(t)

	waitFor(t, "the dead process's lease ended", func() bool {
		return c.job(t, deadJob.ID).State == models.JobCompleted && c.liveAllocations(t, deadJob.ID) == 0
	})
	if !c.timelineSays(t, deadJob.ID, models.JobCompleted, fmt.Sprintf("process %d is gone (found when the node agent started)", dead.Process.Pid)) {
		t.Fatal("the dead process's lease does not say why it ended")
	}
	waitFor(t, "the waiting request withdrawn", func() bool {
		j := c.job(t, waiting.JobID)
		return models.IsTerminal(j.State) && c.liveAllocations(t, j.ID) == 0 &&
			c.timelineSays(t, j.ID, j.State, "its waiting client is gone")
	})
	waitFor(t, "the live lease renewed by the new agent", func() bool {
		j := c.job(t, liveJob.ID)
		return j.State == models.JobRunning && j.LeaseExpiresAt.After(renewedBefore)
	})
	adopted := false
	for _, l := range localJobsOf(t, c, c.agent) {
		adopted = adopted || (int(l["pid"].(float64)) == live.Process.Pid && l["status"] == "running" && l["gpus"] == gpus[live.Process.Pid])
	}
	if !adopted {
		t.Fatalf("the new agent's /jobs does not show the adopted lease: %v", localJobsOf(t, c, c.agent))
	}

	_ = live.Process.Kill()
	_ = live.Wait()
	waitFor(t, "the adopted lease ended with its process", func() bool {
		return c.job(t, liveJob.ID).State == models.JobCompleted && c.liveAllocations(t, liveJob.ID) == 0
	})
	if !c.timelineSays(t, liveJob.ID, models.JobCompleted, fmt.Sprintf("process %d exited", live.Process.Pid)) {
		t.Fatal("the adopted lease does not say its process exited")
	}
}

// A lease's process is its PID and its start time: a process that reused
// the PID is another, so the lease is ended rather than adopted.
func TestAgentRestartEndsLeaseOfReusedPID(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	stop := c.startAgent(t)
	url := c.localAPI(t, false)
	p := sleeper(t, time.Minute)
	if status, out := post(t, url+"/acquire", fmt.Sprintf(`{"pid": %d, "num_gpus": 1}`, p.Process.Pid)); status != 200 {
		t.Fatalf("acquire: %d %v", status, out)
	}
	j := leaseJob(t, c, p.Process.Pid)
	stop()
	// As if the process had ended and another got its PID: its start time differs.
	if _, err := c.s.DB.Bun.NewUpdate().Model((*models.Job)(nil)).Set("lease_pid_start = lease_pid_start - 1").Where("id = ?", j.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.startAgent(t)
	waitFor(t, "the lease ended", func() bool { return c.job(t, j.ID).State == models.JobCompleted })
	if !c.timelineSays(t, j.ID, models.JobCompleted, "is gone (found when the node agent started)") {
		t.Fatal("the lease does not say its process is gone")
	}
}

// An agent that stops for good stops renewing its leases: they run out
// after the policy's node_ttl, even before the node is marked down.
func TestLeasesOfAGoneAgentExpire(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	stop := c.startAgent(t)
	url := c.localAPI(t, false)
	p := sleeper(t, time.Minute)
	if status, out := post(t, url+"/acquire", fmt.Sprintf(`{"pid": %d, "num_gpus": 2}`, p.Process.Pid)); status != 200 {
		t.Fatalf("acquire: %d %v", status, out)
	}
	j := leaseJob(t, c, p.Process.Pid)
	stop()
	last := *c.job(t, j.ID).LeaseExpiresAt
	expire := func(at time.Time) {
		t.Helper()
		d := *c.s.Deps
		d.Now = func() time.Time { return at }
		if err := jobs.ExpireLeases(context.Background(), d); err != nil {
			t.Fatal(err)
		}
	}
	expire(last.Add(-time.Second))
	if got := c.job(t, j.ID); got.State != models.JobRunning {
		t.Fatalf("before its node TTL ran out: %s", got.State)
	}
	expire(last.Add(time.Second))
	if got := c.job(t, j.ID); got.State != models.JobCompleted || c.liveAllocations(t, j.ID) != 0 {
		t.Fatalf("after its node TTL ran out: %s with %d GPUs", got.State, c.liveAllocations(t, j.ID))
	}
	if !c.timelineSays(t, j.ID, models.JobCompleted, fmt.Sprintf("its node agent stopped renewing it (process %d, or the agent, is gone)", p.Process.Pid)) {
		t.Fatal("the lease does not say why it ended")
	}
	n, err := models.GetNode(context.Background(), c.s.DB.Bun, c.node.ID)
	if err != nil || n.Status == models.NodeDown {
		t.Fatalf("node %v (%v): the lease should expire before the node is marked down", n, err)
	}
	if last.Sub(time.Now()) > time.Minute {
		t.Fatalf("the lease ran until %v, more than the node TTL from now", last)
	}
}

// A lease the control plane ended while its process runs (released by its
// owner, expired) is no longer renewed: the heartbeat's answer names it and
// the agent marks it over.
func TestAgentDropsLeaseEndedElsewhere(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.startAgent(t)
	url := c.localAPI(t, false)
	p := sleeper(t, time.Minute)
	if status, out := post(t, url+"/acquire", fmt.Sprintf(`{"pid": %d, "num_gpus": 1}`, p.Process.Pid)); status != 200 {
		t.Fatalf("acquire: %d %v", status, out)
	}
	j := leaseJob(t, c, p.Process.Pid)
	testdb.End(t, c.s.DB, j.ID, models.StopRelease, time.Now())
	waitFor(t, "the agent to mark the lease over", func() bool {
		for _, l := range localJobs(t, url) {
			if int(l["pid"].(float64)) == p.Process.Pid {
				return l["status"] == "done" && l["ended_at"] != nil
			}
		}
		return false
	})
	if c.job(t, j.ID).State != models.JobCompleted {
		t.Fatalf("lease %s", c.job(t, j.ID).State)
	}
}
