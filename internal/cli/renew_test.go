package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// `gpusched renew` renews a lease one holds, up to the policy's cap.
func TestRenewCommand(t *testing.T) {
	s := testserver.New(t)
	nodeTok, _ := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok,
		`{"hostname":"a","gpus":[{"index":0,"uuid":"G0","model":"NVIDIA H100 80GB HBM3","memory_mib":81559}]}`); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	tok, _ := s.UserToken(t, models.RoleMember)
	t.Setenv("GPUSCHED_SERVER", s.URL)
	t.Setenv("GPUSCHED_TOKEN", tok)
	st, body := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", tok, `{"gpu_count":1,"timeout_s":20}`)
	var a struct{ ID int64 }
	if err := json.Unmarshal(body, &a); err != nil || st != 200 {
		t.Fatalf("allocate: %d %s", st, body)
	}
	id := fmt.Sprint(a.ID)

	before := time.Now()
	out, err := gpusched(t, "renew", id, "--ttl", "2h")
	if err != nil || !regexp.MustCompile(`^lease \d+ renewed until .+ \(in 2h0m0s\)\n$`).MatchString(out) {
		t.Fatalf("renew: %q %v", out, err)
	}
	j, err := models.GetJob(context.Background(), s.DB.Bun, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if j.LeaseExpiresAt.Before(before.Add(2*time.Hour-time.Second)) || j.LeaseExpiresAt.After(time.Now().Add(2*time.Hour)) || *j.LeaseTTLS != 7200 {
		t.Fatalf("renewed lease expires %v (TTL %d), want 2h from the renewal", j.LeaseExpiresAt, *j.LeaseTTLS)
	}
	if _, err := gpusched(t, "renew", id, "--ttl", "200h"); err == nil || !strings.Contains(err.Error(), "over the cap of 7d") {
		t.Fatalf("renew over the cap: %v", err)
	}
	if _, err := gpusched(t, "renew", id, "--ttl", "1ms"); err == nil || !strings.Contains(err.Error(), "at least 1s") {
		t.Fatalf("renew for 1ms: %v", err)
	}
}
