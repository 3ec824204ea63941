package models_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/gpuscheduler/gpuscheduler/internal/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

func TestCanMove(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		from, to string
		ok       bool
	}{
		"queued to scheduled":        {models.JobQueued, models.JobScheduled, true},
		"queued to canceled":         {models.JobQueued, models.JobCanceled, true},
		"queued to running":          {models.JobQueued, models.JobRunning, false},
		"scheduled to allocating":    {models.JobScheduled, models.JobAllocating, true},
		"allocating to running":      {models.JobAllocating, models.JobRunning, true},
		"running to completed":       {models.JobRunning, models.JobCompleted, true},
		"running to failed":          {models.JobRunning, models.JobFailed, true},
		"running to preempted":       {models.JobRunning, models.JobPreempted, true},
		"preempted to queued":        {models.JobPreempted, models.JobQueued, true},
		"preempted to running":       {models.JobPreempted, models.JobRunning, false},
		"completed is final":         {models.JobCompleted, models.JobQueued, false},
		"canceled is final":          {models.JobCanceled, models.JobRunning, false},
		"failed is final":            {models.JobFailed, models.JobQueued, false},
		"running back to queued":     {models.JobRunning, models.JobQueued, false},
		"unknown state goes nowhere": {"paused", models.JobQueued, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := models.CanMove(tc.from, tc.to); got != tc.ok {
				t.Fatalf("CanMove(%s, %s) = %t, want %t", tc.from, tc.to, got, tc.ok)
			}
		})
	}
}

// Any sequence of attempted moves leaves a job in a state reachable along
// the graph, with exactly one job_events row per accepted move (plus the
// submission), each from the state the previous one reached.
func TestMoveJobProperty(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	owner := testdb.User(t, db, models.RoleMember)
	rapid.Check(t, func(rt *rapid.T) {
		job := testdb.Job(t, db, owner, 1)
		state := models.JobQueued
		accepted := 0
		steps := rapid.IntRange(0, 12).Draw(rt, "steps")
		for i := range steps {
			to := rapid.SampledFrom(models.JobStates).Draw(rt, "to")
			err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
				_, err := models.MoveJob(ctx, tx, job.ID, to, "test", nil, testdb.Now.Add(time.Duration(i)*time.Second))
				return err
			})
			switch {
			case models.CanMove(state, to):
				if err != nil {
					rt.Fatalf("move %s→%s refused: %v", state, to, err)
				}
				state = to
				accepted++
			case !errors.Is(err, models.ErrBadTransition):
				rt.Fatalf("move %s→%s: got %v, want ErrBadTransition", state, to, err)
			}
		}
		got, err := models.GetJob(ctx, db.Bun, job.ID)
		if err != nil {
			rt.Fatal(err)
		}
		if got.State != state {
			rt.Fatalf("job state %s, want %s", got.State, state)
		}
		events, err := models.JobEvents(ctx, db.Bun, job.ID)
		if err != nil {
			rt.Fatal(err)
		}
		if len(events) != accepted+1 {
			rt.Fatalf("%d events, want %d", len(events), accepted+1)
		}
		prev := ""
		for _, e := range events {
			if e.FromState != nil && *e.FromState != prev {
				rt.Fatalf("event from %s, but the job was in %s", *e.FromState, prev)
			}
			prev = e.ToState
		}
		if prev != state {
			rt.Fatalf("last event to %s, job in %s", prev, state)
		}
		if models.IsTerminal(state) && got.EndedAt == nil {
			rt.Fatalf("terminal job has no ended_at")
		}
		if !slices.Contains(models.JobStates, state) {
			rt.Fatalf("unknown state %s", state)
		}
	})
}
