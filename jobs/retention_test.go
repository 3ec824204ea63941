package jobs_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// history builds rows of every table retention prunes, each at its own
// age before now, and inserts them in time order (as they would have been
// written: ids grow with time).
type history struct {
	t     *testing.T
	db    *models.DB
	now   time.Time
	owner int64
	node  int64
	rows  []historyRow
}

// historyRow is one row to insert at a time.
type historyRow struct {
	at   time.Time
	sql  string
	args func() []any // evaluated at insert time, when the ids it needs exist
}

func newHistory(t *testing.T, db *models.DB, now time.Time) *history {
	owner := testdb.User(t, db, models.RoleMember)
	node, _ := testdb.Node(t, db, 1)
	return &history{t: t, db: db, now: now, owner: owner.ID, node: node.ID}
}

func (h *history) ago(d time.Duration) time.Time { return h.now.Add(-d) }

func (h *history) add(at time.Time, sql string, args func() []any) {
	h.rows = append(h.rows, historyRow{at, sql, args})
}

// histJob is a job of the history and the ids of what hangs on it.
type histJob struct {
	name     string
	id       int64
	start    int64 // its node start command
	rayRun   int64
	terminal bool
}

// job adds a job submitted at submitted, in state, ended at ended (nil:
// live), with an event per step, a node start command (done) with output,
// and a Ray run with output.
func (h *history) job(name, state string, submitted time.Time, ended *time.Time) *histJob {
	j := &histJob{name: name, terminal: models.IsTerminal(state)}
	ctx := context.Background()
	err := h.db.Pool.QueryRow(ctx, `INSERT INTO jobs (name, owner_id, state, gpu_count, executor, submitted_at, updated_at,
		started_at, ended_at) VALUES ($1, $2, $3, 1, 'node', $4, $4, $4, $5) RETURNING id`,
		name, h.owner, state, submitted, ended).Scan(&j.id)
	if err != nil {
		h.t.Fatal(err)
	}
	end := h.now
	if ended != nil {
		end = *ended
	}
	steps := []string{"queued", "running"}
	if ended != nil {
		steps = append(steps, state)
	}
	for i, s := range steps {
		at := submitted.Add(time.Duration(i) * end.Sub(submitted) / time.Duration(len(steps)))
		h.add(at, `INSERT INTO job_events (job_id, to_state, reason, created_at) VALUES ($1, $2, 'test', $3)`,
			func() []any { return []any{j.id, s, at} })
	}
	h.add(submitted, `INSERT INTO node_commands (node_id, job_id, kind, state, created_at, done_at)
		VALUES ($1, $2, 'start', 'done', $3, $3) RETURNING id`, func() []any { return []any{h.node, j.id, submitted} })
	h.add(submitted.Add(time.Second), `INSERT INTO job_logs (command_id, job_id, "offset", data, created_at)
		VALUES ((SELECT max(id) FROM node_commands WHERE job_id = $1), $1, 0, 'step 1', $2)`,
		func() []any { return []any{j.id, submitted} })
	h.add(submitted.Add(2*time.Second), `INSERT INTO ray_runs (job_id, attempt, submission_id, state, created_at, updated_at)
		VALUES ($1, 1, $2, 'done', $3, $3)`, func() []any { return []any{j.id, name, submitted} })
	h.add(submitted.Add(3*time.Second), `INSERT INTO ray_run_logs (run_id, "offset", data)
		VALUES ((SELECT id FROM ray_runs WHERE job_id = $1), 0, 'ray step 1')`, func() []any { return []any{j.id} })
	return j
}

// insert writes the rows in time order.
func (h *history) insert() {
	slices.SortStableFunc(h.rows, func(a, b historyRow) int { return a.at.Compare(b.at) })
	for _, r := range h.rows {
		if _, err := h.db.Pool.Exec(context.Background(), r.sql, r.args()...); err != nil {
			h.t.Fatalf("%s: %v", r.sql, err)
		}
	}
}

