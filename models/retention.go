package models

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"
)

// PruneCutoffs are the times before which each kind of history may go:
// now less the policy's retention ages (scheduler.RetentionConfig).
type PruneCutoffs struct {
	IdempotencyKeys time.Time // keys created before
	JobEvents       time.Time // events of jobs that ended before
	NodeCommands    time.Time // commands, and the output of their runs, of jobs that ended before
	Notifications   time.Time // delivered or dead notifications created before
	AuditLog        time.Time // audit entries created before
}

// PruneStep deletes one table's history past its cutoff, a batch at a time.
type PruneStep struct {
	Table string
	// Batch deletes at most limit rows in one statement (so its own short
	// transaction: a big backlog never holds locks for long) and returns
	// how many it deleted; fewer than limit means the table is done.
	Batch func(ctx context.Context, db bun.IDB, limit int) (int64, error)
}

// PruneSteps returns the steps of one retention run, in order: a job's
// output goes before its node commands, so that deleting a command never
// cascades to more than its batch's rows. A live job's history is never
// touched, nor a notification still being delivered; jobs themselves are
// kept.
func PruneSteps(c PruneCutoffs) []PruneStep {
	ended := bun.In(terminalStates())
	return []PruneStep{
		{"idempotency_keys", func(ctx context.Context, db bun.IDB, limit int) (int64, error) {
			return PruneIdempotencyKeys(ctx, db, c.IdempotencyKeys, limit)
		}},
		horizonStep("job_events", "job_events", c.JobEvents, func(horizon int64, limit int) (string, []any) {
			return pruneJobEventsSQL, []any{horizon, c.JobEvents, ended, limit}
		}),
		horizonStep("job_logs", "node_commands", c.NodeCommands, func(horizon int64, limit int) (string, []any) {
			return pruneJobLogsSQL, []any{horizon, c.NodeCommands, ended, limit}
		}),
		horizonStep("node_commands", "node_commands", c.NodeCommands, func(horizon int64, limit int) (string, []any) {
			return pruneNodeCommandsSQL, []any{horizon, c.NodeCommands, ended, limit}
		}),
		horizonStep("ray_run_logs", "ray_runs", c.NodeCommands, func(horizon int64, limit int) (string, []any) {
			return pruneRayLogsSQL, []any{horizon, c.NodeCommands, ended, limit}
		}),
		horizonStep("notifications", "notifications", c.Notifications, func(horizon int64, limit int) (string, []any) {
			return pruneNotificationsSQL, []any{horizon, c.Notifications, limit}
		}),
		{"audit_log", func(ctx context.Context, db bun.IDB, limit int) (int64, error) {
			return countDeleted(ctx, db, "audit_log", pruneAuditLogSQL, c.AuditLog, limit)
		}},
	}
}

// horizonStep is the step of table over rows that belong to rows of
// horizonTable, whose ids grow with created_at and which has no index on
// created_at (none is wanted on its write path): its batches look only
// below the horizon, the first id of horizonTable created at or after
// before (found once per run), since every row created earlier lies below
// it. Each batch then walks the oldest rows: those it deletes, and the few
// it must keep (a long-lived job's, one still being delivered).
func horizonStep(table, horizonTable string, before time.Time, sql func(horizon int64, limit int) (string, []any)) PruneStep {
	horizon := int64(-1)
	return PruneStep{Table: table, Batch: func(ctx context.Context, db bun.IDB, limit int) (int64, error) {
		if horizon < 0 {
			err := db.NewRaw(`SELECT coalesce((SELECT id FROM ? WHERE created_at >= ? ORDER BY id LIMIT 1),
				(SELECT coalesce(max(id), 0) + 1 FROM ?))`, bun.Ident(horizonTable), before, bun.Ident(horizonTable)).Scan(ctx, &horizon)
			if err != nil {
				return 0, fmt.Errorf("models: prune %s: horizon: %w", table, err)
			}
		}
		q, args := sql(horizon, limit)
		return countDeleted(ctx, db, table, q, args...)
	}}
}

