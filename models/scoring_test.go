package models_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

func applyAll(t *testing.T, db *models.DB) int {
	t.Helper()
	var n int
	if err := db.InTx(context.Background(), func(ctx context.Context, tx *models.Tx) error {
		var err error
		n, err = models.ApplyScoringObservations(ctx, tx, scoring.DefaultConfig(), 100, testdb.Now)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// Observations are stored only when valid, and applying them learns
// runtimes, interference and the average uncertainty.
func TestScoringObservationsApply(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	bad := map[string]scoring.Observation{
		"no job type":   {GPUType: "A100", RuntimeS: 1},
		"negative":      {JobType: "j", GPUType: "A100", RuntimeS: -1},
		"infinite":      {JobType: "j", GPUType: "A100", RuntimeS: math.Inf(1)},
		"not a number":  {JobType: "j", GPUType: "A100", RuntimeS: math.NaN()},
		"blank colocal": {JobType: "j", GPUType: "A100", RuntimeS: 1, Colocated: []string{""}},
	}
	for name, o := range bad {
		if _, err := models.RecordObservation(ctx, db.Bun, o, models.ObservationAPI, nil, testdb.Now); err == nil {
			t.Errorf("%s: recorded", name)
		}
	}
	if u, n, err := models.ScoringAvgUncertainty(ctx, db.Bun, scoring.DefaultConfig()); err != nil || u != 0 || n != 0 {
		t.Fatalf("empty model: uncertainty %v over %d, %v", u, n, err)
	}
	record := func(o scoring.Observation) {
		t.Helper()
		if id, err := models.RecordObservation(ctx, db.Bun, o, models.ObservationAPI, nil, testdb.Now); err != nil || id == 0 {
			t.Fatalf("record %+v: %d, %v", o, id, err)
		}
	}
	for range 4 {
		record(scoring.Observation{JobType: "bert", GPUType: "A100", RuntimeS: 100})
	}
	record(scoring.Observation{JobType: "bert", GPUType: "A100", RuntimeS: 150, Colocated: []string{"llama", "llama"}})
	record(scoring.Observation{JobType: "etl", GPUType: "L4", RuntimeS: 30})
	if n := applyAll(t, db); n != 6 {
		t.Fatalf("applied %d, want 6", n)
	}
	if n := applyAll(t, db); n != 0 {
		t.Fatalf("applied %d again", n)
	}
	st, err := models.LoadScoringState(ctx, db.Bun, "bert", []string{"llama", "other"})
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Runtime[scoring.Key{JobType: "bert", GPUType: "A100"}].N; got != 5 || len(st.Runtime) != 1 {
		t.Fatalf("runtime state %+v", st.Runtime)
	}
	want := map[scoring.Pair]scoring.Moments{{JobType: "bert", Other: "llama"}: {N: 1, Mean: 0.5}}
	if diff := cmp.Diff(want, st.Interference, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })); diff != "" {
		t.Fatalf("interference (-want +got):\n%s", diff)
	}
	if none, err := models.LoadScoringState(ctx, db.Bun, "bert", nil); err != nil || len(none.Interference) != 0 {
		t.Fatalf("no co-located types: %+v, %v", none.Interference, err)
	}
	u, n, err := models.ScoringAvgUncertainty(ctx, db.Bun, scoring.DefaultConfig())
	if err != nil || n != 2 || !(u > 0 && u < 1) {
		t.Fatalf("uncertainty %v over %d pairs, %v", u, n, err)
	}
	// Pruning drops applied observations older than the cutoff only; the model keeps what it learned.
	if n, err := models.PruneScoringObservations(ctx, db.Bun, testdb.Now); err != nil || n != 0 {
		t.Fatalf("pruned %d at the apply time, %v", n, err)
	}
	if n, err := models.PruneScoringObservations(ctx, db.Bun, testdb.Now.Add(time.Second)); err != nil || n != 6 {
		t.Fatalf("pruned %d after it, %v", n, err)
	}
	if after, err := models.LoadScoringState(ctx, db.Bun, "bert", nil); err != nil || after.Runtime[scoring.Key{JobType: "bert", GPUType: "A100"}].N != 5 {
		t.Fatalf("after pruning: %+v, %v", after.Runtime, err)
	}
}

// The table refuses what the model must never see, even written around the
// validation.
func TestScoringTableChecks(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	for name, runtime := range map[string]string{"negative": "-1", "NaN": "'NaN'", "infinite": "'Infinity'"} {
		_, err := db.Pool.Exec(context.Background(), `INSERT INTO scoring_observations (job_type, gpu_type, runtime_s, source, created_at)
			VALUES ('j', 'g', `+runtime+`, 'api', now())`)
		if err == nil {
			t.Errorf("%s runtime inserted", name)
		}
	}
}

// nodeOf registers a node with gpus GPUs of model.
func nodeOf(t *testing.T, db *models.DB, name, model string, gpus int) {
	t.Helper()
	ctx := context.Background()
	n, err := models.EnsureNode(ctx, db.Bun, name)
	if err != nil {
		t.Fatal(err)
	}
	inv := make([]models.GPUInventory, gpus)
	for i := range inv {
		inv[i] = models.GPUInventory{Index: i, UUID: name + "-" + string(rune('a'+i)), Model: model, MemoryMiB: 81559}
	}
	if err := models.RegisterNode(ctx, db.Bun, n.ID, name, "test", inv, testdb.Now); err != nil {
		t.Fatal(err)
	}
}

// observeBert records and applies n runs of bert on each GPU model, of the
// given seconds.
func observeBert(t *testing.T, db *models.DB, runs map[string][]float64) {
	t.Helper()
	for gpu, secs := range runs {
		for _, s := range secs {
			if _, err := models.RecordObservation(context.Background(), db.Bun, scoring.Observation{JobType: "bert", GPUType: gpu, RuntimeS: s},
				models.ObservationAPI, nil, testdb.Now); err != nil {
				t.Fatal(err)
			}
		}
	}
	applyAll(t, db)
}

// queue creates queued one-GPU lease jobs and returns their IDs.
func queue(t *testing.T, db *models.DB, js ...*models.Job) []int64 {
	t.Helper()
	owner := testdb.User(t, db, models.RoleMember)
	var ids []int64
	for _, j := range js {
		j.OwnerID, j.GPUCount, j.Executor = owner.ID, 1, models.ExecutorLease
		if err := models.CreateJob(context.Background(), db.Pool, j, testdb.Now); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	return ids
}

// steeredModels schedules snap and returns, per job of ids, the GPU model it
// was steered to ("" none) and the estimate it was scheduled with, and the
// GPU model of the GPUs it starts on.
func steeredModels(snap scheduler.Snapshot, ids []int64) (steered []string, est []time.Duration, started []string) {
	plan := scheduler.Schedule(snap, scheduler.DefaultConfig())
	model := map[int64]string{}
	for _, g := range snap.GPUs {
		model[g.ID] = g.Model
	}
	steered, est, started = make([]string, len(ids)), make([]time.Duration, len(ids)), make([]string, len(ids))
	for k, id := range ids {
		for _, p := range snap.Pending {
			if p.ID == id {
				est[k] = p.EstimatedDuration
			}
		}
		for _, s := range plan.Steered {
			if s.JobID == id {
				steered[k], est[k] = s.GPUModel, s.EstimatedDuration
			}
		}
		for _, s := range plan.Starts {
			if s.JobID == id {
				started[k] = model[s.GPUIDs[0]]
			}
		}
	}
	return steered, est, started
}

// On a cluster of two GPU models the snapshot carries what bert is expected
// to cost on each, and the pass steers queued jobs that accept any model to
// the one the model expects to run them faster, spread over the free GPUs,
// with that model's learned runtime; jobs that name a model, or whose type
// was never observed, are left alone. On one model nothing is steered.
func TestSnapshotSteersByScore(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		nodes       map[string]string // node → GPU model (2 GPUs each)
		wantSteered []string          // by job: bert, bert, bert, named L4, unknown type
		wantEst     []time.Duration
		wantStarted []string
	}{
		"two models": {
			nodes:       map[string]string{"n-a100": "A100", "n-l4": "L4"},
			wantSteered: []string{"A100", "A100", "L4", "", ""},
			wantEst:     []time.Duration{100 * time.Second, 100 * time.Second, 400 * time.Second, time.Hour, 0},
			wantStarted: []string{"A100", "A100", "L4", "L4", ""},
		},
		"one model": {
			nodes:       map[string]string{"n-a100": "A100", "n-a100b": "A100"},
			wantSteered: []string{"", "", "", "", ""},
			wantEst:     []time.Duration{100 * time.Second, 100 * time.Second, 100 * time.Second, time.Hour, 0},
			wantStarted: []string{"A100", "A100", "A100", "", "A100"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := testdb.New(t)
			for n, m := range tc.nodes {
				nodeOf(t, db, n, m, 2)
			}
			observeBert(t, db, map[string][]float64{"A100": {100, 100, 100}, "L4": {400, 400, 400}})
			hour := int64(3600)
			ids := queue(t, db, &models.Job{JobType: "bert"}, &models.Job{JobType: "bert"}, &models.Job{JobType: "bert"},
				&models.Job{JobType: "bert", GPUModel: "L4", EstimatedDurationS: &hour}, &models.Job{JobType: "never-seen"})
			snap, _, err := models.LoadSnapshot(context.Background(), db.Bun, testdb.Now, time.Hour, scoring.DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			steered, est, started := steeredModels(snap, ids)
			if diff := cmp.Diff(tc.wantSteered, steered); diff != "" {
				t.Errorf("steered to (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantEst, est); diff != "" {
				t.Errorf("estimates (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantStarted, started); diff != "" {
				t.Errorf("started on (-want +got):\n%s", diff)
			}
		})
	}
}

// The steering costs follow the configured scoring model: bert ran once in
// 80 s on an L4 and four times in 100 s on an A100. With the default λ (0.3)
// the L4's expected cost is lower; weighing uncertainty more (λ = 2, as
// SCHEDULER_LAMBDA_UNCERTAINTY=2 sets it) makes the well-known A100 the
// better bet, and the job takes that model's runtime as its estimate.
func TestSteeringFollowsScoringConfig(t *testing.T) {
	t.Parallel()
	careful := scoring.DefaultConfig()
	careful.Lambda = 2
	tests := map[string]struct {
		cfg                      scoring.Config
		wantModel                string
		wantEst                  time.Duration
		wantCostL4, wantCostA100 float64 // seconds, rounded
	}{
		"defaults": {cfg: scoring.DefaultConfig(), wantModel: "L4", wantEst: 80 * time.Second, wantCostL4: 90, wantCostA100: 104},
		"λ = 2":    {cfg: careful, wantModel: "A100", wantEst: 100 * time.Second, wantCostL4: 145, wantCostA100: 129},
	}
	db := testdb.New(t)
	nodeOf(t, db, "n-a100", "A100", 2)
	nodeOf(t, db, "n-l4", "L4", 2)
	observeBert(t, db, map[string][]float64{"A100": {100, 100, 100, 100}, "L4": {80}})
	ids := queue(t, db, &models.Job{JobType: "bert"})
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			snap, _, err := models.LoadSnapshot(context.Background(), db.Bun, testdb.Now, time.Hour, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			cost := map[string]float64{}
			for _, c := range snap.Steering {
				cost[c.GPUModel] = math.Round(c.Cost)
			}
			if diff := cmp.Diff(map[string]float64{"L4": tc.wantCostL4, "A100": tc.wantCostA100}, cost); diff != "" {
				t.Errorf("expected costs (-want +got):\n%s", diff)
			}
			steered, est, started := steeredModels(snap, ids)
			if steered[0] != tc.wantModel || est[0] != tc.wantEst || started[0] != tc.wantModel {
				t.Errorf("steered to %q with estimate %v, started on %q; want %q, %v", steered[0], est[0], started[0], tc.wantModel, tc.wantEst)
			}
		})
	}
}
