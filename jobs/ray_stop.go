package jobs

import (
	"context"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/internal/ray"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// RayStopArgs asks the Ray cluster to stop a job's submission: the network
// half of a stop the lifecycle recorded.
type RayStopArgs struct {
	JobID        int64  `json:"job_id"`
	SubmissionID string `json:"submission_id"`
}

// Kind is the River job kind.
func (RayStopArgs) Kind() string { return "ray_stop" }

// InsertOpts: a few tries; past them the sync's stop timeout ends the job
// anyway and the run is stopped again when Ray answers.
func (RayStopArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 5} }

// RayStopWorker sends one stop to Ray and wakes the sync to see its outcome.
type RayStopWorker struct {
	river.WorkerDefaults[RayStopArgs]
	deps *Deps
}

// Work stops the submission; without a Ray executor it does nothing.
func (w *RayStopWorker) Work(ctx context.Context, job *river.Job[RayStopArgs]) error {
	e, ok := w.deps.Executors[models.ExecutorRay].(*RayExecutor)
	if !ok {
		return nil
	}
	if _, err := e.cfg.Client.Stop(ctx, job.Args.SubmissionID); err != nil && !ray.IsNotFound(err) {
		return fmt.Errorf("jobs: stop ray submission %s of job %d: %w", job.Args.SubmissionID, job.Args.JobID, err)
	}
	e.wake(ctx)
	return nil
}
