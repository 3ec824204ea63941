package jobs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/internal/ray"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// RayConfig is how this server uses its Ray cluster.
type RayConfig struct {
	Client *ray.Client
	// Nodes maps our node names to Ray node IPs (the node:<ip> resource);
	// a node not listed is taken to be known to Ray by its hostname.
	Nodes map[string]string
	// SyncEvery is the period of ray_sync (default 2s).
	SyncEvery time.Duration
	// LostAfter is how long jobs handed to Ray keep their GPUs while Ray does
	// not answer before they are marked lost (default 2m).
	LostAfter time.Duration
	// StopTimeout is how long a stop waits for Ray's confirmation before the
	// GPUs are released anyway (default 1m).
	StopTimeout time.Duration
	// RetryBase and RetryMax bound ray_dispatch's backoff (default 1s, 1m).
	RetryBase, RetryMax time.Duration
	// LogsEvery is how often a running job's output is copied from Ray
	// (default 10s; Ray answers the whole output each time). A job's final
	// output is always copied when it ends.
	LogsEvery time.Duration
}

// RayExecutor runs jobs on a Ray cluster through its Jobs REST API:
// ray_dispatch submits a placed job, pinned to its node and GPUs; ray_sync
// follows Ray's statuses, stores the logs and ends the job, releasing its
// GPUs. Register it in Deps.Executors under models.ExecutorRay.
type RayExecutor struct {
	deps *Deps
	cfg  RayConfig

	mu     sync.Mutex
	logsAt map[int64]time.Time // run id → when its output was last copied, while it runs
}

// NewRayExecutor returns the Ray executor of d (whose River client must
// exist) and adds the periodic ray_sync to it.
func NewRayExecutor(d *Deps, cfg RayConfig) *RayExecutor {
	if cfg.SyncEvery <= 0 {
		cfg.SyncEvery = 2 * time.Second
	}
	if cfg.LostAfter <= 0 {
		cfg.LostAfter = 2 * time.Minute
	}
	if cfg.StopTimeout <= 0 {
		cfg.StopTimeout = time.Minute
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = time.Second
	}
	if cfg.RetryMax <= 0 {
		cfg.RetryMax = time.Minute
	}
	if cfg.LogsEvery <= 0 {
		cfg.LogsEvery = 10 * time.Second
	}
	if d.River != nil {
		d.River.PeriodicJobs().Add(river.NewPeriodicJob(river.PeriodicInterval(cfg.SyncEvery),
			func() (river.JobArgs, *river.InsertOpts) { return RaySyncArgs{}, nil },
			&river.PeriodicJobOpts{ID: "ray_sync", RunOnStart: true}))
	}
	return &RayExecutor{deps: d, cfg: cfg, logsAt: map[int64]time.Time{}}
}

// Hand implements models.Executor: the hand-over is a network call, so it
// queues ray_dispatch in the lifecycle's transaction; the job stays
// scheduled until Ray accepts it (Handed).
func (e *RayExecutor) Hand(ctx context.Context, tx *models.Tx, j *models.Job, _ []models.JobGPU, _ time.Time) (models.Handover, error) {
	if _, err := e.deps.River.InsertTx(ctx, tx.PGX(), RayDispatchArgs{JobID: j.ID}, nil); err != nil {
		return models.Handover{}, fmt.Errorf("jobs: queue ray dispatch of job %d: %w", j.ID, err)
	}
	return models.Handover{}, nil
}

// Stop implements models.Executor. A job Ray has not accepted yet ends at
// once (its submission, if it lands, is stopped by the sync). Otherwise the
// stop is recorded on the run and ray_stop asks Ray (a network call, after
// the commit); the job ends when ray_sync sees STOPPED, or once the stop
// has waited StopTimeout (plus a checkpointing job's grace) unconfirmed.
func (e *RayExecutor) Stop(ctx context.Context, tx *models.Tx, j *models.Job, _ time.Duration, now time.Time) (bool, error) {
	r, err := models.LatestRayRun(ctx, tx, j.ID)
	if errors.Is(err, models.ErrNotFound) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if r.State != models.RayRunSubmitted {
		if r.State == models.RayRunSubmitting {
			r.State = models.RayRunLost // stopped on Ray by the sync if it got there
			if err := models.UpdateRayRun(ctx, tx, r, now); err != nil {
				return false, err
			}
		}
		return true, nil
	}
	r.StopState, r.StopReason, r.StopRequestedAt = stopState(j.StopKind), j.StopReason, &now
	if err := models.UpdateRayRun(ctx, tx, r, now); err != nil {
		return false, err
	}
	if _, err := e.deps.River.InsertTx(ctx, tx.PGX(), RayStopArgs{JobID: j.ID, SubmissionID: r.SubmissionID}, nil); err != nil {
		return false, fmt.Errorf("jobs: queue ray stop of job %d: %w", j.ID, err)
	}
	return false, nil
}

// stopState is the state a stop of kind is expected to end the job in, as
// the run records it for people (the lifecycle decides the real end).
func stopState(kind models.StopKind) string {
	switch kind {
	case models.StopPreempt:
		return models.JobPreempted
	case models.StopTimeLimit:
		return models.JobTimeout
	case models.StopRelease, models.StopExpire:
		return models.JobCompleted
	}
	return models.JobCanceled
}

// wake queues a ray_sync now, so a change is seen before the next period.
func (e *RayExecutor) wake(ctx context.Context) {
	if e.deps.River == nil {
		return
	}
	if _, err := e.deps.River.Insert(ctx, RaySyncArgs{Reason: "wake"}, nil); err != nil && ctx.Err() == nil {
		e.deps.Logger.Warn("ray: could not queue a sync; the periodic one will run", "err", err)
	}
}

// Client is the Ray Jobs API client this executor uses.
func (e *RayExecutor) Client() *ray.Client { return e.cfg.Client }

// logsDue reports whether run id's output should be copied now: always at
// its end (final, and then forgotten), else once per LogsEvery.
func (e *RayExecutor) logsDue(id int64, final bool) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if final {
		delete(e.logsAt, id)
		return true
	}
	now := e.deps.Now()
	if last, ok := e.logsAt[id]; ok && now.Sub(last) < e.cfg.LogsEvery {
		return false
	}
	e.logsAt[id] = now
	return true
}
