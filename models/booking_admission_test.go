package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// Admission and the pass decide a booking with one function: on two GPUs,
// GPU 0 named until 1 h from now and GPU 1 named from 1 h on leave a GPU
// free at every moment between, but no one GPU free from 30 min to 2 h, so
// a booking of one GPU then is refused, naming both (a matching moment by
// moment accepted it, and the pass could not pin it). What is admitted the
// pass pins in full.
func TestBookingAdmissionMatchesThePass(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	_, gpus := testdb.Node(t, db, 2)
	ana, bo, cy := testdb.User(t, db, models.RoleMember), testdb.User(t, db, models.RoleMember), testdb.User(t, db, models.RoleMember)
	now := testdb.Now
	book := func(u *models.User, count int, named []int64, from, to time.Duration) (*models.Booking, error) {
		b := &models.Booking{UserID: u.ID, GPUCount: count, StartsAt: now.Add(from), EndsAt: now.Add(to)}
		err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			return models.CreateBooking(ctx, tx, b, named, 0, now)
		})
		return b, err
	}
	first, err := book(ana, 1, gpus[:1], -time.Hour, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	second, err := book(cy, 1, gpus[1:], time.Hour, 3*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	_, err = book(bo, 1, nil, 30*time.Minute, 2*time.Hour)
	var clash *models.ClashError
	if !errors.As(err, &clash) {
		t.Fatalf("one GPU from 30 min to 2 h: %v, want a clash", err)
	}
	var rivals []int64
	for _, r := range clash.Rivals {
		rivals = append(rivals, r.ID)
	}
	if diff := cmp.Diff([]int64{first.ID, second.ID}, rivals); diff != "" || !clash.At.Equal(now.Add(30*time.Minute)) {
		t.Errorf("clash at %v with (-want +got):\n%s", clash.At, diff)
	}
	if _, err := book(bo, 1, nil, 3*time.Hour, 4*time.Hour); err != nil {
		t.Fatalf("one GPU after both: %v", err)
	}
	if _, err := book(bo, 1, nil, -30*time.Minute, 30*time.Minute); err != nil {
		t.Fatalf("GPU 1 until cy's booking: %v", err)
	}
	// The pass pins ana's and bo's bookings in force, one GPU each.
	snap, _, err := models.LoadSnapshot(ctx, db.Bun, now, time.Hour, scoring.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	pins := scheduler.Schedule(snap, scheduler.DefaultConfig()).Pins
	if len(pins) != 2 || len(pins[0].GPUIDs) != 1 || len(pins[1].GPUIDs) != 1 || pins[0].GPUIDs[0] == pins[1].GPUIDs[0] {
		t.Fatalf("pins of the bookings in force: %+v", pins)
	}
}
