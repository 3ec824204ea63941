package web_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestRayDownThenBack: while Ray does not answer, the cluster shows as
// disconnected, a job already handed over keeps its GPUs (grace period not
// over), and a new Ray job waits in the queue saying why; when Ray is back
// the new job starts, without a restart, and nothing is submitted twice.
func TestRayDownThenBack(t *testing.T) {
	t.Parallel()
	e := newRayEnv(t, nil) // grace: 1h
	a := e.submit(t, 2, "python a.py")
	waitFor(t, "job a handed to Ray", func() bool { return e.job(t, a).State == models.JobAllocating })

	e.fake.SetDown(true)
	if err := e.ex.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	var st handlers.OrchestratorStatusJSON
	code, body := e.s.Do(t, "GET", "/api/v1/orchestrator/status", e.token, "")
	mustJSON(t, body, &st)
	if code != 200 || st.Ray == nil || st.Ray.Connected || st.Ray.DownSince == nil || st.Ray.LastError == "" {
		t.Fatalf("orchestrator status while Ray is down: %d %s", code, body)
	}
	b := e.submit(t, 1, "python b.py")
	waitFor(t, "job b held", func() bool { return e.job(t, b).PendingReason == models.RayUnreachable })
	if got := e.job(t, b); got.State != models.JobQueued || got.PendingCode != jobs.ReasonRayUnreachable {
		t.Fatalf("job b: %s %q", got.State, got.PendingCode)
	}
	if got := e.job(t, a).State; got != models.JobAllocating || e.heldGPUs(t) != 2 {
		t.Fatalf("job a within the grace period: %s, %d GPUs held; want allocating, 2", got, e.heldGPUs(t))
	}

	e.fake.SetDown(false)
	e.waitState(t, b, models.JobAllocating)
	code, body = e.s.Do(t, "GET", "/api/v1/orchestrator/status", e.token, "")
	st = handlers.OrchestratorStatusJSON{}
	mustJSON(t, body, &st)
	if code != 200 || st.Ray == nil || !st.Ray.Connected || st.Ray.DownSince != nil {
		t.Fatalf("orchestrator status once Ray is back: %d %s", code, body)
	}
	e.clock.Add(10 * time.Second)
	e.waitState(t, a, models.JobRunning)
	if d := cmp.Diff([]string{fmt.Sprintf("gpusched-%d-1", a), fmt.Sprintf("gpusched-%d-1", b)}, sortedKeys(e.fake.Submissions())); d != "" {
		t.Errorf("jobs Ray has (-want +got):\n%s", d)
	}
	if n := e.submissions(); n != 2 {
		t.Errorf("%d submissions, want 2", n)
	}
}

// TestRayLostAfterGrace: past the grace period a job handed to an
// unreachable Ray is lost: its GPUs are freed and it is requeued (retries
// left); when Ray is back the old submission is stopped there and the job
// runs again as a new submission, never twice at once.
func TestRayLostAfterGrace(t *testing.T) {
	t.Parallel()
	e := newRayEnv(t, func(c *jobs.RayConfig) { c.LostAfter = time.Millisecond })
	a := e.submit(t, 2, "python a.py")
	waitFor(t, "job a handed to Ray", func() bool { return e.job(t, a).State == models.JobAllocating })
	e.fake.SetDown(true)
	waitFor(t, "job a lost", func() bool {
		_ = e.ex.Sync(context.Background())
		return e.job(t, a).RetryCount == 1
	})
	if j := e.job(t, a); j.State != models.JobQueued {
		t.Fatalf("lost job a is %s, want queued", j.State)
	}
	if n := e.heldGPUs(t); n != 0 {
		t.Fatalf("GPUs still held by the lost job: %d", n)
	}
	e.fake.SetDown(false)
	e.waitState(t, a, models.JobAllocating)
	first, second := fmt.Sprintf("gpusched-%d-1", a), fmt.Sprintf("gpusched-%d-2", a)
	waitFor(t, "old submission stopped", func() bool {
		_ = e.ex.Sync(context.Background())
		return len(e.stops()) > 0
	})
	// Stops are idempotent in Ray, and the executor's own periodic sync may
	// send the one this test's Sync sends: what matters is what was stopped.
	if d := cmp.Diff([]string{first}, slices.Compact(e.stops())); d != "" {
		t.Errorf("stops sent (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{first, second}, sortedKeys(e.fake.Submissions())); d != "" {
		t.Errorf("jobs Ray has (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{models.JobQueued, models.JobScheduled, models.JobAllocating, models.JobQueued,
		models.JobScheduled, models.JobAllocating}, e.states(t, a)); d != "" {
		t.Errorf("states (-want +got):\n%s", d)
	}
}

// TestRayCancel: a cancel stops the Ray job and the GPUs are released once
// Ray confirms, whether the job was still PENDING or RUNNING.
func TestRayCancel(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		runFirst bool
		want     []string
	}{
		"pending": {want: []string{models.JobQueued, models.JobScheduled, models.JobAllocating, models.JobCanceled}},
		"running": {runFirst: true, want: []string{models.JobQueued, models.JobScheduled, models.JobAllocating, models.JobRunning, models.JobCanceled}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newRayEnv(t, nil)
			id := e.submit(t, 2, "python train.py")
			waitFor(t, "job handed to Ray", func() bool { return e.job(t, id).State == models.JobAllocating })
			if tc.runFirst {
				e.clock.Add(10 * time.Second)
				e.waitState(t, id, models.JobRunning)
			}
			if code, body := e.s.Do(t, "DELETE", fmt.Sprintf("/api/v1/queue/%d", id), e.token, ""); code != 200 {
				t.Fatalf("cancel: %d %s", code, body)
			}
			e.waitState(t, id, models.JobCanceled)
			sid := fmt.Sprintf("gpusched-%d-1", id)
			if d := cmp.Diff([]string{sid}, e.stops()); d != "" {
				t.Errorf("stops sent (-want +got):\n%s", d)
			}
			d, err := e.ex.Client().Get(context.Background(), sid)
			if err != nil || d.Status != "STOPPED" {
				t.Errorf("Ray's status: %+v %v, want STOPPED", d.Status, err)
			}
			if n := e.heldGPUs(t); n != 0 {
				t.Errorf("GPUs still held: %d", n)
			}
			if diff := cmp.Diff(tc.want, e.states(t, id)); diff != "" {
				t.Errorf("states (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRayStatusOnClusterPage: the overview says whether Ray answers.
func TestRayStatusOnClusterPage(t *testing.T) {
	t.Parallel()
	e := newRayEnv(t, nil)
	c := e.s.Login(t, "ray-viewer@example.com")
	page := func() string {
		resp, err := c.Get(e.s.URL + "/fragments/cluster")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return string(readAll(t, resp))
	}
	if got := page(); !strings.Contains(got, `data-connected="true"`) {
		t.Fatalf("overview while Ray answers has no connected line:\n%s", got)
	}
	e.fake.SetDown(true)
	if err := e.ex.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := page(); !strings.Contains(got, "Ray cluster disconnected") {
		t.Fatalf("overview while Ray is down does not say so:\n%s", got)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := keys(m)
	for i := 1; i < len(out); i++ {
		for k := i; k > 0 && out[k] < out[k-1]; k-- {
			out[k], out[k-1] = out[k-1], out[k]
		}
	}
	return out
}
