package jobs

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// The periodic sweep ends expired leases; those a node agent watches only
// while nodes are judged by their heartbeats: not after the control plane
// was away (its agents could not renew them meanwhile) until the grace the
// liveness sweep gave nodes is over.
func TestLeaseExpiryWaitsOutTheControlPlanesAbsence(t *testing.T) {
	t.Parallel()
	now := testdb.Now.Add(10 * time.Minute) // both leases ran out long ago
	tests := map[string]struct {
		sweep   *livenessSweep // the liveness sweep's record; nil: none yet
		watched bool           // the watched lease is ended
	}{
		"no liveness sweep yet":          {sweep: nil},
		"back from an outage":            {sweep: &livenessSweep{At: now.Add(-5 * time.Minute)}},
		"in the grace after an outage":   {sweep: &livenessSweep{At: now.Add(-10 * time.Second), GraceUntil: now.Add(20 * time.Second)}},
		"nodes judged by their beats":    {sweep: &livenessSweep{At: now.Add(-10 * time.Second), GraceUntil: now.Add(-time.Minute)}, watched: true},
		"grace over at the sweep's time": {sweep: &livenessSweep{At: now.Add(-time.Second), GraceUntil: now}, watched: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := testdb.New(t)
			ctx := context.Background()
			d := &Deps{DB: db, Lifecycle: &models.Lifecycle{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
				Now: func() time.Time { return now }, Config: Config{NodeDownAfter: 30 * time.Second}}
			owner := testdb.User(t, db, models.RoleMember)
			node, gpus := testdb.Node(t, db, 2)
			plain, watched := testdb.Lease(t, db, owner, 1), testdb.Lease(t, db, owner, 1)
			if err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
				return models.PinLease(ctx, tx, watched, node.ID, 4242, 99)
			}); err != nil {
				t.Fatal(err)
			}
			testdb.Start(t, db, plain.ID, gpus[:1], testdb.Now)
			testdb.Start(t, db, watched.ID, gpus[1:], testdb.Now)
			if tc.sweep != nil {
				if err := models.PutSetting(ctx, db.Bun, settingLivenessSweep, tc.sweep, nil, now); err != nil {
					t.Fatal(err)
				}
			}
			if err := (&LeaseExpiryWorker{deps: d}).Work(ctx, nil); err != nil {
				t.Fatal(err)
			}
			want := map[int64]string{plain.ID: models.JobCompleted, watched.ID: models.JobRunning}
			if tc.watched {
				want[watched.ID] = models.JobCompleted
			}
			for id, state := range want {
				j, err := models.GetJob(ctx, db.Bun, id)
				if err != nil || j.State != state {
					t.Fatalf("lease %d: %v (%v), want %s", id, j.State, err, state)
				}
				if state == models.JobCompleted && !strings.Contains(j.StopReason, "never confirmed the grant within 2m") {
					t.Fatalf("lease %d ended saying %q", id, j.StopReason)
				}
			}
		})
	}
}

// What a lease's end at its expiry says.
func TestExpiryReason(t *testing.T) {
	t.Parallel()
	granted := testdb.Now
	until := func(d time.Duration) *time.Time { v := granted.Add(d); return &v }
	ttl, pid := int64(8*3600), 777
	tests := map[string]struct {
		j    models.Job
		want string
	}{
		"never confirmed": {j: models.Job{Executor: models.ExecutorLease, StartedAt: &granted, LeaseExpiresAt: until(2 * time.Minute), LeaseTTLS: &ttl},
			want: "lease expired: its client never confirmed the grant within 2m (leases.confirm_within), so the GPUs were given back"},
		"its TTL ran out": {j: models.Job{Executor: models.ExecutorLease, StartedAt: &granted, LeaseConfirmedAt: &granted, LeaseExpiresAt: until(8 * time.Hour), LeaseTTLS: &ttl},
			want: "lease expired: its TTL of 8h ran out without a renewal (POST /api/v1/cluster/gpu-renew)"},
		"its agent is gone": {j: models.Job{Executor: models.ExecutorLease, StartedAt: &granted, LeaseConfirmedAt: &granted, LeaseExpiresAt: until(time.Minute), LeasePID: &pid},
			want: "lease expired: its node agent stopped renewing it (process 777, or the agent, is gone)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := expiryReason(&tc.j); got != tc.want {
				t.Fatalf("expiryReason = %q, want %q", got, tc.want)
			}
		})
	}
}
