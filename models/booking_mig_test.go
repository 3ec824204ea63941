package models_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A booking of a MIG profile ("2 × 1g.10gb") takes slices: admission (the
// pass's own function) counts the node's seven slices, refuses more than
// are left, and refuses whole GPUs where there are only slices; the pass
// pins the booking to slices of that profile. Naming the GPU in MIG mode
// by node:index is refused with a sentence that says it is split.
func TestBookingMIGSlices(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	node, slices := testdb.MIGNode(t, db, 1, 7)
	ana, bo := testdb.User(t, db, models.RoleMember), testdb.User(t, db, models.RoleMember)
	now := testdb.Now
	book := func(u *models.User, count int, model string) (*models.Booking, error) {
		b := &models.Booking{UserID: u.ID, GPUCount: count, GPUModel: model, StartsAt: now.Add(-time.Hour), EndsAt: now.Add(2 * time.Hour)}
		err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			return models.CreateBooking(ctx, tx, b, nil, 0, now)
		})
		return b, err
	}
	mine, err := book(ana, 2, "1g.10gb")
	if err != nil {
		t.Fatalf("2 × 1g.10gb: %v", err)
	}
	var clash *models.ClashError
	if _, err := book(bo, 6, "1g.10gb"); !errors.As(err, &clash) {
		t.Errorf("6 × 1g.10gb beside 2: %v, want a clash", err)
	}
	if _, err := book(bo, 8, "1g.10gb"); !errors.Is(err, models.ErrBookingGPUs) {
		t.Errorf("8 × 1g.10gb of 7: %v, want no such GPUs", err)
	}
	if _, err := book(bo, 1, ""); !errors.Is(err, models.ErrBookingGPUs) {
		t.Errorf("a whole GPU where there are only slices: %v, want no such GPUs", err)
	}
	if _, err := book(bo, 5, "1g.10gb"); err != nil {
		t.Errorf("the 5 slices left: %v", err)
	}
	snap, _, err := models.LoadSnapshot(ctx, db.Bun, now, time.Hour, scoring.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	pinned := false
	for _, p := range scheduler.Schedule(snap, scheduler.DefaultConfig()).Pins {
		if p.BookingID != mine.ID {
			continue
		}
		pinned = true
		if len(p.GPUIDs) != 2 || !isSubset(p.GPUIDs, slices) {
			t.Errorf("ana's booking pinned to %v, want 2 of the slices %v", p.GPUIDs, slices)
		}
	}
	if !pinned {
		t.Errorf("ana's booking is not pinned")
	}
	_, err = models.ResolveGPURefs(ctx, db.Bun, api.GPURefs{{Node: node.Name, Index: 0}})
	var missing *models.NoSuchGPUError
	if !errors.As(err, &missing) {
		t.Fatalf("naming %s:0: %v, want a no-such-GPU error", node.Name, err)
	}
	if diff := cmp.Diff("7 × 1g.10gb", missing.Slices); diff != "" || !strings.Contains(err.Error(), "cannot be booked as a whole GPU") {
		t.Errorf("naming a GPU in MIG mode: %q (-want +got slices):\n%s", err, diff)
	}
}

func isSubset(xs, of []int64) bool {
	for _, x := range xs {
		found := false
		for _, y := range of {
			found = found || x == y
		}
		if !found {
			return false
		}
	}
	return true
}
