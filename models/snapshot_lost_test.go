package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestSnapshotLost: the GPU time lost to preemption over the last week is
// a preempted run's whole length, or its stop grace for a job that
// checkpoints; held counts every allocation's part inside the week. What
// ended an allocation is read from its cause, never from its sentence.
func TestSnapshotLost(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	_, gpus := testdb.Node(t, db, 3)
	owner := testdb.User(t, db, models.RoleMember)
	now := testdb.Now
	alloc := func(checkpoint bool, gpu int64, ran time.Duration, cause, reason string) {
		j := &models.Job{OwnerID: owner.ID, GPUCount: 1, Executor: models.ExecutorLease, Checkpoint: checkpoint, StopGraceS: 90}
		if err := models.CreateJob(ctx, db.Pool, j, now.Add(-3*time.Hour)); err != nil {
			t.Fatal(err)
		}
		_, err := db.Bun.NewRaw(`INSERT INTO allocations (job_id, gpu_id, user_id, created_at, released_at, release_reason, end_cause)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, j.ID, gpu, owner.ID, now.Add(-ran), now, reason, cause).Exec(ctx)
		if err != nil {
			t.Fatal(err)
		}
	}
	alloc(false, gpus[0], time.Hour, models.CausePreempted, "stopped for the critical job")          // lost 3600
	alloc(true, gpus[1], time.Hour, models.CausePreempted, "demoted")                                // lost 90
	alloc(false, gpus[2], 2*time.Hour, models.CauseCompleted, "preempted for job 9 (in words only)") // lost 0
	s, _, err := models.LoadSnapshot(ctx, db.Bun, now, 7*24*time.Hour, scoring.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if s.Lost.LostGPUSeconds != 3690 || s.Lost.HeldGPUSeconds != 4*3600 {
		t.Errorf("lost %+v, want 3690 of 14400 GPU-s", s.Lost)
	}
}
