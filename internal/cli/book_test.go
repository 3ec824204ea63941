package cli

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// gpusched book / bookings / bookings cancel against a real server: a
// booking, the clash that follows, the list, the cancel.
func TestBookCommands(t *testing.T) {
	s := testserver.New(t)
	nodeTok, _ := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok,
		`{"hostname":"a","gpus":[{"index":0,"uuid":"G0","model":"NVIDIA H100 80GB HBM3","memory_mib":81559},{"index":1,"uuid":"G1","model":"NVIDIA H100 80GB HBM3","memory_mib":81559}]}`); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	tok, _ := s.UserToken(t, models.RoleMember)
	t.Setenv("GPUSCHED_SERVER", s.URL)
	t.Setenv("GPUSCHED_TOKEN", tok)
	from := time.Now().Add(24 * time.Hour).Truncate(time.Hour).Format("2006-01-02 15:04")

	out, err := gpusched(t, "book", "-g", "2", "--gpu-type", "H100", "--from", from, "--for", "8h", "--note", "eval")
	if err != nil || !regexp.MustCompile(`^booking \d+: 2 × H100, `).MatchString(out) {
		t.Fatalf("book: %q %v", out, err)
	}
	id := strings.TrimSuffix(strings.Fields(out)[1], ":")
	if _, err := gpusched(t, "book", "-g", "1", "--from", from, "--for", "1h"); err == nil || !strings.Contains(err.Error(), "clashes with") {
		t.Fatalf("a clashing booking: %v", err)
	}
	if _, err := gpusched(t, "book", "-g", "1", "--from", "tomorrow", "--for", "1h"); err == nil || !strings.Contains(err.Error(), `--from: "tomorrow" needs a time of day`) {
		t.Fatalf("a bad --from: %v", err)
	}
	out, err = gpusched(t, "bookings", "--mine")
	if err != nil || !strings.Contains(out, id) || !strings.Contains(out, "eval") || !strings.Contains(out, "upcoming") {
		t.Fatalf("bookings: %q %v", out, err)
	}
	if out, err = gpusched(t, "bookings", "cancel", id); err != nil || out != "booking "+id+" canceled\n" {
		t.Fatalf("cancel: %q %v", out, err)
	}
}
