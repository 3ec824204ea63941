package models_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// CreateJobs writes every job as CreateJob would, each with its own
// submission time and first event, and gives each job its own id.
func TestCreateJobs(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	a, b := testdb.User(t, db, models.RoleMember), testdb.User(t, db, models.RoleMember)
	mem, dur, ttl := int64(40960), int64(3600), int64(600)
	var jobs []*models.Job
	var nows []time.Time
	for i := range 6 {
		j := &models.Job{Name: fmt.Sprintf("job-%d", i), OwnerID: a.ID, GPUCount: 1 + i, Command: "python train.py", Workdir: "/w",
			JobType: "train", Executor: models.ExecutorLease, MaxRetries: i % 2, ClientRef: fmt.Sprintf("ref-%d", i)}
		if i%2 == 1 { // every nullable field set on odd jobs, none on even ones
			j.OwnerID, j.GPUMemoryMiB, j.EstimatedDurationS, j.LeaseTTLS = b.ID, &mem, &dur, &ttl
			j.Env, j.GPUModel, j.AllowMultiNode, j.Priority, j.Preemptible, j.Checkpoint, j.StopGraceS = map[string]string{"K": "v"}, "H100", true, 3, true, true, 120
			j.Nodes = 2 // a shape: 2 nodes, half the GPUs on each
		}
		if i == 4 { // a share of one GPU
			j.GPUCount, j.GPUShare, j.ShareMemoryMiB = 1, 0.25, 20480
		}
		jobs, nows = append(jobs, j), append(nows, testdb.Now.Add(time.Duration(i)*time.Second))
	}
	if err := models.CreateJobs(ctx, db.Pool, jobs, nows); err != nil {
		t.Fatal(err)
	}
	for i, j := range jobs {
		got, err := models.GetJob(ctx, db.Bun, j.ID)
		if err != nil {
			t.Fatalf("job %d (%s): %v", j.ID, j.Name, err)
		}
		if diff := cmp.Diff(j, got, cmpopts.IgnoreFields(models.Job{}, "SchedXID", "SubmitToken"), cmpopts.EquateApproxTime(time.Microsecond)); diff != "" {
			t.Errorf("job %s as stored (-want +got):\n%s", j.Name, diff)
		}
		var reason string
		var at time.Time
		var actor int64
		err = db.Pool.QueryRow(ctx, `SELECT reason, created_at, actor_user_id FROM job_events WHERE job_id = $1 AND to_state = 'queued'`, j.ID).Scan(&reason, &at, &actor)
		if err != nil || reason != "submitted" || !at.Equal(nows[i]) || actor != j.OwnerID {
			t.Errorf("job %s's first event: %q at %v by %d, %v", j.Name, reason, at, actor, err)
		}
		var token string
		err = db.Pool.QueryRow(ctx, `SELECT submit_token::text FROM jobs WHERE id = $1`, j.ID).Scan(&token)
		if err != nil || j.SubmitToken == "" || token != j.SubmitToken {
			t.Errorf("job %s's submit token: stored %q, set %q (%v)", j.Name, token, j.SubmitToken, err)
		}
	}
	if err := models.CreateJobs(ctx, db.Pool, jobs[:2], nows[:1]); err == nil {
		t.Error("CreateJobs took 2 jobs with 1 submission time")
	}
}

// gate is a BatchQuerier that holds every statement until released and
// counts the multi-row ones with their sizes.
type gate struct {
	models.BatchQuerier
	entered chan struct{}
	open    chan struct{}
	mu      sync.Mutex
	batches []int
}

func (g *gate) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	g.entered <- struct{}{}
	<-g.open
	return g.BatchQuerier.QueryRow(ctx, sql, args...)
}

func (g *gate) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	g.entered <- struct{}{}
	<-g.open
	g.mu.Lock()
	g.batches = append(g.batches, len(args[0].([]string)))
	g.mu.Unlock()
	return g.BatchQuerier.Query(ctx, sql, args...)
}

// Submissions that arrive while the batches in flight are full go together
// in one statement, each with its own id; a bad job among them fails alone.
func TestJobBatcher(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	owner := testdb.User(t, db, models.RoleMember)
	g := &gate{BatchQuerier: db.Pool, entered: make(chan struct{}, 100), open: make(chan struct{})}
	var b models.JobBatcher
	type result struct {
		job *models.Job
		err error
	}
	results := make(chan result, 20)
	submit := func(name string, gpus int) {
		j := &models.Job{Name: name, OwnerID: owner.ID, GPUCount: gpus, Executor: models.ExecutorLease}
		go func() { results <- result{j, b.Create(ctx, g, j, testdb.Now)} }()
	}
	// Two lone submissions fill the batches in flight (each alone, the
	// statement of one job)…
	submit("first", 1)
	submit("second", 1)
	<-g.entered
	<-g.entered
	// …so the next six wait, one of them bad (0 GPUs breaks a CHECK).
	for i := range 6 {
		gpus := 1
		if i == 3 {
			gpus = 0
		}
		submit(fmt.Sprintf("waiting-%d", i), gpus)
	}
	waitFor(t, "six submissions waiting", func() bool { return b.Waiting() == 6 })
	close(g.open)
	ids := map[int64]string{}
	for range 8 {
		r := <-results
		if r.job.GPUCount == 0 {
			if r.err == nil {
				t.Errorf("the job of 0 GPUs was queued as %d", r.job.ID)
			}
			continue
		}
		if r.err != nil {
			t.Fatalf("%s: %v", r.job.Name, r.err)
		}
		if other, dup := ids[r.job.ID]; dup {
			t.Fatalf("%s and %s both have id %d", r.job.Name, other, r.job.ID)
		}
		ids[r.job.ID] = r.job.Name
		got, err := models.GetJob(ctx, db.Bun, r.job.ID)
		if err != nil || got.Name != r.job.Name {
			t.Errorf("id %d: stored %q, want %q (%v)", r.job.ID, got.Name, r.job.Name, err)
		}
	}
	if diff := cmp.Diff([]int{6}, g.batches); diff != "" {
		t.Errorf("multi-row statements' sizes (-want +got):\n%s", diff)
	}
	var n int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM jobs`).Scan(&n); err != nil || n != 7 {
		t.Errorf("%d jobs stored (%v), want 7", n, err)
	}
	if b.Waiting() != 0 {
		t.Errorf("%d submissions still wait", b.Waiting())
	}
}
