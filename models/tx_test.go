package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

type probeArgs struct{ JobID int64 }

// handsNothing is an executor that takes no job: a job placed for it stays
// scheduled.
type handsNothing struct{}

func (handsNothing) Hand(context.Context, *models.Tx, *models.Job, []models.JobGPU, time.Time) (models.Handover, error) {
	return models.Handover{}, nil
}

func (handsNothing) Stop(context.Context, *models.Tx, *models.Job, time.Duration, time.Time) (bool, error) {
	return true, nil
}

func (probeArgs) Kind() string { return "probe" }

// A River job inserted with InsertTx in the same transaction as a state
// change commits or rolls back with it (invariant 3).
func TestInTxCarriesRiverInserts(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	owner := testdb.User(t, db, models.RoleMember)
	client, err := river.NewClient(riverpgxv5.New(db.Pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	tests := map[string]struct {
		fail      error
		wantState string
		wantJobs  int
	}{
		"commit":   {nil, models.JobScheduled, 1},
		"rollback": {boom, models.JobQueued, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			job := testdb.Job(t, db, owner, 1)
			_, gpus := testdb.Node(t, db, 1)
			err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
				lc := &models.Lifecycle{Executors: map[string]models.Executor{models.ExecutorNode: handsNothing{}}}
				j, err := lc.Lock(ctx, tx, job.ID)
				if err != nil {
					return err
				}
				if err := lc.Place(ctx, tx, j, models.Placement{GPUIDs: gpus, Reason: "test"}, testdb.Now); err != nil {
					return err
				}
				if _, err := client.InsertTx(ctx, tx.PGX(), probeArgs{JobID: job.ID}, nil); err != nil {
					return err
				}
				return tc.fail
			})
			if !errors.Is(err, tc.fail) {
				t.Fatalf("InTx = %v, want %v", err, tc.fail)
			}
			got, _ := models.GetJob(ctx, db.Bun, job.ID)
			if got.State != tc.wantState {
				t.Errorf("job state %s, want %s", got.State, tc.wantState)
			}
			var n int
			if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'probe' AND (args->>'JobID')::bigint = $1`, job.ID).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != tc.wantJobs {
				t.Errorf("%d river jobs, want %d", n, tc.wantJobs)
			}
		})
	}
}

func TestInTxRollsBackOnPanic(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	func() {
		defer func() { _ = recover() }()
		_ = db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			if _, err := models.CreateUser(ctx, tx, "panic@example.com", "", ""); err != nil {
				t.Fatal(err)
			}
			panic("mid-transaction")
		})
	}()
	if _, err := models.GetUserByEmail(ctx, db.Bun, "panic@example.com"); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("user written by a panicking transaction: %v", err)
	}
	// The pool is still usable afterwards.
	if _, err := models.CreateUser(ctx, db.Bun, "after@example.com", "", ""); err != nil {
		t.Fatal(err)
	}
}

// A context canceled in the middle of a query ends the transaction cleanly
// (under -race: database/sql closes the query's rows from its own goroutine
// while InTx rolls back) and leaves the pool usable.
func TestInTxCanceledMidQuery(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	for i := range 20 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(1+i%5)*time.Millisecond)
		err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			rows, err := tx.QueryContext(ctx, "SELECT pg_sleep(0.05), generate_series(1, 1000)")
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
			}
			return rows.Err()
		})
		cancel()
		if err == nil {
			t.Fatalf("round %d: a query cut off by its context committed", i)
		}
	}
	// database/sql rolls a canceled transaction back from its own goroutine,
	// so the server may see the rollback a moment after InTx returns: what
	// matters is that every connection leaves its transaction, soon.
	waitFor(t, "every connection to leave its transaction", func() bool {
		var n int
		if err := db.Bun.QueryRowContext(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 0
	})
}
