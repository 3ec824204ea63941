package models_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/internal/testdb"
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

// On a cluster of two GPU models, queued jobs that accept any model are
// steered to the one the model expects to run them faster, spread over the
// free GPUs, with that model's learned runtime; jobs that name a model, or
// whose type was never observed, are left alone. On one model nothing is steered.
func TestSnapshotSteersByScore(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		nodes     map[string]string // node → GPU model (2 GPUs each)
		wantModel []string          // by job: bert, bert, bert, named L4, unknown type
		wantEst   []time.Duration
	}{
		"two models": {
			nodes:     map[string]string{"n-a100": "A100", "n-l4": "L4"},
			wantModel: []string{"A100", "A100", "L4", "L4", ""},
			wantEst:   []time.Duration{100 * time.Second, 100 * time.Second, 400 * time.Second, time.Hour, 0},
		},
		"one model": {
			nodes:     map[string]string{"n-a100": "A100", "n-a100b": "A100"},
			wantModel: []string{"", "", "", "L4", ""},
			wantEst:   []time.Duration{100 * time.Second, 100 * time.Second, 100 * time.Second, time.Hour, 0},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := testdb.New(t)
			ctx := context.Background()
			for n, m := range tc.nodes {
				nodeOf(t, db, n, m, 2)
			}
			for range 3 {
				for gpu, secs := range map[string]float64{"A100": 100, "L4": 400} {
					if _, err := models.RecordObservation(ctx, db.Bun, scoring.Observation{JobType: "bert", GPUType: gpu, RuntimeS: secs}, models.ObservationAPI, nil, testdb.Now); err != nil {
						t.Fatal(err)
					}
				}
			}
			applyAll(t, db)
			owner := testdb.User(t, db, models.RoleMember)
			hour := int64(3600)
			var ids []int64
			for _, j := range []*models.Job{{JobType: "bert"}, {JobType: "bert"}, {JobType: "bert"},
				{JobType: "bert", GPUModel: "L4", EstimatedDurationS: &hour}, {JobType: "never-seen"}} {
				j.OwnerID, j.GPUCount, j.Executor = owner.ID, 1, models.ExecutorLease
				if err := models.CreateJob(ctx, db.Pool, j, testdb.Now); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, j.ID)
			}
			snap, _, err := models.LoadSnapshot(ctx, db.Bun, testdb.Now, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			gotModel, gotEst := make([]string, len(ids)), make([]time.Duration, len(ids))
			for _, p := range snap.Pending {
				for k, id := range ids {
					if p.ID == id {
						gotModel[k], gotEst[k] = p.GPUModel, p.EstimatedDuration
					}
				}
			}
			if diff := cmp.Diff(tc.wantModel, gotModel); diff != "" {
				t.Errorf("GPU models (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantEst, gotEst); diff != "" {
				t.Errorf("estimates (-want +got):\n%s", diff)
			}
		})
	}
}
