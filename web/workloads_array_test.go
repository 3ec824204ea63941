package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestArrayEndToEnd: a 10-task array with %3 on two node agents (8 GPUs)
// never has more than 3 tasks holding GPUs at once (watched live, and
// checked on the allocations' intervals afterwards), each task sees its
// own array and task ids (and Slurm's), the queue shows the array as one
// entry with its tasks counted by state, a job after ok of the array runs
// once every task completed, and its owner is told once, when every task
// has ended.
func TestArrayEndToEnd(t *testing.T) {
	t.Parallel()
	w := newWorkloadCluster(t)
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "gpusched-array-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil { // the jobs may run as nobody
		t.Fatal(err)
	}
	cmd := fmt.Sprintf(`echo "$GPUSCHED_ARRAY_JOB_ID $GPUSCHED_ARRAY_TASK_ID $GPUSCHED_ARRAY_TASK_COUNT $GPUSCHED_ARRAY_TASK_MIN $GPUSCHED_ARRAY_TASK_MAX $SLURM_ARRAY_TASK_ID" > %s/task-$GPUSCHED_ARRAY_TASK_ID; sleep 1`, dir)
	body, _ := json.Marshal(map[string]any{"command": cmd, "gpu_count": 1, "workdir": "/", "name": "sweep", "array": "0-9%3"})
	status, out := w.s.Do(t, "POST", "/api/v1/queue/submit", w.token, string(body))
	var sub api.Job
	if status != 201 || json.Unmarshal(out, &sub) != nil || sub.Array == nil || sub.Array.TaskCount != 10 || sub.Array.MaxRunning != 3 ||
		sub.Array.ID != sub.ID || sub.ArrayTaskID == nil || *sub.ArrayTaskID != 0 {
		t.Fatalf("submit: %d %s", status, out)
	}
	array := sub.ID
	pick := w.submit(t, fmt.Sprintf(`{"command":"true","gpu_count":1,"workdir":"/","name":"pick","after":[{"kind":"ok","job_id":%d}]}`, array))

	// Watch how many tasks hold GPUs while the array runs.
	var most, samples atomic.Int64
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			var n int64
			if err := w.s.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE array_job_id = $1
				AND state IN ('scheduled', 'allocating', 'running')`, array).Scan(&n); err == nil {
				samples.Add(1)
				if n > most.Load() {
					most.Store(n)
				}
			}
		}
	}()
	// While it runs, the queue shows it as one entry.
	waitFor(t, "tasks running", func() bool {
		var q api.Queue
		status, out := w.s.Do(t, "GET", "/api/v1/queue", w.token, "")
		if status != 200 || json.Unmarshal(out, &q) != nil {
			t.Fatalf("queue: %d %s", status, out)
		}
		entries := 0
		for _, j := range append(q.RunningJobs, q.QueuedJobs...) {
			if j.ArrayJobID != nil && *j.ArrayJobID == array {
				entries++
				if j.Array == nil || j.Array.States[api.JobRunning]+j.Array.States[api.JobAllocating]+j.Array.States[api.JobScheduled] == 0 {
					return false
				}
			}
		}
		if entries != 1 {
			t.Fatalf("the array is %d entries of the queue, want 1: %s", entries, out)
		}
		return true
	})
	waitLong(t, "every task completed", 90*time.Second, func() bool {
		var done int
		_ = w.s.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE array_job_id = $1 AND state = 'completed'`, array).Scan(&done)
		return done == 10
	})
	close(stop)
	<-watched
	t.Logf("at most %d tasks held GPUs at once, over %d samples", most.Load(), samples.Load())
	if most.Load() > 3 || most.Load() < 2 || samples.Load() < 10 {
		t.Errorf("at most %d tasks held GPUs at once over %d samples, want 3 (and at least 2)", most.Load(), samples.Load())
	}
	// The allocations' times are each transaction's clock when it began,
	// not its commit: a release and the next task's placement racing
	// overlap by a transaction's span without two ever holding GPUs at
	// once. An allocation released within a second of another's creation
	// is not counted as running beside it.
	var overlap int
	if err := w.s.DB.Pool.QueryRow(ctx, `SELECT max((SELECT count(*) FROM allocations b JOIN jobs jb ON jb.id = b.job_id
			WHERE jb.array_job_id = $1 AND b.created_at <= a.created_at
			AND (b.id = a.id OR coalesce(b.released_at, 'infinity') > a.created_at + interval '1 second')))
		FROM allocations a JOIN jobs ja ON ja.id = a.job_id WHERE ja.array_job_id = $1`, array).Scan(&overlap); err != nil || overlap > 3 {
		t.Errorf("the allocations show %d tasks at once (%v), want at most 3", overlap, err)
	}
	for task := range 10 {
		got, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("task-%d", task)))
		want := fmt.Sprintf("%d %d 10 0 9 %d\n", array, task, task)
		if err != nil || string(got) != want {
			t.Errorf("task %d wrote %q (%v), want %q", task, got, err, want)
		}
	}
	// The job after ok of the array ran once every task had completed.
	j := w.waitState(t, pick, models.JobCompleted, 60*time.Second)
	var last time.Time
	if err := w.s.DB.Pool.QueryRow(ctx, `SELECT max(ended_at) FROM jobs WHERE array_job_id = $1`, array).Scan(&last); err != nil ||
		j.StartedAt.Before(last) {
		t.Errorf("pick started %s, the array's last task ended %s (%v)", j.StartedAt, last, err)
	}
	var told []string
	rows, err := w.s.DB.Pool.Query(ctx, `SELECT event || ' ' || subject FROM notifications WHERE user_id = $1 AND channel_type = 'in_app' ORDER BY id`, w.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		told = append(told, s)
	}
	if want := []string{fmt.Sprintf("%s array:%d", models.EventJobFinished, array), fmt.Sprintf("%s job:%d", models.EventJobFinished, pick)}; strings.Join(told, ";") != strings.Join(want, ";") {
		t.Errorf("notifications %q, want %q", told, want)
	}
}

