package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A job the server's shutdown stopped says so: its failure reason and its
// last event name the shutdown, its GPUs are free, and a job that had
// already ended is neither counted nor changed.
func TestEndForShutdownSaysWhy(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	_, gpus := testdb.Node(t, db, 2)
	owner := testdb.User(t, db, models.RoleMember)
	running, done := testdb.Lease(t, db, owner, 1), testdb.Lease(t, db, owner, 1)
	testdb.Start(t, db, running.ID, gpus[:1], testdb.Now)
	testdb.Start(t, db, done.ID, gpus[1:], testdb.Now)
	testdb.End(t, db, done.ID, models.StopRelease, testdb.Now.Add(time.Second))

	n, err := jobs.EndForShutdown(ctx, db, &models.Lifecycle{}, []int64{running.ID, done.ID, 999999}, testdb.Now.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("ended %d jobs, want 1 (the one still running)", n)
	}
	j, err := models.GetJob(ctx, db.Bun, running.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{models.JobFailed, jobs.ShutdownReason}, []string{j.State, j.FailureReason}); diff != "" {
		t.Errorf("the stopped job (-want +got):\n%s", diff)
	}
	events, err := models.JobEvents(ctx, db.Bun, running.ID)
	if err != nil {
		t.Fatal(err)
	}
	if last := events[len(events)-1]; last.Reason != jobs.ShutdownReason {
		t.Errorf("its last event says %q, want %q", last.Reason, jobs.ShutdownReason)
	}
	live, err := models.LiveJobGPUs(ctx, db.Bun)
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 0 {
		t.Errorf("GPUs still held after the shutdown: %v", live)
	}
	other, err := models.GetJob(ctx, db.Bun, done.ID)
	if err != nil {
		t.Fatal(err)
	}
	if other.State != models.JobCompleted {
		t.Errorf("the job released before the shutdown is %s, want completed", other.State)
	}
}
