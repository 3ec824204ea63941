package opstest

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// PostgreSQL restarts under load, with a fast shutdown and with its
// postmaster killed (each on its own cluster, side by side): the server
// reports not ready while it is away, recovers without help (readiness back
// within 10 s of PostgreSQL), River resumes (a job submitted afterwards
// runs), and no job is left stuck or failed: every acknowledged job ends.
func TestPostgresRestartUnderLoad(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		how  string
		stop func(*PG)
	}{
		{"fast shutdown", (*PG).StopFast},
		{"killed postmaster", (*PG).KillPostmaster},
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
	watch := allocationWatch(t, pool)
	var mu sync.Mutex
	var acked []int64
	ctx, stopLoad := context.WithCancel(context.Background())
	var load sync.WaitGroup
	load.Go(func() {
		for ctx.Err() == nil {
			if j, err := submit(ctx, s.URL, token, "sleep 0.3", 1); err == nil && j.ID > 0 {
				mu.Lock()
				acked = append(acked, j.ID)
				mu.Unlock()
			}
			select {
			case <-ctx.Done():
			case <-time.After(150 * time.Millisecond):
			}
		}
	})

	restart := func(how string, stop func()) {
		t.Helper()
		time.Sleep(800 * time.Millisecond)
		stopAt := time.Now()
		stop()
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
		time.Sleep(downAfter) // PostgreSQL stays away a while under load
		startAt := time.Now()
		pg.Start()
		t.Logf("%s: PostgreSQL started again in %s", how, time.Since(startAt).Round(time.Millisecond))
		back := s.WaitReady(20 * time.Second)
		t.Logf("%s: not ready after %s; ready again %s after PostgreSQL", how, notReady.Round(time.Millisecond), back.Round(time.Millisecond))
		if back < 0 || back > 10*time.Second {
			t.Errorf("%s: readiness back after %s, want within 10s", how, back)
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
	restart(how, func() { stopPG(pg) })
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
	if lost != 0 || unfinished != 0 || doubles != 0 {
		t.Errorf("lost %d, not ended %d, double allocations %d: want 0 each", lost, unfinished, doubles)
		dumpStuck(t, pool)
	}
}
