package web_test

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// benchClients is how many clients send requests at once.
const benchClients = 16

// drive sends requests made by newReq from 16 concurrent clients over
// loopback HTTP until b.N are done, checks each answers want, and returns
// the sorted latencies and the rate.
func drive(b *testing.B, newReq func() *http.Request, want int) (lat []time.Duration, perSec float64) {
	transport := &http.Transport{MaxIdleConnsPerHost: benchClients}
	client := &http.Client{Transport: transport}
	defer transport.CloseIdleConnections()
	var mu sync.Mutex
	procs := runtimeProcs()
	b.SetParallelism((benchClients + procs - 1) / procs)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		local := make([]time.Duration, 0, 1024)
		for pb.Next() {
			t0 := time.Now()
			resp, err := client.Do(newReq())
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != want {
				b.Errorf("status %d, want %d", resp.StatusCode, want)
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
		b.Fatal("no request completed")
	}
	return lat, float64(len(lat)) / elapsed.Seconds()
}

// ms is the p-th percentile of sorted latencies in milliseconds.
func ms(lat []time.Duration, p float64) float64 {
	return float64(lat[min(len(lat)-1, int(float64(len(lat))*p))].Microseconds()) / 1000
}

// benchGET drives path with 16 concurrent clients and reports requests/s
// and latency percentiles. The server is the real stack on a real database
// holding the team's cluster: 2 nodes × 8 H100.
func benchGET(b *testing.B, path string, auth bool) {
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
	lat, rate := drive(b, func() *http.Request {
		req, _ := http.NewRequest("GET", s.URL+path, nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		return req
	}, http.StatusOK)
	b.ReportMetric(rate, "req/s")
	b.ReportMetric(ms(lat, 0.50), "p50-ms")
	b.ReportMetric(ms(lat, 0.99), "p99-ms")
}

func BenchmarkHealthz(b *testing.B)   { benchGET(b, "/healthz", false) }
func BenchmarkGPUStatus(b *testing.B) { benchGET(b, "/api/v1/cluster/gpu-status", true) }
