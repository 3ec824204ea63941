package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// pagesCluster is the acceptance setting of the pages: 2 nodes × 8 GPUs,
// 1,000 jobs from 15 people (16 running on every GPU, the rest queued with
// the scheduler's explanations), scheduling then paused so that passes do
// not run during the measurement. It returns a browser signed in as one of
// the 15.
func pagesCluster(b *testing.B) (*testserver.Server, *http.Client) {
	s := testserver.New(b)
	ctx := context.Background()
	for i := range 2 {
		nodeTok, node := s.NodeToken(b, fmt.Sprintf("bench-%d", i))
		if st, body := s.Do(b, "POST", "/api/v1/nodes/register", nodeTok, registerBodyFor(node.Name, 8)); st != 200 {
			b.Fatalf("register: %d %s", st, body)
		}
	}
	var owners []*models.User
	for range 15 {
		_, u := s.UserToken(b, models.RoleMember)
		owners = append(owners, u)
	}
	now := time.Now()
	for i := range 1000 {
		j := &models.Job{Name: fmt.Sprintf("train-%04d", i), OwnerID: owners[i%len(owners)].ID, Command: "python train.py",
			GPUCount: 1 + i%2, Executor: models.ExecutorLease}
		if err := models.CreateJob(ctx, s.DB.Pool, j, now.Add(time.Duration(i)*time.Millisecond)); err != nil {
			b.Fatal(err)
		}
	}
	// Let the scheduler fill the GPUs and explain the rest, then pause it.
	if err := models.Signal(ctx, s.DB.Bun, models.ChannelScheduler, "bench"); err != nil {
		b.Fatal(err)
	}
	var running, explained int
	if !eventually(30*time.Second, func() bool {
		err := s.DB.Bun.NewRaw(`SELECT count(*) FILTER (WHERE state = 'running'), count(*) FILTER (WHERE pending_reason <> '') FROM jobs`).
			Scan(ctx, &running, &explained)
		if err != nil {
			b.Fatal(err)
		}
		return running > 0 && explained > 900
	}) {
		b.Fatalf("the scheduler did not settle: %d running, %d explained", running, explained)
	}
	adminTok, _ := s.UserToken(b, models.RoleAdmin)
	if st, body := s.Do(b, "POST", "/api/v1/orchestrator/stop", adminTok, ""); st != 200 {
		b.Fatalf("pause: %d %s", st, body)
	}
	return s, s.Login(b, owners[0].Email)
}

// benchPage requests path with a signed-in browser, one request at a time,
// so that each latency is the server's time for the page (over loopback),
// and reports p50, p95 and p99.
func benchPage(b *testing.B, path string) {
	s, browser := pagesCluster(b)
	get := func() {
		resp, err := browser.Get(s.URL + path)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || n < 1000 {
			b.Fatalf("GET %s: %d, %d bytes", path, resp.StatusCode, n)
		}
	}
	for range 20 { // warm the connection pools and caches
		get()
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		get()
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(ms(lat, 0.50), "p50-ms")
	b.ReportMetric(ms(lat, 0.95), "p95-ms")
	b.ReportMetric(ms(lat, 0.99), "p99-ms")
}

// BenchmarkOverviewPage: GET / with 1,000 jobs and 16 GPUs.
func BenchmarkOverviewPage(b *testing.B) { benchPage(b, "/") }

// BenchmarkQueuePage: GET /queue with 1,000 jobs and 16 GPUs.
func BenchmarkQueuePage(b *testing.B) { benchPage(b, "/queue") }

// BenchmarkUsagePage: GET /usage (the tables; the graphs' data is /usage/data).
func BenchmarkUsagePage(b *testing.B) { benchPage(b, "/usage") }
