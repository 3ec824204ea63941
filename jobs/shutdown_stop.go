package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// ShutdownReason is the reason a job stopped by the server's own shutdown
// ends with (its failure reason and its last event), so that its owner
// reads why it stopped rather than an unexplained kill.
const ShutdownReason = "stopped by the server's shutdown"

// EndForShutdown ends the jobs ids, whose processes the server's own
// (simulated) nodes stopped as it shut down, through the job lifecycle:
// each that still holds GPUs fails with ShutdownReason and gives them back.
// It answers how many it ended; a job already ended is left as it is.
func EndForShutdown(ctx context.Context, db *models.DB, lc *models.Lifecycle, ids []int64, now time.Time) (int, error) {
	ended := 0
	for _, id := range ids {
		err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			j, err := lc.Lock(ctx, tx, id)
			if err != nil {
				return err
			}
			return lc.Finish(ctx, tx, j, models.RunEnd{Reason: ShutdownReason}, now)
		})
		switch {
		case err == nil:
			ended++
		case errors.Is(err, models.ErrNoRun), errors.Is(err, models.ErrNotFound):
		default:
			return ended, fmt.Errorf("jobs: end job %d for the shutdown: %w", id, err)
		}
	}
	return ended, nil
}
