package models_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// openOne opens a DB on a new database with one connection per pool, so
// the next statement meets the very connection the test ended, and a
// connection to the server's maintenance database to end it from.
func openOne(t *testing.T) (*models.DB, *pgx.Conn, string) {
	t.Helper()
	url := testdb.URL(t)
	db, err := models.Open(context.Background(), url, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	name := cfg.Database
	cfg.Database = "postgres"
	admin, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close(context.Background()) })
	return db, admin, name
}

// backendPIDs returns the backend of each pool's one connection.
func backendPIDs(t *testing.T, db *models.DB) []int32 {
	t.Helper()
	ctx := context.Background()
	var viaPool, viaBun int32
	if err := db.Pool.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&viaPool); err != nil {
		t.Fatal(err)
	}
	if err := db.Bun.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&viaBun); err != nil {
		t.Fatal(err)
	}
	return []int32{viaPool, viaBun}
}

// terminate ends the backends pids as pg_terminate_backend does (what a
// fast shutdown sends every backend) and waits until they are gone.
func terminate(t *testing.T, admin *pgx.Conn, pids ...int32) {
	t.Helper()
	ctx := context.Background()
	if _, err := admin.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) pid`, pids); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the terminated backends to exit", func() bool {
		var n int
		err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1)`, pids).Scan(&n)
		return err == nil && n == 0
	})
}

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); <-time.After(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// After PostgreSQL ended every connection the pools held (what a restart
// leaves them), the next statements succeed, even those nothing retries (a
// bun or pgx statement outside a transaction): the pool looks at an idle
// connection before handing it out, sees the server's goodbye, and drops
// it and every other.
func TestEndedConnectionsDroppedBeforeUse(t *testing.T) {
	t.Parallel()
	db, admin, _ := openOne(t)
	models.LookAlways(db) // however briefly the connections sat idle
	ctx := context.Background()
	terminate(t, admin, backendPIDs(t, db)...)
	if err := db.Bun.QueryRowContext(ctx, `SELECT 1`).Scan(new(int)); err != nil {
		t.Errorf("bun statement after the server ended its connection: %v", err)
	}
	if err := db.Pool.QueryRow(ctx, `SELECT 1`).Scan(new(int)); err != nil {
		t.Errorf("pgx statement after the server ended its connection: %v", err)
	}
	if models.ConnLosses(db) == 0 {
		t.Error("the server's goodbye was not taken for a lost connection")
	}
}

// When the server ends a pooled connection just after the look (here: the
// look is blinded), the transaction's BEGIN meets the loss: InTx begins once
// more on a new connection, and the work runs once.
func TestInTxBeginsAgainOnEndedConnection(t *testing.T) {
	t.Parallel()
	db, admin, _ := openOne(t)
	models.BlindConnCheck(db)
	ctx := context.Background()
	old := backendPIDs(t, db)
	terminate(t, admin, old...)
	runs := 0
	var pid int32
	err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		runs++
		return tx.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid)
	})
	if err != nil {
		t.Fatalf("InTx after the server ended the pooled connection: %v", err)
	}
	if runs != 1 {
		t.Errorf("the transaction's work ran %d times, want 1", runs)
	}
	if pid == old[1] {
		t.Errorf("InTx ran on the ended backend %d", pid)
	}
	if models.ConnLosses(db) == 0 {
		t.Error("the failed BEGIN was not taken for a lost connection")
	}
	// The loss seen on BEGIN dropped the other pool's ended connection too.
	if err := db.Pool.QueryRow(ctx, `SELECT 1`).Scan(new(int)); err != nil {
		t.Errorf("pgx statement after the loss: %v", err)
	}
}

// A connection lost once the transaction's work has started is never
// retried: the error comes back and the work ran once.
func TestInTxDoesNotRetryStartedWork(t *testing.T) {
	t.Parallel()
	db, admin, _ := openOne(t)
	ctx := context.Background()
	runs := 0
	err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		runs++
		var pid int32
		if err := tx.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			return err
		}
		terminate(t, admin, pid)
		_, err := tx.ExecContext(ctx, `SELECT 1`)
		return err
	})
	if err == nil {
		t.Fatal("InTx succeeded on a connection ended under it")
	}
	if runs != 1 {
		t.Errorf("the transaction's work ran %d times, want 1 (err %v)", runs, err)
	}
	if err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		_, err := tx.ExecContext(ctx, `SELECT 1`)
		return err
	}); err != nil {
		t.Errorf("the next InTx: %v", err)
	}
}

