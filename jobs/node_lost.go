package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// LoseNodeJobs reports to the job lifecycle the runs of nodes just marked
// down: each is lost (requeued while its retries last, else failed; a job
// already asked to end ends as asked) and its GPUs are released. A node
// job's run also gets a stop command, so that an agent that comes back
// kills what still runs there instead of running it twice. It returns how
// many jobs it ended.
func LoseNodeJobs(ctx context.Context, lc *models.Lifecycle, tx *models.Tx, names []string, now time.Time) (int, error) {
	if len(names) == 0 {
		return 0, nil
	}
	var ids []int64
	err := tx.NewSelect().Model((*models.Job)(nil)).Column("job.id").
		Where("job.state IN (?)", bun.In([]string{models.JobScheduled, models.JobAllocating, models.JobRunning})).
		Where(`(job.executor = ? AND EXISTS (SELECT 1 FROM allocations a JOIN gpus g ON g.id = a.gpu_id
			JOIN nodes n ON n.id = g.node_id WHERE a.job_id = job.id AND a.released_at IS NULL AND n.name IN (?)))
		OR (job.executor = ? AND job.node_id IN (SELECT id FROM nodes WHERE name IN (?)))`,
			models.ExecutorNode, bun.In(names), models.ExecutorLease, bun.In(names)).
		OrderExpr("job.id").Scan(ctx, &ids)
	if err != nil {
		return 0, fmt.Errorf("jobs: jobs of down nodes %v: %w", names, err)
	}
	lost, err := lc.LockMany(ctx, tx, ids)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, j := range lost {
		if j.State != models.JobScheduled && j.State != models.JobAllocating && j.State != models.JobRunning {
			continue // it ended meanwhile
		}
		const reason = "its node went down"
		if j.Executor == models.ExecutorNode {
			if err := killOnReturn(ctx, tx, j.Job, reason, now); err != nil {
				return n, err
			}
		}
		if err := lc.Finish(ctx, tx, j, models.RunEnd{Lost: true, Reason: reason}, now); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// killOnReturn withdraws a lost run's start and queues its stop (of every
// part of a multi-node run, on every node): an agent that comes back kills
// what still runs there.
func killOnReturn(ctx context.Context, tx *models.Tx, j *models.Job, reason string, now time.Time) error {
	start, err := currentStart(ctx, tx, j)
	if errors.Is(err, models.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	starts := []models.NodeCommand{*start}
	if p := start.JobPart(); p != nil { // every part of a multi-node run
		if starts, err = models.RunParts(ctx, tx, j.ID, runID(start, p)); err != nil {
			return err
		}
	}
	for i := range starts {
		s := &starts[i]
		if _, err := models.FinishCommand(ctx, tx, s, models.CommandCanceled, map[string]string{"reason": reason}, now); err != nil {
			return err
		}
		stop := api.StopJob{StartCommandID: s.ID, State: "lost", Reason: reason, GraceS: int(DefaultStopGrace.Seconds())}
		if _, err := models.EnqueueCommand(ctx, tx, s.NodeID, j.ID, models.CommandStop, stop, now); err != nil {
			return err
		}
	}
	return nil
}
