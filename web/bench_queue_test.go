package web_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// rawInsertRate measures single-row INSERTs/s on the same PostgreSQL with
// 16 concurrent writers, the yardstick for submissions.
func rawInsertRate(b *testing.B, pool *pgxpool.Pool, d time.Duration) float64 {
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS bench_raw (id bigserial PRIMARY KEY, note text NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	var n atomic.Int64
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for range benchClients {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				if _, err := pool.Exec(ctx, `INSERT INTO bench_raw (note) VALUES ($1)`, "x"); err != nil {
					b.Error(err)
					return
				}
				n.Add(1)
			}
		})
	}
	wg.Wait()
	return float64(n.Load()) / d.Seconds()
}

// BenchmarkSubmit: queue submissions over HTTP from 16 clients, next to the
// raw single-row INSERT rate of the same database in the same run.
func BenchmarkSubmit(b *testing.B) {
	s := testserver.New(b)
	nodeTok, _ := s.NodeToken(b, "bench")
	if st, body := s.Do(b, "POST", "/api/v1/nodes/register", nodeTok, registerBodyFor("bench", 8)); st != 200 {
		b.Fatalf("register: %d %s", st, body)
	}
	// Pause scheduling so the benchmark measures submission alone.
	admin, _ := s.UserToken(b, models.RoleAdmin)
	if st, _ := s.Do(b, "POST", "/api/v1/orchestrator/stop", admin, ""); st != 200 {
		b.Fatal("pause")
	}
	tok, _ := s.UserToken(b, models.RoleMember)
	lat, rate := drive(b, func() *http.Request {
		req, _ := http.NewRequest("POST", s.URL+"/api/v1/queue/submit", strings.NewReader(`{"gpu_count":1,"executor":"lease","estimated_duration":"1h"}`))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		return req
	}, http.StatusCreated)
	raw := rawInsertRate(b, s.DB.Pool, 3*time.Second)
	b.ReportMetric(rate, "jobs/s")
	b.ReportMetric(ms(lat, 0.99), "p99-ms")
	b.ReportMetric(raw, "raw-inserts/s")
	b.ReportMetric(100*rate/raw, "pct-of-raw")
}

// BenchmarkReleaseToAllocate: one lease holds all 8 GPUs and another waits
// for them; each round releases the holder and times until the waiter is
// running — through NOTIFY, the kicker, River and a scheduling pass.
func BenchmarkReleaseToAllocate(b *testing.B) {
	s := testserver.New(b)
	nodeTok, _ := s.NodeToken(b, "bench")
	if st, body := s.Do(b, "POST", "/api/v1/nodes/register", nodeTok, registerBodyFor("bench", 8)); st != 200 {
		b.Fatalf("register: %d %s", st, body)
	}
	tok, _ := s.UserToken(b, models.RoleMember)
	ctx := context.Background()
	allocate := func(timeout string) api.Job {
		_, body := s.Do(b, "POST", "/api/v1/cluster/gpu-allocate", tok, `{"gpu_count":8,"timeout_s":`+timeout+`}`)
		var j api.Job
		mustJSON(b, body, &j)
		return j
	}
	holder := allocate("20")
	var lat []time.Duration
	b.ResetTimer()
	for range b.N {
		waiter := allocate("0")
		t0 := time.Now()
		if st, body := s.Do(b, "POST", "/api/v1/cluster/gpu-release", tok, fmt.Sprintf(`{"job_id":%d}`, holder.ID)); st != 200 {
			b.Fatalf("release: %d %s", st, body)
		}
		for poll := time.NewTicker(time.Millisecond); ; <-poll.C {
			j, err := models.GetJob(ctx, s.DB.Bun, waiter.ID)
			if err != nil {
				b.Fatal(err)
			}
			if j.State == models.JobRunning {
				poll.Stop()
				break
			}
			if time.Since(t0) > 10*time.Second {
				b.Fatalf("job %d not running 10s after the release", waiter.ID)
			}
		}
		lat = append(lat, time.Since(t0))
		holder = waiter
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(ms(lat, 0.50), "p50-ms")
	b.ReportMetric(ms(lat, 0.99), "p99-ms")
}
