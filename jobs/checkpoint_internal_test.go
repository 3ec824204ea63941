package jobs

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// TestWithStanding: the LAS standing is added to the reason.
func TestWithStanding(t *testing.T) {
	t.Parallel()
	ex := []scheduler.Explanation{{Reason: "needs 4 GPUs; 2 free", Standing: "GPU-time level 2 of 4: has had 38 GPU-h"}, {Reason: "x"}}
	withStanding(ex)
	got := []string{ex[0].Reason, ex[1].Reason}
	if d := cmp.Diff([]string{"needs 4 GPUs; 2 free (GPU-time level 2 of 4: has had 38 GPU-h)", "x"}, got); d != "" {
		t.Error(d)
	}
}
