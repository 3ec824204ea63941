// Package opstest holds the failure tests an operator will meet: real
// processes built from this repository (gpusched serve, gpusched node, the
// CLI), a private PostgreSQL cluster each test starts and stops itself
// (internal/pgembed), replicas killed with SIGKILL, PostgreSQL restarted
// under load, node agents killed and restarted, an upgrade of the schema,
// and Ctrl-C of the dev server. Each test is bounded in time and prints its
// figures with t.Logf. The tests are skipped under -short.
package opstest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gpuscheduler/gpuscheduler/internal/pgembed"
)

// bin is the gpusched binary built once for the package's tests.
var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// gpusched builds ./cmd/gpusched and ./cmd/gpusched-server side by side
// once, as a release installs them, and returns the client's path: its
// server commands run the gpusched-server beside it.
func gpusched(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts real processes and PostgreSQL")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "opstest-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "gpusched")
		for _, name := range []string{"gpusched", "gpusched-server"} {
			out, err := exec.Command("go", "build", "-o", filepath.Join(dir, name), "github.com/gpuscheduler/gpuscheduler/cmd/"+name).CombinedOutput()
			if err != nil {
				binErr = fmt.Errorf("go build %s: %v\n%s", name, err, out)
				return
			}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// openDir makes a folder the PostgreSQL account (under root) can reach.
func openDir(t testing.TB, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// PG is a private PostgreSQL cluster on a fixed port, so it can be stopped
// and started again under the same URL.
type PG struct {
	t    testing.TB
	dir  string
	port int
	srv  *pgembed.Server
	URL  string
}

func startPG(t testing.TB) *PG {
	t.Helper()
	if _, err := pgembed.FindBinaries(); err != nil {
		t.Skipf("no PostgreSQL binaries: %v", err)
	}
	pg := &PG{t: t, dir: filepath.Join(openDir(t, "opstest-pg-"), "data"), port: freePort(t)}
	pg.Start()
	t.Cleanup(func() { _ = pg.srv.Stop(context.Background()) })
	return pg
}

// Start starts (or restarts) the cluster on its folder and port.
func (pg *PG) Start() {
	pg.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv, err := pgembed.Start(ctx, pgembed.Options{DataDir: pg.dir, Database: "gpusched", Port: pg.port,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		pg.t.Fatalf("start PostgreSQL: %v", err)
	}
	pg.srv, pg.URL = srv, srv.URL()
}

// StopFast is pg_ctl stop -m fast.
func (pg *PG) StopFast() {
	pg.t.Helper()
	if err := pg.srv.Stop(context.Background()); err != nil {
		pg.t.Fatalf("stop PostgreSQL: %v", err)
	}
}

// KillPostmaster sends SIGKILL to the postmaster and waits until it is gone.
func (pg *PG) KillPostmaster() {
	pg.t.Helper()
	pid := pg.srv.PID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		pg.t.Fatalf("kill postmaster %d: %v", pid, err)
	}
	poll(5*time.Second, 25*time.Millisecond, func() bool { return syscall.Kill(pid, 0) != nil })
}

// Pool connects to the cluster for the test's own queries, named opstest
// (application_name) so that a test can end the server's sessions and keep
// its own.
func (pg *PG) Pool() *pgxpool.Pool {
	pg.t.Helper()
	cfg, err := pgxpool.ParseConfig(pg.URL)
	if err != nil {
		pg.t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = "opstest"
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		pg.t.Fatal(err)
	}
	pg.t.Cleanup(pool.Close)
	return pool
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Proc is a gpusched process the test started, its output in a file.
type Proc struct {
	t    testing.TB
	Name string
	cmd  *exec.Cmd
	Log  string
	done chan struct{}
}

// start runs bin with args and env in its own process group.
func start(t testing.TB, name string, env []string, args ...string) *Proc {
	t.Helper()
	logf, err := os.CreateTemp("", "opstest-"+name+"-*.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gpusched(t), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = io.Discard, logf // the log is stderr; stdout has the URL
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Proc{t: t, Name: name, cmd: cmd, Log: logf.Name(), done: make(chan struct{})}
	go func() { _ = cmd.Wait(); _ = logf.Close(); close(p.done) }()
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			b, _ := os.ReadFile(p.Log)
			t.Logf("--- log of %s (last 3000 bytes) ---\n%s", name, tailBytes(b, 3000))
		}
		_ = os.Remove(p.Log)
	})
	return p
}

func tailBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// Kill sends SIGKILL (kill -9) to the process and waits for it.
func (p *Proc) Kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// Signal sends sig and waits up to limit for the process to exit; it
// reports whether it did.
func (p *Proc) Signal(sig syscall.Signal, limit time.Duration) bool {
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
		return true
	case <-time.After(limit):
		return false
	}
}

