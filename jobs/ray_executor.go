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

// Name implements Executor.
func (e *RayExecutor) Name() string { return models.ExecutorRay }

// dispatchArgs makes the pass queue ray_dispatch instead of dispatch.
func (e *RayExecutor) dispatchArgs(jobID int64) river.JobArgs { return RayDispatchArgs{JobID: jobID} }

// Dispatch implements Executor: one submission attempt (ray_dispatch
// retries it).
func (e *RayExecutor) Dispatch(ctx context.Context, job *models.Job) error {
	return e.submit(ctx, job.ID)
}

// Stop implements Executor: the job is canceled.
func (e *RayExecutor) Stop(ctx context.Context, job *models.Job, reason string) error {
	return e.StopAs(ctx, job, models.JobCanceled, reason)
}

// StopAs stops job, which becomes state (canceled or preempted) once Ray
// confirms the stop (ray_sync sees STOPPED) or StopTimeout passes; only
// then are its GPUs released. A job Ray has not accepted yet ends at once
// (its submission, if it lands, is stopped by the sync).
func (e *RayExecutor) StopAs(ctx context.Context, job *models.Job, state, reason string) error {
	var sid string
	err := e.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		j, err := lockJob(ctx, tx, job.ID)
		if err != nil || models.IsTerminal(j.State) || j.State == models.JobQueued {
			return err
		}
		now := e.deps.Now()
		r, err := models.LatestRayRun(ctx, tx, j.ID)
		if errors.Is(err, models.ErrNotFound) || (err == nil && r.State != models.RayRunSubmitted) {
			if err == nil && r.State == models.RayRunSubmitting {
				r.State = models.RayRunLost // stopped on Ray by the sync if it got there
				if err := models.UpdateRayRun(ctx, tx, r, now); err != nil {
					return err
				}
			}
			return finishNodeJob(ctx, tx, j, state, reason, nil, now)
		}
		if err != nil {
			return err
		}
		if r.StopRequestedAt == nil {
			r.StopState, r.StopReason, r.StopRequestedAt = state, reason, &now
			if err := models.UpdateRayRun(ctx, tx, r, now); err != nil {
				return err
			}
		}
		sid = r.SubmissionID
		return nil
	})
	if err != nil || sid == "" {
		return err
	}
	if _, err := e.cfg.Client.Stop(ctx, sid); err != nil && !ray.IsNotFound(err) {
		// The sync sees the outcome; past StopTimeout the GPUs are released anyway.
		e.deps.Logger.Warn("ray: stop request failed; the sync retries", "job", job.ID, "submission", sid, "err", err)
	}
	e.wake(ctx)
	return nil
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

func lockJob(ctx context.Context, tx *models.Tx, id int64) (*models.Job, error) {
	j := new(models.Job)
	if err := tx.NewSelect().Model(j).Where("id = ?", id).For("UPDATE").Scan(ctx); err != nil {
		return nil, fmt.Errorf("jobs: lock job %d: %w", id, err)
	}
	return j, nil
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
