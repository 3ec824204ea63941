package jobs

import (
	"maps"
	"strconv"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// RestartCountEnv tells a job how many times it was preempted before this
// run, so that a checkpointing job knows to resume ("0" on its first run).
const RestartCountEnv = "GPUSCHED_RESTART_COUNT"

// restartEnv is the job's environment for a run, with RestartCountEnv set
// to the number of times it went back to the queue.
func restartEnv(j *models.Job) map[string]string {
	env := maps.Clone(j.Env)
	if env == nil {
		env = map[string]string{}
	}
	env[RestartCountEnv] = strconv.Itoa(j.RestartCount)
	return env
}

// withStanding adds each job's place under an attained-service policy to
// its reason, so that gpusched queue and the dashboard say it: "needs 4
// GPUs; 2 free (GPU-time level 2 of 4: has had 38 GPU-h; promoted after 12 h
// waiting)".
func withStanding(ex []scheduler.Explanation) {
	for i := range ex {
		if s := ex[i].Standing; s != "" {
			ex[i].Reason += " (" + s + ")"
		}
	}
}
