package cli

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// --gpu-ids takes GPUs as pages name them, node:index: book two on one
// node, move the booking to another, and say so in words.
func TestBookGPUNames(t *testing.T) {
	pastCluster(t) // sim-node-1 with GPUs 0–3; its token in the environment
	from := time.Now().Add(24 * time.Hour).Truncate(time.Hour).Format("2006-01-02 15:04")
	out, err := gpusched(t, "book", "--gpu-ids", "sim-node-1:2,3", "--from", from, "--for", "2h")
	if err != nil || !regexp.MustCompile(`^booking \d+: sim-node-1:2,3, `).MatchString(out) {
		t.Fatalf("book sim-node-1:2,3: %q %v", out, err)
	}
	id := strings.TrimSuffix(strings.Fields(out)[1], ":")
	if out, err = gpusched(t, "bookings", "--mine"); err != nil || !strings.Contains(out, "sim-node-1:2,3") {
		t.Fatalf("bookings: %q %v", out, err)
	}
	if out, err = gpusched(t, "bookings", "edit", id, "--gpu-ids", "sim-node-1:0"); err != nil || !strings.Contains(out, "sim-node-1:0") {
		t.Fatalf("edit to sim-node-1:0: %q %v", out, err)
	}
	for args, says := range map[string]string{
		"sim-node-1:9": "no GPU sim-node-1:9",
		"sim-node-1:x": "not a GPU index",
		"gpu":          "not a GPU",
	} {
		if _, err := gpusched(t, "book", "--gpu-ids", args, "--from", from, "--for", "1h"); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("--gpu-ids %s: %v, want %q", args, err, says)
		}
	}
}
