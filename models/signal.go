package models

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/uptrace/bun"
)

var errNoRows = sql.ErrNoRows

// Channels of PostgreSQL NOTIFY that carry change signals between replicas.
const (
	ChannelJobs     = "gpusched_jobs"
	ChannelGPUs     = "gpusched_gpus"
	ChannelNodes    = "gpusched_nodes"
	ChannelBookings = "gpusched_bookings"
	// ChannelScheduler carries what else may let a job start: a GPU freed
	// from outside use or healed, a policy change, scheduling resumed.
	ChannelScheduler = "gpusched_scheduler"
	// ChannelTokens says tokens or users changed: caches of authenticated
	// tokens must be dropped.
	ChannelTokens = "gpusched_tokens"
	// ChannelQueue says a pass changed what the queue shows (positions,
	// reasons, expected starts); pages listen, the scheduler does not.
	ChannelQueue = "gpusched_queue"
	// ChannelLogs says a job's output grew (payload: the job id); job
	// pages listen to follow it.
	ChannelLogs = "gpusched_logs"
)

// Channels lists every channel a Listener subscribes to.
var Channels = []string{ChannelJobs, ChannelGPUs, ChannelNodes, ChannelBookings, ChannelScheduler, ChannelTokens, ChannelQueue, ChannelLogs}

// Signal sends a change signal (PostgreSQL NOTIFY) on channel with a short
// payload: a hint to every replica that something changed, not a message to
// a person (those are notifications, notify_*.go). Sent inside a
// transaction, it is delivered only if and when the transaction commits.
func Signal(ctx context.Context, db bun.IDB, channel, payload string) error {
	if _, err := db.ExecContext(ctx, `SELECT pg_notify(?, ?)`, channel, payload); err != nil {
		return fmt.Errorf("models: signal %s: %w", channel, err)
	}
	return nil
}
