package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

func newHold(t *testing.T, db *models.DB, u *models.User, gpus int, model string, ttl time.Duration, now time.Time) *models.Hold {
	t.Helper()
	h := &models.Hold{UserID: u.ID, GPUCount: gpus, GPUModel: model, EndsAt: now.Add(ttl), Source: "log"}
	if err := models.CreateHold(context.Background(), db.Bun, h, 10, now); err != nil {
		t.Fatal(err)
	}
	return h
}

// A start consumes its owner's oldest matching holds until they cover its
// GPUs, and ends them; other users' and other models' holds stay.
func TestConsumeHolds(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	ana, bo := testdb.User(t, db, models.RoleMember), testdb.User(t, db, models.RoleMember)
	now := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	h1 := newHold(t, db, ana, 1, "", 15*time.Minute, now)
	h2 := newHold(t, db, ana, 1, "A100", 15*time.Minute, now)
	h3 := newHold(t, db, ana, 2, "H100", 15*time.Minute, now)
	hb := newHold(t, db, bo, 1, "", 15*time.Minute, now)
	job := testdb.Job(t, db, ana, 2)
	job.GPUModel = "H100"

	later := now.Add(30 * time.Second)
	got, err := models.ConsumeHolds(ctx, db.Bun, job, later)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{h1.ID, h3.ID}, got); diff != "" {
		t.Fatalf("consumed (-want +got):\n%s", diff)
	}
	states := map[int64]string{}
	for _, id := range []int64{h1.ID, h2.ID, h3.ID, hb.ID} {
		h, err := models.GetHold(ctx, db.Bun, id)
		if err != nil {
			t.Fatal(err)
		}
		states[id] = h.State(later.Add(time.Millisecond))
		if h.ConsumedAt != nil && (*h.ConsumedByJob != job.ID || !h.EndsAt.Equal(later)) {
			t.Fatalf("consumed hold %+v", h)
		}
	}
	want := map[int64]string{h1.ID: models.HoldConsumed, h2.ID: models.HoldActive, h3.ID: models.HoldConsumed, hb.ID: models.HoldActive}
	if diff := cmp.Diff(want, states); diff != "" {
		t.Fatalf("states (-want +got):\n%s", diff)
	}
}

func TestExpireHoldsAndStats(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	ana := testdb.User(t, db, models.RoleMember)
	now := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	short := newHold(t, db, ana, 2, "", time.Minute, now)
	long := newHold(t, db, ana, 1, "", 2*time.Hour, now)
	if _, err := models.CancelHold(ctx, db.Bun, long.ID, ana.ID, false, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := models.CancelHold(ctx, db.Bun, long.ID, ana.ID, false, now.Add(2*time.Minute)); !errors.Is(err, models.ErrBadTransition) {
		t.Fatalf("second cancel: %v", err)
	}
	ids, err := models.ExpireHolds(ctx, db.Bun, now.Add(5*time.Minute))
	if err != nil || !cmp.Equal(ids, []int64{short.ID}) {
		t.Fatalf("expired %v %v", ids, err)
	}
	if ids, _ := models.ExpireHolds(ctx, db.Bun, now.Add(6*time.Minute)); len(ids) != 0 {
		t.Fatalf("expired twice: %v", ids)
	}
	stats, err := models.ListHoldStats(ctx, db.Bun, now.Add(-time.Hour), now.Add(6*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	want := []models.HoldStats{{UserID: ana.ID, Email: ana.Email, Total: 2, Expired: 1, Canceled: 1, HeldIdleS: 2*60 + 60}}
	if diff := cmp.Diff(want, stats); diff != "" {
		t.Fatalf("stats (-want +got):\n%s", diff)
	}
}

// The per-user limit counts live holds only, and the user's row lock makes
// concurrent requests take turns.
func TestHoldLimitConcurrent(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ana := testdb.User(t, db, models.RoleMember)
	now := time.Now()
	errs := make(chan error, 6)
	for range 6 {
		go func() {
			errs <- db.InTx(context.Background(), func(ctx context.Context, tx *models.Tx) error {
				return models.CreateHold(ctx, tx, &models.Hold{UserID: ana.ID, GPUCount: 1, EndsAt: now.Add(time.Minute)}, 2, now)
			})
		}()
	}
	ok, limited := 0, 0
	for range 6 {
		switch err := <-errs; {
		case err == nil:
			ok++
		case errors.Is(err, models.ErrHoldLimit):
			limited++
		default:
			t.Fatal(err)
		}
	}
	if ok != 2 || limited != 4 {
		t.Fatalf("%d created, %d refused; want 2 and 4", ok, limited)
	}
}
