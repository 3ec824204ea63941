package models_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// After random sequences of changes (submissions, state moves with GPUs
// taken and given back, priority changes, explanations written by passes,
// passes of another replica), the in-memory snapshot loads exactly what a
// fresh load reads, and it rebuilds from scratch whenever another replica
// ran a pass or a pass failed.
func TestSnapshotCacheMatchesFreshLoad(t *testing.T) {
	t.Parallel()
	for seed := range uint64(4) {
		t.Run("", func(t *testing.T) {
			t.Parallel()
			checkSnapshotCache(t, seed)
		})
	}
}

func checkSnapshotCache(t *testing.T, seed uint64) {
	db := testdb.New(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 42))
	_, gpus := testdb.Node(t, db, 8)
	var owners []*models.User
	for range 3 {
		owners = append(owners, testdb.User(t, db, models.RoleMember))
	}
	now := testdb.Now
	cache := models.NewSnapshotCache()
	lc := &models.Lifecycle{}
	var jobs []int64
	free := append([]int64(nil), gpus...)
	held := map[int64][]int64{}
	passes := 0

	mutate := func(tx *models.Tx) {
		for range 1 + rng.IntN(6) {
			now = now.Add(time.Second)
			switch op := rng.IntN(10); {
			case op < 4 || len(jobs) == 0:
				j := &models.Job{Name: "j", OwnerID: owners[rng.IntN(len(owners))].ID, GPUCount: 1 + rng.IntN(2), Executor: models.ExecutorLease}
				at := now
				if rng.IntN(3) == 0 { // committed after jobs submitted later (concurrent submissions)
					at = now.Add(-time.Duration(1+rng.IntN(20)) * time.Second)
				}
				if err := models.CreateJob(ctx, tx.PGX(), j, at); err != nil {
					t.Fatal(err)
				}
				jobs = append(jobs, j.ID)
			case op < 6: // start a queued job on free GPUs
				id := jobs[rng.IntN(len(jobs))]
				j, err := models.GetJob(ctx, tx, id)
				if err != nil {
					t.Fatal(err)
				}
				if j.State != models.JobQueued || len(free) < j.GPUCount {
					continue
				}
				held[id], free = free[:j.GPUCount:j.GPUCount], free[j.GPUCount:]
				lj, err := lc.Lock(ctx, tx, id)
				if err != nil {
					t.Fatal(err)
				}
				if err := lc.Place(ctx, tx, lj, models.Placement{GPUIDs: held[id], Reason: "test"}, now); err != nil {
					t.Fatal(err)
				}
			case op < 8: // end a job: running completes, queued is canceled
				id := jobs[rng.IntN(len(jobs))]
				j, err := models.GetJob(ctx, tx, id)
				if err != nil {
					t.Fatal(err)
				}
				if models.IsTerminal(j.State) {
					continue
				}
				lj, err := lc.Lock(ctx, tx, id)
				if err != nil {
					t.Fatal(err)
				}
				kind := models.StopCancel
				if j.State == models.JobRunning {
					kind = models.StopRelease
					free = append(free, held[id]...)
					delete(held, id)
				}
				if err := lc.RequestStop(ctx, tx, lj, models.StopRequest{Kind: kind, Reason: "test"}, now); err != nil {
					t.Fatal(err)
				}
			default:
				id := jobs[rng.IntN(len(jobs))]
				if j, err := models.GetJob(ctx, tx, id); err == nil && !models.IsTerminal(j.State) {
					if err := models.SetJobPriority(ctx, tx, id, 1+rng.IntN(4), now); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}

	for round := range 40 {
		if err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error { mutate(tx); return nil }); err != nil {
			t.Fatal(err)
		}
		// Now and then another replica runs a pass (it writes its own explanations).
		other := rng.IntN(8) == 0
		fullBefore := cache.Full
		var ex []scheduler.Explanation
		var total int64
		err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			if other {
				fresh, prev, err := models.LoadSnapshot(ctx, tx, now, time.Hour, scoring.DefaultConfig())
				if err != nil {
					return err
				}
				if _, err := models.RecordExplanations(ctx, tx, randomExplanations(rng, fresh, now), prev, now); err != nil {
					return err
				}
				return models.RecordPass(ctx, tx, &models.PassStats{At: now})
			}
			got, gotPrev, err := cache.Load(ctx, tx, now, time.Hour, scoring.DefaultConfig())
			if err != nil {
				return err
			}
			want, wantPrev, err := models.LoadSnapshot(ctx, tx, now, time.Hour, scoring.DefaultConfig())
			if err != nil {
				return err
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("round %d: snapshot from memory differs from a fresh load (-fresh +memory):\n%s", round, d)
			}
			if d := cmp.Diff(wantPrev, gotPrev); d != "" {
				t.Fatalf("round %d: explanations from memory differ from a fresh load (-fresh +memory):\n%s", round, d)
			}
			ex = randomExplanations(rng, got, now)
			if _, err := models.RecordExplanations(ctx, tx, ex, gotPrev, now); err != nil {
				return err
			}
			st := &models.PassStats{At: now}
			if err := models.RecordPass(ctx, tx, st); err != nil {
				return err
			}
			total = st.PassesTotal
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !other {
			passes++
			if rng.IntN(10) == 0 {
				cache.Invalidate() // as after a failed pass
			} else {
				cache.Committed(total, ex)
			}
		} else if cache.Full != fullBefore {
			t.Fatalf("round %d: a pass of another replica loaded through the cache", round)
		}
	}
	if cache.Delta == 0 || cache.Full < 2 {
		t.Fatalf("loads: %d full, %d from changes; want both kinds", cache.Full, cache.Delta)
	}
	t.Logf("%d passes: %d full loads, %d from changes", passes, cache.Full, cache.Delta)
}

// randomExplanations gives each pending job of s a position, a reason and,
// for some, an ETA on a whole minute (the precision explanations keep).
func randomExplanations(rng *rand.Rand, s scheduler.Snapshot, now time.Time) []scheduler.Explanation {
	out := make([]scheduler.Explanation, 0, len(s.Pending))
	for i, j := range s.Pending {
		e := scheduler.Explanation{JobID: j.ID, Position: i + 1, Code: []string{"capacity", "quota", "booking"}[rng.IntN(3)], Reason: "waits"}
		if rng.IntN(2) == 0 {
			e.EstimatedStart = now.Truncate(time.Minute).Add(time.Duration(1+rng.IntN(90)) * time.Minute).UTC()
		}
		out = append(out, e)
	}
	return out
}