// survivors returns, for each table retention prunes, the names of the
// rows left (a job's rows by its name).
func survivors(t *testing.T, db *models.DB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for table, sql := range map[string]string{
		"jobs":             `SELECT name FROM jobs`,
		"job_events":       `SELECT j.name || ':' || e.to_state FROM job_events e JOIN jobs j ON j.id = e.job_id`,
		"node_commands":    `SELECT j.name || ':' || c.kind || ':' || c.state FROM node_commands c JOIN jobs j ON j.id = c.job_id`,
		"job_logs":         `SELECT j.name FROM job_logs l JOIN jobs j ON j.id = l.job_id`,
		"ray_run_logs":     `SELECT r.submission_id FROM ray_run_logs l JOIN ray_runs r ON r.id = l.run_id`,
		"ray_runs":         `SELECT submission_id FROM ray_runs`,
		"notifications":    `SELECT subject FROM notifications`,
		"idempotency_keys": `SELECT key FROM idempotency_keys`,
		"audit_log":        `SELECT action FROM audit_log`,
	} {
		rows, err := db.Pool.Query(context.Background(), sql)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out[table] = append(out[table], s)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		slices.Sort(out[table])
	}
	return out
}

// transitions returns the metrics' count of moves into each state: events
// stored plus those retention deleted.
func transitions(t *testing.T, db *models.DB) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	rows, err := db.Pool.Query(context.Background(), `SELECT to_state, sum(n)::bigint FROM (
		SELECT to_state, count(*) AS n FROM job_events GROUP BY to_state
		UNION ALL SELECT to_state, n FROM job_events_pruned) t GROUP BY to_state`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		var n int64
		if err := rows.Scan(&s, &n); err != nil {
			t.Fatal(err)
		}
		out[s] = n
	}
	return out
}

