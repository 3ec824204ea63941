package jobs_test

import (
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/jobs"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		attempt int
		u       float64
		want    time.Duration
	}{
		"first, full":          {attempt: 1, u: 0.999999999, want: 999999999 * time.Nanosecond},
		"first, none":          {attempt: 1, u: 0, want: 0},
		"third doubles twice":  {attempt: 3, u: 0.5, want: 2 * time.Second},
		"capped":               {attempt: 10, u: 0.5, want: 30 * time.Second},
		"huge attempt, capped": {attempt: 1000, u: 0.5, want: 30 * time.Second},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := jobs.Backoff(tc.attempt, time.Second, time.Minute, tc.u); got != tc.want {
				t.Errorf("Backoff(%d, 1s, 1m, %g) = %s, want %s", tc.attempt, tc.u, got, tc.want)
			}
		})
	}
}
