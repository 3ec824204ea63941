package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// LoseNodeJobs handles the jobs of nodes just marked down: a job the node
// executor placed there is lost (requeued while its retries last, else
// failed), a lease asked for on that node ends as failed, and its GPUs are
// released. Each lost run also gets a stop command, so that an agent that
// comes back kills what still runs there instead of running it twice. It
// returns how many jobs it ended.
func LoseNodeJobs(ctx context.Context, tx *models.Tx, names []string, now time.Time) (int, error) {
	if len(names) == 0 {
		return 0, nil
	}
	var lost []models.Job
	err := tx.NewSelect().Model(&lost).
		Where("job.state IN (?)", bun.In([]string{models.JobScheduled, models.JobAllocating, models.JobRunning})).
		Where(`(job.executor = ? AND EXISTS (SELECT 1 FROM allocations a JOIN gpus g ON g.id = a.gpu_id
			JOIN nodes n ON n.id = g.node_id WHERE a.job_id = job.id AND a.released_at IS NULL AND n.name IN (?)))
		OR (job.executor = ? AND job.node_id IN (SELECT id FROM nodes WHERE name IN (?)))`,
			models.ExecutorNode, bun.In(names), models.ExecutorLease, bun.In(names)).
		OrderExpr("job.id").For("UPDATE OF job").Scan(ctx)
	if err != nil {
		return 0, fmt.Errorf("jobs: jobs of down nodes %v: %w", names, err)
	}
	for i := range lost {
		j := &lost[i]
		if j.Executor == models.ExecutorLease {
			if err := EndLease(ctx, tx, j.ID, models.JobFailed, "its node went down", now); err != nil {
				return i, err
			}
			continue
		}
		if err := loseRun(ctx, tx, j, now); err != nil {
			return i, err
		}
	}
	return len(lost), nil
}

func loseRun(ctx context.Context, tx *models.Tx, j *models.Job, now time.Time) error {
	reason := "its node went down"
	start, err := models.LatestCommand(ctx, tx, j.ID, models.CommandStart)
	if err == nil {
		if _, err := models.FinishCommand(ctx, tx, start, models.CommandCanceled, map[string]string{"reason": reason}, now); err != nil {
			return err
		}
		stop := apiclient.StopJob{StartCommandID: start.ID, State: StateLost, Reason: reason, GraceS: int(DefaultStopGrace.Seconds())}
		if _, err := models.EnqueueCommand(ctx, tx, start.NodeID, j.ID, models.CommandStop, stop, now); err != nil {
			return err
		}
	}
	return finishNodeJob(ctx, tx, j, StateLost, reason, nil, now)
}