// Server is a `gpusched serve` process.
type Server struct {
	*Proc
	URL string
}

// sessionKeyEnv is the session key of every test server.
const sessionKeyEnv = "GPUSCHED_SESSION_KEY=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// serverEnv is the production-like environment of a test server.
func serverEnv(dbURL string, port int, extra ...string) []string {
	return append([]string{
		"DATABASE_URL=" + dbURL,
		"GPUSCHED_LISTEN=127.0.0.1:" + strconv.Itoa(port),
		"GPUSCHED_BASE_URL=http://127.0.0.1:" + strconv.Itoa(port),
		sessionKeyEnv,
		"GPUSCHED_HEARTBEAT_INTERVAL=1s",
		"GPUSCHED_NODE_DOWN_AFTER=4s",
		"GPUSCHED_LOG_LEVEL=info",
		"GPUSCHED_LOG_FORMAT=",
		"GPUSCHED_DEV=",
	}, extra...)
}

// startServer starts `gpusched serve` on dbURL and waits until it is ready.
func startServer(t testing.TB, name, dbURL string, extra ...string) *Server {
	t.Helper()
	return startServerOn(t, name, dbURL, freePort(t), extra...)
}

// startServerOn is startServer on a given port (a replica restarted where it was).
func startServerOn(t testing.TB, name, dbURL string, port int, extra ...string) *Server {
	t.Helper()
	s := &Server{Proc: start(t, name, serverEnv(dbURL, port, extra...), "serve"), URL: "http://127.0.0.1:" + strconv.Itoa(port)}
	if d := s.WaitReady(30 * time.Second); d < 0 {
		t.Fatalf("%s not ready in 30s", name)
	}
	return s
}

// Ready reports whether /readyz answers 200.
func (s *Server) Ready() bool {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(s.URL + "/readyz")
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// WaitReady polls /readyz until 200 and returns how long it took, or -1
// after limit.
func (s *Server) WaitReady(limit time.Duration) time.Duration {
	return poll(limit, 50*time.Millisecond, s.Ready)
}

// cli runs a gpusched command against dbURL and returns its trimmed stdout.
func cli(t testing.TB, dbURL string, args ...string) string {
	t.Helper()
	cmd := exec.Command(gpusched(t), args...)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "GPUSCHED_DEV=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("gpusched %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return strings.TrimSpace(out.String())
}

// adminToken creates an admin whose jobs run as root on the nodes, and
// returns a personal token.
func adminToken(t testing.TB, dbURL string) string {
	t.Helper()
	cli(t, dbURL, "user", "create", "--email", "ops@example.com", "--role", "admin", "--unix-user", "root")
	return cli(t, dbURL, "token", "create", "--user", "ops@example.com")
}

// startNode starts `gpusched node` with fake GPUs and its state in stateDir.
func startNode(t testing.TB, name, server, token, stateDir string) *Proc {
	t.Helper()
	return start(t, "node-"+name, []string{"GPUSCHED_NODE_TOKEN=" + token, "GPUSCHED_SERVER=" + server},
		"node", "--fake-gpus", "1x8:H100-80GB", "--name", name, "--port", "-1", "--state-dir", stateDir)
}

// Job is the part of a job's JSON the tests read.
type Job struct {
	ID       int64  `json:"id"`
	State    string `json:"state"`
	ExitCode *int   `json:"exit_code"`
}

// apiClient gives up on a request the server never answers, so that a
// hung request fails its test instead of stalling it.
var apiClient = &http.Client{Timeout: 30 * time.Second}

// api sends a JSON request with a bearer token.
func api(ctx context.Context, method, url, token string, body, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := apiClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s: %w", b, err)
		}
	}
	if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("%s %s: %d %s", method, url, resp.StatusCode, bytes.TrimSpace(b))
	}
	return resp.StatusCode, nil
}

// submit queues command on gpus GPUs; acknowledged means 201 with an id.
func submit(ctx context.Context, server, token, command string, gpus int) (Job, error) {
	var j Job
	_, err := api(ctx, http.MethodPost, server+"/api/v1/queue/submit", token,
		map[string]any{"command": command, "gpu_count": gpus, "name": "opstest"}, &j)
	return j, err
}

// job reads one job.
func job(ctx context.Context, server, token string, id int64) (Job, error) {
	var j Job
	_, err := api(ctx, http.MethodGet, fmt.Sprintf("%s/api/v1/jobs/%d", server, id), token, nil, &j)
	return j, err
}

