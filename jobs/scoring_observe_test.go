package jobs_test

import (
	"context"
	"io"
	"log/slog"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/internal/testdb"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// runLease creates a running lease job of jobType on gpus, started at start.
func runLease(t *testing.T, db *models.DB, owner *models.User, jobType string, gpus []int64, start time.Time) *models.Job {
	t.Helper()
	ctx := context.Background()
	j := &models.Job{OwnerID: owner.ID, GPUCount: len(gpus), Executor: models.ExecutorLease, JobType: jobType}
	if err := models.CreateJob(ctx, db.Pool, j, start); err != nil {
		t.Fatal(err)
	}
	testdb.Start(t, db, j.ID, gpus, start)
	_, err := db.Bun.NewUpdate().Model((*models.Job)(nil)).Set("lease_expires_at = ?", start.Add(time.Hour)).Where("id = ?", j.ID).Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// endLease ends a running lease at at: completed (released) or canceled.
func endLease(t *testing.T, db *models.DB, id int64, state string, at time.Time) {
	t.Helper()
	kind := models.StopRelease
	if state == models.JobCanceled {
		kind = models.StopCancel
	}
	testdb.End(t, db, id, kind, at)
}

func observations(t *testing.T, db *models.DB) []models.ScoringObservation {
	t.Helper()
	var out []models.ScoringObservation
	if err := db.Bun.NewSelect().Model(&out).OrderExpr("id").Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	return out
}

// A lease that completes observes its own runtime, GPU model and
// neighbours, once; canceled and expired leases observe nothing; the
// applied model then gives queued jobs of that type their learned runtime.
func TestCompletionObservesAndFeedsTheScheduler(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	_, gpus := testdb.Node(t, db, 4)
	owner := testdb.User(t, db, models.RoleMember)
	t0 := testdb.Now
	bert := runLease(t, db, owner, "train-bert", gpus[:2], t0)
	runLease(t, db, owner, "etl", gpus[2:3], t0.Add(10*time.Second))
	canceled := runLease(t, db, owner, "train-bert", gpus[3:4], t0)
	endLease(t, db, bert.ID, models.JobCompleted, t0.Add(100*time.Second))
	endLease(t, db, canceled.ID, models.JobCanceled, t0.Add(50*time.Second))
	expired := runLease(t, db, owner, "train-bert", gpus[3:4], t0.Add(time.Minute))
	testdb.End(t, db, expired.ID, models.StopExpire, t0.Add(2*time.Hour)) // cut off at its lease expiry

	got := observations(t, db)
	if len(got) != 1 {
		t.Fatalf("%d observations, want 1: %+v", len(got), got)
	}
	o := got[0]
	want := models.ScoringObservation{ID: o.ID, JobType: "train-bert", GPUType: "NVIDIA H100 80GB HBM3", RuntimeS: 100,
		Colocated: []string{"etl", "train-bert"}, JobID: &bert.ID, Source: models.ObservationJob, CreatedAt: o.CreatedAt}
	if diff := cmp.Diff(want, o); diff != "" {
		t.Fatalf("observation (-want +got):\n%s", diff)
	}
	// Observing the same job again records nothing.
	if err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		j, err := models.GetJob(ctx, tx, bert.ID)
		if err != nil {
			return err
		}
		o, _, err := models.CompletionObservation(ctx, tx, j, *j.EndedAt)
		if err != nil {
			return err
		}
		_, err = models.RecordObservation(ctx, tx, o, models.ObservationJob, &j.ID, t0.Add(200*time.Second))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if n := len(observations(t, db)); n != 1 {
		t.Fatalf("%d observations after a repeat, want 1", n)
	}

	deps := jobs.Deps{DB: db, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: func() time.Time { return t0 }}
	if n, err := jobs.ApplyScoringObservations(ctx, deps); err != nil || n != 1 {
		t.Fatalf("applied %d, %v", n, err)
	}
	if n, err := jobs.ApplyScoringObservations(ctx, deps); err != nil || n != 0 {
		t.Fatalf("applied %d again, %v", n, err)
	}

	queued := map[string]*models.Job{}
	for name, j := range map[string]*models.Job{
		"learned":   {JobType: "train-bert"},
		"announced": {JobType: "train-bert", EstimatedDurationS: ptr(int64(3600))},
		"unknown":   {JobType: "never-seen"},
		"untyped":   {},
	} {
		j.OwnerID, j.GPUCount, j.Executor = owner.ID, 8, models.ExecutorLease
		if err := models.CreateJob(ctx, db.Pool, j, t0); err != nil {
			t.Fatal(err)
		}
		queued[name] = j
	}
	snap, _, err := models.LoadSnapshot(ctx, db.Bun, t0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	est := map[string]time.Duration{}
	for name, j := range queued {
		for _, p := range snap.Pending {
			if p.ID == j.ID {
				est[name] = p.EstimatedDuration
			}
		}
	}
	wantEst := map[string]time.Duration{"learned": 100 * time.Second, "announced": time.Hour, "unknown": 0, "untyped": 0}
	if diff := cmp.Diff(wantEst, est); diff != "" {
		t.Fatalf("estimates (-want +got):\n%s", diff)
	}
}

func ptr[T any](v T) *T { return &v }

// Several replicas applying at once fold every observation exactly once, in
// id order: the result equals one fold in order, bit for bit.
func TestReplicasApplyInOneOrder(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	cfg := scoring.DefaultConfig()
	var want = map[scoring.Key]scoring.Moments{}
	var inter = map[scoring.Pair]scoring.Moments{}
	for i := range 300 {
		o := scoring.Observation{JobType: []string{"a", "b", "c"}[i%3], GPUType: []string{"H100", "A100"}[i%2],
			RuntimeS: 50 + math.Mod(float64(i*37), 90)}
		if i%5 == 0 {
			o.Colocated = []string{"noisy"}
		}
		if _, err := models.RecordObservation(ctx, db.Bun, o, models.ObservationAPI, nil, testdb.Now); err != nil {
			t.Fatal(err)
		}
		k := scoring.Key{JobType: o.JobType, GPUType: o.GPUType}
		l := cfg.Learn(want[k], o)
		want[k] = l.Runtime
		if l.HasSlowdown {
			p := scoring.Pair{JobType: o.JobType, Other: "noisy"}
			inter[p] = inter[p].Add(l.Slowdown)
		}
	}
	deps := jobs.Deps{DB: db, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: func() time.Time { return testdb.Now }}
	var wg sync.WaitGroup
	counts := make([]int, 4)
	for r := range counts {
		wg.Go(func() {
			n, err := jobs.ApplyScoringObservations(ctx, deps)
			if err != nil {
				t.Error(err)
			}
			counts[r] = n
		})
	}
	wg.Wait()
	if total := counts[0] + counts[1] + counts[2] + counts[3]; total != 300 {
		t.Fatalf("applied %v = %d, want 300 in all", counts, total)
	}
	for _, jt := range []string{"a", "b", "c"} {
		st, err := models.LoadScoringState(ctx, db.Bun, jt, []string{"noisy"})
		if err != nil {
			t.Fatal(err)
		}
		for k, m := range st.Runtime {
			if m != want[k] {
				t.Errorf("%v: %+v, want %+v", k, m, want[k])
			}
		}
		for p, m := range st.Interference {
			if m != inter[p] {
				t.Errorf("%v: %+v, want %+v", p, m, inter[p])
			}
		}
	}
}
