package web_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
)

// heartbeatNodes is how many node agents beat, every heartbeatEvery.
const (
	heartbeatNodes = 128
	heartbeatEvery = 2 * time.Second
)

// cpuTicks is the user+system CPU of process pid in clock ticks (1/100 s),
// from /proc; 0 where there is none.
func cpuTicks(pid string) int64 {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces) close with ")".
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// backendTicks sums the CPU of the PostgreSQL backends serving the test
// database (the server's pools and listener).
func backendTicks(b *testing.B, s *testserver.Server) map[string]int64 {
	var pids []int64
	if err := s.DB.Bun.NewRaw(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`).Scan(context.Background(), &pids); err != nil {
		b.Fatal(err)
	}
	out := map[string]int64{}
	for _, p := range pids {
		id := strconv.FormatInt(p, 10)
		out[id] = cpuTicks(id)
	}
	return out
}

// BenchmarkHeartbeats: 128 node agents of 8 GPUs each (simulated in this
// process) heartbeat every 2 s, spread evenly; one op = one 2 s round of
// 128 heartbeats. Reported: the CPU of this process (the server and the
// simulated agents together: an upper bound for the server) and of the
// PostgreSQL backends serving it, as a share of one core, from /proc.
// The idle case measures the same server with no heartbeats (River's
// polling, the periodic pass): the baseline heartbeats add to.
// Run: go test ./web -run '^$' -bench BenchmarkHeartbeats -benchtime 15x
func BenchmarkHeartbeats(b *testing.B) {
	for _, idle := range []bool{true, false} {
		name := "beating"
		if idle {
			name = "idle"
		}
		b.Run(name, func(b *testing.B) { benchHeartbeats(b, idle) })
	}
}

func benchHeartbeats(b *testing.B, idle bool) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		b.Skip("needs /proc")
	}
	s := testserver.New(b)
	type agent struct {
		token, path string
		body        [2]string
	}
	agents := make([]agent, heartbeatNodes)
	for i := range agents {
		tok, node := s.NodeToken(b, fmt.Sprintf("hb-%d", i))
		if st, body := s.Do(b, "POST", "/api/v1/nodes/register", tok, registerBodyFor(node.Name, 8)); st != 200 {
			b.Fatalf("register: %d %s", st, body)
		}
		a := agent{token: tok, path: s.URL + fmt.Sprintf("/api/v1/nodes/%d/heartbeat", node.ID)}
		for k := range 2 {
			var gpus []string
			for g := range 8 {
				gpus = append(gpus, fmt.Sprintf(`{"uuid":"GPU-%s-%d","utilization_pct":%d,"memory_used_mib":%d,"temperature_c":%d,"power_w":%d,"power_limit_w":700,"health":"ok"}`,
					node.Name, g, 40+k*10+g, 20000+k*100, 50+k, 300+k*5))
			}
			a.body[k] = `{"gpus":[` + strings.Join(gpus, ",") + `]}`
		}
		agents[i] = a
	}
	transport := &http.Transport{MaxIdleConnsPerHost: heartbeatNodes}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport}
	beat := func(a agent, k int) {
		req, _ := http.NewRequest("POST", a.path, strings.NewReader(a.body[k%2]))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+a.token)
		resp, err := client.Do(req)
		if err != nil {
			b.Error(err)
			return
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Errorf("heartbeat: %d", resp.StatusCode)
		}
	}
	round := func(k int) {
		var wg sync.WaitGroup
		gap := heartbeatEvery / heartbeatNodes
		start := time.Now()
		for i, a := range agents {
			time.Sleep(time.Until(start.Add(time.Duration(i) * gap))) // the heartbeat schedule is the load under test
			if !idle {
				wg.Go(func() { beat(a, k) })
			}
		}
		wg.Wait()
		time.Sleep(time.Until(start.Add(heartbeatEvery))) // each node beats once per heartbeatEvery
	}
	if idle {
		for i, a := range agents { // registered and up, then silent
			beat(a, i)
		}
	}
	round(0) // warm-up: connections, caches, prepared statements
	self := strconv.Itoa(os.Getpid())
	pg0, p0, t0 := backendTicks(b, s), cpuTicks(self), time.Now()
	b.ResetTimer()
	for k := range b.N {
		round(k + 1)
	}
	b.StopTimer()
	elapsed := time.Since(t0).Seconds()
	pg1, p1 := backendTicks(b, s), cpuTicks(self)
	var pg int64
	for pid, t := range pg1 {
		pg += t - pg0[pid] // a backend opened during the run counts whole
	}
	b.ReportMetric(float64(p1-p0)/100/elapsed*100, "process-%core")
	b.ReportMetric(float64(pg)/100/elapsed*100, "postgres-%core")
	b.ReportMetric(float64(heartbeatNodes)/heartbeatEvery.Seconds(), "beats/s")
}
