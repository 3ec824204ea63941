// Package models holds the bun models of GPUScheduler's PostgreSQL schema and
// the queries over them, one file per aggregate. It knows nothing of HTTP.
package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// ErrNotFound is returned when a looked-up row does not exist.
var ErrNotFound = errors.New("not found")

// ErrConflict is returned when a write would break a uniqueness rule.
var ErrConflict = errors.New("conflict")

// DB is the database handle every part of the control plane shares. Pool
// serves River and the listener (parameterised queries, prepared and
// cached). Bun runs over its own pool in pgx's simple protocol: bun inlines
// every value into the SQL text, so each statement is new to the server and
// preparing it would cost a round trip and pollute the statement cache.
//
// Both pools drop every connection as soon as one shows the server went
// away (see connHealth), and InTx begins once more when its BEGIN met a
// connection the server had ended.
type DB struct {
	Pool *pgxpool.Pool
	Bun  *bun.DB

	bunPool *pgxpool.Pool
	health  *connHealth
	jobs    JobInserter
}

// JobInserter inserts River jobs in a caller's transaction: the side
// effects of a state change (a notification's delivery) commit with it.
// *river.Client[pgx.Tx] is one; an insert-only client (no workers) serves
// processes that run none.
type JobInserter interface {
	InsertManyTx(ctx context.Context, tx pgx.Tx, params []river.InsertManyParams) ([]*rivertype.JobInsertResult, error)
}

// Open connects to url (a PostgreSQL connection string) and checks the
// connection. maxConns caps each of the two pools. jobs inserts the River
// jobs that the models' state changes cause, in their transactions (every
// Tx of this DB carries it); nil only where nothing emits notifications.
func Open(ctx context.Context, url string, maxConns int32, jobs JobInserter) (*DB, error) {
	health := newConnHealth()
	pool, err := newPool(ctx, url, maxConns, pgx.QueryExecModeCacheStatement, health)
	if err != nil {
		return nil, err
	}
	bunPool, err := newPool(ctx, url, maxConns, pgx.QueryExecModeSimpleProtocol, health)
	if err != nil {
		pool.Close()
		return nil, err
	}
	return &DB{Pool: pool, bunPool: bunPool, health: health, jobs: jobs,
		Bun: bun.NewDB(stdlib.OpenDBFromPool(bunPool), pgdialect.New())}, nil
}

// DefaultMaxConns is the server's connection pool size (per pool) unless
// GPUSCHED_DB_MAX_CONNS says otherwise; benchmarks use it too.
const DefaultMaxConns = 20

// newPool opens one pool whose connections report to health, which also
// decides which idle connection to check before handing it out
// (health.shouldPing).
func newPool(ctx context.Context, url string, maxConns int32, mode pgx.QueryExecMode, health *connHealth) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("models: parse database url: %w", err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	cfg.MaxConnIdleTime = 5 * time.Minute
	cfg.ConnConfig.DefaultQueryExecMode = mode
	cfg.ConnConfig.Tracer = health
	cfg.ShouldPing = health.shouldPing
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("models: open pool: %w", err)
	}
	health.watch(pool)
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("models: connect to database: %w", err)
	}
	return pool, nil
}

// Close closes bun's handle and both pools.
func (db *DB) Close() {
	_ = db.Bun.Close()
	db.bunPool.Close()
	db.Pool.Close()
}

// Tx is one transaction seen two ways: as a bun.IDB for the models and as a
// pgx.Tx for River's InsertTx, so a state change and the background work it
// causes commit together (invariant 3). It carries its DB's JobInserter for
// the River jobs the models insert themselves (InsertJobs).
type Tx struct {
	bun.IDB
	pgx  pgx.Tx
	jobs JobInserter
}

// InsertJobs inserts River jobs in tx with its DB's JobInserter.
func (tx *Tx) InsertJobs(ctx context.Context, params []river.InsertManyParams) error {
	if len(params) == 0 {
		return nil
	}
	if tx.jobs == nil {
		return errors.New("models: insert River jobs: the database was opened without a job inserter")
	}
	if _, err := tx.jobs.InsertManyTx(ctx, tx.pgx, params); err != nil {
		return fmt.Errorf("models: insert %d River jobs: %w", len(params), err)
	}
	return nil
}

// PGX returns the transaction as pgx sees it, for River's InsertTx.
func (tx *Tx) PGX() pgx.Tx { return tx.pgx }

// InTx runs fn in one transaction on one connection, committing when fn
// returns nil and rolling back otherwise (and on panic).
//
// bun only knows database/sql and River only knows pgx, so the transaction is
// begun by pgx on the raw connection underneath a pinned *sql.Conn, and bun's
// queries run on that same pinned connection: both see one transaction.
//
// When pinning the connection or its BEGIN fails because the connection
// was lost, nothing has run yet, so InTx begins once more on another
// connection. A loss once fn has started is returned, never retried: by
// then a statement may have run, and at COMMIT the work may have committed.
func (db *DB) InTx(ctx context.Context, fn func(ctx context.Context, tx *Tx) error) (err error) {
	conn, ptx, err := db.begin(ctx)
	if err != nil && ctx.Err() == nil && (isConnLoss(err) || pgconn.SafeToRetry(err)) {
		conn, ptx, err = db.begin(ctx)
	}
	if err != nil {
		return err
	}
	defer conn.Close()
	rollback := func() {
		_ = conn.Raw(func(any) error { return ptx.Rollback(context.WithoutCancel(ctx)) })
	}
	defer func() {
		if p := recover(); p != nil {
			rollback()
			panic(p)
		}
		if err != nil {
			rollback()
		}
	}()
	if err = fn(ctx, &Tx{IDB: conn, pgx: ptx, jobs: db.jobs}); err != nil {
		return err
	}
	if err = conn.Raw(func(any) error { return ptx.Commit(ctx) }); err != nil {
		return fmt.Errorf("models: commit: %w", err)
	}
	return nil
}

// begin pins a connection and begins a transaction on it, letting the
// connection go again when BEGIN fails.
func (db *DB) begin(ctx context.Context) (bun.Conn, pgx.Tx, error) {
	conn, err := db.Bun.Conn(ctx)
	if err != nil {
		return bun.Conn{}, nil, fmt.Errorf("models: pin connection: %w", err)
	}
	// Begin, commit and rollback run inside conn.Raw, under database/sql's
	// lock of the driver connection: when a context is canceled mid-query,
	// database/sql closes the query's rows from another goroutine under that
	// lock, and a rollback on the raw connection beside it would race.
	var ptx pgx.Tx
	if err := conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("models: driver connection is %T, not pgx", dc)
		}
		var err error
		if ptx, err = c.Conn().Begin(ctx); err != nil {
			return fmt.Errorf("models: begin: %w", err)
		}
		return nil
	}); err != nil {
		_ = conn.Close()
		return bun.Conn{}, nil, err
	}
	return conn, ptx, nil
}

// isUniqueViolation reports whether err is PostgreSQL's unique_violation,
// optionally on the named constraint or index.
func isUniqueViolation(err error, constraint string) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		return false
	}
	return constraint == "" || pgErr.ConstraintName == constraint
}

// notFound maps sql.ErrNoRows to ErrNotFound, wrapped with what was looked up.
func notFound(err error, what string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, errNoRows) {
		return fmt.Errorf("models: %s: %w", what, ErrNotFound)
	}
	return fmt.Errorf("models: %s: %w", what, err)
}