// TestArrayCancel: tasks of an array are canceled as Slurm's scancel does
// it: ID_TASK one task, ID_[…] some, the array's id every task left
// (running ones stopped); another member may not.
func TestArrayCancel(t *testing.T) {
	t.Parallel()
	w := newWorkloadCluster(t)
	body := `{"command":"sleep 600","gpu_count":1,"workdir":"/","name":"long","array":"0-7%2"}`
	var sub api.Job
	status, out := w.s.Do(t, "POST", "/api/v1/queue/submit", w.token, body)
	if status != 201 || json.Unmarshal(out, &sub) != nil {
		t.Fatalf("submit: %d %s", status, out)
	}
	array := sub.ID
	task := func(n int) *models.Job {
		j, err := models.ArrayTaskJob(context.Background(), w.s.DB.Bun, array, n)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	w.waitState(t, task(0).ID, models.JobRunning, 60*time.Second)
	other, _ := w.s.UserToken(t, models.RoleMember)
	if status, out := w.s.Do(t, "DELETE", fmt.Sprintf("/api/v1/queue/%d", array), other, ""); status != 404 {
		t.Errorf("another member cancels the array: %d %s", status, out)
	}
	if status, out := w.s.Do(t, "DELETE", fmt.Sprintf("/api/v1/queue/%d_5", array), w.token, ""); status != 200 {
		t.Fatalf("cancel task 5: %d %s", status, out)
	}
	if status, out := w.s.Do(t, "DELETE", fmt.Sprintf("/api/v1/queue/%d_%%5B6-7%%5D", array), w.token, ""); status != 200 {
		t.Fatalf("cancel tasks 6-7: %d %s", status, out)
	}
	for _, n := range []int{5, 6, 7} {
		if j := task(n); j.State != models.JobCanceled {
			t.Errorf("task %d: %s, want canceled", n, j.State)
		}
	}
	if j := task(2); j.State != models.JobQueued {
		t.Errorf("task 2: %s, want still queued", j.State)
	}
	status, out = w.s.Do(t, "DELETE", fmt.Sprintf("/api/v1/queue/%d", array), w.token, "")
	var answer api.Job
	if status != 200 || json.Unmarshal(out, &answer) != nil || answer.Array == nil || answer.Array.ID != array {
		t.Fatalf("cancel the array: %d %s", status, out)
	}
	for n := range 8 {
		w.waitState(t, task(n).ID, models.JobCanceled, 60*time.Second)
	}
	if status, out := w.s.Do(t, "DELETE", fmt.Sprintf("/api/v1/queue/%d", array), w.token, ""); status != 409 {
		t.Errorf("cancel an ended array: %d %s", status, out)
	}
	a, err := models.GetArray(context.Background(), w.s.DB.Bun, array)
	if err != nil || a.Ended != 8 || a.Failed != 8 {
		t.Errorf("the array counts %+v (%v), want 8 ended, 8 not completed", a, err)
	}
	var told int
	if err := w.s.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM notifications WHERE user_id = $1 AND channel_type = 'in_app'
		AND event = $2 AND subject = $3`, w.user.ID, models.EventJobCanceled, fmt.Sprintf("array:%d", array)).Scan(&told); err != nil || told != 1 {
		t.Errorf("%d job.canceled notifications for the array (%v), want 1", told, err)
	}
}
