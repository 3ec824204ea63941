package handlers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// holdServer starts the whole stack with one registered node of gpus H100s.
func holdServer(t *testing.T, gpus int) *testserver.Server {
	t.Helper()
	s := testserver.New(t)
	nodeTok, _ := s.NodeToken(t, "gpu-a")
	req := api.RegisterNodeRequest{Hostname: "gpu-a.lab", AgentVersion: "1.0"}
	for i := range gpus {
		req.GPUs = append(req.GPUs, api.NodeGPU{Index: i, UUID: fmt.Sprintf("GPU-a-%d", i), Model: "NVIDIA H100 80GB HBM3", MemoryMiB: 81559})
	}
	b, _ := json.Marshal(req)
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok, string(b)); st != http.StatusOK {
		t.Fatalf("register: %d %s", st, body)
	}
	return s
}

// doKey sends a JSON request with an Idempotency-Key and returns status,
// headers and body.
func doKey(t *testing.T, s *testserver.Server, method, path, token, key, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, buf.Bytes()
}

func decode[T any](t *testing.T, body []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return v
}

// createHold posts body to path and wants a 202 with an active hold.
func createHold(t *testing.T, s *testserver.Server, path, token, body string) api.Hold {
	t.Helper()
	st, b := s.Do(t, "POST", path, token, body)
	if st != http.StatusAccepted {
		t.Fatalf("create hold: %d %s", st, b)
	}
	h := decode[api.Hold](t, b)
	if h.State != "active" || h.ID == 0 {
		t.Fatalf("new hold %+v", h)
	}
	return h
}

// holds lists the caller's holds by id.
func holds(t *testing.T, s *testserver.Server, token string) map[int64]api.Hold {
	t.Helper()
	st, b := s.Do(t, "GET", "/api/v1/holds?all=true", token, "")
	if st != http.StatusOK {
		t.Fatalf("list holds: %d %s", st, b)
	}
	out := map[int64]api.Hold{}
	for _, h := range decode[api.Holds](t, b).Holds {
		out[h.ID] = h
	}
	return out
}

// job returns a job as GET /api/v1/jobs/{id} shows it.
func job(t *testing.T, s *testserver.Server, token string, id int64) api.Job {
	t.Helper()
	st, b := s.Do(t, "GET", fmt.Sprintf("/api/v1/jobs/%d", id), token, "")
	if st != http.StatusOK {
		t.Fatalf("job %d: %d %s", id, st, b)
	}
	return decode[api.Job](t, b)
}

// waitFor polls cond until it holds, failing the test after 15 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !cond(); <-time.After(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
