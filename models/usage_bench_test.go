package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// BenchmarkUsage reads usage from an allocation history of 90 days: jobs
// of 1–8 GPUs from 16 users in 3 teams, each run twice (two attempts, three
// hours apart), on 16 GPUs. standing is the fair-share standing (half-life
// 7 days: 35 days back, read outside a transaction, as the usage page
// does); snapshot is the pass's snapshot read in a transaction, usage and
// all (no job is live); month is the usage page's GPU-hours over 30 days
// in 240 buckets.
// Run: go test ./models -run '^$' -bench BenchmarkUsage -benchtime 50x
func BenchmarkUsage(b *testing.B) {
	for _, jobs := range []int{10000, 50000} {
		db, now := usageHistory(b, jobs)
		ctx := context.Background()
		b.Run(fmt.Sprintf("jobs=%d/standing", jobs), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := models.FairShareStanding(ctx, db.Bun, now, 7*24*time.Hour); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("jobs=%d/snapshot", jobs), func(b *testing.B) {
			for b.Loop() {
				err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
					_, _, err := models.LoadSnapshot(ctx, tx, now, 7*24*time.Hour, scoring.DefaultConfig())
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("jobs=%d/month", jobs), func(b *testing.B) {
			r := models.NewUsageRange(now, 30*24*time.Hour, 240)
			for b.Loop() {
				if _, err := models.GPUHoursOver(ctx, db.Bun, r, now, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// usageHistory fills a database with jobs finished jobs spread evenly over
// the 90 days before the returned now, each with two attempts.
func usageHistory(b testing.TB, jobs int) (*models.DB, time.Time) {
	b.Helper()
	db := testdb.New(b)
	ctx := context.Background()
	_, gpus := testdb.Node(b, db, 16)
	var teams []int64
	for i := range 3 {
		t, err := models.CreateTeam(ctx, db.Bun, fmt.Sprintf("team-%d", i), 1, nil)
		if err != nil {
			b.Fatal(err)
		}
		teams = append(teams, t.ID)
	}
	var users []int64
	for i := range 16 {
		u := testdb.User(b, db, models.RoleMember)
		if err := models.SetUserTeam(ctx, db.Bun, u.ID, &teams[i%3]); err != nil {
			b.Fatal(err)
		}
		users = append(users, u.ID)
	}
	now := testdb.Now
	span := 90 * 24 * time.Hour
	if _, err := db.Pool.Exec(ctx, `
INSERT INTO jobs (name, owner_id, state, command, gpu_count, priority, executor, submitted_at)
SELECT 'hist-' || i, ($1::bigint[])[1 + i % 16], 'completed', 'python train.py', 1 + (i * 7919) % 8, 2, 'lease',
       $2::timestamptz - ($3::float8 * (i + 1) / $4) * interval '1 second'
FROM generate_series(0, $4 - 1) AS i`, users, now, span.Seconds(), jobs); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `
INSERT INTO allocations (job_id, gpu_id, user_id, created_at, released_at, release_reason)
SELECT j.id, ($1::bigint[])[1 + (j.id + g) % 16], j.owner_id,
       j.submitted_at + a * interval '3 hours',
       j.submitted_at + a * interval '3 hours' + (1 + j.id % 3) * interval '20 minutes', 'done'
FROM jobs j, generate_series(0, 1) AS a, generate_series(0, j.gpu_count - 1) AS g`, gpus); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `ANALYZE`); err != nil { // as autovacuum would after a bulk insert
		b.Fatal(err)
	}
	return db, now
}
