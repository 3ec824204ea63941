package models_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// place places lease job id on gpus through the lifecycle, in its own
// transaction, and returns its error.
func place(db *models.DB, id int64, gpus []int64) error {
	return db.InTx(context.Background(), func(ctx context.Context, tx *models.Tx) error {
		lc := &models.Lifecycle{}
		j, err := lc.Lock(ctx, tx, id)
		if err != nil {
			return err
		}
		return lc.Place(ctx, tx, j, models.Placement{GPUIDs: gpus, Reason: "test"}, testdb.Now)
	})
}

func TestAllocateRejectsSecondLiveAllocation(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	u := testdb.User(t, db, models.RoleMember)
	_, gpus := testdb.Node(t, db, 2)
	first, second := testdb.Lease(t, db, u, 1), testdb.Lease(t, db, u, 2)

	if err := place(db, first.ID, gpus[:1]); err != nil {
		t.Fatalf("first allocation: %v", err)
	}
	// The second job asks for both GPUs; one is taken, so it gets neither.
	if err := place(db, second.ID, gpus); !errors.Is(err, models.ErrGPUTaken) {
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
	testdb.End(t, db, first.ID, models.StopRelease, testdb.Now)
	if err := place(db, second.ID, gpus); err != nil {
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
		jobs[i] = testdb.Lease(t, db, u, 1)
	}
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() { errs[i] = place(db, jobs[i].ID, gpus) })
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