// countDeleted runs a pruning statement, whose one row is how many rows it
// deleted, and returns that.
func countDeleted(ctx context.Context, db bun.IDB, table, sql string, args ...any) (int64, error) {
	var n int64
	if err := db.NewRaw(sql, args...).Scan(ctx, &n); err != nil {
		return 0, fmt.Errorf("models: prune %s: %w", table, err)
	}
	return n, nil
}

// pruneJobEventsSQL deletes events of ended jobs, oldest first, and adds
// them to job_events_pruned by state, so that counts of transitions over
// all time (a metrics counter) never go down.
const pruneJobEventsSQL = `
WITH doomed AS (
    SELECT e.id FROM job_events e JOIN jobs j ON j.id = e.job_id
    WHERE e.id < ? AND j.ended_at < ? AND j.state IN (?)
    ORDER BY e.id LIMIT ?
), gone AS (
    DELETE FROM job_events WHERE id IN (SELECT id FROM doomed) RETURNING to_state
), counted AS (
    INSERT INTO job_events_pruned (to_state, n) SELECT to_state, count(*) FROM gone GROUP BY to_state
    ON CONFLICT (to_state) DO UPDATE SET n = job_events_pruned.n + EXCLUDED.n
)
SELECT count(*) FROM gone`

// pruneJobLogsSQL deletes the output chunks of the node commands that
// pruneNodeCommandsSQL deletes.
const pruneJobLogsSQL = `
WITH gone AS (
    DELETE FROM job_logs WHERE (command_id, "offset") IN (
        SELECT l.command_id, l."offset" FROM node_commands c JOIN jobs j ON j.id = c.job_id
            JOIN job_logs l ON l.command_id = c.id
        WHERE c.id < ? AND c.state IN ('done', 'canceled') AND j.ended_at < ? AND j.state IN (?)
        ORDER BY c.id, l."offset" LIMIT ?)
    RETURNING 1
)
SELECT count(*) FROM gone`

// pruneNodeCommandsSQL deletes answered or canceled node commands of ended
// jobs, oldest first.
const pruneNodeCommandsSQL = `
WITH gone AS (
    DELETE FROM node_commands WHERE id IN (
        SELECT c.id FROM node_commands c JOIN jobs j ON j.id = c.job_id
        WHERE c.id < ? AND c.state IN ('done', 'canceled') AND j.ended_at < ? AND j.state IN (?)
        ORDER BY c.id LIMIT ?)
    RETURNING 1
)
SELECT count(*) FROM gone`

// pruneRayLogsSQL deletes the output kept from Ray of runs of ended jobs
// (the runs themselves stay, like the jobs).
const pruneRayLogsSQL = `
WITH gone AS (
    DELETE FROM ray_run_logs WHERE (run_id, "offset") IN (
        SELECT l.run_id, l."offset" FROM ray_run_logs l JOIN ray_runs r ON r.id = l.run_id JOIN jobs j ON j.id = r.job_id
        WHERE l.run_id < ? AND j.ended_at < ? AND j.state IN (?)
        ORDER BY l.run_id, l."offset" LIMIT ?)
    RETURNING 1
)
SELECT count(*) FROM gone`

// pruneNotificationsSQL deletes delivered and dead notifications, oldest
// first; pending ones stay until delivered or given up on.
const pruneNotificationsSQL = `
WITH gone AS (
    DELETE FROM notifications WHERE id IN (
        SELECT id FROM notifications
        WHERE id < ? AND state IN ('delivered', 'dead') AND created_at < ?
        ORDER BY id LIMIT ?)
    RETURNING 1
)
SELECT count(*) FROM gone`

// pruneAuditLogSQL deletes the oldest audit entries (indexed by time).
const pruneAuditLogSQL = `
WITH gone AS (
    DELETE FROM audit_log WHERE id IN (
        SELECT id FROM audit_log WHERE created_at < ? ORDER BY created_at LIMIT ?)
    RETURNING 1
)
SELECT count(*) FROM gone`

// terminalStates are the states a job never leaves.
func terminalStates() []string {
	return slices.DeleteFunc(slices.Clone(JobStates), func(s string) bool { return !IsTerminal(s) })
}
