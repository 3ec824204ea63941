package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/ray"
	"github.com/gpuscheduler/gpuscheduler/internal/ray/raytest"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestRayJobLifecycle follows a 2-GPU job from submission to SUCCEEDED:
// the exact body Ray gets, the states it goes through, its logs (kept after
// the head forgets it), its GPUs free again, one submission only.
func TestRayJobLifecycle(t *testing.T) {
	t.Parallel()
	e := newRayEnv(t, nil)
	id := e.submit(t, 2, "python train.py")
	waitFor(t, "job handed to Ray", func() bool { return e.job(t, id).State == models.JobAllocating })

	reqs := e.fake.Requests()
	var body map[string]any
	for _, r := range reqs {
		if r.Method == "POST" && r.Path == "/api/jobs/" {
			if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
				t.Fatal(err)
			}
		}
	}
	sid := fmt.Sprintf("gpusched-%d-1", id)
	run, err := models.LatestRayRun(context.Background(), e.s.DB.Bun, id)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"entrypoint":    "python train.py",
		"submission_id": sid,
		"runtime_env": map[string]any{"env_vars": map[string]any{
			"CUDA_VISIBLE_DEVICES": "0,1", "RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES": "1",
			"GPUSCHED_JOB_ID": fmt.Sprint(id), "GPUSCHED_GPUS": "gpu-a:0,1", "GPUSCHED_GPU_UUIDS": "GPU-a-0,GPU-a-1",
		}},
		"metadata": map[string]any{"gpusched_job_id": fmt.Sprint(id), "owner": e.user.Email, "job_name": "train",
			"submitted_by": "gpuscheduler", "gpusched_run": fmt.Sprintf("%d@%d", run.ID, run.CreatedAt.UnixNano())},
		"entrypoint_num_gpus":  2.0,
		"entrypoint_resources": map[string]any{"node:10.0.0.5": 0.001},
	}
	if d := cmp.Diff(want, body); d != "" {
		t.Fatalf("submission body (-want +got):\n%s", d)
	}
	if e.heldGPUs(t) != 2 {
		t.Fatalf("GPUs held while PENDING: %d, want 2", e.heldGPUs(t))
	}

	e.clock.Add(10 * time.Second) // RUNNING
	e.waitState(t, id, models.JobRunning)
	e.clock.Add(40 * time.Second)
	if err := e.ex.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.logs(t, id); !strings.Contains(got, "step 2\n") || strings.Contains(got, "done") {
		t.Fatalf("logs while running: %q", got)
	}
	e.clock.Add(20 * time.Second) // SUCCEEDED
	e.waitState(t, id, models.JobCompleted)

	if d := cmp.Diff([]string{models.JobQueued, models.JobScheduled, models.JobAllocating, models.JobRunning, models.JobCompleted}, e.states(t, id)); d != "" {
		t.Errorf("states (-want +got):\n%s", d)
	}
	if j := e.job(t, id); j.ExitCode == nil || *j.ExitCode != 0 {
		t.Errorf("exit code %v, want 0", j.ExitCode)
	}
	if n := e.heldGPUs(t); n != 0 {
		t.Errorf("GPUs still held: %d", n)
	}
	final := e.logs(t, id)
	wantLogs := "fake-ray: running python train.py with CUDA_VISIBLE_DEVICES=0,1\nstep 1\nstep 2\nstep 3\ndone\n"
	if d := cmp.Diff(wantLogs, final); d != "" {
		t.Errorf("final logs (-want +got):\n%s", d)
	}

	e.fake.Forget() // the head restarts and forgets (ray#25879)
	if err := e.ex.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(wantLogs, e.logs(t, id)); d != "" {
		t.Errorf("logs after the head forgot the job (-want +got):\n%s", d)
	}
	if got := e.job(t, id).State; got != models.JobCompleted {
		t.Errorf("state after the head forgot the job: %s", got)
	}
	if n := e.submissions(); n != 1 {
		t.Errorf("%d submissions, want 1", n)
	}
}

// TestRayStatusMapping: how each way a Ray job ends shows on ours.
func TestRayStatusMapping(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		command    string
		stopOnRay  bool // stopped on the cluster, not through GPUScheduler
		wantState  string
		wantExit   *int
		wantReason string
	}{
		"succeeded": {command: "python ok.py", wantState: models.JobCompleted, wantExit: ptrInt(0)},
		"failed": {command: "python bad.py " + raytest.FailMarker, wantState: models.JobFailed, wantExit: ptrInt(1),
			wantReason: "Ray: Job entrypoint command failed with exit code 1"},
		"stopped outside": {command: "python long.py", stopOnRay: true, wantState: models.JobFailed,
			wantReason: "stopped on the Ray cluster outside GPUScheduler"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newRayEnv(t, nil)
			id := e.submit(t, 1, tc.command)
			waitFor(t, "job handed to Ray", func() bool { return e.job(t, id).State == models.JobAllocating })
			e.clock.Add(10 * time.Second)
			e.waitState(t, id, models.JobRunning)
			if tc.stopOnRay {
				if _, err := e.ex.Client().Stop(context.Background(), fmt.Sprintf("gpusched-%d-1", id)); err != nil {
					t.Fatal(err)
				}
			} else {
				e.clock.Add(60 * time.Second)
			}
			e.waitState(t, id, tc.wantState)
			j := e.job(t, id)
			if d := cmp.Diff(tc.wantExit, j.ExitCode); d != "" {
				t.Errorf("exit code (-want +got):\n%s", d)
			}
			if !strings.HasPrefix(j.FailureReason, tc.wantReason) {
				t.Errorf("failure reason %q, want it to start with %q", j.FailureReason, tc.wantReason)
			}
			if n := e.heldGPUs(t); n != 0 {
				t.Errorf("GPUs still held: %d", n)
			}
		})
	}
}

