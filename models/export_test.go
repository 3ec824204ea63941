package models

import "net"

// ConnLosses is how many times db saw its connection to PostgreSQL lost
// (and discarded its pools' connections).
func ConnLosses(db *DB) int64 { return db.health.losses.Load() }

// LookAlways makes db look at every pooled connection it hands out, however
// briefly it sat idle, for a goodbye from the server.
func LookAlways(db *DB) { db.health.lookAfter = 0 }

// BlindConnCheck makes db hand out pooled connections without seeing the
// server's goodbye, as when the server ends one just after the look: the
// first statement on it then meets the loss.
func BlindConnCheck(db *DB) { db.health.ended = func(net.Conn) (bool, string) { return false, "" } }

// PoolConns is how many connections each of db's pools holds (pgx's, bun's).
func PoolConns(db *DB) (int32, int32) {
	return db.Pool.Stat().TotalConns(), db.bunPool.Stat().TotalConns()
}
