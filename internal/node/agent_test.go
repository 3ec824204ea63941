package node_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func newAgent(t testing.TB, url, token string) *node.Agent {
	spec, _ := gpu.ParseFakeSpec("1x8:H100-80GB")
	return &node.Agent{Client: apiclient.New(url, token), GPUs: gpu.NewFake(t.Name(), spec), Hostname: "h",
		Version: "test", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Interval: time.Second}
}

// waitFor polls cond until it holds or 15s pass.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !cond(); <-time.After(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func liveGPUs(t testing.TB, db *models.DB, nodeID int64) int {
	n, err := db.Bun.NewSelect().Model((*models.GPU)(nil)).Where("node_id = ? AND present AND telemetry_at IS NOT NULL", nodeID).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

func TestAgentRegistersHeartbeatsAndReregisters(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, n := s.NodeToken(t, "gpu-a")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- newAgent(t, s.URL, tok).Run(ctx) }()

	waitFor(t, "8 GPUs with telemetry", func() bool { return liveGPUs(t, s.DB, n.ID) == 8 })

	// The server forgets the GPUs (as after a restore): the next heartbeat
	// is answered "register again", and the agent does.
	if _, err := s.DB.Bun.NewDelete().Model((*models.GPU)(nil)).Where("node_id = ?", n.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "re-registration", func() bool { return liveGPUs(t, s.DB, n.ID) == 8 })

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run after cancel = %v, want nil", err)
	}
}

func TestAgentStopsOnRevokedToken(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, _ := s.NodeToken(t, "gpu-b")
	if _, err := models.RevokeToken(context.Background(), s.DB.Bun, tok, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := newAgent(t, s.URL, tok).Run(ctx); !errors.Is(err, node.ErrTokenRejected) {
		t.Fatalf("Run = %v, want ErrTokenRejected", err)
	}
}

// With the control plane down the agent keeps trying, and stops cleanly
// when told to.
func TestAgentRetriesWhileServerIsDown(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := newAgent(t, url, "gsn_unused").Run(ctx); err != nil {
		t.Fatalf("Run = %v, want nil after the context ends", err)
	}
	if time.Since(start) < 2*time.Second {
		t.Fatal("Run gave up before its context ended")
	}
}
