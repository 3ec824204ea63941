package jobs_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestSweepNodes(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	stale, _ := testdb.Node(t, db, 1) // last heartbeat at testdb.Now
	fresh, _ := testdb.Node(t, db, 1)
	now := testdb.Now.Add(time.Minute)
	if _, err := db.Heartbeat(ctx, fresh.ID, nil, now.Add(-5*time.Second)); err != nil {
		t.Fatal(err)
	}
	listener := models.NewListener(db.Pool, quiet())
	events, cancel := listener.Subscribe("nodes")
	defer cancel()
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	go listener.Run(lctx)
	jobs.WaitListening(t, db, listener)

	d := jobs.Deps{DB: db, Logger: quiet(), Now: func() time.Time { return now }, Config: jobs.Config{NodeDownAfter: 30 * time.Second}}
	if err := jobs.SweepNodes(ctx, d); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[int64]string{stale.ID: models.NodeDown, fresh.ID: models.NodeUp} {
		n, err := models.GetNode(ctx, db.Bun, id)
		if err != nil || n.Status != want {
			t.Errorf("node %d: %+v %v, want %s", id, n, err, want)
		}
	}
	select {
	case e := <-events:
		if e.Payload != stale.Name {
			t.Fatalf("nodes event payload %q, want %q", e.Payload, stale.Name)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no nodes event after marking a node down")
	}
	// A second sweep changes nothing and says nothing: the next signal on
	// the channel is one sent after it (PostgreSQL delivers notifications
	// in commit order).
	if err := jobs.SweepNodes(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := models.Signal(ctx, db.Bun, models.ChannelNodes, "after the sweep"); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-events:
		if e.Payload != "after the sweep" {
			t.Fatalf("unexpected event %+v", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no nodes event within 5s of a NOTIFY")
	}
}

// The periodic River job runs the sweep without anyone asking.
func TestRiverRunsNodeLiveness(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	node, _ := testdb.Node(t, db, 1)
	client, err := jobs.NewClient(&jobs.Deps{DB: db, Logger: quiet(), Now: time.Now, Config: jobs.Config{NodeDownAfter: time.Second, Workers: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_ = client.Stop(stopCtx)
	}()
	if !jobs.Eventually(20*time.Second, func() bool {
		n, err := models.GetNode(ctx, db.Bun, node.ID)
		if err != nil {
			t.Fatal(err)
		}
		return n.Status == models.NodeDown
	}) {
		t.Fatal("the node_liveness job did not mark a silent node down within 20s")
	}
}
