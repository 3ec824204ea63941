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

// BenchmarkPagesByRole measures the server time of the dashboard's pages with
// 1,000 jobs on 2 nodes × 8 GPUs (the scheduler places what fits), one
// request at a time over loopback, and reports p50 and p95: as a member
// (actions on their own jobs only) and as an admin (actions on every row).
func BenchmarkPagesByRole(b *testing.B) {
	s := withNodes(b, 2, 8)
	admin := s.Login(b, "root@example.com") // the first to sign in is the admin
	member := s.Login(b, "ana@example.com")
	seedJobs(b, s, 1000)
	var id int64
	if err := s.DB.Bun.NewSelect().Model((*models.Job)(nil)).ColumnExpr("max(id)").Scan(context.Background(), &id); err != nil {
		b.Fatal(err)
	}
	for _, path := range []string{"/", "/fragments/cluster", "/queue", "/fragments/queue", "/bookings", fmt.Sprintf("/jobs/%d", id)} {
		for who, browser := range map[string]*http.Client{"member": member, "admin": admin} {
			b.Run(who+path, func(b *testing.B) {
				lat := make([]time.Duration, 0, b.N)
				for b.Loop() {
					t0 := time.Now()
					resp, err := browser.Get(s.URL + path)
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Fatalf("GET %s: %d", path, resp.StatusCode)
					}
					lat = append(lat, time.Since(t0))
				}
				slices.Sort(lat)
				b.ReportMetric(ms(lat, 0.50), "p50-ms")
				b.ReportMetric(ms(lat, 0.95), "p95-ms")
			})
		}
	}
}

// withNodes starts a server with n registered nodes of gpus GPUs each.
func withNodes(tb testing.TB, n, gpus int) *testserver.Server {
	tb.Helper()
	s := testserver.New(tb)
	for i := range n {
		nodeTok, node := s.NodeToken(tb, fmt.Sprintf("node-%d", i))
		if st, body := s.Do(tb, "POST", "/api/v1/nodes/register", nodeTok, registerBodyFor(node.Name, gpus)); st != 200 {
			tb.Fatalf("register: %d %s", st, body)
		}
	}
	return s
}
