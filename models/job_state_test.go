package models_test

import (
	"testing"

	"github.com/gpuscheduler/gpuscheduler/models"
)

func TestCanMove(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		from, to string
		ok       bool
	}{
		"queued to scheduled":        {models.JobQueued, models.JobScheduled, true},
		"queued to canceled":         {models.JobQueued, models.JobCanceled, true},
		"queued to running":          {models.JobQueued, models.JobRunning, false},
		"scheduled to allocating":    {models.JobScheduled, models.JobAllocating, true},
		"allocating to running":      {models.JobAllocating, models.JobRunning, true},
		"running to completed":       {models.JobRunning, models.JobCompleted, true},
		"running to failed":          {models.JobRunning, models.JobFailed, true},
		"running to preempted":       {models.JobRunning, models.JobPreempted, true},
		"preempted to queued":        {models.JobPreempted, models.JobQueued, true},
		"preempted to running":       {models.JobPreempted, models.JobRunning, false},
		"completed is final":         {models.JobCompleted, models.JobQueued, false},
		"canceled is final":          {models.JobCanceled, models.JobRunning, false},
		"failed is final":            {models.JobFailed, models.JobQueued, false},
		"running back to queued":     {models.JobRunning, models.JobQueued, false},
		"unknown state goes nowhere": {"paused", models.JobQueued, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := models.CanMove(tc.from, tc.to); got != tc.ok {
				t.Fatalf("CanMove(%s, %s) = %t, want %t", tc.from, tc.to, got, tc.ok)
			}
		})
	}
}
