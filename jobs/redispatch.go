package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// redispatchAfter is how long a node job may sit placed but not sent
// before its dispatch is queued again.
const redispatchAfter = 10 * time.Second

// RedispatchArgs asks for one sweep of node jobs stuck between placement
// and dispatch.
type RedispatchArgs struct{}

// Kind is the River job kind.
func (RedispatchArgs) Kind() string { return "redispatch" }

// RedispatchWorker queues the dispatch again of node jobs placed more than
// redispatchAfter ago that no live dispatch job will send: the replica
// that placed them died (kill -9, a lost host) while its dispatch job ran,
// and River would only rescue that job after RescueStuckJobsAfter.
// Dispatch is idempotent (the job row is locked and must still be
// scheduled), so a late second dispatch does nothing.
type RedispatchWorker struct {
	river.WorkerDefaults[RedispatchArgs]
	deps *Deps
}

// Work runs one sweep.
func (w *RedispatchWorker) Work(ctx context.Context, _ *river.Job[RedispatchArgs]) error {
	now := w.deps.Now()
	var ids []int64
	err := w.deps.DB.Bun.NewSelect().Model((*models.Job)(nil)).Column("id").
		Where("state = ?", models.JobScheduled).Where("executor = ?", models.ExecutorNode).
		Where("scheduled_at < ?", now.Add(-redispatchAfter)).
		Where(`NOT EXISTS (SELECT 1 FROM river_job r WHERE r.kind = 'dispatch' AND (r.args->>'job_id')::bigint = job.id
			AND (r.state IN ('available', 'scheduled', 'retryable', 'pending') OR (r.state = 'running' AND r.attempted_at > ?)))`,
			now.Add(-redispatchAfter)).
		OrderExpr("id").Scan(ctx, &ids)
	if err != nil {
		return fmt.Errorf("jobs: find stuck dispatches: %w", err)
	}
	for _, id := range ids {
		if _, err := w.deps.River.Insert(ctx, DispatchArgs{JobID: id}, nil); err != nil {
			return fmt.Errorf("jobs: redispatch job %d: %w", id, err)
		}
	}
	if len(ids) > 0 {
		w.deps.Logger.Warn("dispatch queued again for jobs placed but never sent (a replica died?)", "jobs", ids)
	}
	return nil
}

// redispatchPeriodic runs the sweep every few seconds.
func redispatchPeriodic() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(5*time.Second),
		func() (river.JobArgs, *river.InsertOpts) { return RedispatchArgs{}, nil },
		&river.PeriodicJobOpts{ID: "redispatch"})
}
