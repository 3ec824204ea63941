package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestTimeLimitEndsTimeout: a job with a 5 s limit that ignores SIGTERM is
// asked to stop at its limit, gets its stop grace of 2 s, is killed, and
// ends timeout, told to its owner (job.timeout); its timeline says why.
func TestTimeLimitEndsTimeout(t *testing.T) {
	t.Parallel()
	w := newWorkloadCluster(t)
	id := w.submit(t, `{"command":"trap '' TERM; sleep 600","gpu_count":1,"time_limit":"5s","stop_grace":"2s","workdir":"/"}`)
	j := w.waitState(t, id, models.JobTimeout, 60*time.Second)
	if j.TimeLimitS == nil || *j.TimeLimitS != 5 || j.StopKind != models.StopTimeLimit {
		t.Errorf("job: limit %v, stop kind %q; want 5 s, time_limit", j.TimeLimitS, j.StopKind)
	}
	if ran := j.StopRequestedAt.Sub(*j.StartedAt); ran < 5*time.Second {
		t.Errorf("stopped after %s, before its 5 s limit", ran)
	}
	if grace := j.EndedAt.Sub(*j.StopRequestedAt); grace < 2*time.Second {
		t.Errorf("ended %s after the stop, within its 2 s grace: it ignores SIGTERM and must have been killed after it", grace)
	}
	ev := w.events(t, id)
	last := ev[len(ev)-1]
	if last.ToState != models.JobTimeout || !strings.Contains(last.Reason, "reached its time limit of 5s") {
		t.Errorf("last move %s %q, want timeout saying it reached its limit", last.ToState, last.Reason)
	}
	var told int
	if err := w.s.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM notifications
		WHERE user_id = $1 AND event = $2 AND channel_type = 'in_app'`, w.user.ID, models.EventJobTimeout).Scan(&told); err != nil || told != 1 {
		t.Errorf("%d in-app job.timeout notifications (%v), want 1", told, err)
	}
	var held int
	if err := w.s.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM allocations WHERE job_id = $1 AND released_at IS NULL`, id).Scan(&held); err != nil || held != 0 {
		t.Errorf("%d allocations still held (%v)", held, err)
	}
}