// listenerLosses is a log handler that signals each "connection lost"
// the change listener reports.
type listenerLosses chan struct{}

func (h listenerLosses) Enabled(context.Context, slog.Level) bool { return true }
func (h listenerLosses) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h listenerLosses) WithGroup(string) slog.Handler            { return h }
func (h listenerLosses) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "listener: connection lost") {
		select {
		case h <- struct{}{}:
		default:
		}
	}
	return nil
}

// The change listener sees a lost connection first: it drops both pools'
// connections at once, and the DB is not ready until the listener is
// connected again, even once the pools can connect; then the next
// statements succeed.
func TestListenerLossResetsPoolsAndReadiness(t *testing.T) {
	t.Parallel()
	db, admin, name := openOne(t)
	ctx, cancel := context.WithCancel(context.Background())
	losses := make(listenerLosses, 16)
	l := models.NewListener(db.Pool, slog.New(losses))
	done := make(chan struct{})
	go func() { defer close(done); l.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	listening := func() bool {
		var n int
		err := admin.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = $1 AND query LIKE 'LISTEN %'`, name).Scan(&n)
		return err == nil && n > 0
	}
	waitFor(t, "the listener to listen", listening)
	if err := db.Ready(context.Background()); err != nil {
		t.Fatalf("Ready before any loss: %v", err)
	}

	// PostgreSQL goes away for this database: no new connection is taken,
	// and every one it had is ended, the listener's among them.
	ident := pgx.Identifier{name}.Sanitize()
	if _, err := admin.Exec(context.Background(), `ALTER DATABASE `+ident+` ALLOW_CONNECTIONS false`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), `ALTER DATABASE `+ident+` ALLOW_CONNECTIONS true`) })
	models.BlindConnCheck(db) // only the listener can see the loss
	old := backendPIDs(t, db)
	rows, err := admin.Query(context.Background(), `SELECT pid FROM pg_stat_activity WHERE datname = $1`, name)
	if err != nil {
		t.Fatal(err)
	}
	all, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < len(old)+1 {
		t.Fatalf("backends of the database: %v, want the pools' %v and the listener's", all, old)
	}
	terminate(t, admin, all...)
	waitFor(t, "the listener to see the loss", func() bool { return models.ConnLosses(db) > 0 })
	if viaPool, viaBun := models.PoolConns(db); viaPool != 0 || viaBun != 0 {
		t.Errorf("after the loss the pools hold %d and %d connections, want none", viaPool, viaBun)
	}
	if err := db.Ready(context.Background()); err == nil {
		t.Fatal("Ready while PostgreSQL takes no connection")
	}

	// The listener fails twice more to reconnect and waits its longest
	// (a second); PostgreSQL takes connections again meanwhile.
	for i := range 3 {
		select {
		case <-losses:
		case <-time.After(10 * time.Second):
			t.Fatalf("the listener reported %d lost connections, want 3", i)
		}
	}
	if _, err := admin.Exec(context.Background(), `ALTER DATABASE `+ident+` ALLOW_CONNECTIONS true`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the DB to be ready again", func() bool { return db.Ready(context.Background()) == nil })
	if !listening() {
		t.Error("Ready before the listener listens again")
	}
	// The pools' ended connections went with the reset: with the look
	// blinded, a statement on one would fail.
	for i := range 3 {
		if err := db.Pool.QueryRow(context.Background(), `SELECT 1`).Scan(new(int)); err != nil {
			t.Errorf("pgx statement %d after readiness: %v", i, err)
		}
		if err := db.Bun.QueryRowContext(context.Background(), `SELECT 1`).Scan(new(int)); err != nil {
			t.Errorf("bun statement %d after readiness: %v", i, err)
		}
	}
}
