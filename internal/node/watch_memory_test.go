package node_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A share job whose process the (fake) NVML shows over its memory share is
// warned (a job.memory_over notification to its owner), then, past the
// policy's grace, stopped through the normal stop path: it ends canceled
// with a reason naming what it used and its share. A share job within its
// share runs on.
func TestMemoryOverrunWarnsThenStops(t *testing.T) {
	t.Parallel()
	c := newSharedCluster(t)
	ctx := context.Background()
	cfg, err := models.SchedulerConfig(ctx, c.s.DB.Bun)
	if err != nil {
		t.Fatal(err)
	}
	cfg.GPUMemoryOverrun = scheduler.MemoryOverrunPolicy{Action: scheduler.OverrunStop, Grace: scheduler.Duration(2 * time.Second)}
	if err := models.PutSchedulerConfig(ctx, c.s.DB.Bun, cfg, nil, time.Now()); err != nil {
		t.Fatal(err)
	}

	greedy := c.submitShare(t, `sleep 60`, `"gpu_share": 0.25`)
	c.waitState(t, greedy, "running")
	modest := c.submitShare(t, `sleep 60`, `"gpu_share": 0.5`)
	c.waitState(t, modest, "running")
	pids := map[int64]int{}
	waitFor(t, "both share jobs' processes on their GPU", func() bool {
		samples, err := c.fake.Sample(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range samples {
			for _, p := range s.Processes { // the fake names a job's process job-ID
				for _, id := range []int64{greedy, modest} {
					if p.Name == "job-"+itoa(id) {
						pids[id] = p.PID
					}
				}
			}
		}
		return pids[greedy] != 0 && pids[modest] != 0
	})
	c.fake.SetProcessMemory(pids[greedy], 30000) // its quarter of an H100 is 20389 MiB

	waitFor(t, "the owner warned of the overrun", func() bool {
		n, err := c.s.DB.Bun.NewSelect().Table("notifications").
			Where("event = ? AND subject LIKE ?", models.EventJobMemoryOver, "job:"+itoa(greedy)+":memory:%").Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n > 0
	})
	c.waitState(t, greedy, "canceled")
	j := c.job(t, greedy)
	for _, want := range []string{"30000M", "over its share of 20389M", "gpu_memory_overrun"} {
		if !strings.Contains(j.StopReason, want) {
			t.Errorf("stop reason %q does not say %q", j.StopReason, want)
		}
	}
	if st := c.job(t, modest).State; st != models.JobRunning {
		t.Errorf("the share job within its share is %s, want running", st)
	}
	c.s.Do(t, "DELETE", "/api/v1/queue/"+itoa(modest), c.user, "")
	c.waitState(t, modest, "canceled")
}
