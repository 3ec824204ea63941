package testdb

import (
	"context"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// Run is one attempt of a job in a history fixture: GPUs held together from
// Start until End (zero: still held).
type Run struct {
	GPUs       []int64
	Start, End time.Time
	Reason     string // why it was released ("preempted", "completed"…)
}

// History writes a job's past as the scheduler leaves it: each run as
// allocation rows (one per GPU, created and released together), then the
// job's state, its team (nil: none of its own) and its submission before
// the first run. It writes the rows directly, for tests of what is read
// back from them (usage, history), not of how a job gets there.
func History(t testing.TB, db *models.DB, job *models.Job, state string, team *int64, runs ...Run) {
	t.Helper()
	ctx := context.Background()
	err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		submitted := job.SubmittedAt
		var started, ended *time.Time
		for _, r := range runs {
			var end *time.Time
			if !r.End.IsZero() {
				end = &r.End
			}
			for _, g := range r.GPUs {
				if _, err := tx.NewRaw(`INSERT INTO allocations (job_id, gpu_id, user_id, created_at, released_at, release_reason)
VALUES (?, ?, ?, ?, ?, ?)`, job.ID, g, job.OwnerID, r.Start, end, r.Reason).Exec(ctx); err != nil {
					return err
				}
			}
			if r.Start.Add(-time.Minute).Before(submitted) {
				submitted = r.Start.Add(-time.Minute)
			}
			started, ended = &r.Start, end
		}
		if !models.IsTerminal(state) {
			ended = nil
		}
		if state == models.JobQueued {
			started = nil
		}
		_, err := tx.NewRaw(`UPDATE jobs SET state = ?, team_id = ?, submitted_at = ?, scheduled_at = ?, started_at = ?, ended_at = ?
WHERE id = ?`, state, team, submitted, started, started, ended, job.ID).Exec(ctx)
		return err
	})
	if err != nil {
		t.Fatalf("fixture history of job %d: %v", job.ID, err)
	}
}
