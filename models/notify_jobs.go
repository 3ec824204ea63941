package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// jobMoveEvents maps a job's new state to the event told of it.
var jobMoveEvents = map[string]string{
	JobRunning:   EventJobStarted,
	JobCompleted: EventJobFinished,
	JobFailed:    EventJobFailed,
	JobCanceled:  EventJobCanceled,
	JobTimeout:   EventJobTimeout,
	JobPreempted: EventJobPreempted,
}

// emitJobMove tells the owner of j that it moved to its present state; a
// session's end is told as session.stopped instead (emitSessionEnd).
func emitJobMove(ctx context.Context, tx *Tx, j *Job, reason string, now time.Time) error {
	if session, err := emitSessionEnd(ctx, tx, j, reason, now); session || err != nil {
		return err
	}
	name, ok := jobMoveEvents[j.State]
	if !ok {
		return nil
	}
	subject := fmt.Sprintf("job:%d", j.ID)
	if j.State == JobRunning || j.State == JobPreempted {
		// A job may start and be preempted more than once: one per run.
		start := now
		if j.StartedAt != nil {
			start = *j.StartedAt
		}
		subject = fmt.Sprintf("job:%d@%d", j.ID, start.UnixMilli())
	}
	p, err := JobPayload(ctx, tx, j, now)
	if err != nil {
		return err
	}
	p.Reason = reason
	p.Title = fmt.Sprintf("Job %s %s", j.Name, jobVerb[j.State])
	return Emit(ctx, tx, NotifyEvent{Name: name, Subject: subject, Users: []int64{j.OwnerID}, Payload: *p}, now)
}

var jobVerb = map[string]string{
	JobRunning: "started", JobCompleted: "finished", JobFailed: "failed", JobCanceled: "was canceled", JobPreempted: "was preempted",
	JobTimeout: "reached its time limit",
}

// JobPayload describes j for a notification: owner, GPUs (node:index of its
// latest allocations) and times.
func JobPayload(ctx context.Context, db bun.IDB, j *Job, now time.Time) (*EventPayload, error) {
	var owner string
	if err := db.NewSelect().Table("users").Column("email").Where("id = ?", j.OwnerID).Scan(ctx, &owner); err != nil {
		return nil, fmt.Errorf("models: owner of job %d: %w", j.ID, err)
	}
	gpus := []string{}
	err := db.NewRaw(`SELECT n.name || ':' || g.idx FROM allocations a JOIN gpus g ON g.id = a.gpu_id JOIN nodes n ON n.id = g.node_id
		WHERE a.job_id = ? AND a.created_at >= coalesce(?::timestamptz, a.created_at) ORDER BY n.name, g.idx`, j.ID, j.ScheduledAt).Scan(ctx, &gpus)
	if err != nil && err != errNoRows {
		return nil, fmt.Errorf("models: GPUs of job %d: %w", j.ID, err)
	}
	ej := &EventJob{ID: j.ID, Name: j.Name, State: j.State, Owner: owner, GPUCount: j.GPUCount, GPUs: gpus,
		SubmittedAt: j.SubmittedAt.UTC(), StartedAt: j.StartedAt, EndedAt: j.EndedAt, ExitCode: j.ExitCode}
	if j.StartedAt != nil {
		end := now
		if j.EndedAt != nil {
			end = *j.EndedAt
		}
		ej.DurationS = int64(end.Sub(*j.StartedAt).Seconds())
	}
	return &EventPayload{Job: ej, OccurredAt: now.UTC()}, nil
}
