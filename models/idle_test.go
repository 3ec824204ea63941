package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A running job's last activity comes from the usage samples' peaks and
// from the beats not yet folded into a sample: a burst between two samples
// is activity, a GPU at 0 % throughout is not.
func TestIdleAllocationsSeeBurstsBetweenSamples(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	node, gpuIDs := testdb.Node(t, db, 1)
	owner := testdb.User(t, db, models.RoleMember)
	job := testdb.Job(t, db, owner, 1)
	if _, err := db.Bun.ExecContext(ctx, `UPDATE jobs SET state = 'running', started_at = ? WHERE id = ?`, t0, job.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Bun.ExecContext(ctx, `INSERT INTO allocations (job_id, gpu_id, user_id, created_at) VALUES (?, ?, ?, ?)`,
		job.ID, gpuIDs[0], owner.ID, t0); err != nil {
		t.Fatal(err)
	}
	uuid := "GPU-" + node.Name[len("node-"):] + "-0"
	// lastActive also checks that the latest telemetry is the latest beat,
	// sample or not (telemetry older than the activity would not count).
	lastBeat := time.Duration(0)
	beat := func(at time.Duration, util int) {
		t.Helper()
		if _, err := db.Heartbeat(ctx, node.ID, []models.GPUTelemetry{{UUID: uuid, UtilizationPct: util, Health: models.HealthOK}}, t0.Add(at)); err != nil {
			t.Fatal(err)
		}
		lastBeat = at
	}
	lastActive := func(now time.Duration) time.Duration {
		t.Helper()
		allocs, err := models.IdleAllocations(ctx, db.Bun, 5, time.Hour, t0.Add(now))
		if err != nil || len(allocs) != 1 {
			t.Fatalf("idle allocations: %+v (%v)", allocs, err)
		}
		if got := allocs[0].LastSample.Sub(t0); got != lastBeat {
			t.Errorf("at %v: latest telemetry %v, want the last beat's %v", now, got, lastBeat)
		}
		if allocs[0].LastActive.IsZero() {
			return -1
		}
		return allocs[0].LastActive.Sub(t0)
	}
	beat(0, 0) // a sample at once, idle
	beat(2*time.Second, 0)
	if got := lastActive(3 * time.Second); got != -1 {
		t.Fatalf("idle throughout: last active at %v, want none", got)
	}
	beat(4*time.Second, 80) // a burst, not yet in a sample
	beat(6*time.Second, 0)
	if got := lastActive(7 * time.Second); got != 6*time.Second {
		t.Errorf("burst pending in the GPU's beats: last active %v, want 6s (the latest beat since it)", got)
	}
	beat(8*time.Second, 0)
	beat(10*time.Second, 0) // the sample: mean 16, peak 80
	if got := lastActive(11 * time.Second); got != 10*time.Second {
		t.Errorf("burst folded into a sample: last active %v, want 10s (the sample's time)", got)
	}
}
