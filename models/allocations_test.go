package models_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

func TestAllocateRejectsSecondLiveAllocation(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	u := testdb.User(t, db, models.RoleMember)
	_, gpus := testdb.Node(t, db, 2)
	first, second := testdb.Job(t, db, u, 1), testdb.Job(t, db, u, 2)

	if _, err := models.Allocate(ctx, db.Bun, first.ID, u.ID, gpus[:1], testdb.Now); err != nil {
		t.Fatalf("first allocation: %v", err)
	}
	// The second job asks for both GPUs; one is taken, so it gets neither.
	_, err := models.Allocate(ctx, db.Bun, second.ID, u.ID, gpus, testdb.Now)
	if !errors.Is(err, models.ErrGPUTaken) {
		t.Fatalf("second allocation: got %v, want ErrGPUTaken", err)
	}
	live, err := models.LiveAllocations(ctx, db.Bun)
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 1 || live[0].JobID != first.ID {
		t.Fatalf("live allocations = %+v, want only job %d's", live, first.ID)
	}

	// Once released, the GPU can be allocated again.
	if n, err := models.ReleaseJob(ctx, db.Bun, first.ID, "completed", testdb.Now); err != nil || n != 1 {
		t.Fatalf("release: n=%d err=%v", n, err)
	}
	if _, err := models.Allocate(ctx, db.Bun, second.ID, u.ID, gpus, testdb.Now); err != nil {
		t.Fatalf("allocation after release: %v", err)
	}
}

// Two writers racing for the same GPU — as two replicas would — never both
// win: the partial unique index decides.
func TestAllocateConcurrentWritersOneWins(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	u := testdb.User(t, db, models.RoleMember)
	_, gpus := testdb.Node(t, db, 1)
	const writers = 8
	jobs := make([]*models.Job, writers)
	for i := range jobs {
		jobs[i] = testdb.Job(t, db, u, 1)
	}
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			errs[i] = db.InTx(context.Background(), func(ctx context.Context, tx *models.Tx) error {
				_, err := models.Allocate(ctx, tx, jobs[i].ID, u.ID, gpus, testdb.Now)
				return err
			})
		})
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, models.ErrGPUTaken):
			t.Errorf("writer %d: unexpected error %v", i, err)
		}
	}
	if won != 1 {
		t.Fatalf("%d writers got the GPU, want exactly 1", won)
	}
}
