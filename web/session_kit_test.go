package web_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// startSessionNode runs a node agent on fake GPUs (spec) with its session
// listener on a loopback port, as `gpusched node --session-listen` does.
func startSessionNode(t testing.TB, s *testserver.Server, name, spec string) {
	t.Helper()
	tok, _ := s.NodeToken(t, name)
	runSessionAgent(t, s, name, spec, tok, filepath.Join(sessionWorkdir(t), "state"))
}

// runSessionAgent runs an agent of node name with token tok and state
// folder dir until the returned stop (or the test's end).
func runSessionAgent(t testing.TB, s *testserver.Server, name, spec, tok, dir string) (stop func()) {
	t.Helper()
	fs, err := gpu.ParseFakeSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := &node.Agent{Client: apiclient.New(s.URL, tok), GPUs: gpu.NewFake(name, fs), Hostname: name, Logger: s.Logger,
		Interval: 500 * time.Millisecond, StateDir: dir, SessionListener: ln}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = a.Run(ctx); close(done) }()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	t.Cleanup(stop)
	waitFor(t, "the node to register", func() bool {
		var n int
		_ = s.DB.Bun.NewRaw("SELECT count(*) FROM gpus g JOIN nodes n ON n.id = g.node_id WHERE n.name = ? AND g.health = 'ok'", name).Scan(context.Background(), &n)
		return n >= fs.GPUsPerNode
	})
	return stop
}

// sessionMember is a member with a token whose jobs run as nobody when the
// tests run as root (as the node agent does for a mapped user).
func sessionMember(t testing.TB, s *testserver.Server) (string, *models.User) {
	t.Helper()
	tok, u := s.UserToken(t, models.RoleMember)
	if os.Geteuid() == 0 {
		if err := models.SetUnixUser(context.Background(), s.DB.Bun, u.ID, "nobody", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	return tok, u
}

// sessionWorkdir is a working directory the session's user may write.
func sessionWorkdir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "gpusched-session-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	// Not t.TempDir: its parent is private to the tests' user.
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startSession creates a session through the API and waits until it is
// ready; it returns the session as the API shows it then.
func startSession(t testing.TB, s *testserver.Server, tok, body string) api.Session {
	t.Helper()
	st, b := s.Do(t, "POST", "/api/v1/sessions", tok, body)
	if st != 201 {
		t.Fatalf("create session: %d %s", st, b)
	}
	var out api.Session
	mustJSON(t, b, &out)
	if !eventually(90*time.Second, func() bool {
		_, b := s.Do(t, "GET", fmt.Sprintf("/api/v1/sessions/%d", out.ID), tok, "")
		mustJSON(t, b, &out)
		return out.Ready || out.EndedAt != nil
	}) || !out.Ready {
		_, logs := s.Do(t, "GET", fmt.Sprintf("/api/v1/jobs/%d/logs", out.ID), tok, "")
		t.Fatalf("session %d not ready: %+v\nlogs: %s", out.ID, out, logs)
	}
	return out
}
