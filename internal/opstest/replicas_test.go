package opstest

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// failover is what a load balancer does for the node agents: each
// request goes to the first replica that takes the connection.
func failover(t testing.TB, replicas ...*Server) string {
	t.Helper()
	var next atomic.Int64
	dial := func(ctx context.Context, network, _ string) (net.Conn, error) {
		var err error
		start := int(next.Add(1))
		for i := range replicas {
			u, _ := url.Parse(replicas[(start+i)%len(replicas)].URL)
			var c net.Conn
			if c, err = (&net.Dialer{Timeout: time.Second}).DialContext(ctx, network, u.Host); err == nil {
				return c, nil
			}
		}
		return nil, err
	}
	target, _ := url.Parse("http://replicas")
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = &http.Transport{DialContext: dial, DisableKeepAlives: true}
	proxy.FlushInterval = -1
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Two replicas share the load; each in turn is killed with SIGKILL
// mid-load. The other keeps scheduling: a job submitted after the kill
// starts within 5 s; over the whole run no GPU is held twice (checked in
// SQL) and every acknowledged submission is there and ends.
func TestTwoReplicasKill9(t *testing.T) {
	t.Parallel()
	pg := startPG(t)
	pool := pg.Pool()
	a := startServer(t, "replica-a", pg.URL)
	b := startServer(t, "replica-b", pg.URL)
	token := adminToken(t, pg.URL)
	state := openDir(t, "opstest-replicas-state-")
	killJobProcesses(t, state)
	startNode(t, "gpu-r", failover(t, a, b), cli(t, pg.URL, "token", "create", "--node", "gpu-r"), state)
	if waitNodeUp(t, pool, "gpu-r", 20*time.Second) < 0 {
		t.Fatal("node not up")
	}
	watch := allocationWatch(t, pool)
	replicas := []*Server{a, b}
	var mu sync.Mutex
	var acked []int64
	var refused int
	ctx, stopLoad := context.WithCancel(context.Background())
	var load sync.WaitGroup
	load.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			mu.Lock()
			r := replicas[i%2]
			mu.Unlock()
			j, err := submit(ctx, r.URL, token, "sleep 0.4", 1)
			mu.Lock()
			if err == nil && j.ID > 0 {
				acked = append(acked, j.ID)
			} else if ctx.Err() == nil {
				refused++
			}
			mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(120 * time.Millisecond):
			}
		}
	})

	// loadFlows waits until the load has had n more submissions acknowledged.
	loadFlows := func(n int) {
		t.Helper()
		count := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
		from := count()
		if poll(30*time.Second, 20*time.Millisecond, func() bool { return count() >= from+n }) < 0 {
			t.Fatalf("the load had %d of %d more submissions acknowledged in 30 s", count()-from, n)
		}
	}
	// kill one replica mid-load; a job submitted to the other must start in 5 s.
	killAndProbe := func(victim, survivor *Server) time.Duration {
		t.Helper()
		loadFlows(8)
		victim.Kill()
		probe, err := submit(context.Background(), survivor.URL, token, "sleep 0.2", 1)
		if err != nil {
			t.Fatalf("submit after the kill: %v", err)
		}
		_, d := waitState(t, survivor.URL, token, probe.ID, 15*time.Second, append([]string{"running"}, terminal...)...)
		mu.Lock()
		acked = append(acked, probe.ID)
		mu.Unlock()
		return d
	}
	port := func(s *Server) int {
		u, _ := url.Parse(s.URL)
		_, p, _ := net.SplitHostPort(u.Host)
		n := 0
		for _, c := range p {
			n = n*10 + int(c-'0')
		}
		return n
	}
	d1 := killAndProbe(a, b)
	t.Logf("replica A killed: a job submitted to B started %s later", d1.Round(time.Millisecond))
	a2 := startServerOn(t, "replica-a2", pg.URL, port(a))
	mu.Lock()
	replicas[0] = a2
	mu.Unlock()
	d2 := killAndProbe(b, a2)
	t.Logf("replica B killed: a job submitted to A started %s later", d2.Round(time.Millisecond))
	for _, d := range []time.Duration{d1, d2} {
		if d < 0 || d > 5*time.Second {
			t.Errorf("failover start latency %s, want within 5s", d)
		}
	}
	loadFlows(4) // on the survivor alone
	stopLoad()
	load.Wait()

	// Every acknowledged job is there and ends.
	mu.Lock()
	ids := append([]int64(nil), acked...)
	mu.Unlock()
	lost, unfinished := settled(pool, ids, 30*time.Second)
	doubles, samples := watch()
	overlaps := timestampOverlaps(t, pool)
	var failed int
	_ = pool.QueryRow(context.Background(), `SELECT count(*) FROM jobs WHERE state = 'failed'`).Scan(&failed)
	t.Logf("%d submissions acknowledged (%d refused by the killed replica), %d lost, %d not ended, %d failed, %d GPUs double-allocated in %d samples of live allocations (%d pairs with overlapping recorded times, see timestampOverlaps)",
		len(ids), refused, lost, unfinished, failed, doubles, samples, overlaps)
	if lost != 0 || unfinished != 0 || doubles != 0 {
		t.Errorf("lost %d, not ended %d, double allocations %d: want 0 each", lost, unfinished, doubles)
		dumpStuck(t, pool)
	}
}
