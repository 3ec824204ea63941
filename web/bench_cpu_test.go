package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// Environment of the submitting child process (runBenchClient).
const (
	benchClientURL   = "GPUSCHED_BENCH_CLIENT_URL"
	benchClientToken = "GPUSCHED_BENCH_CLIENT_TOKEN"
	benchClientBody  = "GPUSCHED_BENCH_CLIENT_BODY"
	benchClientN     = "GPUSCHED_BENCH_CLIENT_N"
)

// runBenchClient is the test binary run as BenchmarkSubmissionCPU's
// client: it submits N jobs from 16 connections and exits, so that the
// benchmark's own process CPU is the server's and the agents'. It reports
// whether the process was asked to be that client.
func runBenchClient() (bool, int) {
	url := os.Getenv(benchClientURL)
	if url == "" {
		return false, 0
	}
	n, _ := strconv.Atoi(os.Getenv(benchClientN))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchClients}}
	var left atomic.Int64
	left.Store(int64(n))
	var failed atomic.Int64
	var wg sync.WaitGroup
	for range benchClients {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				req, _ := http.NewRequest("POST", url+"/api/v1/queue/submit", strings.NewReader(os.Getenv(benchClientBody)))
				req.Header.Set("Authorization", "Bearer "+os.Getenv(benchClientToken))
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		fmt.Fprintf(os.Stderr, "%d submissions failed\n", f)
		return true, 1
	}
	return true, 0
}

// selfCPU is this process's user+system CPU time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pgCPU sums the CPU ticks (1/100 s) of the PostgreSQL backends serving the
// test database now.
func pgCPU(b *testing.B, s *testserver.Server) map[string]int64 { return backendTicks(b, s) }

