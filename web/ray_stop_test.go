package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/ray"
	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestRayStopTimeout: a canceled Ray job whose stop Ray does not carry out
// keeps its GPUs and stays where it is until StopTimeout has passed since
// the stop; then it ends canceled saying so, its GPUs are free again, and
// the run is stopped on Ray once more. (A stop Ray confirms ends the job at
// once: TestRayCancel.)
func TestRayStopTimeout(t *testing.T) {
	t.Parallel()
	const timeout = 2 * time.Second // long enough to look before it passes, even under -race
	tests := map[string]struct {
		runFirst bool
		state    string // before the timeout
		want     []string
	}{
		"pending": {state: models.JobAllocating,
			want: []string{models.JobQueued, models.JobScheduled, models.JobAllocating, models.JobCanceled}},
		"running": {runFirst: true, state: models.JobRunning,
			want: []string{models.JobQueued, models.JobScheduled, models.JobAllocating, models.JobRunning, models.JobCanceled}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newRayEnv(t, func(c *jobs.RayConfig) { c.StopTimeout = timeout })
			id := e.submit(t, 2, "python train.py")
			waitFor(t, "job handed to Ray", func() bool { return e.job(t, id).State == models.JobAllocating })
			if tc.runFirst {
				e.clock.Add(10 * time.Second)
				e.waitState(t, id, models.JobRunning)
			}
			sid := fmt.Sprintf("gpusched-%d-1", id)
			e.fake.HoldStops(true) // the job hangs: Ray never carries the stop out

			if code, body := e.s.Do(t, "DELETE", fmt.Sprintf("/api/v1/queue/%d", id), e.token, ""); code != 200 {
				t.Fatalf("cancel: %d %s", code, body)
			}
			waitFor(t, "stop sent to Ray", func() bool { return len(e.stops()) > 0 })
			run, err := models.LatestRayRun(context.Background(), e.s.DB.Bun, id)
			if err != nil {
				t.Fatal(err)
			}
			if run.StopRequestedAt == nil || run.StopState != models.JobCanceled {
				t.Fatalf("run after the cancel: stop asked at %v, state %q; want a time, canceled", run.StopRequestedAt, run.StopState)
			}
			stopAt := *run.StopRequestedAt

			// Before the timeout: Ray still has it RUNNING (or PENDING), and so do we.
			if err := e.ex.Sync(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := e.job(t, id).State; got != tc.state {
				t.Errorf("job before the stop timeout: %s, want %s", got, tc.state)
			}
			if n := e.heldGPUs(t); n != 2 {
				t.Errorf("GPUs held before the stop timeout: %d, want 2", n)
			}
			if st := e.gpuStatus(t); st.AllocatedGPUs != 2 || st.AvailableGPUs != 2 {
				t.Errorf("gpu-status before the stop timeout: %d allocated, %d available; want 2, 2", st.AllocatedGPUs, st.AvailableGPUs)
			}
			if elapsed := time.Since(stopAt); elapsed >= timeout {
				t.Fatalf("the checks before the stop timeout took %s, past the %s timeout: they prove nothing", elapsed, timeout)
			}

			e.waitState(t, id, models.JobCanceled)
			evs, err := models.JobEvents(context.Background(), e.s.DB.Bun, id)
			if err != nil {
				t.Fatal(err)
			}
			end := evs[len(evs)-1]
			if end.CreatedAt.Sub(stopAt) < timeout {
				t.Errorf("job canceled %s after the stop, before the %s timeout", end.CreatedAt.Sub(stopAt), timeout)
			}
			if want := "Ray did not confirm the stop within 2s; GPUs released"; !strings.Contains(end.Reason, want) {
				t.Errorf("reason %q, want it to contain %q", end.Reason, want)
			}
			if diff := cmp.Diff(tc.want, e.states(t, id)); diff != "" {
				t.Errorf("states (-want +got):\n%s", diff)
			}
			if n := e.heldGPUs(t); n != 0 {
				t.Errorf("GPUs still held: %d", n)
			}
			if st := e.gpuStatus(t); st.AllocatedGPUs != 0 || st.AvailableGPUs != 4 {
				t.Errorf("gpu-status after the stop timeout: %d allocated, %d available; want 0, 4", st.AllocatedGPUs, st.AvailableGPUs)
			}

			// The run, given up, is stopped on Ray again at the next sync.
			waitFor(t, "stop sent again", func() bool {
				if err := e.ex.Sync(context.Background()); err != nil {
					t.Logf("sync: %v", err)
				}
				return len(e.stops()) >= 2
			})
			for _, s := range e.stops() {
				if s != sid {
					t.Errorf("stop of %s, want only %s", s, sid)
				}
			}
			run, err = models.LatestRayRun(context.Background(), e.s.DB.Bun, id)
			if err != nil {
				t.Fatal(err)
			}
			if run.State != models.RayRunLost || run.StopRequestedAt == nil {
				t.Errorf("run once stopped again: %s, stop asked at %v; want lost, a time", run.State, run.StopRequestedAt)
			}
			if n := e.submissions(); n != 1 {
				t.Errorf("%d submissions, want 1", n)
			}
		})
	}
}

