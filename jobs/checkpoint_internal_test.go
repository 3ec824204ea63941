package jobs

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestStopGraceS: only a checkpointing job being preempted gets its own
// grace; every other stop the executor's.
func TestStopGraceS(t *testing.T) {
	t.Parallel()
	ck := &models.Job{Checkpoint: true, StopGraceS: 90}
	plain := &models.Job{StopGraceS: 90}
	for _, tc := range []struct {
		j     *models.Job
		state string
		want  int
	}{
		{ck, models.JobPreempted, 90},
		{ck, models.JobCanceled, 10},
		{plain, models.JobPreempted, 10},
	} {
		if got := stopGraceS(tc.j, tc.state, 10*time.Second); got != tc.want {
			t.Errorf("%+v %s: %d, want %d", tc.j, tc.state, got, tc.want)
		}
	}
}

// TestWithStanding: the LAS standing is added to the reason.
func TestWithStanding(t *testing.T) {
	t.Parallel()
	ex := []scheduler.Explanation{{Reason: "needs 4 GPUs; 2 free", Standing: "queue 2 of 4: has had 38 GPU-h"}, {Reason: "x"}}
	withStanding(ex)
	got := []string{ex[0].Reason, ex[1].Reason}
	if d := cmp.Diff([]string{"needs 4 GPUs; 2 free (queue 2 of 4: has had 38 GPU-h)", "x"}, got); d != "" {
		t.Error(d)
	}
}
