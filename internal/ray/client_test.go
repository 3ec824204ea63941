package ray_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/ray"
	"github.com/gpuscheduler/gpuscheduler/internal/ray/raytest"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newFake(t *testing.T) (*ray.Client, *raytest.Server, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	fake := raytest.New(c.Now)
	fake.PendingFor, fake.RunFor, fake.LogEvery = time.Second, 4*time.Second, time.Second
	hs := httptest.NewServer(fake)
	t.Cleanup(hs.Close)
	client, err := ray.New(hs.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	return client, fake, c
}

// TestClientFollowsAJob: submit, statuses over time, growing logs, stop of a
// finished job, delete, and the exact routes (trailing slashes kept).
func TestClientFollowsAJob(t *testing.T) {
	t.Parallel()
	client, fake, c := newFake(t)
	ctx := context.Background()
	if v, err := client.Version(ctx); err != nil || v.RayVersion == "" {
		t.Fatalf("version: %+v %v", v, err)
	}
	req := ray.SubmitRequest{Entrypoint: "python train.py", SubmissionID: "gpusched-7-1",
		RuntimeEnv: map[string]any{"env_vars": map[string]string{"CUDA_VISIBLE_DEVICES": "2,3"}}}
	id, err := client.Submit(ctx, req)
	if err != nil || id != "gpusched-7-1" {
		t.Fatalf("submit: %q %v", id, err)
	}
	var statuses []string
	var logLens []int
	for range 6 {
		d, err := client.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		logs, err := client.Logs(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		statuses, logLens = append(statuses, d.Status), append(logLens, len(logs))
		c.Add(time.Second)
	}
	want := []string{ray.StatusPending, ray.StatusRunning, ray.StatusRunning, ray.StatusRunning, ray.StatusRunning, ray.StatusSucceeded}
	if d := cmp.Diff(want, statuses); d != "" {
		t.Errorf("statuses (-want +got):\n%s", d)
	}
	for i := 2; i < len(logLens); i++ {
		if logLens[i] <= logLens[i-1] {
			t.Errorf("logs did not grow while running: %v", logLens)
		}
	}
	if stopped, err := client.Stop(ctx, id); err != nil || stopped {
		t.Errorf("stop of a finished job: %t %v, want false <nil>", stopped, err)
	}
	list, err := client.List(ctx)
	if err != nil || len(list) != 1 || list[0].SubmissionID != id {
		t.Errorf("list: %+v %v", list, err)
	}
	if deleted, err := client.Delete(ctx, id); err != nil || !deleted {
		t.Errorf("delete: %t %v", deleted, err)
	}
	if _, err := client.Get(ctx, id); !ray.IsNotFound(err) {
		t.Errorf("get after delete: %v, want 404", err)
	}
	var routes []string
	for _, r := range fake.Requests() {
		routes = append(routes, r.Method+" "+r.Path)
	}
	wantRoutes := []string{"GET /api/version", "POST /api/jobs/"}
	for range 6 {
		wantRoutes = append(wantRoutes, "GET /api/jobs/gpusched-7-1", "GET /api/jobs/gpusched-7-1/logs")
	}
	wantRoutes = append(wantRoutes, "POST /api/jobs/gpusched-7-1/stop", "GET /api/jobs/", "DELETE /api/jobs/gpusched-7-1", "GET /api/jobs/gpusched-7-1")
	if d := cmp.Diff(wantRoutes, routes); d != "" {
		t.Errorf("routes (-want +got):\n%s", d)
	}
}

// TestClientErrors: what each kind of failure reads as.
func TestClientErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		setup                         func(*raytest.Server)
		call                          func(context.Context, *ray.Client) error
		notFound, permanent, conflict bool
		message                       string
	}{
		"unknown id": {call: func(ctx context.Context, c *ray.Client) error { _, err := c.Get(ctx, "nope"); return err },
			notFound: true, permanent: true, message: "Job nope does not exist"},
		"submission id taken": {
			setup: func(s *raytest.Server) {},
			call: func(ctx context.Context, c *ray.Client) error {
				if _, err := c.Submit(ctx, ray.SubmitRequest{Entrypoint: "x", SubmissionID: "dup"}); err != nil {
					return err
				}
				_, err := c.Submit(ctx, ray.SubmitRequest{Entrypoint: "x", SubmissionID: "dup"})
				return err
			},
			permanent: true, conflict: true, message: "ValueError: Job with submission_id dup already exists. Please use a different submission_id."},
		"unavailable": {setup: func(s *raytest.Server) { s.FailNext(503) },
			call: func(ctx context.Context, c *ray.Client) error { _, err := c.Version(ctx); return err }, message: "Service Unavailable"},
		"bad request": {setup: func(s *raytest.Server) { s.FailNext(400) },
			call: func(ctx context.Context, c *ray.Client) error {
				_, err := c.Submit(ctx, ray.SubmitRequest{Entrypoint: "x"})
				return err
			},
			permanent: true, message: "Bad Request"},
		"head down": {setup: func(s *raytest.Server) { s.SetDown(true) },
			call: func(ctx context.Context, c *ray.Client) error { _, err := c.Version(ctx); return err }},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			client, fake, _ := newFake(t)
			if tc.setup != nil {
				tc.setup(fake)
			}
			err := tc.call(context.Background(), client)
			if err == nil {
				t.Fatal("no error")
			}
			got := [3]bool{ray.IsNotFound(err), ray.IsPermanent(err), ray.IsAlreadyExists(err)}
			if want := [3]bool{tc.notFound, tc.permanent, tc.conflict}; got != want {
				t.Errorf("notFound, permanent, conflict = %v, want %v (%v)", got, want, err)
			}
			var re *ray.Error
			if errors.As(err, &re) {
				if re.Message() != tc.message {
					t.Errorf("message %q, want %q", re.Message(), tc.message)
				}
			} else if tc.message != "" {
				t.Errorf("%v is not Ray's answer", err)
			}
		})
	}
}

