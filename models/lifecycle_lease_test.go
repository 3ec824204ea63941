package models_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// step runs fn on job id, locked, in its own transaction.
func step(t testing.TB, db *models.DB, id int64, fn func(ctx context.Context, tx *models.Tx, lc *models.Lifecycle, j *models.LockedJob) error) {
	t.Helper()
	err := db.InTx(context.Background(), func(ctx context.Context, tx *models.Tx) error {
		lc := &models.Lifecycle{}
		j, err := lc.Lock(ctx, tx, id)
		if err != nil {
			return err
		}
		return fn(ctx, tx, lc, j)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func getJob(t testing.TB, db *models.DB, id int64) *models.Job {
	t.Helper()
	j, err := models.GetJob(context.Background(), db.Bun, id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func at(tm *time.Time) time.Time {
	if tm == nil {
		return time.Time{}
	}
	return *tm
}

// A granted lease runs out after confirm_within; confirming it gives it its
// whole TTL, once; renewing gives it the TTL asked for from then.
func TestLeaseGrantConfirmRenew(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	u := testdb.User(t, db, models.RoleMember)
	_, gpus := testdb.Node(t, db, 2)
	policy := scheduler.LeasePolicy{DefaultTTL: scheduler.Duration(time.Hour), ConfirmWithin: scheduler.Duration(30 * time.Second)}
	own, dflt := testdb.Lease(t, db, u, 1), testdb.Lease(t, db, u, 1)
	ttl := int64(600)
	if _, err := db.Bun.NewUpdate().Model((*models.Job)(nil)).Set("lease_ttl_s = ?", ttl).Where("id = ?", own.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	now := testdb.Now
	for i, id := range []int64{own.ID, dflt.ID} {
		step(t, db, id, func(ctx context.Context, tx *models.Tx, lc *models.Lifecycle, j *models.LockedJob) error {
			return lc.Place(ctx, tx, j, models.Placement{GPUIDs: gpus[i : i+1], Reason: "test", Leases: policy}, now)
		})
	}
	for id, wantTTL := range map[int64]int64{own.ID: 600, dflt.ID: 3600} {
		j := getJob(t, db, id)
		if j.State != models.JobRunning || j.LeaseConfirmedAt != nil || !at(j.LeaseExpiresAt).Equal(now.Add(30*time.Second)) ||
			j.LeaseTTLS == nil || *j.LeaseTTLS != wantTTL {
			t.Fatalf("lease %d granted: %s, confirmed %v, expires %v, ttl %v; want running, unconfirmed, 30s after the grant, %ds",
				id, j.State, j.LeaseConfirmedAt, j.LeaseExpiresAt, j.LeaseTTLS, wantTTL)
		}
	}

	confirmedAt := now.Add(10 * time.Second)
	for _, when := range []time.Time{confirmedAt, confirmedAt.Add(time.Minute)} { // the second changes nothing
		step(t, db, own.ID, func(ctx context.Context, tx *models.Tx, lc *models.Lifecycle, j *models.LockedJob) error {
			ok, err := lc.ConfirmLease(ctx, tx, j, when)
			if ok != when.Equal(confirmedAt) {
				t.Errorf("ConfirmLease at %v = %t", when, ok)
			}
			return err
		})
	}
	if j := getJob(t, db, own.ID); !at(j.LeaseConfirmedAt).Equal(confirmedAt) || !at(j.LeaseExpiresAt).Equal(confirmedAt.Add(10*time.Minute)) {
		t.Fatalf("confirmed: at %v, expires %v; want %v and its 10m TTL after", j.LeaseConfirmedAt, j.LeaseExpiresAt, confirmedAt)
	}

	renewedAt := now.Add(5 * time.Minute)
	step(t, db, dflt.ID, func(ctx context.Context, tx *models.Tx, lc *models.Lifecycle, j *models.LockedJob) error {
		return lc.RenewLease(ctx, tx, j, 2*time.Hour, renewedAt)
	})
	if j := getJob(t, db, dflt.ID); !at(j.LeaseExpiresAt).Equal(renewedAt.Add(2*time.Hour)) || !at(j.LeaseConfirmedAt).Equal(renewedAt) || *j.LeaseTTLS != 7200 {
		t.Fatalf("renewed: expires %v, confirmed %v, ttl %d", j.LeaseExpiresAt, j.LeaseConfirmedAt, *j.LeaseTTLS)
	}

	// A waiting lease renewed takes the TTL for its grant; an ended one
	// cannot be renewed; a node job is no lease.
	queued := testdb.Lease(t, db, u, 1)
	step(t, db, queued.ID, func(ctx context.Context, tx *models.Tx, lc *models.Lifecycle, j *models.LockedJob) error {
		return lc.RenewLease(ctx, tx, j, 90*time.Second, now)
	})
	if j := getJob(t, db, queued.ID); j.State != models.JobQueued || j.LeaseExpiresAt != nil || *j.LeaseTTLS != 90 {
		t.Fatalf("queued lease renewed: %s, expires %v, ttl %d", j.State, j.LeaseExpiresAt, *j.LeaseTTLS)
	}
	testdb.End(t, db, own.ID, models.StopRelease, now.Add(time.Minute))
	node := testdb.Job(t, db, u, 1)
	for id, want := range map[int64]error{own.ID: models.ErrJobEnded, node.ID: models.ErrNotALease} {
		err := db.InTx(context.Background(), func(ctx context.Context, tx *models.Tx) error {
			lc := &models.Lifecycle{}
			j, err := lc.Lock(ctx, tx, id)
			if err != nil {
				return err
			}
			return lc.RenewLease(ctx, tx, j, time.Hour, now)
		})
		if !errors.Is(err, want) {
			t.Errorf("renew job %d: %v, want %v", id, err, want)
		}
	}
}

// A heartbeat renews the granted leases its node's agent watches, each for
// its own TTL, and no other.
func TestRenewNodeLeases(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	u := testdb.User(t, db, models.RoleMember)
	node, gpus := testdb.Node(t, db, 4)
	other, otherGPUs := testdb.Node(t, db, 1)
	now := testdb.Now
	lease := func(n *models.Node, gpu int64, pid int) int64 {
		j := testdb.Lease(t, db, u, 1)
		ttl := int64(60)
		j.LeaseTTLS = &ttl
		if _, err := db.Bun.NewUpdate().Model(j).Column("lease_ttl_s").WherePK().Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if pid > 0 {
			if err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error { return models.PinLease(ctx, tx, j, n.ID, pid, 1234) }); err != nil {
				t.Fatal(err)
			}
		} else if _, err := db.Bun.NewUpdate().Model(j).Set("node_id = ?", n.ID).WherePK().Exec(ctx); err != nil { // on the node, no process
			t.Fatal(err)
		}
		testdb.Start(t, db, j.ID, []int64{gpu}, now)
		return j.ID
	}
	watched := lease(node, gpus[0], 100)
	ended := lease(node, gpus[1], 101)
	testdb.End(t, db, ended, models.StopRelease, now)
	plain := lease(node, gpus[2], 0)
	elsewhere := lease(other, otherGPUs[0], 102)
	queued := testdb.Lease(t, db, u, 1)

	later := now.Add(40 * time.Second)
	lc := &models.Lifecycle{}
	renewed, err := lc.RenewNodeLeases(ctx, db.Bun, node.ID, []int64{queued.ID, elsewhere, plain, ended, watched}, later)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(renewed, []int64{watched}) {
		t.Fatalf("renewed %v, want only %d", renewed, watched)
	}
	j := getJob(t, db, watched)
	if !at(j.LeaseExpiresAt).Equal(later.Add(time.Minute)) || !at(j.LeaseConfirmedAt).Equal(later) {
		t.Fatalf("watched lease: expires %v, confirmed %v; want a minute after %v", j.LeaseExpiresAt, j.LeaseConfirmedAt, later)
	}
	if !j.AgentWatched() || *j.LeasePID != 100 || *j.LeasePIDStart != 1234 || *j.NodeID != node.ID {
		t.Fatalf("watched lease's process: %v %v on %v", j.LeasePID, j.LeasePIDStart, j.NodeID)
	}
	if j := getJob(t, db, plain); j.AgentWatched() || !at(j.LeaseExpiresAt).Equal(now.Add(time.Minute)) {
		t.Fatalf("a lease no agent watches: expires %v, want as granted", j.LeaseExpiresAt)
	}
	live, err := models.NodeLeases(ctx, db.Bun, node.ID)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, l := range live {
		ids = append(ids, l.ID)
	}
	if !slices.Equal(ids, []int64{watched, plain}) {
		t.Fatalf("node's live leases %v, want [%d %d]", ids, watched, plain)
	}
}
