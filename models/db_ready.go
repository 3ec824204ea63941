package models

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Ready reports whether the next request would find the database: no change
// listener on this DB is waiting to reconnect (its connection is the first
// to see PostgreSQL go, and it reconnects only once PostgreSQL is back,
// after every connection from before was dropped), and a connection of each
// pool answers a ping.
func (db *DB) Ready(ctx context.Context) error {
	if err := db.health.listening(); err != nil {
		return fmt.Errorf("models: the connection to PostgreSQL was lost and is not back: %w", err)
	}
	for _, p := range []*pgxpool.Pool{db.Pool, db.bunPool} {
		if err := p.Ping(ctx); err != nil {
			db.health.seen(err)
			return fmt.Errorf("models: ping database: %w", err)
		}
	}
	return nil
}
