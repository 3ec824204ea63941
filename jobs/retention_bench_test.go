package jobs_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A simulated month of a 15-person team on 16 GPUs, as bulk SQL.
const (
	monthDays   = 31
	jobsPerDay  = 1500
	teamMembers = 15
)

// monthSQL returns the statements that fill a month ending at now (jobs every 57.6 s, each taking
// 2–20 min after 2 min in the queue): 60 % of the jobs run on the node
// agent (a start command, 2 KiB of output in two chunks), 35 % are leases,
// 5 % run on Ray (4 KiB of output in four 1 KiB syncs); 80 % complete, 10 %
// fail, 10 % are canceled while queued; those still running at the end are
// live. Each job has its events (5, or 2 when canceled); each ended run
// notifies its owner in the app, and a third of the owners on Slack too
// (1 % of those dead); 30 % of the submissions carry an Idempotency-Key;
// 50 audit entries a day. node is the agent the commands go to, users the
// team. Rows go in time order, as they are written.
func monthSQL(now time.Time, node int64, users []int64) []struct {
	sql  string
	args []any
} {
	return []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO jobs (name, owner_id, state, command, workdir, env, job_type, gpu_count, executor, submitted_at,
		updated_at, scheduled_at, started_at, ended_at, estimated_duration_s, exit_code, failure_reason, priority)
	SELECT 'train-' || g, ($2::bigint[])[1 + g % ` + fmt.Sprint(teamMembers) + `],
		CASE WHEN g % 10 = 9 THEN 'canceled' WHEN run_end > $1::timestamptz THEN 'running' WHEN g % 10 = 8 THEN 'failed' ELSE 'completed' END,
		'python train.py --config configs/exp' || g % 97 || '.yaml --lr 3e-4', '/home/member' || g % 15 || '/project',
		'{"WANDB_PROJECT": "exp", "HF_HOME": "/data/hf"}', 'train', CASE WHEN g % 8 = 0 THEN 8 ELSE 1 END,
		CASE WHEN g % 20 = 0 THEN 'ray' WHEN g % 20 < 8 THEN 'lease' ELSE 'node' END, sub,
		least(CASE WHEN g % 10 = 9 THEN sub + interval '60 s' ELSE run_end END, $1::timestamptz), 
		CASE WHEN g % 10 <> 9 THEN sub + interval '120 s' END, CASE WHEN g % 10 <> 9 THEN sub + interval '125 s' END,
		CASE WHEN g % 10 = 9 THEN sub + interval '60 s' WHEN run_end <= $1::timestamptz THEN run_end END, 3600,
		CASE WHEN g % 10 = 8 AND run_end <= $1::timestamptz THEN 1 WHEN g % 10 < 8 AND run_end <= $1::timestamptz THEN 0 END,
		CASE WHEN g % 10 = 8 AND run_end <= $1::timestamptz THEN 'exit 1: CUDA error: out of memory' ELSE '' END, 1 + g % 4
	FROM (SELECT g, sub, sub + interval '125 s' + (120 + (g * 7919) % 1080) * interval '1 s' AS run_end
		FROM (SELECT g, $1::timestamptz - interval '` + fmt.Sprint(monthDays) + ` days' + g * interval '57.6 s' AS sub
			FROM generate_series(0, ` + fmt.Sprint(monthDays*jobsPerDay-1) + `) g) s) s
	ORDER BY sub`, []any{now, users}},
		{`INSERT INTO job_events (job_id, from_state, to_state, reason, actor_user_id, created_at)
	SELECT j.id, e.from_state, e.to_state, e.reason, CASE WHEN e.to_state IN ('queued', 'canceled') THEN j.owner_id END, e.at
	FROM jobs j CROSS JOIN LATERAL (VALUES
		('all', NULL, 'queued', 'submitted', j.submitted_at),
		('ran', 'queued', 'scheduled', 'placed on sim-0: GPUs 0-7 (fair share 0.83, waited 2m0s)', j.scheduled_at),
		('ran', 'scheduled', 'allocating', 'dispatched to the node agent', j.scheduled_at + interval '1 s'),
		('ran', 'allocating', 'running', 'started: pid 4242', j.started_at),
		('ended', 'running', j.state, CASE j.state WHEN 'completed' THEN 'exit 0' ELSE j.failure_reason END, j.ended_at),
		('canceled', 'queued', 'canceled', 'canceled by its owner', j.ended_at)
	) e(kind, from_state, to_state, reason, at)
	WHERE e.at IS NOT NULL AND CASE e.kind WHEN 'all' THEN true WHEN 'ran' THEN j.state <> 'canceled'
		WHEN 'ended' THEN j.state IN ('completed', 'failed') ELSE j.state = 'canceled' END
	ORDER BY e.at`, []any{}},
		{`INSERT INTO node_commands (node_id, job_id, kind, payload, state, result, created_at, delivered_at, done_at)
	SELECT $1::bigint, id, 'start', jsonb_build_object('command', command, 'workdir', workdir, 'env', env, 'gpus', jsonb_build_array(0),
		'stop_grace_s', 60), 'done', '{"pid": 4242, "started": true}', scheduled_at + interval '1 s',
		scheduled_at + interval '2 s', started_at
	FROM jobs WHERE executor = 'node' AND started_at IS NOT NULL ORDER BY scheduled_at`, []any{node}},
		{`INSERT INTO job_logs (command_id, job_id, "offset", data, created_at)
	SELECT c.id, c.job_id, k * 1024, convert_to((SELECT string_agg(md5(random()::text || i || c.id || k), E'\n') FROM generate_series(1, 31) i), 'UTF8'),
		c.done_at + k * interval '10 s'
	FROM node_commands c CROSS JOIN generate_series(0, 1) k ORDER BY c.done_at, k`, []any{}},
		{`INSERT INTO ray_runs (job_id, attempt, submission_id, state, ray_status, created_at, updated_at)
	SELECT id, 1, 'gpusched-' || id || '-1', CASE WHEN ended_at IS NULL THEN 'submitted' ELSE 'done' END,
		CASE WHEN ended_at IS NULL THEN 'RUNNING' ELSE 'SUCCEEDED' END, scheduled_at, coalesce(ended_at, $1::timestamptz)
	FROM jobs WHERE executor = 'ray' AND started_at IS NOT NULL ORDER BY scheduled_at`, []any{now}},
		{`INSERT INTO ray_run_logs (run_id, "offset", data)
	SELECT r.id, k * 1024, convert_to((SELECT string_agg(md5(random()::text || i || r.id || k), E'\n') FROM generate_series(1, 31) i), 'UTF8')
	FROM ray_runs r CROSS JOIN generate_series(0, 3) k ORDER BY r.created_at, k`, []any{}},
		{`INSERT INTO notifications (user_id, channel_type, event, subject, payload, state, attempts, last_error, created_at,
		delivered_at, read_at, dedup_key)
	SELECT j.owner_id, n.kind, 'job.' || j.state, 'Job #' || j.id || ' (' || j.name || ') ' || j.state,
		jsonb_build_object('event', 'job.' || j.state, 'occurred_at', j.ended_at, 'title', 'Job #' || j.id || ' ' || j.state,
			'path', '/jobs/' || j.id, 'job', jsonb_build_object('id', j.id, 'name', j.name, 'state', j.state,
			'gpu_count', j.gpu_count, 'submitted_at', j.submitted_at, 'started_at', j.started_at, 'ended_at', j.ended_at,
			'duration_s', extract(epoch FROM j.ended_at - j.started_at)::int, 'exit_code', j.exit_code)),
		CASE WHEN n.kind = 'slack' AND j.id % 100 = 0 THEN 'dead' ELSE 'delivered' END,
		CASE WHEN n.kind = 'slack' AND j.id % 100 = 0 THEN 5 ELSE 1 END,
		CASE WHEN n.kind = 'slack' AND j.id % 100 = 0 THEN 'slack: 503 Service Unavailable' ELSE '' END, j.ended_at,
		CASE WHEN n.kind = 'slack' AND j.id % 100 = 0 THEN NULL ELSE j.ended_at + interval '1 s' END,
		CASE WHEN n.kind = 'in_app' AND j.id % 2 = 0 THEN j.ended_at + interval '1 hour' END, n.kind || ':' || j.id
	FROM jobs j CROSS JOIN LATERAL (VALUES ('in_app'), ('slack')) n(kind)
	WHERE j.state IN ('completed', 'failed') AND (n.kind = 'in_app' OR j.owner_id % 3 = 0)
	ORDER BY j.ended_at, n.kind`, []any{}},
		{`INSERT INTO idempotency_keys (user_id, key, route, request_hash, status, response, created_at)
	SELECT owner_id, 'submit-' || md5(id::text), 'POST /api/v1/queue/submit', decode(md5(id::text) || md5(name), 'hex'), 201,
		(SELECT row_to_json(x)::text FROM (SELECT j.id, j.name, j.state, j.command, j.workdir, j.env, j.gpu_count,
			j.executor, j.priority, j.submitted_at) x), submitted_at
	FROM jobs j WHERE id % 10 < 3 ORDER BY submitted_at`, []any{}},
		{`INSERT INTO audit_log (actor_user_id, action, target_type, target_id, details, remote_addr, created_at)
	SELECT ($2::bigint[])[1 + g % ` + fmt.Sprint(teamMembers) + `],
		(ARRAY['auth.signin', 'token.create', 'booking.create', 'orchestrator.policies', 'user.role'])[1 + g % 5], 'user', g::text,
		jsonb_build_object('provider', 'oidc', 'user_agent', 'Mozilla/5.0 (X11; Linux x86_64)', 'note', md5(g::text)),
		'10.0.' || g % 255 || '.7', $1::timestamptz - interval '` + fmt.Sprint(monthDays) + ` days' + g * interval '28.8 min'
	FROM generate_series(0, ` + fmt.Sprint(monthDays*50-1) + `) g`, []any{now, users}},
		{`ANALYZE`, []any{}},
	}
}

// retentionTables are the tables the month fills, reported in this order.
var retentionTables = []string{"jobs", "job_events", "node_commands", "job_logs", "ray_runs", "ray_run_logs",
	"notifications", "idempotency_keys", "audit_log", "job_events_pruned"}

// tableSize is a table's rows and pg_total_relation_size (heap, TOAST and
// indexes).
type tableSize struct{ rows, bytes int64 }

func tableSizes(b *testing.B, db *models.DB) map[string]tableSize {
	b.Helper()
	out := map[string]tableSize{}
	for _, t := range retentionTables {
		var s tableSize
		err := db.Pool.QueryRow(context.Background(), `SELECT count(*), pg_total_relation_size($1::regclass) FROM `+t, t).
			Scan(&s.rows, &s.bytes)
		if err != nil {
			b.Fatal(err)
		}
		out[t] = s
	}
	return out
}

// BenchmarkRetentionMonth fills a month of a 15-person team (monthSQL:
// 46,500 jobs) and runs retention at its end, once with the default ages
// and once with a week for job history and notifications; it logs each
// table's rows and size before, after the run, after VACUUM (the space
// freed is reused by new rows, so a table stops growing once it holds its
// age's worth) and after VACUUM FULL (what the rows kept take), and
// reports the run's time. One op is one fill and one retention run.
// Run: go test ./jobs -run '^$' -bench BenchmarkRetentionMonth -benchtime 1x
func BenchmarkRetentionMonth(b *testing.B) {
	day := scheduler.Age(24 * time.Hour)
	for _, tc := range []struct {
		name string
		r    scheduler.RetentionConfig
	}{
		{"default-ages", scheduler.RetentionConfig{}},
		{"week-ages", scheduler.RetentionConfig{JobEvents: 7 * day, NodeCommands: 7 * day, Notifications: 7 * day, AuditLog: 90 * day}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				db := testdb.New(b)
				ctx := context.Background()
				now := testdb.Now
				var users []int64
				for range teamMembers {
					users = append(users, testdb.User(b, db, models.RoleMember).ID)
				}
				node, _ := testdb.Node(b, db, 8)
				policy := scheduler.DefaultConfig()
				policy.Retention = tc.r
				if err := models.PutSchedulerConfig(ctx, db.Bun, policy, nil, now); err != nil {
					b.Fatal(err)
				}
				fillStart := time.Now()
				for _, q := range monthSQL(now, node.ID, users) {
					if _, err := db.Pool.Exec(ctx, q.sql, q.args...); err != nil {
						b.Fatalf("%s: %v", q.sql, err)
					}
				}
				b.Logf("filled in %s", time.Since(fillStart).Round(time.Millisecond))
				before := tableSizes(b, db)
				d := &jobs.Deps{DB: db, Logger: quiet(), Now: func() time.Time { return now }}
				b.StartTimer()
				start := time.Now()
				runs := 0
				for done := false; !done; runs++ {
					rep, err := jobs.PruneHistory(ctx, d)
					if err != nil {
						b.Fatal(err)
					}
					done = rep.Done
				}
				took := time.Since(start)
				b.StopTimer()
				after := tableSizes(b, db)
				if _, err := db.Pool.Exec(ctx, `VACUUM`); err != nil {
					b.Fatal(err)
				}
				vacuumed := tableSizes(b, db)
				if _, err := db.Pool.Exec(ctx, `VACUUM FULL`); err != nil {
					b.Fatal(err)
				}
				full := tableSizes(b, db)
				var sb strings.Builder
				fmt.Fprintf(&sb, "retention %s at the end of %d days × %d jobs (%d run(s), %s):\n", tc.name, monthDays, jobsPerDay,
					runs, took.Round(time.Millisecond))
				fmt.Fprintf(&sb, "%-18s %10s %10s %12s %12s %12s\n", "table", "rows", "rows after", "size before", "after VACUUM", "VACUUM FULL")
				var sum [3]int64
				for _, t := range retentionTables {
					fmt.Fprintf(&sb, "%-18s %10d %10d %12s %12s %12s\n", t, before[t].rows, after[t].rows,
						mib(before[t].bytes), mib(vacuumed[t].bytes), mib(full[t].bytes))
					sum[0], sum[1], sum[2] = sum[0]+before[t].bytes, sum[1]+vacuumed[t].bytes, sum[2]+full[t].bytes
				}
				fmt.Fprintf(&sb, "%-18s %10s %10s %12s %12s %12s", "total", "", "", mib(sum[0]), mib(sum[1]), mib(sum[2]))
				b.Log(sb.String())
				b.ReportMetric(float64(sum[0])/(1<<20), "MiB-before")
				b.ReportMetric(float64(sum[2])/(1<<20), "MiB-kept")
				b.ReportMetric(took.Seconds(), "s-retention")
			}
		})
	}
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
