package migrations

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// lockKey is the advisory lock every migrating process takes first
// (the bytes of "gpusched" read as an integer).
const lockKey int64 = 0x6770757363686564

// Migrator applies the schema and River's migrations to one database.
type Migrator struct {
	pool   *pgxpool.Pool
	logger *slog.Logger
}

// New returns a Migrator over pool.
func New(pool *pgxpool.Pool, logger *slog.Logger) *Migrator {
	return &Migrator{pool: pool, logger: logger}
}

const createVersionTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)`

// Up applies every pending migration, River's first (our schema may refer to
// its tables later), each of ours in its own transaction, all under one
// session advisory lock so concurrent starts apply each step once.
func (m *Migrator) Up(ctx context.Context) error {
	return m.locked(ctx, func(conn *pgx.Conn) error {
		if err := m.river(ctx, rivermigrate.DirectionUp, nil); err != nil {
			return err
		}
		all, err := All()
		if err != nil {
			return err
		}
		current, err := version(ctx, conn)
		if err != nil {
			return err
		}
		for _, mig := range all {
			if mig.Version <= current {
				continue
			}
			if err := apply(ctx, conn, mig.Up, func(tx pgx.Tx) error {
				_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, mig.Version, mig.Name)
				return err
			}); err != nil {
				return fmt.Errorf("migrations: apply %04d_%s: %w", mig.Version, mig.Name, err)
			}
			m.logger.Info("migration applied", "version", mig.Version, "name", mig.Name)
		}
		return nil
	})
}

// Down rolls back the newest steps of our schema (River's tables stay unless
// all of ours are gone and river is true).
func (m *Migrator) Down(ctx context.Context, steps int, river bool) error {
	return m.locked(ctx, func(conn *pgx.Conn) error {
		all, err := All()
		if err != nil {
			return err
		}
		current, err := version(ctx, conn)
		if err != nil {
			return err
		}
		for i := len(all) - 1; i >= 0 && steps > 0; i-- {
			mig := all[i]
			if mig.Version > current {
				continue
			}
			if err := apply(ctx, conn, mig.Down, func(tx pgx.Tx) error {
				_, err := tx.Exec(ctx, `DELETE FROM schema_migrations WHERE version = $1`, mig.Version)
				return err
			}); err != nil {
				return fmt.Errorf("migrations: roll back %04d_%s: %w", mig.Version, mig.Name, err)
			}
			m.logger.Info("migration rolled back", "version", mig.Version, "name", mig.Name)
			steps--
		}
		if river {
			return m.river(ctx, rivermigrate.DirectionDown, &rivermigrate.MigrateOpts{TargetVersion: -1})
		}
		return nil
	})
}

// Current reports whether the schema is the latest this binary knows, ours
// and River's.
func (m *Migrator) Current(ctx context.Context) (bool, error) {
	applied, riverCurrent, err := m.Status(ctx)
	return err == nil && applied == Latest() && riverCurrent, err
}

// Status reports the applied version of our schema and whether River's
// migrations are all applied.
func (m *Migrator) Status(ctx context.Context) (applied int, riverCurrent bool, err error) {
	conn, err := m.pool.Acquire(ctx)
	if err != nil {
		return 0, false, fmt.Errorf("migrations: acquire connection: %w", err)
	}
	defer conn.Release()
	applied, err = version(ctx, conn.Conn())
	if err != nil {
		return 0, false, err
	}
	migrator, err := rivermigrate.New(riverpgxv5.New(m.pool), &rivermigrate.Config{Logger: m.logger})
	if err != nil {
		return applied, false, fmt.Errorf("migrations: river migrator: %w", err)
	}
	res, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, &rivermigrate.MigrateOpts{DryRun: true})
	if err != nil {
		return applied, false, fmt.Errorf("migrations: river status: %w", err)
	}
	return applied, len(res.Versions) == 0, nil
}

func (m *Migrator) river(ctx context.Context, dir rivermigrate.Direction, opts *rivermigrate.MigrateOpts) error {
	migrator, err := rivermigrate.New(riverpgxv5.New(m.pool), &rivermigrate.Config{Logger: m.logger})
	if err != nil {
		return fmt.Errorf("migrations: river migrator: %w", err)
	}
	res, err := migrator.Migrate(ctx, dir, opts)
	if err != nil {
		return fmt.Errorf("migrations: river %s: %w", dir, err)
	}
	for _, v := range res.Versions {
		m.logger.Info("river migration applied", "direction", string(dir), "version", v.Version)
	}
	return nil
}

// locked runs fn on one connection holding the advisory lock.
func (m *Migrator) locked(ctx context.Context, fn func(conn *pgx.Conn) error) (err error) {
	conn, err := m.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrations: acquire connection: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, lockKey); err != nil {
		return fmt.Errorf("migrations: take advisory lock: %w", err)
	}
	defer func() {
		// A fresh context: the caller's may be canceled, and a lock left
		// behind would block every later start until the connection dies.
		if _, uerr := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lockKey); uerr != nil {
			err = errors.Join(err, fmt.Errorf("migrations: release advisory lock: %w", uerr))
			conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()
	if _, err := conn.Exec(ctx, createVersionTable); err != nil {
		return fmt.Errorf("migrations: create schema_migrations: %w", err)
	}
	return fn(conn.Conn())
}

func version(ctx context.Context, conn *pgx.Conn) (int, error) {
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, fmt.Errorf("migrations: look for schema_migrations: %w", err)
	}
	if !exists {
		return 0, nil
	}
	var v int
	if err := conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("migrations: read version: %w", err)
	}
	return v, nil
}

func apply(ctx context.Context, conn *pgx.Conn, sql string, record func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sql); err != nil {
			return err
		}
		return record(tx)
	})
}
