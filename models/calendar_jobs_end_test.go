package models_test

import (
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// A running job's expected end: its estimate, else its time limit (the
// latest it can run), the earlier of the two; none without either.
func TestRunningJobExpectedEnd(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	secs := func(s int64) *int64 { return &s }
	tests := map[string]struct {
		estimate, limit *int64
		want            time.Time
		ok              bool
	}{
		"neither":               {nil, nil, time.Time{}, false},
		"estimate":              {secs(1800), nil, start.Add(30 * time.Minute), true},
		"limit":                 {nil, secs(3600), start.Add(time.Hour), true},
		"estimate before limit": {secs(1800), secs(3600), start.Add(30 * time.Minute), true},
		"limit before estimate": {secs(7200), secs(3600), start.Add(time.Hour), true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := models.RunningJobWindow{StartedAt: start, EstimatedDurationS: tc.estimate, TimeLimitS: tc.limit}
			got, ok := w.ExpectedEnd()
			if ok != tc.ok || !got.Equal(tc.want) {
				t.Errorf("ExpectedEnd() = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
