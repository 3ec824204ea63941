package jobs_test

import (
	"context"
	"io"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
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
	snap, _, err := models.LoadSnapshot(ctx, db.Bun, t0, time.Hour, scoring.DefaultConfig())
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

// modelNode registers a node of two GPUs of model and returns their IDs.
func modelNode(t *testing.T, db *models.DB, name, model string) []int64 {
	t.Helper()
	ctx := context.Background()
	n, err := models.EnsureNode(ctx, db.Bun, name)
	if err != nil {
		t.Fatal(err)
	}
	inv := []models.GPUInventory{{Index: 0, UUID: name + "-0", Model: model, MemoryMiB: 81559}, {Index: 1, UUID: name + "-1", Model: model, MemoryMiB: 81559}}
	if err := models.RegisterNode(ctx, db.Bun, n.ID, name, "test", inv, testdb.Now); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	if err := db.Bun.NewSelect().Model((*models.GPU)(nil)).Column("id").Where("node_id = ?", n.ID).OrderExpr("idx").Scan(ctx, &ids); err != nil {
		t.Fatal(err)
	}
	return ids
}

// The pass steers with the scoring configuration it is given
// (jobs.Config.Scoring, read once by the server from SCHEDULER_*): bert ran
// once in 80 s on an L4 and four times in 100 s on an A100, so the default
// λ sends a bert job to the L4 and λ = 2 to the A100.
func TestPassSteersWithConfiguredScoring(t *testing.T) {
	t.Parallel()
	careful := scoring.DefaultConfig()
	careful.Lambda = 2
	tests := map[string]struct {
		cfg  scoring.Config
		want string
	}{
		"zero: the defaults": {want: "L4"},
		"λ = 2":              {cfg: careful, want: "A100"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := testdb.New(t)
			ctx := context.Background()
			a100 := modelNode(t, db, "n-a100", "A100")
			l4 := modelNode(t, db, "n-l4", "L4")
			for _, o := range []scoring.Observation{{JobType: "bert", GPUType: "L4", RuntimeS: 80},
				{JobType: "bert", GPUType: "A100", RuntimeS: 100}, {JobType: "bert", GPUType: "A100", RuntimeS: 100},
				{JobType: "bert", GPUType: "A100", RuntimeS: 100}, {JobType: "bert", GPUType: "A100", RuntimeS: 100}} {
				if _, err := models.RecordObservation(ctx, db.Bun, o, models.ObservationAPI, nil, testdb.Now); err != nil {
					t.Fatal(err)
				}
			}
			d := jobs.Deps{DB: db, Logger: quiet(), Now: func() time.Time { return testdb.Now }, Executors: jobs.Executors{},
				Config: jobs.Config{Scoring: tc.cfg}}
			if n, err := jobs.ApplyScoringObservations(ctx, d); err != nil || n != 5 {
				t.Fatalf("applied %d, %v", n, err)
			}
			owner := testdb.User(t, db, models.RoleMember)
			j := &models.Job{OwnerID: owner.ID, GPUCount: 1, Executor: models.ExecutorLease, JobType: "bert"}
			if err := models.CreateJob(ctx, db.Pool, j, testdb.Now); err != nil {
				t.Fatal(err)
			}
			if _, err := jobs.RunPass(ctx, d, 0, "test"); err != nil {
				t.Fatal(err)
			}
			live, err := models.LiveAllocations(ctx, db.Bun)
			if err != nil {
				t.Fatal(err)
			}
			model := map[int64]string{a100[0]: "A100", a100[1]: "A100", l4[0]: "L4", l4[1]: "L4"}
			if len(live) != 1 || live[0].JobID != j.ID || model[live[0].GPUID] != tc.want {
				t.Fatalf("allocations %+v (GPU models %v), want job %d on an %s", live, model, j.ID, tc.want)
			}
		})
	}
}

// An invalid scoring configuration is refused when the workers start, not
// replaced by the defaults.
func TestInvalidScoringConfigRefused(t *testing.T) {
	t.Parallel()
	bad := scoring.DefaultConfig()
	bad.Tau2 = 0
	d := jobs.Deps{DB: testdb.New(t), Logger: quiet(), Now: time.Now, Config: jobs.Config{Scoring: bad}}
	if _, err := jobs.NewClient(&d); err == nil || !strings.Contains(err.Error(), "tau") {
		t.Fatalf("NewClient with τ² = 0: %v, want an error naming tau²", err)
	}
	if _, err := jobs.ApplyScoringObservations(context.Background(), d); err == nil {
		t.Fatal("observations applied with τ² = 0")
	}
}