func ptrInt(v int) *int { return &v }

// TestRayRetriesTransientFailures: two 503s, then Ray takes the job, once.
func TestRayRetriesTransientFailures(t *testing.T) {
	t.Parallel()
	e := newRayEnv(t, nil)
	e.fake.FailNext(503, 503)
	id := e.submit(t, 1, "python train.py")
	waitFor(t, "job handed to Ray", func() bool { return e.job(t, id).State == models.JobAllocating })
	if n := e.submissions(); n != 3 {
		t.Errorf("%d submission attempts, want 3 (two 503s, then accepted)", n)
	}
	if d := cmp.Diff([]string{fmt.Sprintf("gpusched-%d-1", id)}, keys(e.fake.Submissions())); d != "" {
		t.Errorf("jobs Ray has (-want +got):\n%s", d)
	}
}

// TestRayPermanentRefusal: a 400 fails the job with Ray's word and frees
// its GPUs, without retrying.
func TestRayPermanentRefusal(t *testing.T) {
	t.Parallel()
	e := newRayEnv(t, nil)
	e.fake.FailNext(400)
	id := e.submit(t, 2, "python train.py")
	waitFor(t, "job failed", func() bool { return e.job(t, id).State == models.JobFailed })
	j := e.job(t, id)
	if want := "Ray refused the job (400): Bad Request"; j.FailureReason != want {
		t.Errorf("failure reason %q, want %q", j.FailureReason, want)
	}
	if n := e.heldGPUs(t); n != 0 {
		t.Errorf("GPUs still held: %d", n)
	}
	if n := e.submissions(); n != 1 {
		t.Errorf("%d submission attempts, want 1", n)
	}
}

// TestRayLostAnswerIsNotASecondJob: Ray takes the submission but its
// answer is lost; the retry hears "already exists", sees its own run's
// token on Ray, and follows that job: one job on Ray.
func TestRayLostAnswerIsNotASecondJob(t *testing.T) {
	t.Parallel()
	e := newRayEnv(t, nil)
	e.fake.LoseNextAnswers(1)
	id := e.submit(t, 1, "python train.py")
	waitFor(t, "job handed to Ray", func() bool { return e.job(t, id).State == models.JobAllocating })
	// The job is allocating from the first attempt on; the retry follows.
	waitFor(t, "the retry of the lost submission", func() bool { return e.submissions() >= 2 })
	if n := e.submissions(); n != 2 {
		t.Errorf("%d submission attempts, want 2 (answer lost, then already exists)", n)
	}
	if d := cmp.Diff([]string{fmt.Sprintf("gpusched-%d-1", id)}, keys(e.fake.Submissions())); d != "" {
		t.Errorf("jobs Ray has (-want +got):\n%s", d)
	}
}

// TestRayOlderSubmissionIDOnRay: a Ray head that outlived our database has
// a job under the id we would use; we do not take it for ours, and hand
// the job over under the next id.
func TestRayOlderSubmissionIDOnRay(t *testing.T) {
	t.Parallel()
	e := newRayEnv(t, nil)
	// A fresh database numbers its first job 1.
	if _, err := e.ex.Client().Submit(context.Background(), ray.SubmitRequest{Entrypoint: "python old.py", SubmissionID: "gpusched-1-1",
		Metadata: map[string]string{"gpusched_run": "1@0"}}); err != nil {
		t.Fatal(err)
	}
	id := e.submit(t, 1, "python train.py")
	if id != 1 {
		t.Fatalf("first job is %d, want 1", id)
	}
	waitFor(t, "job handed to Ray", func() bool { return e.job(t, id).State == models.JobAllocating })
	got := e.fake.Submissions()
	if d := cmp.Diff([]string{"gpusched-1-1", "gpusched-1-2"}, sortedKeys(got)); d != "" {
		t.Errorf("jobs Ray has (-want +got):\n%s", d)
	}
	if got["gpusched-1-1"].Entrypoint != "python old.py" || got["gpusched-1-2"].Entrypoint != "python train.py" {
		t.Errorf("entrypoints: %q, %q", got["gpusched-1-1"].Entrypoint, got["gpusched-1-2"].Entrypoint)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
