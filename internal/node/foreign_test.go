package node_test

import (
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// A process the scheduler did not start, on a GPU nobody was given, is
// reported with its owner; the scheduler places nothing there until it is
// gone.
func TestForeignProcessKeepsGPUFree(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.startAgent(t)
	c.fake.Started(31337, "bo", "python", []int{2}) // someone's work outside the scheduler
	waitFor(t, "the foreign process reported", func() bool {
		_, body := c.s.Do(t, "GET", "/api/v1/cluster/gpu-status", c.user, "")
		return strings.Contains(string(body), `"bo"`) || strings.Contains(string(body), "31337")
	})
	id := c.submit(t, `echo ran on $CUDA_VISIBLE_DEVICES`, 4, 0)
	waitFor(t, "an explanation", func() bool { return c.job(t, id).PendingReason != "" })
	if j := c.job(t, id); j.State != models.JobQueued {
		t.Fatalf("a job was placed on a GPU in outside use: %s", j.State)
	}
	c.fake.Ended(31337)
	c.waitState(t, id, models.JobCompleted)
	if l := c.logs(t, id); l.Data != "ran on 0,1,2,3\n" {
		t.Fatalf("output %q", l.Data)
	}
}