// TestClientTimeoutAndCancel: a head that does not answer in time, and a
// canceled context, end the call with an error that says so.
func TestClientTimeoutAndCancel(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); hs.Close() })
	client, err := ray.New(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	client.HTTP = &http.Client{Timeout: 50 * time.Millisecond}
	if _, err := client.Version(context.Background()); err == nil || !strings.Contains(err.Error(), "GET /api/version") {
		t.Errorf("timeout: %v", err)
	}
	client.HTTP = &http.Client{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := client.Version(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v, want context.Canceled", err)
	}
}

func TestNewRejectsBadAddresses(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"", "ray-head:8265", "ftp://x", "http://"} {
		if _, err := ray.New(addr); err == nil {
			t.Errorf("New(%q) accepted", addr)
		}
	}
}

// TestFakeHoldsStops: while the fake holds stops, a stop is answered and
// recorded but the job goes on; released, the stop is carried out then,
// and a job that ended meanwhile keeps its end.
func TestFakeHoldsStops(t *testing.T) {
	t.Parallel()
	client, fake, c := newFake(t)
	ctx := context.Background()
	for _, id := range []string{"a", "b"} {
		if _, err := client.Submit(ctx, ray.SubmitRequest{Entrypoint: "python train.py", SubmissionID: id}); err != nil {
			t.Fatal(err)
		}
	}
	c.Add(time.Second) // both RUNNING (until 5s)
	fake.HoldStops(true)
	for _, id := range []string{"a", "b"} {
		if stopped, err := client.Stop(ctx, id); err != nil || !stopped {
			t.Fatalf("stop %s while held: %v %v, want true", id, stopped, err)
		}
	}
	get := func(id string) ray.JobDetails {
		t.Helper()
		d, err := client.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	c.Add(time.Second)
	if got := get("a").Status; got != ray.StatusRunning {
		t.Fatalf("a after a held stop: %s, want RUNNING", got)
	}
	if _, err := client.Submit(ctx, ray.SubmitRequest{Entrypoint: "python train.py", SubmissionID: "c"}); err != nil {
		t.Fatal(err)
	}
	c.Add(3 * time.Second) // a and b have SUCCEEDED; c RUNS
	if _, err := client.Stop(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	c.Add(time.Second)
	fake.HoldStops(false)
	for _, id := range []string{"a", "b"} {
		if got := get(id).Status; got != ray.StatusSucceeded {
			t.Errorf("%s, ended while its stop was held: %s, want SUCCEEDED", id, got)
		}
	}
	if d := get("c"); d.Status != ray.StatusStopped || d.EndTime != c.Now().UnixMilli() {
		t.Errorf("c once stops are released: %s ended at %d; want STOPPED at %d", d.Status, d.EndTime, c.Now().UnixMilli())
	}
	if stopped, err := client.Stop(ctx, "c"); err != nil || stopped {
		t.Errorf("stop of the stopped c: %v %v, want false", stopped, err)
	}
	var stops []string
	for _, r := range fake.Requests() {
		if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/stop") {
			stops = append(stops, r.Path)
		}
	}
	if d := cmp.Diff([]string{"/api/jobs/a/stop", "/api/jobs/b/stop", "/api/jobs/c/stop", "/api/jobs/c/stop"}, stops); d != "" {
		t.Errorf("stop requests recorded (-want +got):\n%s", d)
	}
}
