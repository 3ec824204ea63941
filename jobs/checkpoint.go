package jobs

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// RestartCountEnv tells a job how many times it was preempted before this
// run, so that a checkpointing job knows to resume ("0" on its first run).
const RestartCountEnv = "GPUSCHED_RESTART_COUNT"

// restartEnv is the job's environment for a run, with RestartCountEnv set
// to the number of times it was preempted.
func restartEnv(ctx context.Context, tx *models.Tx, j *models.Job) (map[string]string, error) {
	var n int
	err := tx.NewRaw("SELECT count(*) FROM job_events WHERE job_id = ? AND to_state = ?", j.ID, models.JobPreempted).Scan(ctx, &n)
	if err != nil {
		return nil, fmt.Errorf("jobs: restarts of job %d: %w", j.ID, err)
	}
	env := maps.Clone(j.Env)
	if env == nil {
		env = map[string]string{}
	}
	env[RestartCountEnv] = strconv.Itoa(n)
	return env, nil
}

// stopGraceS is the time between SIGTERM and SIGKILL when a job is stopped
// into state: a checkpointing job being preempted gets its own stop grace
// to save its state; every other stop the executor's default.
func stopGraceS(j *models.Job, state string, def time.Duration) int {
	if j.Checkpoint && state == models.JobPreempted && j.StopGraceS > 0 {
		return j.StopGraceS
	}
	return int(def.Seconds())
}

// withStanding adds each job's place under an attained-service policy to
// its reason, so that gpusched queue and the dashboard say it: "needs 4
// GPUs; 2 free (queue 2 of 4: has had 38 GPU-h; promoted after 12 h
// waiting)".
func withStanding(ex []scheduler.Explanation) {
	for i := range ex {
		if s := ex[i].Standing; s != "" {
			ex[i].Reason += " (" + s + ")"
		}
	}
}
