package testserver

import (
	"testing"

	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// NewWithRay starts a server like New that hands jobs of executor "ray" to
// the Ray Jobs API of cfg.Client, and returns its Ray executor.
func NewWithRay(t testing.TB, cfg jobs.RayConfig) (*Server, *jobs.RayExecutor) {
	t.Helper()
	var ex *jobs.RayExecutor
	s := NewWith(t, Options{Setup: func(d *jobs.Deps) {
		ex = jobs.NewRayExecutor(d, cfg)
		d.Executors[models.ExecutorRay] = ex
	}})
	return s, ex
}
