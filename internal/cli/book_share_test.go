package cli

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// gpusched book --gpu-share against a real server: half of a named shared
// GPU, then more than is left of it clashes with a sentence naming it.
func TestBookGPUShare(t *testing.T) {
	s := testserver.New(t)
	node, _ := testdb.SharedNode(t, s.DB, 1, 4)
	tok, _ := s.UserToken(t, models.RoleMember)
	t.Setenv("GPUSCHED_SERVER", s.URL)
	t.Setenv("GPUSCHED_TOKEN", tok)
	from := time.Now().Add(24 * time.Hour).Truncate(time.Hour).Format("2006-01-02 15:04")
	gpu := node.Name + ":0"

	out, err := gpusched(t, "book", "--gpu-share", "0.5", "--gpu-ids", gpu, "--from", from, "--for", "2h")
	if err != nil || !regexp.MustCompile(`^booking \d+: 0.5 of `+regexp.QuoteMeta(gpu)+`, `).MatchString(out) {
		t.Fatalf("book --gpu-share 0.5: %q %v", out, err)
	}
	if _, err := gpusched(t, "book", "--gpu-share", "0.75", "--from", from, "--for", "1h"); err == nil ||
		!strings.Contains(err.Error(), "0.75 of a shared GPU is not free") || !strings.Contains(err.Error(), "0.5 of "+gpu) {
		t.Fatalf("0.75 beside it: %v", err)
	}
	if _, err := gpusched(t, "book", "--gpu-share", "2", "--from", from, "--for", "1h"); err == nil || !strings.Contains(err.Error(), "--gpu-share") {
		t.Fatalf("--gpu-share 2: %v", err)
	}
}
