package jobs_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// Two replicas running passes at the same moment never give a GPU twice:
// the advisory lock serialises them, and every pass succeeds.
func TestConcurrentPassesNeverDoubleBook(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	testdb.Node(t, db, 8)
	testdb.Node(t, db, 8)
	owner := testdb.User(t, db, models.RoleMember)
	sizes := []int{1, 2, 4, 8, 1, 3, 2, 8, 1, 1, 4, 2, 6, 1, 8, 2}
	var all []*models.Job
	for _, n := range sizes {
		j := &models.Job{OwnerID: owner.ID, GPUCount: n, Executor: models.ExecutorLease}
		if err := models.CreateJob(ctx, db.Pool, j, testdb.Now); err != nil {
			t.Fatal(err)
		}
		all = append(all, j)
	}
	d := jobs.Deps{DB: db, Logger: quiet(), Now: time.Now, Lifecycle: &models.Lifecycle{}}
	for round := range 4 {
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() {
				if _, err := jobs.RunPass(ctx, d, 0, "test"); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: pass failed: %v", round, err)
		}
		live, err := models.LiveAllocations(ctx, db.Bun)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int64]int64{}
		perJob := map[int64]int{}
		for _, a := range live {
			if other, ok := seen[a.GPUID]; ok {
				t.Fatalf("round %d: GPU %d held by jobs %d and %d", round, a.GPUID, other, a.JobID)
			}
			seen[a.GPUID] = a.JobID
			perJob[a.JobID]++
		}
		if len(live) == 0 || len(live) > 16 {
			t.Fatalf("round %d: %d live allocations", round, len(live))
		}
		for _, j := range all {
			got, _ := models.GetJob(ctx, db.Bun, j.ID)
			if n := perJob[j.ID]; (got.State == models.JobRunning) != (n > 0) || (n > 0 && n != j.GPUCount) {
				t.Fatalf("round %d: job %d in %s holds %d of its %d GPUs", round, j.ID, got.State, n, j.GPUCount)
			}
		}
		// Free the running ones for the next round.
		for jobID := range perJob {
			testdb.End(t, db, jobID, models.StopRelease, time.Now())
		}
	}
}