// waitState polls job id until its state is one of states, up to limit;
// it returns the job and how long it took (-1: timed out).
func waitState(t testing.TB, server, token string, id int64, limit time.Duration, states ...string) (Job, time.Duration) {
	t.Helper()
	var j Job
	d := poll(limit, 50*time.Millisecond, func() bool {
		var err error
		j, err = job(context.Background(), server, token, id)
		return err == nil && slices.Contains(states, j.State)
	})
	return j, d
}

// terminal are the states a job ends in.
var terminal = []string{"completed", "failed", "canceled"}

// timestampOverlaps counts pairs of allocations of one GPU whose recorded
// lifetimes overlap. The times are each transaction's clock when it began
// its work, not its commit, so a release and the next placement racing can
// overlap by the span of a transaction without two ever being live at once:
// the tests log this figure and check liveAllocations instead.
func timestampOverlaps(t testing.TB, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	err := pool.QueryRow(context.Background(), `SELECT count(*) FROM allocations a JOIN allocations b
		ON a.gpu_id = b.gpu_id AND a.id < b.id
		AND tstzrange(a.created_at, COALESCE(a.released_at, 'infinity')) && tstzrange(b.created_at, COALESCE(b.released_at, 'infinity'))`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// allocationWatch samples, every 50 ms until stopped, how many GPUs hold
// more than one live allocation, and checks at the end that the unique
// index enforcing one is valid. stop returns the most GPUs ever seen
// double-allocated (0 when the invariant held) and the samples taken.
func allocationWatch(t testing.TB, pool *pgxpool.Pool) (stop func() (doubles, samples int)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var worst, samples int
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			var n int
			qctx, qcancel := context.WithTimeout(ctx, time.Second)
			err := pool.QueryRow(qctx, `SELECT count(*) FROM (SELECT gpu_id FROM allocations WHERE released_at IS NULL
				GROUP BY gpu_id HAVING count(*) > 1) d`).Scan(&n)
			qcancel()
			if err == nil {
				samples++
				worst = max(worst, n)
			}
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return func() (int, int) {
		cancel()
		<-done
		var valid bool
		err := pool.QueryRow(context.Background(), `SELECT i.indisvalid AND i.indisunique FROM pg_index i
			JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'allocations_one_live_per_gpu'`).Scan(&valid)
		if err != nil || !valid {
			t.Errorf("the unique index of live allocations is missing or invalid (%v)", err)
		}
		return worst, samples
	}
}

// dumpStuck logs the jobs not ended, their events, and River's unfinished jobs.
func dumpStuck(t testing.TB, pool *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	rows, err := pool.Query(ctx, `SELECT j.id, j.state, COALESCE(string_agg(e.to_state || ' (' || e.reason || ')', ' → ' ORDER BY e.id), '')
		FROM jobs j LEFT JOIN job_events e ON e.job_id = j.id
		WHERE j.state NOT IN ('completed', 'failed', 'canceled', 'timeout') GROUP BY j.id, j.state`)
	if err == nil {
		for rows.Next() {
			var id int64
			var st, ev string
			_ = rows.Scan(&id, &st, &ev)
			t.Logf("job %d %s: %s", id, st, ev)
		}
		rows.Close()
	}
	rows, err = pool.Query(ctx, `SELECT id, kind, state::text, attempt, args::text, COALESCE(attempted_by::text, '') FROM river_job WHERE state NOT IN ('completed') ORDER BY id`)
	if err == nil {
		for rows.Next() {
			var id int64
			var kind, st, args, by string
			var attempt int
			_ = rows.Scan(&id, &kind, &st, &attempt, &args, &by)
			t.Logf("river job %d %s %s attempt %d args %s by %s", id, kind, st, attempt, args, by)
		}
		rows.Close()
	}
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// poolFor connects to dbURL for the test's own queries.
func poolFor(t testing.TB, dbURL string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// waitNodeUp waits until node name is up with its GPUs reported and
// returns how long it took (-1: not within limit).
func waitNodeUp(t testing.TB, pool *pgxpool.Pool, name string, limit time.Duration) time.Duration {
	t.Helper()
	return poll(limit, 50*time.Millisecond, func() bool {
		var n int
		err := pool.QueryRow(context.Background(), `SELECT count(*) FROM gpus g JOIN nodes n ON n.id = g.node_id
			WHERE n.name = $1 AND n.status = 'up' AND g.present AND g.telemetry_at IS NOT NULL`, name).Scan(&n)
		return err == nil && n > 0
	})
}

// poll calls cond every interval until it holds and returns how long that
// took, or -1 when it did not hold within limit.
func poll(limit, every time.Duration, cond func() bool) time.Duration {
	began := time.Now()
	for !cond() {
		if time.Since(began) >= limit {
			return -1
		}
		<-time.After(every)
	}
	return time.Since(began)
}
