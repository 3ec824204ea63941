package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// login stores the token readable only by its owner; the user commands
// use it, GPUSCHED_TOKEN overrides it; submit --executor node runs the job
// on a node agent and `logs -f` follows its output to the end.
func TestLoginSubmitNodeAndLogs(t *testing.T) {
	s := testserver.New(t)
	tok, u := s.UserToken(t, models.RoleMember)
	if err := models.SetUnixUser(context.Background(), s.DB.Bun, u.ID, "nobody", time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg := t.TempDir()
	t.Setenv("GPUSCHED_CONFIG_DIR", cfg)
	t.Setenv("GPUSCHED_SERVER", s.URL)
	t.Setenv("GPUSCHED_TOKEN", "")

	if _, err := gpusched(t, "login", "--token", "gsu_wrong"); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("login with a bad token: %v", err)
	}
	out, err := gpusched(t, "login", "--token", tok)
	if err != nil || !strings.Contains(out, u.Email) {
		t.Fatalf("login: %q %v", out, err)
	}
	st, err := os.Stat(filepath.Join(cfg, "login.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("stored login: %v, mode %v; want 0600", err, st.Mode())
	}
	if _, err := gpusched(t, "queue"); err != nil {
		t.Fatalf("queue with the stored token: %v", err)
	}
	t.Setenv("GPUSCHED_TOKEN", "gsu_overrides")
	if _, err := gpusched(t, "queue"); err == nil {
		t.Fatal("GPUSCHED_TOKEN did not override the stored token")
	}
	t.Setenv("GPUSCHED_TOKEN", "")

	startTestAgent(t, s)
	out, err = gpusched(t, "submit", "--executor", "node", "--workdir", "/", "-g", "1", "--", "sh", "-c", "echo one; sleep 0.5; echo two")
	if err != nil {
		t.Fatalf("submit: %q %v", out, err)
	}
	id := strings.Fields(out)[1]
	if out, err = gpusched(t, "logs", id, "-f"); err != nil || out != "one\ntwo\n" {
		t.Fatalf("logs -f: %q %v", out, err)
	}
	if _, err = gpusched(t, "logs", "nope"); err == nil {
		t.Fatal("logs of a non-number")
	}
}

// startTestAgent runs a node agent with four fake GPUs until t ends.
func startTestAgent(t *testing.T, s *testserver.Server) {
	t.Helper()
	ntok, _ := s.NodeToken(t, "cli-node")
	spec, _ := gpu.ParseFakeSpec("1x4:H100-80GB")
	dir, err := os.MkdirTemp("", "gpusched-cli-node-")
	if err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(dir, 0o711)
	a := &node.Agent{Client: apiclient.New(s.URL, ntok), GPUs: gpu.NewFake("cli-node", spec), Hostname: "cli", Version: "test",
		Logger: s.Logger, Interval: time.Second, StateDir: filepath.Join(dir, "state")}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; _ = os.RemoveAll(dir) })
	if !eventually(10*time.Second, func() bool { return a.NodeID() != 0 && hasGPUs(t, s) }) {
		t.Fatal("the agent did not register")
	}
}

func hasGPUs(t *testing.T, s *testserver.Server) bool {
	n, err := s.DB.Bun.NewSelect().Model((*models.GPU)(nil)).Where("present AND telemetry_at IS NOT NULL").Count(context.Background())
	return err == nil && n > 0
}
