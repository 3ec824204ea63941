package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestDependenciesEndToEnd: a pipeline on two node agents. A job after ok
// of one that succeeds waits, saying for which job, and runs once it has
// completed; a job after ok of one that fails is canceled, saying why and
// telling its owner, and so is the job that waits for it; a job after
// notok of the failed one runs.
func TestDependenciesEndToEnd(t *testing.T) {
	t.Parallel()
	w := newWorkloadCluster(t)
	after := func(kind string, id int64) string {
		return fmt.Sprintf(`"after":[{"kind":%q,"job_id":%d}]`, kind, id)
	}
	good := w.submit(t, `{"command":"sleep 3","gpu_count":1,"workdir":"/","name":"preprocess"}`)
	bad := w.submit(t, `{"command":"sleep 3; exit 3","gpu_count":1,"workdir":"/","name":"broken"}`)
	train := w.submit(t, `{"command":"true","gpu_count":1,"workdir":"/","name":"train",`+after("ok", good)+`}`)
	never := w.submit(t, `{"command":"true","gpu_count":1,"workdir":"/","name":"never",`+after("ok", bad)+`}`)
	below := w.submit(t, `{"command":"true","gpu_count":1,"workdir":"/","name":"below",`+after("ok", never)+`}`)
	cleanup := w.submit(t, `{"command":"true","gpu_count":1,"workdir":"/","name":"cleanup",`+after("notok", bad)+`}`)

	// While its job runs, train waits, saying for which.
	waitFor(t, "train explained", func() bool { return w.job(t, train).PendingCode != "" })
	j := w.job(t, train)
	if want := fmt.Sprintf("waits for job %d to complete successfully (afterok)", good); j.State != models.JobQueued ||
		j.PendingCode != scheduler.ReasonDependency || j.PendingReason != want {
		t.Errorf("train: %s %s %q, want queued, dependency, %q", j.State, j.PendingCode, j.PendingReason, want)
	}
	status, body := w.s.Do(t, "GET", fmt.Sprintf("/api/v1/jobs/%d", train), w.token, "")
	if status != 200 || !strings.Contains(string(body), fmt.Sprintf(`"after":[{"kind":"ok","job_id":%d,"met":false}]`, good)) ||
		!strings.Contains(string(body), `"reason_code":"dependency"`) {
		t.Errorf("GET train: %d %s", status, body)
	}

	done := w.waitState(t, train, models.JobCompleted, 60*time.Second)
	first := w.job(t, good)
	if first.State != models.JobCompleted || done.StartedAt.Before(*first.EndedAt) {
		t.Errorf("train started %s, its job %s ended %s", done.StartedAt, first.State, first.EndedAt)
	}
	w.waitState(t, cleanup, models.JobCompleted, 60*time.Second)
	for _, id := range []int64{never, below} {
		j := w.waitState(t, id, models.JobCanceled, 60*time.Second)
		ev := w.events(t, id)
		reason := ev[len(ev)-1].Reason
		if !strings.Contains(reason, "its dependency can never be met: job") || j.StartedAt != nil {
			t.Errorf("job %d canceled %q (started %v)", id, reason, j.StartedAt)
		}
	}
	if ev := w.events(t, never); !strings.Contains(ev[len(ev)-1].Reason, fmt.Sprintf("job %d ended failed (afterok)", bad)) {
		t.Errorf("never: %q", ev[len(ev)-1].Reason)
	}
	var told int
	if err := w.s.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM notifications WHERE user_id = $1
		AND event = $2 AND channel_type = 'in_app' AND payload->>'reason' LIKE 'its dependency can never be met%'`,
		w.user.ID, models.EventJobCanceled).Scan(&told); err != nil || told != 2 {
		t.Errorf("%d job.canceled notifications for the dependents (%v), want 2", told, err)
	}
	// A condition on a job that already failed can never be met: refused.
	status, body = w.s.Do(t, "POST", "/api/v1/queue/submit", w.token, `{"command":"true","gpu_count":1,`+after("ok", bad)+`}`)
	if status != 400 || !strings.Contains(string(body), fmt.Sprintf("job %d already ended failed, so afterok can never be met", bad)) {
		t.Errorf("after ok of an ended job: %d %s", status, body)
	}
}
