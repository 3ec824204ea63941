package node_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// An admin declares a MIG layout for a host of four whole H100s (the fake
// splits them with go-nvml's H100 profiles, as NVML would): the agent
// applies it at once to the three free GPUs and registers their slices;
// the GPU a job runs on keeps its layout and the agent's report says it
// waits; when the job ends that GPU is split too. Layouts the GPUs cannot
// take are 400s naming the problem.
func TestDeclaredMIGLayoutAppliedToFreeGPUs(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	a := &node.Agent{Client: apiclient.New(c.s.URL, c.nodeToken), GPUs: c.fake, Hostname: "h", Version: "test",
		Logger: c.s.Logger.With("agent", "test"), Interval: time.Second, StateDir: c.stateDir}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, "4 whole GPUs", func() bool { return liveGPUs(t, c.s.DB, c.node.ID) == 4 })

	admin, _ := c.s.UserToken(t, models.RoleAdmin)
	path := "/api/v1/cluster/nodes/" + c.node.Name + "/mig-layout"
	for body, says := range map[string]string{
		`{"layout":"gpu 0: 8x1g.10gb"}`:  "8×1g.10gb: at most 7 fit",
		`{"layout":"gpu 0: 2×1g.12gb"}`:  "this GPU offers no profile 1g.12gb",
		`{"layout":"gpu 0: 3x3g.40gb"}`:  "GPU 0",
		`{"layout":"gpu 9: 7x1g.10gb"}`:  "this node has GPUs 0-3",
		`{"layout":"gpu zero: 1g.10gb"}`: "want an index",
	} {
		if st, out := c.s.Do(t, "PUT", path, admin, body); st != 400 || !strings.Contains(string(out), says) {
			t.Errorf("%s: %d %s, want a 400 saying %q", body, st, out, says)
		}
	}
	if st, out := c.s.Do(t, "PUT", path, c.user, `{"layout":"gpu 0-3: 7x1g.10gb"}`); st != 403 {
		t.Errorf("a member declares a layout: %d %s", st, out)
	}

	id := c.submitOn(t, "sleep 600", "", 1)
	c.waitState(t, id, models.JobRunning)
	held := c.heldDevices(t, id)
	if len(held) != 1 {
		t.Fatalf("job holds %+v", held)
	}
	busy := held[0].Index
	if st, out := c.s.Do(t, "PUT", path, admin, `{"layout":"gpu 0-3: 7x1g.10gb"}`); st != 200 || !strings.Contains(string(out), `"layout":"gpu 0-3: 7×1g.10gb"`) {
		t.Fatalf("declare the layout: %d %s", st, out)
	}
	waitFor(t, "21 slices of the 3 free GPUs and the busy GPU whole", func() bool { return liveGPUs(t, c.s.DB, c.node.ID) == 22 })
	waits := fmt.Sprintf("gpu %d: 7×1g.10gb waits: a job runs on it", busy)
	waitFor(t, "the report says the busy GPU waits", func() bool { return strings.Contains(report(t, c), waits) })

	c.s.Do(t, "DELETE", fmt.Sprintf("/api/v1/queue/%d", id), c.user, "")
	c.waitState(t, id, models.JobCanceled)
	waitFor(t, "28 slices once the job ended", func() bool { return liveGPUs(t, c.s.DB, c.node.ID) == 28 })
	waitFor(t, "the report says the GPU was split", func() bool {
		r := report(t, c)
		return strings.Contains(r, fmt.Sprintf("gpu %d: applied", busy)) || strings.Contains(r, "the GPUs match the declared layout")
	})
}

// report is the node's last MIG layout report.
func report(t *testing.T, c *cluster) string {
	n, err := models.GetNode(context.Background(), c.s.DB.Bun, c.node.ID)
	if err != nil {
		t.Fatal(err)
	}
	return n.MIGLayoutReport
}

// A GPU booked from now on keeps its layout while the booking holds it:
// the agent splits the free GPU beside it and reports that the booked one
// waits.
func TestDeclaredMIGLayoutWaitsForABooking(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	a := &node.Agent{Client: apiclient.New(c.s.URL, c.nodeToken), GPUs: c.fake, Hostname: "h", Version: "test",
		Logger: c.s.Logger.With("agent", "test"), Interval: time.Second, StateDir: c.stateDir}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, "4 whole GPUs", func() bool { return liveGPUs(t, c.s.DB, c.node.ID) == 4 })

	now := time.Now().UTC()
	if st, out := c.s.Do(t, "POST", "/api/v1/bookings", c.user, fmt.Sprintf(`{"gpu_ids":["%s:2"],"starts_at":%q,"ends_at":%q}`,
		c.node.Name, now.Format(time.RFC3339), now.Add(2*time.Hour).Format(time.RFC3339))); st != 201 {
		t.Fatalf("book GPU 2: %d %s", st, out)
	}
	admin, _ := c.s.UserToken(t, models.RoleAdmin)
	if st, out := c.s.Do(t, "PUT", "/api/v1/cluster/nodes/"+c.node.Name+"/mig-layout", admin, `{"layout":"gpu 2-3: 7x1g.10gb"}`); st != 200 {
		t.Fatalf("declare: %d %s", st, out)
	}
	waitFor(t, "GPU 3 split, GPU 2 whole", func() bool { return liveGPUs(t, c.s.DB, c.node.ID) == 10 })
	waitFor(t, "the report says the booked GPU waits", func() bool {
		return strings.Contains(report(t, c), "gpu 2: 7×1g.10gb waits: a booking holds it or starts on it soon")
	})
}
