package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// BenchmarkScore drives POST /v1/score (the document's request: two
// candidate GPU types) with 16 concurrent clients on the real stack, with
// a learned model holding 20 job types × 4 GPU types, and reports
// requests/s and latency percentiles.
func BenchmarkScore(b *testing.B) {
	s := testserver.New(b)
	tok, _ := s.UserToken(b, models.RoleMember)
	for jt := range 20 {
		for _, g := range []string{"A100-80GB", "L4-24GB", "H100-80GB", "T4-16GB"} {
			body := fmt.Sprintf(`{"job_type":"train-%d","gpu_type":%q,"measured_runtime_s":%d}`, jt, g, 60+jt)
			if st, out := s.Do(b, "POST", "/v1/observe", tok, body); st != 200 {
				b.Fatalf("observe: %d %s", st, out)
			}
		}
	}
	waitApplied(b, s)
	lat, rate := drive(b, func() *http.Request {
		req, _ := http.NewRequest("POST", s.URL+"/v1/score", strings.NewReader(specScoreBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		return req
	}, http.StatusOK)
	b.ReportMetric(rate, "req/s")
	b.ReportMetric(ms(lat, 0.50), "p50-ms")
	b.ReportMetric(ms(lat, 0.99), "p99-ms")
}