// TestRayPreemption: a preemptible normal-priority Ray job on every GPU is
// stopped on Ray for a high-priority job; it keeps its GPUs until Ray
// confirms STOPPED, then goes back to the queue, the high-priority job
// gets the GPUs, and once that one is done the preempted job is handed to
// Ray again under its next submission id: one live run at a time.
func TestRayPreemption(t *testing.T) {
	t.Parallel()
	e := newRayEnv(t, nil) // StopTimeout 1h: only Ray's confirmation frees the GPUs
	adminTok, _ := e.s.UserToken(t, models.RoleAdmin)
	cfg := scheduler.DefaultConfig()
	cfg.Policy, cfg.Backfill, cfg.Preemption, cfg.MinRuntime = scheduler.PolicyPriority, false, true, 0
	policy, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if code, body := e.s.Do(t, "PUT", "/api/v1/orchestrator/policies", adminTok, string(policy)); code != 200 {
		t.Fatalf("policies: %d %s", code, body)
	}

	low := e.submit(t, 4, "python long.py")
	waitFor(t, "low handed to Ray", func() bool { return e.job(t, low).State == models.JobAllocating })
	e.clock.Add(10 * time.Second)
	e.waitState(t, low, models.JobRunning)
	if j := e.job(t, low); !j.Preemptible || j.Priority != 2 {
		t.Fatalf("low: preemptible %v, priority %d; want true, 2 (normal)", j.Preemptible, j.Priority)
	}
	lowFirst, lowSecond := fmt.Sprintf("gpusched-%d-1", low), fmt.Sprintf("gpusched-%d-2", low)

	e.fake.HoldStops(true) // Ray is slow to stop it
	code, out := e.s.Do(t, "POST", "/api/v1/queue/submit", e.token,
		`{"command": "python urgent.py", "gpu_count": 4, "executor": "ray", "name": "urgent", "priority": "high"}`)
	if code != 201 {
		t.Fatalf("submit high: %d %s", code, out)
	}
	var hj api.Job
	mustJSON(t, out, &hj)
	high := hj.ID
	highFirst := fmt.Sprintf("gpusched-%d-1", high)

	waitFor(t, "low stopped on Ray", func() bool { return len(e.stops()) > 0 })
	waitFor(t, "high waiting on the preemption", func() bool { return e.job(t, high).PendingCode == scheduler.ReasonPreempting })
	if err := e.ex.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Not confirmed yet: low still runs on its GPUs, high waits, Ray has one job.
	if got := e.job(t, low).State; got != models.JobRunning {
		t.Errorf("low before Ray confirms the stop: %s, want running", got)
	}
	if got := e.job(t, high).State; got != models.JobQueued {
		t.Errorf("high before Ray confirms the stop: %s, want queued", got)
	}
	if got := e.gpusOf(t, low); got != 4 {
		t.Errorf("low holds %d GPUs before Ray confirms the stop, want 4", got)
	}
	if n := e.submissions(); n != 1 {
		t.Errorf("%d submissions before Ray confirms the stop, want 1", n)
	}
	run, err := models.LatestRayRun(context.Background(), e.s.DB.Bun, low)
	if err != nil {
		t.Fatal(err)
	}
	if run.SubmissionID != lowFirst || run.StopState != models.JobPreempted || !strings.Contains(run.StopReason, fmt.Sprintf("preempted for job %d", high)) {
		t.Errorf("low's run: %s, stop as %q for %q; want %s preempted for job %d", run.SubmissionID, run.StopState, run.StopReason, lowFirst, high)
	}

	confirmed := time.Now()
	e.fake.HoldStops(false) // Ray stops it now
	e.waitState(t, high, models.JobAllocating)
	if got := e.job(t, low).State; got != models.JobQueued {
		t.Errorf("low once Ray confirmed the stop: %s, want queued", got)
	}
	if got := e.gpusOf(t, high); got != 4 {
		t.Errorf("high holds %d GPUs, want 4", got)
	}
	var taken []models.Allocation
	if err := e.s.DB.Bun.NewSelect().Model(&taken).Where("job_id = ?", high).Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, a := range taken {
		if a.CreatedAt.Before(confirmed) {
			t.Errorf("high got GPU %d at %s, before Ray confirmed the stop (%s)", a.GPUID, a.CreatedAt, confirmed)
		}
	}

	e.clock.Add(70 * time.Second) // high runs and SUCCEEDS
	e.waitState(t, high, models.JobCompleted)
	e.waitState(t, low, models.JobAllocating)

	if diff := cmp.Diff([]string{models.JobQueued, models.JobScheduled, models.JobAllocating, models.JobRunning,
		models.JobPreempted, models.JobQueued, models.JobScheduled, models.JobAllocating}, e.states(t, low)); diff != "" {
		t.Errorf("low's states (-want +got):\n%s", diff)
	}
	if j := e.job(t, low); j.RetryCount != 0 {
		t.Errorf("low's retry count %d: a preemption is not a retry", j.RetryCount)
	}
	run, err = models.LatestRayRun(context.Background(), e.s.DB.Bun, low)
	if err != nil || run.SubmissionID != lowSecond {
		t.Errorf("low's latest run: %s %v, want %s", run.SubmissionID, err, lowSecond)
	}
	onRay := map[string]string{}
	for sid := range e.fake.Submissions() {
		d, err := e.ex.Client().Get(context.Background(), sid)
		if err != nil {
			t.Fatal(err)
		}
		onRay[sid] = d.Status
	}
	want := map[string]string{lowFirst: ray.StatusStopped, highFirst: ray.StatusSucceeded, lowSecond: ray.StatusPending}
	if diff := cmp.Diff(want, onRay); diff != "" {
		t.Errorf("jobs on Ray (-want +got):\n%s", diff)
	}
	for _, s := range e.stops() {
		if s != lowFirst {
			t.Errorf("stop of %s, want only %s", s, lowFirst)
		}
	}
	if n := e.submissions(); n != 3 {
		t.Errorf("%d submissions, want 3", n)
	}
}

// gpuStatus reads GET /api/v1/cluster/gpu-status.
func (e *rayEnv) gpuStatus(t *testing.T) handlers.ClusterStatusJSON {
	t.Helper()
	code, body := e.s.Do(t, "GET", "/api/v1/cluster/gpu-status", e.token, "")
	if code != 200 {
		t.Fatalf("gpu-status: %d %s", code, body)
	}
	var st handlers.ClusterStatusJSON
	mustJSON(t, body, &st)
	return st
}

// gpusOf counts the GPUs job id holds now.
func (e *rayEnv) gpusOf(t *testing.T, id int64) int {
	t.Helper()
	n, err := e.s.DB.Bun.NewSelect().Model((*models.Allocation)(nil)).Where("job_id = ? AND released_at IS NULL", id).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}
