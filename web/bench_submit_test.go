package web_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// pgbenchTPS runs pgbench's one-row INSERT at 16 clients for d against the
// test database and returns its tx/s; ok is false when pgbench is missing.
func pgbenchTPS(b *testing.B, s *testserver.Server, d time.Duration) (tps float64, ok bool) {
	path, err := exec.LookPath("pgbench")
	if err != nil {
		return 0, false
	}
	ctx := context.Background()
	if _, err := s.DB.Pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS bench_raw (id bigserial PRIMARY KEY, note text NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	script, err := os.CreateTemp(b.TempDir(), "insert-*.sql")
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintln(script, `INSERT INTO bench_raw (note) VALUES ('x');`)
	script.Close()
	out, err := exec.Command(path, "-n", "-c", strconv.Itoa(benchClients), "-j", strconv.Itoa(benchClients),
		"-T", strconv.Itoa(int(d.Seconds())), "-f", script.Name(), s.DB.Pool.Config().ConnString()).CombinedOutput()
	if err != nil {
		b.Fatalf("pgbench: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`tps = ([0-9.]+)`).FindSubmatch(out)
	if m == nil {
		b.Fatalf("pgbench said no tps:\n%s", out)
	}
	tps, _ = strconv.ParseFloat(string(m[1]), 64)
	return tps, true
}

// paced submits at rate per second for d from as many goroutines as it
// takes and returns the sorted latencies.
func paced(b *testing.B, submit func() error, rate int, d time.Duration) []time.Duration {
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	gap := time.Second / time.Duration(rate)
	start := time.Now()
	for i := 0; time.Since(start) < d; i++ {
		time.Sleep(time.Until(start.Add(time.Duration(i) * gap))) // the open-loop arrival schedule is the load under test
		wg.Go(func() {
			t0 := time.Now()
			if err := submit(); err != nil {
				b.Error(err)
				return
			}
			mu.Lock()
			lat = append(lat, time.Since(t0))
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(lat)
	return lat
}

// BenchmarkSubmitScheduling: queue submissions over HTTP from 16 clients
// with scheduling running and 2 node agents of 8 GPUs heartbeating every
// second (the submissions fill the GPUs, then the queue grows), one op =
// one submission; then, in the same run, pgbench's one-row INSERT at 16
// clients on the same database (the Go equivalent where pgbench is
// missing) and the ratio; then a steady 200 submissions/s for 5 s and its
// p99. The server's pools have the size `gpusched serve` gives them
// (models.DefaultMaxConns), not the tests' smaller ones.
// Run: go test ./web -run '^$' -bench BenchmarkSubmitScheduling -benchtime 10000x
func BenchmarkSubmitScheduling(b *testing.B) {
	s := testserver.NewWith(b, testserver.Options{DBMaxConns: models.DefaultMaxConns}) // pools as the server's
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var agents sync.WaitGroup
	defer agents.Wait()
	defer cancel()
	for n := range 2 {
		name := fmt.Sprintf("sub-%d", n)
		tok, node := s.NodeToken(b, name)
		if st, body := s.Do(b, "POST", "/api/v1/nodes/register", tok, registerBodyFor(node.Name, 8)); st != 200 {
			b.Fatalf("register: %d %s", st, body)
		}
		var gpus []string
		for g := range 8 {
			gpus = append(gpus, fmt.Sprintf(`{"uuid":"GPU-%s-%d","utilization_pct":50,"health":"ok"}`, node.Name, g))
		}
		beat := `{"gpus":[` + strings.Join(gpus, ",") + `]}`
		path := fmt.Sprintf("/api/v1/nodes/%d/heartbeat", node.ID)
		agents.Go(func() {
			t := time.NewTicker(time.Second)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+path, strings.NewReader(beat))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Authorization", "Bearer "+tok)
					if resp, err := http.DefaultClient.Do(req); err == nil {
						resp.Body.Close()
					}
				}
			}
		})
	}
	tok, _ := s.UserToken(b, models.RoleMember)
	body := `{"gpu_count":1,"executor":"lease","estimated_duration":"1h","name":"bench","command":"python train.py"}`
	newReq := func() *http.Request {
		req, _ := http.NewRequest("POST", s.URL+"/api/v1/queue/submit", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	lat, rate := drive(b, newReq, http.StatusCreated)
	raw, ok := pgbenchTPS(b, s, 5*time.Second)
	if !ok {
		raw = rawInsertRate(b, s.DB.Pool, 5*time.Second)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	steady := paced(b, func() error {
		resp, err := client.Do(newReq())
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			return fmt.Errorf("submit: %d", resp.StatusCode)
		}
		return nil
	}, 200, 5*time.Second)
	var started int
	if err := s.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM jobs WHERE state = 'running'`).Scan(&started); err != nil {
		b.Fatal(err)
	}
	if started == 0 {
		b.Error("no job started: scheduling was not running")
	}
	b.ReportMetric(rate, "jobs/s")
	b.ReportMetric(ms(lat, 0.99), "p99-ms")
	b.ReportMetric(raw, "raw-inserts/s")
	b.ReportMetric(100*rate/raw, "pct-of-raw")
	b.ReportMetric(ms(steady, 0.99), "p99-ms@200/s")
}