// pgSpent is the CPU the backends of after spent since before (a backend
// new since before counts whole).
func pgSpent(before, after map[string]int64) time.Duration {
	var ticks int64
	for pid, t := range after {
		ticks += t - before[pid]
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// BenchmarkSubmissionCPU measures from the processes' own accounting what
// one submission costs in CPU, with scheduling live and two node agents:
// in the server process (with the agents: they run in it) and in the
// PostgreSQL backends serving it, beside the CPU one raw one-row INSERT
// costs PostgreSQL (and its client) in the same run. The submissions come
// from a child process (this test binary, runBenchClient), 16 connections.
//
//   - lease: 1-GPU leases for an hour, as BenchmarkSubmitScheduling: the
//     16 GPUs fill, then the queue grows; the agents only heartbeat.
//   - node: node jobs running `true` on the two agents: every submission
//     is placed, started by its agent, and ends; measured until the last
//     has ended.
//
// One op = one submission. Run:
// go test ./web -run '^$' -bench BenchmarkSubmissionCPU -benchtime 3000x
func BenchmarkSubmissionCPU(b *testing.B) {
	for _, kind := range []string{"lease", "node"} {
		b.Run(kind, func(b *testing.B) { benchSubmissionCPU(b, kind) })
	}
}

func benchSubmissionCPU(b *testing.B, kind string) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		b.Skip("needs /proc")
	}
	s := testserver.NewWith(b, testserver.Options{DBMaxConns: models.DefaultMaxConns})
	tok, u := s.UserToken(b, models.RoleMember)
	if err := models.SetUnixUser(context.Background(), s.DB.Bun, u.ID, jobRunAs(b), time.Now()); err != nil {
		b.Fatal(err)
	}
	startBenchAgents(b, s)
	body := `{"gpu_count":1,"executor":"lease","estimated_duration":"1h","name":"bench","command":"python train.py"}`
	if kind == "node" {
		body = `{"gpu_count":1,"executor":"node","workdir":"/","name":"bench","command":"true"}`
	}
	submit := func(n int) {
		cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
		cmd.Env = append(os.Environ(), benchClientURL+"="+s.URL, benchClientToken+"="+tok, benchClientBody+"="+body,
			benchClientN+"="+strconv.Itoa(n))
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("client: %v\n%s", err, out)
		}
		if kind == "node" {
			waitAllEnded(b, s)
		}
	}
	submit(64) // warm: pools, caches, prepared statements
	cpu0, pg0 := selfCPU(), pgCPU(b, s)
	b.ResetTimer()
	submit(b.N)
	b.StopTimer()
	server, pg := selfCPU()-cpu0, pgSpent(pg0, pgCPU(b, s))
	if kind == "node" {
		var done int
		if err := s.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM jobs WHERE state = 'completed'`).Scan(&done); err != nil {
			b.Fatal(err)
		}
		if done < b.N {
			b.Fatalf("%d jobs completed of %d", done, b.N+64)
		}
	}
	// The raw INSERT, in the same run: 16 connections of this process.
	const raws = 20000
	cpu1, pg1 := selfCPU(), pgCPU(b, s)
	rawInserts(b, s, raws)
	rawClient, rawPG := selfCPU()-cpu1, pgSpent(pg1, pgCPU(b, s))
	per := func(d time.Duration, n int) float64 { return float64(d.Microseconds()) / float64(n) }
	b.ReportMetric(per(pg, b.N), "pg-µs/sub")
	b.ReportMetric(per(server, b.N), "server-µs/sub")
	b.ReportMetric(per(rawPG, raws), "pg-µs/raw")
	b.ReportMetric(per(rawPG+rawClient, raws), "µs/raw")
	b.ReportMetric(per(pg+server, b.N)/per(rawPG+rawClient, raws), "x-raw")
}

// rawInserts inserts n one-row INSERTs from 16 connections of the
// server's pool.
func rawInserts(b *testing.B, s *testserver.Server, n int) {
	ctx := context.Background()
	if _, err := s.DB.Pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS bench_raw (id bigserial PRIMARY KEY, note text NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	var left atomic.Int64
	left.Store(int64(n))
	var wg sync.WaitGroup
	for range benchClients {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if _, err := s.DB.Pool.Exec(ctx, `INSERT INTO bench_raw (note) VALUES ($1)`, "x"); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// startBenchAgents runs two node agents of 8 fake H100s in this process
// until the benchmark ends, and waits for their 16 GPUs.
func startBenchAgents(b *testing.B, s *testserver.Server) {
	spec, err := gpu.ParseFakeSpec("1x8:H100-80GB")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range 2 {
		name := fmt.Sprintf("cpu-%d", i)
		tok, _ := s.NodeToken(b, name)
		dir, err := os.MkdirTemp("", "gpusched-bench-node-")
		if err != nil {
			b.Fatal(err)
		}
		_ = os.Chmod(dir, 0o711)
		a := &node.Agent{Client: apiclient.New(s.URL, tok), GPUs: gpu.NewFake(name, spec), Hostname: name, Version: "bench",
			Logger: s.Logger, Interval: time.Second, StateDir: dir + "/state"}
		wg.Go(func() { _ = a.Run(ctx) })
		b.Cleanup(func() { _ = os.RemoveAll(dir) })
	}
	b.Cleanup(func() { cancel(); wg.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := s.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM gpus g JOIN nodes n ON n.id = g.node_id
			WHERE g.present AND n.status = 'up'`).Scan(&n); err != nil {
			b.Fatal(err)
		}
		if n == 16 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d GPUs up, want 16", n)
		}
		<-time.After(50 * time.Millisecond)
	}
}

// waitAllEnded waits until no job is queued or holding GPUs.
func waitAllEnded(b *testing.B, s *testserver.Server) {
	deadline := time.Now().Add(10 * time.Minute)
	for {
		var n int
		if err := s.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM jobs WHERE state IN ('queued', 'scheduled', 'allocating', 'running')`).Scan(&n); err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d jobs still live", n)
		}
		<-time.After(20 * time.Millisecond)
	}
}
