package models

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A session's end is told to its owner as session.stopped, in place of the
// job.* event a batch job's end is told by (one notice per ending), in the
// transaction that moves the job: emitJobMove, which every lifecycle step
// that ends a job calls (one at a time or in bulk), asks emitSessionEnd
// first. It tells every end the owner did not ask for (time limit, an
// admin's or the system's stop, preemption, its node lost, its server
// failing to start, crashing or exiting by itself), with the reason in
// words and where its files stay. Two ends are not told here: the owner's
// own stop (they asked, and the answer to their request already says where
// the files stay), and the idle policy's stop, which jobs.ApplyIdlePolicy
// tells when it asks for it (with the same subject, so it could not be
// told twice anyway).

// sessionEndStates are the moves of a session's job told as session.stopped.
var sessionEndStates = []string{JobPreempted, JobCompleted, JobFailed, JobCanceled, JobTimeout}

// emitSessionEnd tells the owner of session job j (seen in its new state)
// that it ended; it reports whether j's move was a session's end (told or
// deliberately not), so the caller tells no job.* event for it.
func emitSessionEnd(ctx context.Context, tx *Tx, j *Job, reason string, now time.Time) (bool, error) {
	kind := SessionKindOf(j.JobType)
	if kind == "" || !slices.Contains(sessionEndStates, j.State) {
		return false, nil
	}
	if j.StopKind == StopReclaim || j.State == JobCanceled && j.StopKind == StopCancel && j.StopBy != nil && *j.StopBy == j.OwnerID {
		return true, nil
	}
	p, err := JobPayload(ctx, tx, j, now)
	if err != nil {
		return true, err
	}
	subject := fmt.Sprintf("job:%d", j.ID)
	if j.State == JobPreempted { // one per run: a requeued session may start and stop again
		start := now
		if j.StartedAt != nil {
			start = *j.StartedAt
		}
		subject = fmt.Sprintf("job:%d@%d", j.ID, start.UnixMilli())
	}
	p.Title = fmt.Sprintf("Your %s session %d %s", kind, j.ID, sessionEndVerb(j))
	p.Reason = reason
	p.Text = SessionFilesText(p.Job.GPUs, j.Workdir)
	if len(p.Job.GPUs) == 0 {
		p.Text = "It had not started yet: no files were written."
	}
	if j.State == JobPreempted {
		p.Text += " It is back in the queue and starts again when GPUs are free."
	}
	return true, Emit(ctx, tx, NotifyEvent{Name: EventSessionStopped, Subject: subject, Users: []int64{j.OwnerID}, Payload: *p}, now)
}

// sessionEndVerb words how session job j ended, for its title.
func sessionEndVerb(j *Job) string {
	switch {
	case j.State == JobTimeout:
		return "reached its time limit and was stopped"
	case j.State == JobPreempted:
		return "was stopped and put back in the queue"
	case j.State == JobCanceled && j.StopBy != nil:
		return "was stopped by an admin"
	case j.State == JobCanceled:
		return "was stopped"
	case j.State == JobCompleted:
		return "ended: its server exited"
	case j.StartedAt == nil:
		return "could not start"
	}
	return "ended unexpectedly"
}

// SessionFilesText is the sentence that says where an ended session's
// files stay: its working directory (else the owner's home) on the node of
// its GPUs (as a payload names them, "node:index"), when known.
func SessionFilesText(gpus []string, workdir string) string {
	node := ""
	if len(gpus) > 0 {
		node, _, _ = strings.Cut(gpus[0], ":")
	}
	where := "your home directory"
	if workdir != "" {
		where = workdir
	}
	if node == "" {
		return "Saved files stay on its node in " + where + "."
	}
	return "Saved files stay on node " + node + " in " + where + "."
}
