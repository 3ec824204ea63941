package web_test

import (
	"math"
	"net/url"
	"testing"
	"time"
)

// The history's GPU-hours are the usage reader's: over a range that holds
// every run of the fixture, the accounting total (scheduler.GPUTime over
// the allocation intervals, as the usage page counts them) is the sum of
// the history's gpu_hours plus the one run still going (bob's, 1 GPU for
// 30 minutes), which the history does not list.
func TestHistoryGPUHoursAgreeWithUsage(t *testing.T) {
	t.Parallel()
	f := newHistoryFixture(t)
	st, h, body := f.history(t, f.adminTok, "?limit=200")
	if st != 200 {
		t.Fatalf("%d %s", st, body)
	}
	var sum float64
	for _, j := range h.Jobs {
		if j.ID == f.running {
			t.Fatalf("the running job %d is in the history", f.running)
		}
		sum += j.GPUHours
	}
	from, to := f.now.Add(-100*time.Hour).Format(time.RFC3339), f.now.Format(time.RFC3339)
	a := f.accountingOf(t, f.adminTok, "?by=user&from="+url.QueryEscape(from)+"&to="+url.QueryEscape(to))
	const running = 0.5
	if got, want := a.Total.GPUHours, sum+running; math.Abs(got-want) > 1e-9 {
		t.Errorf("accounting total %v GPU-hours, history %v + running %v = %v", got, sum, running, want)
	}
	if want := 4 + 1 + 1 + 3*(5.0/60); math.Abs(sum-want) > 1e-9 { // run twice, failed, old, three short ones
		t.Errorf("history GPU-hours %v, want %v", sum, want)
	}
}
