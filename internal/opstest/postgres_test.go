package opstest

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PostgreSQL restarts under load, with a fast shutdown and with its
// postmaster killed, or ends every session of the server while it stays up
// (pg_terminate_backend, as a failover proxy or an administrator does),
// each on its own cluster, side by side. The server reports not ready while
// PostgreSQL is away, recovers without help (readiness back within 10 s of
// PostgreSQL), River resumes (a job submitted afterwards runs), and no job
// is left stuck or failed: every acknowledged job ends. Once /readyz
// answers ready, no request answers 5xx: API calls, a page, and the node
// agent's heartbeats and command answers, from the first burst on every
// pooled connection to the end of the test.
func TestPostgresRestartUnderLoad(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		how  string
		stop func(*PG) // nil: PostgreSQL stays up and ends the server's sessions
	}{
		{"fast shutdown", (*PG).StopFast},
		{"killed postmaster", (*PG).KillPostmaster},
		{"sessions terminated", nil},
	} {
		t.Run(tc.how, func(t *testing.T) {
			t.Parallel()
			postgresRestart(t, tc.how, tc.stop)
		})
	}
}

func postgresRestart(t *testing.T, how string, stopPG func(*PG)) {
	pg := startPG(t)
	// PostgreSQL stays away longer than NODE_DOWN_AFTER: the heartbeats the
	// server could not record must not mark the node down (outage grace).
	const downAfter = 2 * time.Second
	s := startServer(t, "server", pg.URL, "GPUSCHED_NODE_DOWN_AFTER="+downAfter.String())
	token := adminToken(t, pg.URL)
	state := openDir(t, "opstest-pg-state-")
	killJobProcesses(t, state)
	node := startNode(t, "gpu-p", s.URL, cli(t, pg.URL, "token", "create", "--node", "gpu-p"), state)
	pool := pg.Pool()
	if waitNodeUp(t, pool, "gpu-p", 20*time.Second) < 0 {
		t.Fatal("node not up")
	}
	cookie := signInCookie(t, pool, "ops@example.com")
	watch := allocationWatch(t, pool)
	var mu sync.Mutex
	var acked []int64
	ack := func(id int64) {
		mu.Lock()
		acked = append(acked, id)
		mu.Unlock()
	}
	ackedCount := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(acked)
	}
	ctx, stopLoad := context.WithCancel(context.Background())
	var load sync.WaitGroup
	load.Go(func() {
		for ctx.Err() == nil {
			if j, err := submit(ctx, s.URL, token, "sleep 0.3", 1); err == nil && j.ID > 0 {
				ack(j.ID)
			}
			select {
			case <-ctx.Done():
			case <-time.After(150 * time.Millisecond):
			}
		}
	})

	var readyAt time.Time
	restart := func(how string) {
		t.Helper()
		// Under load: a few submissions acknowledged before PostgreSQL goes.
		for deadline := time.Now().Add(10 * time.Second); ackedCount() < 4; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: only %d submissions acknowledged before the restart", how, ackedCount())
			}
		}
		if stopPG == nil {
			n := terminateSessions(t, pool)
			t.Logf("%s: PostgreSQL ended the server's %d sessions", how, n)
		} else {
			stopAt := time.Now()
			stopPG(pg)
			t.Logf("%s: PostgreSQL stopped in %s", how, time.Since(stopAt).Round(time.Millisecond))
			var notReady time.Duration = -1
			for began := time.Now(); time.Since(began) < 10*time.Second; time.Sleep(50 * time.Millisecond) {
				if !s.Ready() {
					notReady = time.Since(began)
					break
				}
			}
			if notReady < 0 {
				t.Errorf("%s: /readyz stayed 200 with PostgreSQL down", how)
			}
			t.Logf("%s: not ready after %s", how, notReady.Round(time.Millisecond))
			time.Sleep(downAfter) // PostgreSQL stays away a while under load
			startAt := time.Now()
			pg.Start()
			t.Logf("%s: PostgreSQL started again in %s", how, time.Since(startAt).Round(time.Millisecond))
		}
		var back time.Duration
		readyAt, back = waitReadyAt(s, 20*time.Second)
		t.Logf("%s: ready %s after PostgreSQL was back", how, back.Round(time.Millisecond))
		if back < 0 || back > 10*time.Second {
			t.Fatalf("%s: readiness back after %s, want within 10s", how, back)
		}
		// Ready means the next requests succeed: a burst of every kind at
		// once, taking as many pooled connections as it can.
		for _, id := range burstAfterReady(t, s.URL, token, cookie) {
			ack(id)
		}
		// River resumes: a job submitted now runs.
		j, err := submit(context.Background(), s.URL, token, "true", 1)
		if err != nil {
			t.Fatalf("%s: submit after recovery: %v", how, err)
		}
		if _, d := waitState(t, s.URL, token, j.ID, 15*time.Second, terminal...); d < 0 {
			t.Errorf("%s: a job submitted after recovery did not run", how)
		} else {
			t.Logf("%s: a job submitted after recovery ended %s later", how, d.Round(time.Millisecond))
		}
	}
	restart(how)
	// The node agent heartbeats again (each heartbeat after readiness is in
	// the access log checked below).
	var beat time.Time
	for deadline := time.Now().Add(10 * time.Second); beat.Before(readyAt) && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		_ = pool.QueryRow(context.Background(), `SELECT COALESCE(last_heartbeat_at, 'epoch') FROM nodes WHERE name = 'gpu-p'`).Scan(&beat)
	}
	if beat.Before(readyAt) {
		t.Errorf("%s: no heartbeat recorded after readiness (last %s)", how, beat)
	}
	stopLoad()
	load.Wait()

	drain := time.Now()
	mu.Lock()
	ids := append([]int64(nil), acked...)
	mu.Unlock()
	var lost, unfinished int
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		lost, unfinished = 0, 0
		for _, id := range ids {
			var st string
			if err := pool.QueryRow(context.Background(), `SELECT state FROM jobs WHERE id = $1`, id).Scan(&st); err != nil {
				lost++
			} else if !strings.Contains(" completed failed canceled ", " "+st+" ") {
				unfinished++
			}
		}
		if unfinished == 0 || time.Now().After(deadline) {
			break
		}
	}
	t.Logf("every acknowledged job ended %s after the load stopped", time.Since(drain).Round(time.Millisecond))
	var failed int
	_ = pool.QueryRow(context.Background(), `SELECT count(*) FROM jobs WHERE state = 'failed'`).Scan(&failed)
	doubles, samples := watch()
	overlaps := timestampOverlaps(t, pool)
	t.Logf("%d submissions acknowledged, %d lost, %d not ended, %d failed, %d GPUs double-allocated in %d samples of live allocations (%d pairs with overlapping recorded times, see timestampOverlaps)", len(ids), lost, unfinished, failed, doubles, samples, overlaps)
	if rows, err := pool.Query(context.Background(), `SELECT failure_reason, count(*) FROM jobs WHERE state = 'failed' GROUP BY 1`); err == nil {
		for rows.Next() {
			var why string
			var n int
			_ = rows.Scan(&why, &n)
			t.Logf("failed: %d × %q", n, why)
		}
		rows.Close()
	}
	if failed != 0 {
		t.Errorf("%d jobs failed across PostgreSQL restarts, want 0", failed)
		for _, p := range []*Proc{s.Proc, node} {
			b, _ := os.ReadFile(p.Log)
			for _, line := range strings.Split(string(b), "\n") {
				if strings.Contains(line, "marked down") || strings.Contains(line, "was away") || strings.Contains(line, "lost the control plane") || strings.Contains(line, "registered") {
					t.Logf("%s: %s", p.Name, line)
				}
			}
		}
	}
	if bad := serverErrorsSince(t, s.Log, readyAt); len(bad) > 0 {
		t.Errorf("%s: %d requests answered 5xx after /readyz said ready:\n%s", how, len(bad), strings.Join(bad, "\n"))
	}
	if lost != 0 || unfinished != 0 || doubles != 0 {
		t.Errorf("lost %d, not ended %d, double allocations %d: want 0 each", lost, unfinished, doubles)
		dumpStuck(t, pool)
	}
}

