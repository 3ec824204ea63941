package cli

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// The user commands against a real server: submit a lease that starts,
// another that waits, see both in `gpusched queue`, cancel the waiting one.
func TestSubmitQueueCancelCommands(t *testing.T) {
	s := testserver.New(t)
	nodeTok, _ := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok,
		`{"hostname":"a","gpus":[{"index":0,"uuid":"G0","model":"NVIDIA H100 80GB HBM3","memory_mib":81559},{"index":1,"uuid":"G1","model":"NVIDIA H100 80GB HBM3","memory_mib":81559}]}`); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	tok, _ := s.UserToken(t, models.RoleMember)
	t.Setenv("GPUSCHED_SERVER", s.URL)
	t.Setenv("GPUSCHED_TOKEN", tok)

	out, err := gpusched(t, "submit", "-g", "2", "--executor", "lease", "--estimate", "1h", "--name", "first")
	if err != nil || !regexp.MustCompile(`^job \d+ queued \(2 GPUs, normal priority\)\n$`).MatchString(out) {
		t.Fatalf("submit: %q %v", out, err)
	}
	out, err = gpusched(t, "submit", "-g", "1", "--executor", "lease", "--name", "second", "-p", "high")
	if err != nil {
		t.Fatalf("second submit: %q %v", out, err)
	}
	second := strings.Fields(out)[1]

	// The first runs, the second waits with its place and a reason.
	if !eventually(10*time.Second, func() bool {
		if out, err = gpusched(t, "queue"); err != nil {
			t.Fatal(err)
		}
		return strings.Contains(out, "1 running, 1 pending") && strings.Contains(out, "#1")
	}) {
		t.Fatalf("queue never showed 1 running, 1 pending with a position:\n%s", out)
	}
	for _, want := range []string{"ID", "REASON", "first", "second", " R ", " PD "} {
		if !strings.Contains(out, want) {
			t.Errorf("queue output lacks %q:\n%s", want, out)
		}
	}
	if out, err = gpusched(t, "cancel", second); err != nil || out != "job "+second+" canceled\n" {
		t.Fatalf("cancel: %q %v", out, err)
	}
	if _, err = gpusched(t, "cancel", "999999"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("cancel of a missing job: %v", err)
	}

	// A script that retries passes its own key and gets the job it queued
	// the first time; calls without a key queue a job each.
	keyed := func(args ...string) string {
		t.Helper()
		out, err := gpusched(t, append([]string{"submit", "-g", "1", "--executor", "lease"}, args...)...)
		if err != nil {
			t.Fatalf("submit %v: %v", args, err)
		}
		return strings.Fields(out)[1]
	}
	if first, again := keyed("--idempotency-key", "run-42"), keyed("--idempotency-key", "run-42"); first != again {
		t.Errorf("the same key queued jobs %s and %s", first, again)
	}
	if a, b := keyed(), keyed(); a == b {
		t.Errorf("two calls without a key gave one job %s", a)
	}

	t.Setenv("GPUSCHED_TOKEN", "")
	if _, err = gpusched(t, "queue"); err == nil || !strings.Contains(err.Error(), "GPUSCHED_TOKEN") {
		t.Fatalf("queue without a token: %v", err)
	}
}
