package models

import (
	"context"
	"sync"
	"time"
)

// Bounds of a JobBatcher.
const (
	// batchInFlight is how many batches may be in flight at once: a
	// submission that finds fewer goes at once, alone or with those waiting.
	batchInFlight = 2
	// batchMax caps one batch's jobs.
	batchMax = 128
	// batchTimeout bounds one batch's statement: it carries other callers'
	// jobs, so no single caller's cancellation may stop it.
	batchTimeout = 30 * time.Second
)

// JobBatcher queues submissions that arrive together in one statement (one
// plan, one constraint set-up, one commit for many), the way PostgreSQL
// groups commits: a submission that finds fewer than batchInFlight batches
// in flight is sent at once (alone, when nothing else waits: a lone
// submission waits for nothing), others wait for the next batch. Each job is
// stored once even when a batch's answer is lost after its commit (see
// send); a batch that fails is retried job by job, so that one bad job
// fails alone. The zero value is ready to use; it starts no goroutine that
// outlives its work.
type JobBatcher struct {
	mu      sync.Mutex
	pending []*batchEntry
	running int
}

// batchEntry is one waiting submission.
type batchEntry struct {
	job  *Job
	now  time.Time
	done chan error
}

// Create queues j as submitted at now, in a batch with whatever else is
// being submitted, and returns once it is committed (j.ID set) or refused.
// It waits for the outcome even when ctx ends, so that it never reports a
// job as refused that was queued.
func (b *JobBatcher) Create(ctx context.Context, q BatchQuerier, j *Job, now time.Time) error {
	e := &batchEntry{job: j, now: now, done: make(chan error, 1)}
	b.mu.Lock()
	b.pending = append(b.pending, e)
	var batch []*batchEntry
	if b.running < batchInFlight {
		b.running++
		batch = b.takeLocked()
	}
	b.mu.Unlock()
	if batch != nil {
		b.run(context.WithoutCancel(ctx), q, batch)
	}
	return <-e.done
}

// Waiting returns how many submissions wait for a batch to take them.
func (b *JobBatcher) Waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending)
}

// takeLocked removes up to batchMax waiting entries, oldest first.
func (b *JobBatcher) takeLocked() []*batchEntry {
	n := min(len(b.pending), batchMax)
	batch := b.pending[:n:n]
	b.pending = b.pending[n:]
	if len(b.pending) == 0 {
		b.pending = nil
	}
	return batch
}

// run sends batch, then hands what waits meanwhile to a goroutine that holds
// the same slot, so that this caller answers at once.
func (b *JobBatcher) run(ctx context.Context, q BatchQuerier, batch []*batchEntry) {
	b.send(ctx, q, batch)
	b.mu.Lock()
	if len(b.pending) == 0 {
		b.running--
		b.mu.Unlock()
		return
	}
	next := b.takeLocked()
	b.mu.Unlock()
	go b.run(ctx, q, next)
}

// send inserts batch in one statement (createOnce: completed by submit
// token when its answer was lost, so no job is stored twice); when that
// fails, job by job, so that one bad job fails alone.
func (b *JobBatcher) send(ctx context.Context, q BatchQuerier, batch []*batchEntry) {
	ctx, cancel := context.WithTimeout(ctx, batchTimeout)
	defer cancel()
	jobs, nows := make([]*Job, len(batch)), make([]time.Time, len(batch))
	for i, e := range batch {
		jobs[i], nows[i] = e.job, e.now
	}
	err := createOnce(ctx, q, jobs, nows)
	if err == nil || len(batch) == 1 {
		for _, e := range batch {
			e.done <- err
		}
		return
	}
	for i, e := range batch {
		e.done <- createOnce(ctx, q, jobs[i:i+1], nows[i:i+1])
	}
}

// createOnce inserts jobs in one statement (CreateJob for one, CreateJobs
// for more). When it fails in a way that leaves them possibly stored (an
// unknown outcome, or their token already taken), the insert is completed
// by submit token (ResumeJobs): each job is stored exactly once.
func createOnce(ctx context.Context, q BatchQuerier, jobs []*Job, nows []time.Time) error {
	var err error
	if len(jobs) == 1 {
		err = CreateJob(ctx, q, jobs[0], nows[0])
	} else {
		err = CreateJobs(ctx, q, jobs, nows)
	}
	if err != nil && mayBeStored(err) {
		err = resumeJobs(ctx, q, jobs, nows)
	}
	return err
}

// resumeTries bounds the attempts of resumeJobs.
const resumeTries = 3

// resumeJobs runs ResumeJobs until it succeeds, fails before it could
// commit, or has run resumeTries times, each with a time limit of its own
// (the first statement may have failed on its deadline).
func resumeJobs(ctx context.Context, q BatchQuerier, jobs []*Job, nows []time.Time) error {
	var err error
	for range resumeTries {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), batchTimeout)
		err = ResumeJobs(rctx, q, jobs, nows)
		cancel()
		if err == nil || failedBeforeCommit(err) {
			return err
		}
	}
	return err
}
