package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
)

// taskEnded records, in tx, that task j of an array has just ended.
func (lc *Lifecycle) taskEnded(ctx context.Context, tx *Tx, j *Job, now time.Time) error {
	failed := 0
	if j.State != JobCompleted {
		failed = 1
	}
	return lc.tasksEnded(ctx, tx, *j.ArrayJobID, 1, failed, j, now)
}

// tasksEnded records, in tx, that n tasks of array id have just ended,
// failed of them not completed, last among them: the array counts them; a
// task that did not complete means afterok on the array can never be met;
// once every task has ended the other conditions on the array are settled
// (afterok: all completed; afternotok: one did not; afterany) and its
// owner is told once, for the whole array.
func (lc *Lifecycle) tasksEnded(ctx context.Context, tx *Tx, id int64, n, failed int, last *Job, now time.Time) error {
	a := new(JobArray)
	if err := tx.NewRaw(`UPDATE job_arrays SET ended = ended + ?, failed = failed + ? WHERE id = ? RETURNING *`,
		n, failed, id).Scan(ctx, a); err != nil {
		return fmt.Errorf("models: end of %d tasks of array %d: %w", n, id, err)
	}
	if failed > 0 {
		what := fmt.Sprintf("task %d of array %d", *last.ArrayTaskID, a.ID)
		if n > 1 {
			what = fmt.Sprintf("%s of array %d", words.Count(n, "task"), a.ID)
		}
		s := settlement{target: a.ID, array: true, state: last.State, only: []string{scheduler.DependOK}, what: what}
		if err := lc.settle(ctx, tx, s, now); err != nil {
			return err
		}
	}
	if a.Ended < a.TaskCount {
		return nil
	}
	state := JobCompleted
	if a.Failed > 0 {
		state = JobFailed
	}
	if err := lc.settle(ctx, tx, settlement{target: a.ID, array: true, state: state, what: fmt.Sprintf("array %d", a.ID)}, now); err != nil {
		return err
	}
	return emitArrayEnd(ctx, tx, a, last, now)
}

// emitArrayEnd tells the owner of array a, whose last task j has just
// ended, how its tasks ended: job.finished when all completed, job.canceled
// when all were canceled, else job.failed. Tasks are not told of one by
// one (a sweep of a hundred jobs would be a hundred messages), but for a
// preemption.
func emitArrayEnd(ctx context.Context, tx *Tx, a *JobArray, j *Job, now time.Time) error {
	counts, err := ArrayStates(ctx, tx, []int64{a.ID})
	if err != nil {
		return err
	}
	var says []string
	for _, st := range JobStates {
		if n := counts[a.ID][st]; n > 0 {
			says = append(says, fmt.Sprintf("%d %s", n, st))
		}
	}
	event, state := EventJobFailed, JobFailed
	switch {
	case a.Failed == 0:
		event, state = EventJobFinished, JobCompleted
	case counts[a.ID][JobCanceled] == a.TaskCount:
		event, state = EventJobCanceled, JobCanceled
	}
	p, err := JobPayload(ctx, tx, j, now)
	if err != nil {
		return err
	}
	p.Job.ID, p.Job.State, p.Job.GPUs, p.Job.ExitCode = a.ID, state, []string{}, nil
	p.Reason = fmt.Sprintf("its %s ended: %s", words.Count(a.TaskCount, "task"), strings.Join(says, ", "))
	p.Title = fmt.Sprintf("Array %s (%s) ended", j.Name, a.Spec)
	return Emit(ctx, tx, NotifyEvent{Name: event, Subject: fmt.Sprintf("array:%d", a.ID), Users: []int64{j.OwnerID}, Payload: *p}, now)
}