// waitReadyAt polls /readyz until it answers 200 and returns when that
// answer came back and how long it took (-1: not within limit).
func waitReadyAt(s *Server, limit time.Duration) (time.Time, time.Duration) {
	began := time.Now()
	for time.Since(began) < limit {
		if s.Ready() {
			return time.Now(), time.Since(began)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Time{}, -1
}

// burstAfterReady sends, from several clients at once, what the server
// meets right after it says ready: the queue read, a submission, the queue
// page and the cluster status. Each must answer below 500; it returns the
// ids of the jobs it submitted.
func burstAfterReady(t testing.TB, server, token string, cookie *http.Cookie) []int64 {
	t.Helper()
	const clients = 8
	page := &http.Client{Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var mu sync.Mutex
	var ids []int64
	var wg sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for range clients {
		wg.Go(func() {
			if code, err := api(ctx, http.MethodGet, server+"/api/v1/queue", token, nil, nil); err != nil {
				t.Errorf("GET /api/v1/queue right after readiness: %d %v", code, err)
			}
			if j, err := submit(ctx, server, token, "true", 1); err != nil {
				t.Errorf("submit right after readiness: %v", err)
			} else {
				mu.Lock()
				ids = append(ids, j.ID)
				mu.Unlock()
			}
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, server+"/queue", nil)
			req.AddCookie(cookie)
			if resp, err := page.Do(req); err != nil {
				t.Errorf("GET /queue right after readiness: %v", err)
			} else {
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("GET /queue right after readiness: %d, want 200", resp.StatusCode)
				}
			}
			if code, err := api(ctx, http.MethodGet, server+"/api/v1/cluster/gpu-status", token, nil, nil); err != nil {
				t.Errorf("GET /api/v1/cluster/gpu-status right after readiness: %d %v", code, err)
			}
		})
	}
	wg.Wait()
	return ids
}

// terminateSessions ends every session of the server's database but the
// test's own (application_name opstest), as pg_terminate_backend does, waits
// until they are gone, and returns how many there were.
func terminateSessions(t testing.TB, pool *pgxpool.Pool) int {
	t.Helper()
	ctx := context.Background()
	rows, err := pool.Query(ctx, `SELECT pid FROM pg_stat_activity
		WHERE datname = current_database() AND backend_type = 'client backend' AND application_name <> 'opstest'`)
	if err != nil {
		t.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		t.Fatal(err)
	}
	if len(pids) == 0 {
		t.Fatal("the server holds no session to end")
	}
	if _, err := pool.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) pid`, pids); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1)`, pids).Scan(&n); err == nil && n == 0 {
			return len(pids)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ended sessions %v are still there after 10s", pids)
		}
	}
}
