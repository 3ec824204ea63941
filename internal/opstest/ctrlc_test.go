package opstest

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/pgembed"
)

// Ctrl-C of `make run` (SIGINT to `gpusched serve --dev`) stops the
// simulated nodes' job processes too, not only the server and its
// embedded PostgreSQL, and says in one line how many it stopped. The dev
// server logs text for people.
func TestCtrlCOfDevServerStopsJobs(t *testing.T) {
	t.Parallel()
	if _, err := pgembed.FindBinaries(); err != nil {
		t.Skipf("no PostgreSQL binaries: %v", err)
	}
	data := openDir(t, "opstest-dev-")
	port, sessPort := freePort(t), freePort(t)
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	// The session origin on a port of its own: dev's default, the port
	// after --listen, may be another test's.
	dev := &Server{Proc: start(t, "dev", []string{"GPUSCHED_DATA_DIR=" + data, "DATABASE_URL=", "GPUSCHED_DATABASE_URL=",
		"GPUSCHED_LOG_FORMAT=", "GPUSCHED_SESSION_KEY=", "GPUSCHED_SESSION_ORIGIN=http://127.0.0.1:" + strconv.Itoa(sessPort),
		"GPUSCHED_SESSION_LISTEN=127.0.0.1:" + strconv.Itoa(sessPort)},
		"serve", "--dev", "--listen", "127.0.0.1:"+strconv.Itoa(port), "--sim-nodes", "1x2:H100-80GB"), URL: url}
	if dev.WaitReady(60*time.Second) < 0 {
		t.Fatal("dev server not ready")
	}
	dbURL, ok := pgembed.Running(filepath.Join(data, "postgres"), "gpusched")
	if !ok {
		t.Fatal("the dev server's embedded PostgreSQL is not found")
	}
	t.Cleanup(func() { // should the server not stop it
		if _, ok := pgembed.Running(filepath.Join(data, "postgres"), "gpusched"); ok {
			if srv, err := pgembed.Start(context.Background(), pgembed.Options{DataDir: filepath.Join(data, "postgres"), Logger: discard()}); err == nil {
				_ = srv.Stop(context.Background())
			}
		}
	})
	token := adminToken(t, dbURL)
	state := filepath.Join(data, "sim-nodes")
	killJobProcesses(t, state)
	if waitNodeUp(t, poolFor(t, dbURL), "sim-node-1", 20*time.Second) < 0 {
		t.Fatal("simulated node not up")
	}
	j, err := submit(context.Background(), url, token, "sleep 300", 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, d := waitState(t, url, token, j.ID, 15*time.Second, "running"); d < 0 {
		t.Fatal("job not running")
	}
	if n := len(jobProcesses(state)); n == 0 {
		t.Fatal("no job process found")
	}
	began := time.Now()
	if !dev.Signal(syscall.SIGINT, 30*time.Second) {
		t.Fatal("the dev server did not stop within 30s of SIGINT")
	}
	left := waitOrphans(state, 0, 2*time.Second)
	t.Logf("Ctrl-C: server stopped in %s; job processes left running: %d", time.Since(began).Round(time.Millisecond), left)
	if left != 0 {
		t.Errorf("%d job processes outlived the dev server: %s", left, describe(jobProcesses(state)))
	}
	if _, ok := pgembed.Running(filepath.Join(data, "postgres"), "gpusched"); ok {
		t.Error("the embedded PostgreSQL outlived the dev server")
	}
	log, _ := os.ReadFile(dev.Log)
	if !strings.Contains(string(log), `"1 job stopped by the server's shutdown"`) {
		t.Errorf("the console should say how many jobs the shutdown stopped:\n%s", log)
	}
	first, _, _ := strings.Cut(string(log), "\n")
	if strings.HasPrefix(first, "{") || !strings.Contains(first, "level=") {
		t.Errorf("--dev should log text; the first line is %q", first)
	}
}
