package web_test

import (
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

func TestProbesAndMetrics(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	if status, body := s.Do(t, "GET", "/healthz", "", ""); status != 200 || !contains(body, `"status":"ok"`) {
		t.Fatalf("healthz: %d %s", status, body)
	}
	if status, body := s.Do(t, "GET", "/readyz", "", ""); status != 200 || !contains(body, `"status":"ready"`) {
		t.Fatalf("readyz: %d %s", status, body)
	}
	tok, _ := s.UserToken(t, models.RoleMember)
	s.Do(t, "GET", "/api/v1/cluster/gpu-status", tok, "")
	s.Do(t, "GET", "/api/v1/cluster/gpu-status", "", "")
	status, body := s.Do(t, "GET", "/metrics", "", "")
	if status != 200 {
		t.Fatalf("metrics: %d", status)
	}
	for _, want := range []string{
		`gpusched_http_requests_total{method="GET",route="/api/v1/cluster/gpu-status",status="200"} 1`,
		`gpusched_http_requests_total{method="GET",route="/api/v1/cluster/gpu-status",status="401"} 1`,
		`gpusched_http_request_duration_seconds_bucket{method="GET",route="/api/v1/cluster/gpu-status"`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// readyz says not ready, with the reason, when the schema is behind.
func TestReadyzNotReadyWhenSchemaBehind(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	if _, err := s.DB.Pool.Exec(t.Context(), `DELETE FROM schema_migrations`); err != nil {
		t.Fatal(err)
	}
	status, body := s.Do(t, "GET", "/readyz", "", "")
	if status != 503 || !contains(body, "gpusched migrate") {
		t.Fatalf("readyz: %d %s", status, body)
	}
}
