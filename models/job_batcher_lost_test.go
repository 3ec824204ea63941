package models_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// cutMode is how a cutProxy cuts the connection it was armed for.
type cutMode int

const (
	// cutAfterCommit forwards the statement, swallows the server's answer
	// up to its ReadyForQuery (sent once the statement has committed), then
	// closes both sides: the client never learns that it committed.
	cutAfterCommit cutMode = iota + 1
	// cutBeforeServer drops the statement and closes both sides: the
	// server never reads it.
	cutBeforeServer
)

// cutProxy forwards TCP connections to a PostgreSQL server and, once armed,
// cuts the first connection whose client sends bytes containing a marker.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	marker []byte
	mode   cutMode
	cuts   atomic.Int32
}

// newCutProxy starts a proxy to the server of the connection string dbURL,
// closed when t ends.
func newCutProxy(t *testing.T, dbURL string) *cutProxy {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: u.Host}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { p.serve(c) })
		}
	})
	return p
}

// pool opens a pool on dbURL's database through the proxy, in pgx's
// one-round-trip Exec mode so that every statement carries its text.
func (p *cutProxy) pool(t *testing.T, dbURL string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(p.ln.Addr().String())
	cfg.ConnConfig.Host = host
	fmt.Sscan(port, &cfg.ConnConfig.Port)
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// arm makes the proxy cut, by mode, the next connection that sends marker.
func (p *cutProxy) arm(marker string, mode cutMode) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.marker, p.mode = []byte(marker), mode
}

// take returns the armed mode, disarming it, when data holds the marker.
func (p *cutProxy) take(data []byte) cutMode {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.marker == nil || !bytes.Contains(data, p.marker) {
		return 0
	}
	p.marker = nil
	return p.mode
}

func (p *cutProxy) serve(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	closeBoth := sync.OnceFunc(func() { client.Close(); server.Close() })
	defer closeBoth()
	var swallow atomic.Bool
	go func() { // server → client
		defer closeBoth()
		buf := make([]byte, 32<<10)
		var answer []byte
		for {
			n, err := server.Read(buf)
			if swallow.Load() {
				answer = append(answer, buf[:n]...)
				if readyForQuery(answer) {
					p.cuts.Add(1)
					return
				}
			} else if _, werr := client.Write(buf[:n]); werr != nil {
				return
			}
			if err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 32<<10)
	var tail []byte // the end of the previous read, for a marker split between reads
	for {
		n, err := client.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			switch p.take(append(tail, chunk...)) {
			case cutBeforeServer:
				p.cuts.Add(1)
				return
			case cutAfterCommit:
				swallow.Store(true) // before the server can answer
			}
			if _, werr := server.Write(chunk); werr != nil {
				return
			}
			tail = append(tail[:0], chunk[max(0, n-64):]...)
		}
		if err != nil {
			return
		}
	}
}

// readyForQuery reports whether the server's messages in b (from a message
// boundary on) include ReadyForQuery.
func readyForQuery(b []byte) bool {
	for len(b) >= 5 {
		size := int(binary.BigEndian.Uint32(b[1:5]))
		if b[0] == 'Z' {
			return true
		}
		if len(b) < 1+size {
			return false
		}
		b = b[1+size:]
	}
	return false
}

// Markers of the statements a cutProxy may cut: the insert of a batch (the
// first statement to send it; a resume sends it too), and of a lone job.
const (
	batchMarker = "unnest($1::text[]"
	loneMarker  = "VALUES ($1, $2, $3, 'queued'"
)

// A submission whose connection drops while its insert is under way is
// stored once, and its submitter gets its id: when the insert committed
// and only the answer was lost, the jobs are found by submit token, not
// inserted again; when the server never read it, they are inserted; a bad
// job among them still fails alone.
func TestJobBatcherLostAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		marker string
		mode   cutMode
		lone   bool // one submission alone, not a batch
		bad    bool // one job of the batch breaks a CHECK
	}{
		{name: "batch committed, answer lost", marker: batchMarker, mode: cutAfterCommit},
		{name: "batch never read by the server", marker: batchMarker, mode: cutBeforeServer},
		{name: "batch with a bad job, answer lost", marker: batchMarker, mode: cutAfterCommit, bad: true},
		{name: "lone job committed, answer lost", marker: loneMarker, mode: cutAfterCommit, lone: true},
		{name: "lone job never read by the server", marker: loneMarker, mode: cutBeforeServer, lone: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dbURL := testdb.URL(t)
			db, err := models.Open(context.Background(), dbURL, 4, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(db.Close)
			ctx := context.Background()
			owner := testdb.User(t, db, models.RoleMember)
			proxy := newCutProxy(t, dbURL)
			g := &gate{BatchQuerier: proxy.pool(t, dbURL), entered: make(chan struct{}, 100), open: make(chan struct{})}
			proxy.arm(tc.marker, tc.mode)

			var b models.JobBatcher
			type result struct {
				job *models.Job
				err error
			}
			results := make(chan result, 20)
			submit := func(name string, gpus int) {
				j := &models.Job{Name: name, OwnerID: owner.ID, GPUCount: gpus, Executor: models.ExecutorLease}
				go func() { results <- result{j, b.Create(ctx, g, j, testdb.Now)} }()
			}
			n := 1
			submit("first", 1)
			if !tc.lone { // two lone submissions fill the batches in flight, six wait for one batch
				submit("second", 1)
				<-g.entered
				<-g.entered
				for i := range 6 {
					gpus := 1
					if tc.bad && i == 3 {
						gpus = 0
					}
					submit(fmt.Sprintf("waiting-%d", i), gpus)
				}
				waitFor(t, "six submissions waiting", func() bool { return b.Waiting() == 6 })
				n = 8
			}
			close(g.open)

			ids := map[int64]string{}
			stored := 0
			for range n {
				r := <-results
				if r.job.GPUCount == 0 {
					if r.err == nil {
						t.Errorf("the job of 0 GPUs was queued as %d", r.job.ID)
					}
					continue
				}
				if r.err != nil {
					t.Fatalf("%s: %v", r.job.Name, r.err)
				}
				if other, dup := ids[r.job.ID]; dup {
					t.Fatalf("%s and %s both have id %d", r.job.Name, other, r.job.ID)
				}
				ids[r.job.ID] = r.job.Name
				stored++
				got, err := models.GetJob(ctx, db.Bun, r.job.ID)
				if err != nil || got.Name != r.job.Name {
					t.Errorf("id %d: stored %q, want %q (%v)", r.job.ID, got.Name, r.job.Name, err)
				}
			}
			if c := proxy.cuts.Load(); c != 1 {
				t.Fatalf("the proxy cut %d connections, want 1", c)
			}
			var jobs, names, events int
			err = db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM jobs), (SELECT count(DISTINCT name) FROM jobs),
				(SELECT count(*) FROM job_events)`).Scan(&jobs, &names, &events)
			if err != nil {
				t.Fatal(err)
			}
			if jobs != stored || names != stored || events != stored {
				t.Errorf("%d jobs (%d names) and %d events stored, want %d of each", jobs, names, events, stored)
			}
		})
	}
}