// Retention deletes each kind of history past its own age and nothing
// else: never a live job's timeline, commands or output (however old),
// never a job, never a notification still being delivered; the audit log
// is kept by its own, longer age; transition counts do not go down.
func TestPruneHistory(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	now := testdb.Now.Add(1000 * 24 * time.Hour)
	day := 24 * time.Hour
	policy := scheduler.DefaultConfig()
	policy.Retention = scheduler.RetentionConfig{IdempotencyKeys: scheduler.Age(day), JobEvents: scheduler.Age(30 * day),
		NodeCommands: scheduler.Age(20 * day), Notifications: scheduler.Age(10 * day), AuditLog: scheduler.Age(60 * day)}
	if err := models.PutSchedulerConfig(ctx, db.Bun, policy, nil, now); err != nil {
		t.Fatal(err)
	}

	h := newHistory(t, db, now)
	ended := func(d time.Duration) *time.Time { at := h.ago(d); return &at }
	h.job("ended-31d", models.JobCompleted, h.ago(32*day), ended(31*day))          // all its history goes
	h.job("ended-29d", models.JobFailed, h.ago(40*day), ended(29*day))             // its timeline stays, its commands go
	h.job("ended-19d", models.JobCanceled, h.ago(19*day+time.Hour), ended(19*day)) // all stays
	h.job("running-100d", models.JobRunning, h.ago(100*day), nil)                  // live: all stays
	h.job("queued-100d", models.JobQueued, h.ago(100*day), nil)                    // live: all stays
	stop := h.job("canceled-31d", models.JobCanceled, h.ago(31*day+time.Hour), ended(31*day))
	h.add(h.ago(31*day), `INSERT INTO node_commands (node_id, job_id, kind, state, created_at) VALUES ($1, $2, 'stop', 'pending', $3)`,
		func() []any { return []any{h.node, stop.id, h.ago(31 * day)} }) // never answered: stays
	for _, n := range []struct {
		subject, kind, state string
		age                  time.Duration
	}{
		{"delivered-11d", "slack", "delivered", 11 * day},
		{"dead-11d", "webhook", "dead", 11 * day},
		{"pending-11d", "email", "pending", 11 * day},
		{"in-app-11d", "in_app", "delivered", 11 * day},
		{"delivered-9d", "slack", "delivered", 9 * day},
	} {
		at := h.ago(n.age)
		h.add(at, `INSERT INTO notifications (user_id, channel_type, event, subject, payload, state, created_at, delivered_at, dedup_key)
			VALUES ($1, $2, 'job.completed', $3, '{}', $4, $5, CASE WHEN $4 = 'delivered' THEN $5::timestamptz END, $3)`,
			func() []any { return []any{h.owner, n.kind, n.subject, n.state, at} })
	}
	for _, k := range []struct {
		key string
		age time.Duration
	}{{"key-2d", 2 * day}, {"key-12h", 12 * time.Hour}} {
		at := h.ago(k.age)
		h.add(at, `INSERT INTO idempotency_keys (user_id, key, route, request_hash, status, response, created_at)
			VALUES ($1, $2, 'POST /api/v1/queue/submit', '\x00', 201, '{}', $3)`, func() []any { return []any{h.owner, k.key, at} })
	}
	for i := range 2500 { // several batches of expired keys
		at := h.ago(3 * day)
		h.add(at, `INSERT INTO idempotency_keys (user_id, key, route, request_hash, status, response, created_at)
			VALUES ($1, $2, 'POST /api/v1/queue/submit', '\x00', 201, '{}', $3)`,
			func() []any { return []any{h.owner, fmt.Sprintf("old-%d", i), at} })
	}
	for _, a := range []struct {
		action string
		age    time.Duration
	}{{"audit-61d", 61 * day}, {"audit-59d", 59 * day}} {
		at := h.ago(a.age)
		h.add(at, `INSERT INTO audit_log (action, created_at) VALUES ($1, $2)`, func() []any { return []any{a.action, at} })
	}
	h.insert()
	before := transitions(t, db)

	clock := func() time.Time { return now }
	rep, err := jobs.PruneHistory(ctx, &jobs.Deps{DB: db, Logger: quiet(), Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	allJobs := []string{"canceled-31d", "ended-19d", "ended-29d", "ended-31d", "queued-100d", "running-100d"}
	want := map[string][]string{
		"jobs": allJobs,
		"job_events": {"ended-19d:canceled", "ended-19d:queued", "ended-19d:running", "ended-29d:failed", "ended-29d:queued",
			"ended-29d:running", "queued-100d:queued", "queued-100d:running", "running-100d:queued", "running-100d:running"},
		"node_commands":    {"canceled-31d:stop:pending", "ended-19d:start:done", "queued-100d:start:done", "running-100d:start:done"},
		"job_logs":         {"ended-19d", "queued-100d", "running-100d"},
		"ray_run_logs":     {"ended-19d", "queued-100d", "running-100d"},
		"ray_runs":         allJobs,
		"notifications":    {"delivered-9d", "pending-11d"},
		"idempotency_keys": {"key-12h"},
		"audit_log":        {"audit-59d"},
	}
	if d := cmp.Diff(want, survivors(t, db)); d != "" {
		t.Errorf("rows left (-want +got):\n%s", d)
	}
	wantDeleted := map[string]int64{"idempotency_keys": 2501, "job_events": 6, "job_logs": 3, "node_commands": 3,
		"ray_run_logs": 3, "notifications": 3, "audit_log": 1}
	if d := cmp.Diff(jobs.PruneReport{Deleted: wantDeleted, Done: true}, rep); d != "" {
		t.Errorf("report (-want +got):\n%s", d)
	}
	if d := cmp.Diff(before, transitions(t, db)); d != "" {
		t.Errorf("transition counts changed (-before +after):\n%s", d)
	}
	// A second run finds nothing more.
	rep, err = jobs.PruneHistory(ctx, &jobs.Deps{DB: db, Logger: quiet(), Now: clock})
	if err != nil || !rep.Done {
		t.Fatalf("second run: %+v, %v", rep, err)
	}
	for table, n := range rep.Deleted {
		if n != 0 {
			t.Errorf("second run deleted %d rows of %s", n, table)
		}
	}
}

// A run whose budget is spent stops before its next batch and says so; the
// next run goes on where it stopped.
func TestPruneHistoryBudget(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	now := testdb.Now.Add(1000 * 24 * time.Hour)
	h := newHistory(t, db, now)
	for i := range 1500 {
		at := h.ago(48 * time.Hour)
		h.add(at, `INSERT INTO idempotency_keys (user_id, key, route, request_hash, status, response, created_at)
			VALUES ($1, $2, 'POST /api/v1/queue/submit', '\x00', 201, '{}', $3)`,
			func() []any { return []any{h.owner, fmt.Sprintf("old-%d", i), at} })
	}
	h.insert()
	// The clock jumps past the budget after the run's first batch.
	calls := 0
	clock := func() time.Time {
		calls++
		if calls > 2 {
			return now.Add(time.Hour)
		}
		return now
	}
	rep, err := jobs.PruneHistory(ctx, &jobs.Deps{DB: db, Logger: quiet(), Now: clock})
	if err != nil || rep.Done || rep.Deleted["idempotency_keys"] != 1000 {
		t.Fatalf("first run: %+v, %v; want 1000 keys deleted, not done", rep, err)
	}
	rep, err = jobs.PruneHistory(ctx, &jobs.Deps{DB: db, Logger: quiet(), Now: func() time.Time { return now }})
	if err != nil || !rep.Done || rep.Deleted["idempotency_keys"] != 500 {
		t.Fatalf("second run: %+v, %v; want the other 500 deleted, done", rep, err)
	}
}
