package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Lifecycle is the one owner of a job's life: its methods are the only way a
// job is placed, handed to its executor, marked started, asked to stop,
// ended, requeued or failed, and the only writers of allocations. Each works
// on a job whose row the caller's transaction has locked (Lock), re-checks
// the job's state, and in that same transaction moves the state along the
// graph (job_state.go) with a job_events row per move, releases the job's
// allocations on every move out of the holding states, and records the
// notification and the change signal.
//
//	          Place                 executor takes it        Started
//	queued ─────────► scheduled ─────────────────► allocating ───────► running
//	   ▲                  │  RequestStop: the stop is recorded on the job   │
//	   │                  │  (kind, reason, who) and the executor is asked  │
//	   │                  ▼  once; the core sees it in flight               ▼
//	   └── requeued ◄──── Finish: the run ended; the outcome is decided by
//	       (preempted,     what was asked (a cancel beats a reclaim beats a
//	        lost)          preemption), else by how it ended ──► completed | failed | canceled
//
// Executors (node agents, Ray; leases are built in) are adapters: they queue
// what reaches the outside world (a node command, a River job for a network
// call) in the lifecycle's transaction and report back through Started and
// Finish.
type Lifecycle struct {
	// Executors adapt the executors that run commands, by name
	// (ExecutorNode, ExecutorRay). Leases need none: the client runs its
	// own process, so a lease starts when placed and ends when asked, or
	// when its time runs out (lifecycle_lease.go).
	Executors map[string]Executor
}

// Executor hands placed jobs to where they run and asks them to stop, on the
// lifecycle's behalf. Its methods run in the lifecycle's transaction with
// the job locked, write only in it (rows; River jobs for network calls), and
// never move the job themselves.
type Executor interface {
	// Hand gives j, just placed on gpus (by node name, index), to the
	// executor and says what it did.
	Hand(ctx context.Context, tx *Tx, j *Job, gpus []JobGPU, now time.Time) (Handover, error)
	// Stop asks for j's run to end within grace. It reports true when
	// nothing runs yet (the start never reached the executor), so the job
	// ends at once.
	Stop(ctx context.Context, tx *Tx, j *Job, grace time.Duration, now time.Time) (bool, error)
}

// Handover is what an executor did with a job it was handed.
type Handover struct {
	// Taken says the executor has the job (a node's start command is
	// queued): it moves to allocating. Otherwise it stays scheduled until
	// the executor reports Handed (Ray accepted it).
	Taken bool
	// Detail is the reason of the move for the job's timeline ("sent to
	// node gpu-a").
	Detail string
	// StartCommandID is the node executor's start command, the job's
	// current run.
	StartCommandID *int64
}

// Refusal is an executor's refusal to run a job (it spans nodes and the
// executor runs on one, the Ray cluster rejected it): the job fails with
// Reason and its GPUs are released.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return "refused: " + r.Reason }

// Errors of the lifecycle's checks.
var (
	// ErrJobEnded: the job is in a terminal state; nothing more happens to it.
	ErrJobEnded = errors.New("job already ended")
	// ErrNotQueued: Place found the job no longer queued.
	ErrNotQueued = errors.New("job is no longer queued")
	// ErrNoRun: the job holds no GPUs, so there is no run to start or end.
	ErrNoRun = errors.New("job has no run")
)

// LockedJob is a job whose row the transaction tx has locked: only
// Lifecycle.Lock makes one, so every lifecycle step starts from the row as it
// is under the lock.
type LockedJob struct {
	*Job
	tx *Tx
}

// Lock locks job id's row in tx and reads it.
func (lc *Lifecycle) Lock(ctx context.Context, tx *Tx, id int64) (*LockedJob, error) {
	j := new(Job)
	if err := tx.NewSelect().Model(j).Where("id = ?", id).For("UPDATE").Scan(ctx); err != nil {
		return nil, notFound(err, fmt.Sprintf("lock job %d", id))
	}
	return &LockedJob{Job: j, tx: tx}, nil
}

// LockMany locks the rows of jobs ids in tx, in id order (so two lockers
// never deadlock), and returns those found in that order.
func (lc *Lifecycle) LockMany(ctx context.Context, tx *Tx, ids []int64) ([]*LockedJob, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var js []Job
	if err := tx.NewSelect().Model(&js).Where("id IN (?)", bun.In(ids)).OrderExpr("id").For("UPDATE").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: lock jobs: %w", err)
	}
	out := make([]*LockedJob, len(js))
	for i := range js {
		out[i] = &LockedJob{Job: &js[i], tx: tx}
	}
	return out, nil
}

// in checks that j was locked by tx.
func (j *LockedJob) in(tx *Tx) error {
	if j == nil || j.tx != tx {
		return fmt.Errorf("models: job not locked in this transaction")
	}
	return nil
}

// holds reports whether the job is in a state that holds GPUs.
func (j *LockedJob) holds() bool {
	return j.State == JobScheduled || j.State == JobAllocating || j.State == JobRunning
}
