package web_test

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// benchClients is how many clients send requests at once.
const benchClients = 16

// benchHTTP drives path with 16 concurrent clients over loopback HTTP and
// reports requests/s and latency percentiles. The server is the real stack
// on a real database holding the team's cluster: 2 nodes × 8 H100.
func benchHTTP(b *testing.B, path string, auth bool) {
	s := testserver.New(b)
	tok := ""
	if auth {
		tok, _ = s.UserToken(b, models.RoleMember)
	}
	for i := range 2 {
		nodeTok, node := s.NodeToken(b, fmt.Sprintf("bench-%d", i))
		if st, body := s.Do(b, "POST", "/api/v1/nodes/register", nodeTok, registerBodyFor(node.Name, 8)); st != 200 {
			b.Fatalf("register: %d %s", st, body)
		}
	}
	transport := &http.Transport{MaxIdleConnsPerHost: benchClients}
	client := &http.Client{Transport: transport}
	defer transport.CloseIdleConnections()

	var mu sync.Mutex
	var lat []time.Duration
	procs := runtimeProcs()
	b.SetParallelism((benchClients + procs - 1) / procs)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		local := make([]time.Duration, 0, 1024)
		req, _ := http.NewRequest("GET", s.URL+path, nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		for pb.Next() {
			t0 := time.Now()
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
			local = append(local, time.Since(t0))
		}
		mu.Lock()
		lat = append(lat, local...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) == 0 {
		return
	}
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(float64(len(lat))*p))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

func BenchmarkHealthz(b *testing.B)   { benchHTTP(b, "/healthz", false) }
func BenchmarkGPUStatus(b *testing.B) { benchHTTP(b, "/api/v1/cluster/gpu-status", true) }
