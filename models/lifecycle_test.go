package models_test

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// takesAll is an executor that takes every job it is handed (as the node
// executor queues a start command) and, for a stop, says whether the start
// never reached it (ends at once) by the job id's parity.
type takesAll struct{}

func (takesAll) Hand(context.Context, *models.Tx, *models.Job, []models.JobGPU, time.Time) (models.Handover, error) {
	return models.Handover{Taken: true, Detail: "taken"}, nil
}

func (takesAll) Stop(_ context.Context, _ *models.Tx, j *models.Job, _ time.Duration, _ time.Time) (bool, error) {
	return j.ID%2 == 0, nil
}

// Any sequence of lifecycle steps, each in its own transaction, keeps the
// invariants: a job's events form one chain along the state graph from
// its submission to its state; a job holds GPUs (exactly its count) only
// in the holding states and none once ended or back in the queue; no GPU
// has two live allocations; a cancel that was asked sticks (the job ends
// canceled, whatever else was asked or how its run ended) and an ended job
// never moves again.
func TestLifecycleProperty(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	owner := testdb.User(t, db, models.RoleMember)
	_, gpus := testdb.Node(t, db, 4)
	lc := &models.Lifecycle{Executors: map[string]models.Executor{models.ExecutorNode: takesAll{}}}
	kinds := []models.StopKind{models.StopPreempt, models.StopRelease, models.StopExpire, models.StopReclaim, models.StopTimeLimit, models.StopCancel}
	code := func(n int) *int { return &n }
	ends := []models.RunEnd{{ExitCode: code(0)}, {ExitCode: code(1)}, {Stopped: true, ExitCode: code(143), Signal: "SIGTERM"},
		{Lost: true}, {Refused: "could not start"}, {}}
	rapid.Check(t, func(rt *rapid.T) {
		var ids []int64
		canceled := map[int64]bool{} // a cancel was asked while it had not ended
		now := testdb.Now
		for i := range rapid.IntRange(1, 25).Draw(rt, "steps") {
			now = now.Add(time.Duration(i+1) * time.Second)
			if len(ids) == 0 || rapid.IntRange(0, 5).Draw(rt, "op") == 0 {
				j := &models.Job{OwnerID: owner.ID, GPUCount: rapid.IntRange(1, 2).Draw(rt, "gpus"), MaxRetries: rapid.IntRange(0, 1).Draw(rt, "retries"),
					Executor: rapid.SampledFrom([]string{models.ExecutorLease, models.ExecutorNode}).Draw(rt, "executor")}
				if err := models.CreateJob(ctx, db.Pool, j, now); err != nil {
					rt.Fatal(err)
				}
				ids = append(ids, j.ID)
				continue
			}
			id := rapid.SampledFrom(ids).Draw(rt, "job")
			step := rapid.IntRange(0, 3).Draw(rt, "step")
			var kind models.StopKind
			var end models.RunEnd
			switch step {
			case 2:
				kind = rapid.SampledFrom(kinds).Draw(rt, "kind")
			case 3:
				end = rapid.SampledFrom(ends).Draw(rt, "end")
			}
			err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
				j, err := lc.Lock(ctx, tx, id)
				if err != nil {
					return err
				}
				switch step {
				case 0: // place on free GPUs, as a pass would
					free, err := freeGPUs(ctx, tx, gpus)
					if err != nil || j.State != models.JobQueued || len(free) < j.GPUCount {
						return err
					}
					return lc.Place(ctx, tx, j, models.Placement{GPUIDs: free[:j.GPUCount], Reason: "test"}, now)
				case 1:
					return lc.Started(ctx, tx, j, "test", now)
				case 2:
					live := !models.IsTerminal(j.State)
					err := lc.RequestStop(ctx, tx, j, models.StopRequest{Kind: kind, Reason: string(kind)}, now)
					if err == nil && live && kind == models.StopCancel {
						canceled[id] = true
					}
					if errors.Is(err, models.ErrJobEnded) && !live {
						return nil
					}
					return err
				default:
					err := lc.Finish(ctx, tx, j, end, now)
					if errors.Is(err, models.ErrNoRun) {
						return nil
					}
					return err
				}
			})
			if err != nil {
				rt.Fatalf("step %d on job %d: %v", step, id, err)
			}
			checkLifecycle(rt, db, ids, canceled)
		}
	})
}

// freeGPUs are the GPUs of gpus no live allocation holds.
func freeGPUs(ctx context.Context, tx *models.Tx, gpus []int64) ([]int64, error) {
	var held []int64
	if err := tx.NewRaw(`SELECT gpu_id FROM allocations WHERE released_at IS NULL`).Scan(ctx, &held); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	return slices.DeleteFunc(slices.Clone(gpus), func(g int64) bool { return slices.Contains(held, g) }), nil
}

func checkLifecycle(rt *rapid.T, db *models.DB, ids []int64, canceled map[int64]bool) {
	ctx := context.Background()
	byGPU := map[int64]int64{}
	live, err := models.LiveAllocations(ctx, db.Bun)
	if err != nil {
		rt.Fatal(err)
	}
	perJob := map[int64]int{}
	for _, a := range live {
		if other, ok := byGPU[a.GPUID]; ok {
			rt.Fatalf("GPU %d held by jobs %d and %d", a.GPUID, other, a.JobID)
		}
		byGPU[a.GPUID] = a.JobID
		perJob[a.JobID]++
	}
	for _, id := range ids {
		j, err := models.GetJob(ctx, db.Bun, id)
		if err != nil {
			rt.Fatal(err)
		}
		holding := j.State == models.JobScheduled || j.State == models.JobAllocating || j.State == models.JobRunning
		if holding && perJob[id] != j.GPUCount || !holding && perJob[id] != 0 {
			rt.Fatalf("job %d (%s) holds %d GPUs of its %d", id, j.State, perJob[id], j.GPUCount)
		}
		if canceled[id] && models.IsTerminal(j.State) && j.State != models.JobCanceled {
			rt.Fatalf("job %d was canceled while live but ended %s", id, j.State)
		}
		if canceled[id] && j.State == models.JobQueued {
			rt.Fatalf("job %d was canceled while live but went back to the queue", id)
		}
		events, err := models.JobEvents(ctx, db.Bun, id)
		if err != nil {
			rt.Fatal(err)
		}
		state := ""
		for i, e := range events {
			from := ""
			if e.FromState != nil {
				from = *e.FromState
			}
			if from != state || (i > 0 && !models.CanMove(from, e.ToState)) || (i == 0 && e.ToState != models.JobQueued) {
				rt.Fatalf("job %d: event %d moves %q→%s after %q", id, i, from, e.ToState, state)
			}
			if models.IsTerminal(state) {
				rt.Fatalf("job %d moved on after it ended (%s→%s)", id, state, e.ToState)
			}
			state = e.ToState
		}
		if state != j.State {
			rt.Fatalf("job %d is %s, its last event says %s", id, j.State, state)
		}
		if models.IsTerminal(j.State) && j.EndedAt == nil {
			rt.Fatalf("job %d ended (%s) without ended_at", id, j.State)
		}
	}
}
