package jobs

import (
	"testing"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestRestartEnv: a run's environment says how many times the job went back
// to the queue before it, beside the job's own variables (left unchanged).
func TestRestartEnv(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		restarts int
		want     string
	}{"first run": {0, "0"}, "second run": {1, "1"}, "third run": {2, "2"}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j := &models.Job{Env: map[string]string{"A": "1"}, RestartCount: tc.restarts}
			env := restartEnv(j)
			if env[RestartCountEnv] != tc.want || env["A"] != "1" || len(j.Env) != 1 {
				t.Errorf("after %d restarts: env %v (job's %v)", tc.restarts, env, j.Env)
			}
		})
	}
}
