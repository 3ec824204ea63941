package jobs_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// BenchmarkPassDB runs whole scheduling passes, database included (load the
// snapshot, run the core, apply the plan, record explanations, commit), on a
// cluster whose GPUs are all busy and whose queue holds pending jobs of 1–8
// GPUs from 16 users at mixed priorities: the steady state of a long queue.
// One op = one pass; p50-ms and p99-ms are over the timed passes. load=memory
// keeps the snapshot in memory between passes (models.SnapshotCache, as
// serve does); load=whole reads it whole every pass.
// Run: go test ./jobs -run '^$' -bench BenchmarkPassDB -benchtime 50x
func BenchmarkPassDB(b *testing.B) {
	for _, size := range []struct{ pending, nodes int }{{1000, 2}, {10000, 128}} {
		for _, load := range []string{"memory", "whole"} {
			b.Run(fmt.Sprintf("pending=%d/gpus=%d/load=%s", size.pending, size.nodes*8, load), func(b *testing.B) {
				benchPassDB(b, size.pending, size.nodes, load == "memory")
			})
		}
	}
}

func benchPassDB(b *testing.B, pending, nodes int, memory bool) {
	db := testdb.New(b)
	ctx := context.Background()
	for range nodes {
		testdb.Node(b, db, 8)
	}
	var users []int64
	for range 16 {
		users = append(users, testdb.User(b, db, models.RoleMember).ID)
	}
	// Enough jobs to fill every GPU, then the queue.
	total := nodes*8 + pending
	if _, err := db.Pool.Exec(ctx, `
INSERT INTO jobs (name, owner_id, state, command, gpu_count, priority, estimated_duration_s, executor, submitted_at)
SELECT 'bench-' || i, ($1::bigint[])[1 + i % 16], 'queued', 'python train.py',
       CASE WHEN i < $3 THEN 1 ELSE 1 + (i * 7919) % 8 END, 1 + (i * 31) % 4, 600 + (i * 13) % 7200, 'lease',
       $4::timestamptz + i * interval '1 second'
FROM generate_series(0, $2 - 1) AS i`, users, total, nodes*8, time.Now().Add(-24*time.Hour)); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `ANALYZE`); err != nil { // as autovacuum would after a bulk insert
		b.Fatal(err)
	}
	d := jobs.Deps{DB: db, Logger: quiet(), Now: time.Now, Lifecycle: &models.Lifecycle{}}
	if memory { // the in-memory snapshot, as serve runs passes
		d.Snapshots = models.NewSnapshotCache()
	}
	// The first pass fills the cluster; the second settles the explanations.
	for range 2 {
		if _, err := jobs.RunPass(ctx, d, 0, "bench"); err != nil {
			b.Fatal(err)
		}
	}
	var queued int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE state = 'queued'`).Scan(&queued); err != nil {
		b.Fatal(err)
	}
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, err := jobs.RunPass(ctx, d, 0, "bench"); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(times)
	ms := func(p float64) float64 {
		return float64(times[min(len(times)-1, int(p*float64(len(times))))].Microseconds()) / 1000
	}
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
	b.ReportMetric(float64(queued), "pending")
}
