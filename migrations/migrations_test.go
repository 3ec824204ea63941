package migrations_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/migrations"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestAllIsWellFormed(t *testing.T) {
	t.Parallel()
	all, err := migrations.All()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 || migrations.Latest() != all[len(all)-1].Version {
		t.Fatalf("Latest() = %d with %d migrations", migrations.Latest(), len(all))
	}
}

// Several replicas starting at once each run Up; the advisory lock makes
// every step apply exactly once and none of them fail.
func TestUpConcurrently(t *testing.T) {
	t.Parallel()
	url := testdb.EmptyURL(t)
	ctx := context.Background()
	const replicas = 4
	var wg sync.WaitGroup
	errs := make([]error, replicas)
	for i := range replicas {
		wg.Go(func() {
			pool, err := pgxpool.New(ctx, url)
			if err != nil {
				errs[i] = err
				return
			}
			defer pool.Close()
			errs[i] = migrations.New(pool, quiet()).Up(ctx)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("replica %d: %v", i, err)
		}
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var rows, max int
	if err := pool.QueryRow(ctx, `SELECT count(*), max(version) FROM schema_migrations`).Scan(&rows, &max); err != nil {
		t.Fatal(err)
	}
	if rows != migrations.Latest() || max != migrations.Latest() {
		t.Fatalf("schema_migrations has %d rows up to %d, want %d", rows, max, migrations.Latest())
	}
	applied, riverOK, err := migrations.New(pool, quiet()).Status(ctx)
	if err != nil || applied != migrations.Latest() || !riverOK {
		t.Fatalf("Status = %d, %t, %v", applied, riverOK, err)
	}
}

// Down undoes every step and Up redoes them: the down files are real.
func TestDownThenUp(t *testing.T) {
	t.Parallel()
	url := testdb.URL(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	m := migrations.New(pool, quiet())
	if err := m.Down(ctx, migrations.Latest(), true); err != nil {
		t.Fatalf("down: %v", err)
	}
	var tables int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'`).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Fatalf("%d tables left after rolling everything back", tables)
	}
	if err := m.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	applied, riverOK, err := m.Status(ctx)
	if err != nil || applied != migrations.Latest() || !riverOK {
		t.Fatalf("Status after up = %d, %t, %v", applied, riverOK, err)
	}
}
