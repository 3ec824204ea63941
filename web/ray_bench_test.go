package web_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// BenchmarkRaySync is one ray_sync over 4 Ray jobs running, as the
// periodic sync does every 2s: Ray's version, then each job's status from
// the fake head over HTTP and a look at its row (logs are copied every 10s,
// so rarely within the loop).
func BenchmarkRaySync(b *testing.B) {
	e := newRayEnv(b, func(c *jobs.RayConfig) { c.LogsEvery = 10 * time.Second }) // the default
	var ids []int64
	for i := range 4 {
		ids = append(ids, e.submit(b, 1, fmt.Sprintf("python shard.py --rank %d", i)))
	}
	waitFor(b, "jobs handed to Ray", func() bool {
		for _, id := range ids {
			if e.job(b, id).State != models.JobAllocating {
				return false
			}
		}
		return true
	})
	e.clock.Add(10 * time.Second) // all RUNNING for a long while
	ctx := context.Background()
	for b.Loop() {
		if err := e.ex.Sync(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	for _, id := range ids {
		if s := e.job(b, id).State; s != models.JobRunning {
			b.Fatalf("job %d is %s, want running", id, s)
		}
	}
}
