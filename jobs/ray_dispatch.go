package jobs

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// rayDispatchAttempts bounds ray_dispatch's retries; past them, a job still
// not handed over is requeued by ray_sync after RayConfig.LostAfter.
const rayDispatchAttempts = 25

// RayDispatchArgs hands a placed job to the Ray cluster.
type RayDispatchArgs struct {
	JobID int64 `json:"job_id"`
}

// Kind is the River job kind.
func (RayDispatchArgs) Kind() string { return "ray_dispatch" }

// InsertOpts bounds the retries.
func (RayDispatchArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: rayDispatchAttempts}
}

// RayDispatchWorker submits one job to Ray. Transient failures (Ray
// unreachable, 5xx, timeouts) are retried with exponential backoff and full
// jitter; a 4xx refusal fails the job with Ray's message and releases its
// GPUs; acceptance moves it to allocating, and ray_sync to running.
type RayDispatchWorker struct {
	river.WorkerDefaults[RayDispatchArgs]
	deps *Deps
}

// Work submits the job.
func (w *RayDispatchWorker) Work(ctx context.Context, job *river.Job[RayDispatchArgs]) error {
	ex, ok := w.deps.Executors[models.ExecutorRay].(*RayExecutor)
	if !ok {
		err := w.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			j, err := w.deps.Lifecycle.Lock(ctx, tx, job.Args.JobID)
			if err != nil || j.State != models.JobScheduled {
				return err
			}
			return w.deps.Lifecycle.Finish(ctx, tx, j, models.RunEnd{Refused: "this server has no Ray cluster configured (GPUSCHED_RAY_ADDRESS)"}, w.deps.Now())
		})
		if errors.Is(err, models.ErrNotFound) {
			return river.JobCancel(err)
		}
		return err
	}
	return ex.submit(ctx, job.Args.JobID)
}

// NextRetry is exponential backoff with full jitter: a random wait up to
// RetryBase·2^(attempt−1), capped at RetryMax, so that many jobs waiting on
// a Ray cluster that comes back do not all knock at once.
func (w *RayDispatchWorker) NextRetry(job *river.Job[RayDispatchArgs]) time.Time {
	base, ceil := time.Second, time.Minute
	if ex, ok := w.deps.Executors[models.ExecutorRay].(*RayExecutor); ok {
		base, ceil = ex.cfg.RetryBase, ex.cfg.RetryMax
	}
	return time.Now().Add(Backoff(job.Attempt, base, ceil, rand.Float64()))
}

// Backoff is the wait before retry attempt (1-based): u (in [0,1)) times
// base·2^(attempt−1), capped at ceil.
func Backoff(attempt int, base, ceil time.Duration, u float64) time.Duration {
	d := ceil
	if attempt >= 1 && attempt < 40 {
		d = min(base<<(attempt-1), ceil)
		if d <= 0 { // overflow
			d = ceil
		}
	}
	return time.Duration(u * float64(d))
}
