package jobs

import (
	"context"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// ClusterCollector reports the cluster as PostgreSQL holds it, read at each
// scrape: every replica reports the same figures, so dashboards and alerts
// work whichever replica Prometheus scrapes. When the database does not
// answer it reports gpusched_database_up 0 and nothing else of its own, so
// the scrape itself still succeeds.
type ClusterCollector struct {
	db    *models.DB
	descs map[string]*prometheus.Desc
}

// clusterMetrics are the collector's series: name → help, labels.
var clusterMetrics = map[string]struct {
	help   string
	labels []string
}{
	"gpusched_database_up":                           {"1 when PostgreSQL answered this scrape, else 0.", nil},
	"gpusched_node_up":                               {"1 when the node is up (heartbeats arrive), 0 when marked down or new.", []string{"node"}},
	"gpusched_node_last_heartbeat_timestamp_seconds": {"Unix time of the node's latest heartbeat.", []string{"node"}},
	"gpusched_gpu_utilization_ratio":                 {"GPU utilization (0–1) at the latest heartbeat.", []string{"node", "gpu"}},
	"gpusched_gpu_memory_used_bytes":                 {"GPU memory in use at the latest heartbeat.", []string{"node", "gpu"}},
	"gpusched_gpu_temperature_celsius":               {"GPU temperature at the latest heartbeat.", []string{"node", "gpu"}},
	"gpusched_gpu_healthy":                           {"1 when the GPU's health is ok, 0 when degraded or failed.", []string{"node", "gpu"}},
	"gpusched_gpu_allocated":                         {"1 when a live allocation holds the GPU.", []string{"node", "gpu"}},
	"gpusched_gpu_idle":                              {"1 when the GPU could run a job but none holds it (healthy, node up, not drained, unallocated). avg_over_time(...[24h])*24 is idle GPU-hours.", []string{"node", "gpu"}},
	"gpusched_jobs":                                  {"Jobs by state now.", []string{"state"}},
	"gpusched_job_transitions_total":                 {"Job state moves ever recorded, by the state moved to (running: started; completed, failed, canceled: finished).", []string{"state"}},
	"gpusched_queue_oldest_wait_seconds":             {"How long the longest-waiting queued job has waited.", nil},
	"gpusched_queue_wait_seconds":                    {"Queue wait of the jobs started in the last hour (submission to start), by quantile.", []string{"quantile"}},
	"gpusched_schedule_pass_duration_seconds":        {"The latest scheduling pass, whole (database and core).", nil},
	"gpusched_schedule_pass_core_seconds":            {"The latest scheduling pass's time in the scheduling core (the rest is the database).", nil},
	"gpusched_schedule_pass_last_timestamp_seconds":  {"Unix time the latest scheduling pass committed.", nil},
	"gpusched_schedule_passes_total":                 {"Scheduling passes committed, all replicas.", nil},
	"gpusched_river_jobs_discarded":                  {"River jobs that failed for good and are still kept, by kind.", []string{"kind"}},
	"gpusched_river_job_errors":                      {"Errors recorded on River jobs not yet finished (retrying), by kind.", []string{"kind"}},
	"gpusched_invariant_findings_total":              {"Broken invariants the sweep found and repaired, by kind; anything above 0 is a bug to report.", []string{"kind"}},
}

// NewClusterCollector returns a collector over db.
func NewClusterCollector(db *models.DB) *ClusterCollector {
	c := &ClusterCollector{db: db, descs: map[string]*prometheus.Desc{}}
	for name, m := range clusterMetrics {
		c.descs[name] = prometheus.NewDesc(name, m.help, m.labels, nil)
	}
	return c
}

// Describe implements prometheus.Collector.
func (c *ClusterCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *ClusterCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	emit := func(name string, kind prometheus.ValueType, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(c.descs[name], kind, v, labels...)
	}
	if err := c.db.Pool.Ping(ctx); err != nil {
		emit("gpusched_database_up", prometheus.GaugeValue, 0)
		return
	}
	emit("gpusched_database_up", prometheus.GaugeValue, 1)
	for _, q := range []func(context.Context, func(string, prometheus.ValueType, float64, ...string)) error{
		c.nodes, c.gpus, c.jobs, c.queueWait, c.pass, c.river, c.invariants,
	} {
		if err := q(ctx, emit); err != nil {
			return // the database went away mid-scrape: what was read stands
		}
	}
}

type emitFunc = func(string, prometheus.ValueType, float64, ...string)

func (c *ClusterCollector) nodes(ctx context.Context, emit emitFunc) error {
	rows, err := c.db.Pool.Query(ctx, `SELECT name, status = 'up', COALESCE(extract(epoch FROM last_heartbeat_at), 0) FROM nodes`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var up bool
		var hb float64
		if err := rows.Scan(&name, &up, &hb); err != nil {
			return err
		}
		emit("gpusched_node_up", prometheus.GaugeValue, b2f(up), name)
		emit("gpusched_node_last_heartbeat_timestamp_seconds", prometheus.GaugeValue, hb, name)
	}
	return rows.Err()
}

func (c *ClusterCollector) gpus(ctx context.Context, emit emitFunc) error {
	rows, err := c.db.Pool.Query(ctx, `SELECT n.name, g.idx, g.utilization_pct, g.memory_used_mib, g.temperature_c,
			g.health = 'ok', a.gpu_id IS NOT NULL, n.status = 'up' AND NOT g.drained
		FROM gpus g JOIN nodes n ON n.id = g.node_id
		LEFT JOIN allocations a ON a.gpu_id = g.id AND a.released_at IS NULL
		WHERE g.present`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var node string
		var idx, util, temp int
		var mem int64
		var healthy, allocated, usable bool
		if err := rows.Scan(&node, &idx, &util, &mem, &temp, &healthy, &allocated, &usable); err != nil {
			return err
		}
		gpu := strconv.Itoa(idx)
		emit("gpusched_gpu_utilization_ratio", prometheus.GaugeValue, float64(util)/100, node, gpu)
		emit("gpusched_gpu_memory_used_bytes", prometheus.GaugeValue, float64(mem)*(1<<20), node, gpu)
		emit("gpusched_gpu_temperature_celsius", prometheus.GaugeValue, float64(temp), node, gpu)
		emit("gpusched_gpu_healthy", prometheus.GaugeValue, b2f(healthy), node, gpu)
		emit("gpusched_gpu_allocated", prometheus.GaugeValue, b2f(allocated), node, gpu)
		emit("gpusched_gpu_idle", prometheus.GaugeValue, b2f(healthy && usable && !allocated), node, gpu)
	}
	return rows.Err()
}

func (c *ClusterCollector) jobs(ctx context.Context, emit emitFunc) error {
	for _, q := range []struct{ sql, name string }{
		{`SELECT state, count(*) FROM jobs GROUP BY state`, "gpusched_jobs"},
		// Events deleted by retention are counted in job_events_pruned.
		{`SELECT to_state, sum(n)::bigint FROM (SELECT to_state, count(*) AS n FROM job_events GROUP BY to_state
			UNION ALL SELECT to_state, n FROM job_events_pruned) t GROUP BY to_state`, "gpusched_job_transitions_total"},
	} {
		counts := map[string]float64{}
		rows, err := c.db.Pool.Query(ctx, q.sql)
		if err != nil {
			return err
		}
		for rows.Next() {
			var state string
			var n int64
			if err := rows.Scan(&state, &n); err != nil {
				rows.Close()
				return err
			}
			counts[state] = float64(n)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		kind := prometheus.GaugeValue
		if q.name == "gpusched_job_transitions_total" {
			kind = prometheus.CounterValue
		}
		for _, s := range models.JobStates { // every state, reported even at zero
			emit(q.name, kind, counts[s], s)
		}
	}
	return nil
}

func (c *ClusterCollector) queueWait(ctx context.Context, emit emitFunc) error {
	var oldest float64
	if err := c.db.Pool.QueryRow(ctx, `SELECT COALESCE(extract(epoch FROM now() - min(submitted_at)), 0) FROM jobs WHERE state = 'queued'`).Scan(&oldest); err != nil {
		return err
	}
	emit("gpusched_queue_oldest_wait_seconds", prometheus.GaugeValue, oldest)
	var p50, p90, p99 float64
	if err := c.db.Pool.QueryRow(ctx, `SELECT COALESCE(percentile_cont(0.5) WITHIN GROUP (ORDER BY w), 0),
			COALESCE(percentile_cont(0.9) WITHIN GROUP (ORDER BY w), 0), COALESCE(percentile_cont(0.99) WITHIN GROUP (ORDER BY w), 0)
		FROM (SELECT extract(epoch FROM started_at - submitted_at) AS w FROM jobs WHERE started_at > now() - interval '1 hour') s`).Scan(&p50, &p90, &p99); err != nil {
		return err
	}
	emit("gpusched_queue_wait_seconds", prometheus.GaugeValue, p50, "0.5")
	emit("gpusched_queue_wait_seconds", prometheus.GaugeValue, p90, "0.9")
	emit("gpusched_queue_wait_seconds", prometheus.GaugeValue, p99, "0.99")
	return nil
}

func (c *ClusterCollector) pass(ctx context.Context, emit emitFunc) error {
	st, err := models.LastPass(ctx, c.db.Bun)
	if err != nil {
		return err
	}
	emit("gpusched_schedule_pass_duration_seconds", prometheus.GaugeValue, st.DurationMS/1000)
	emit("gpusched_schedule_pass_core_seconds", prometheus.GaugeValue, st.CoreMS/1000)
	at := 0.0
	if !st.At.IsZero() {
		at = float64(st.At.UnixMilli()) / 1000
	}
	emit("gpusched_schedule_pass_last_timestamp_seconds", prometheus.GaugeValue, at)
	emit("gpusched_schedule_passes_total", prometheus.CounterValue, float64(st.PassesTotal))
	return nil
}

func (c *ClusterCollector) river(ctx context.Context, emit emitFunc) error {
	rows, err := c.db.Pool.Query(ctx, `SELECT kind, count(*) FILTER (WHERE state = 'discarded'),
			COALESCE(sum(COALESCE(array_length(errors, 1), 0)) FILTER (WHERE state IN ('retryable', 'available', 'running', 'scheduled')), 0)
		FROM river_job GROUP BY kind`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var discarded, errs int64
		if err := rows.Scan(&kind, &discarded, &errs); err != nil {
			return err
		}
		emit("gpusched_river_jobs_discarded", prometheus.GaugeValue, float64(discarded), kind)
		emit("gpusched_river_job_errors", prometheus.GaugeValue, float64(errs), kind)
	}
	return rows.Err()
}

func (c *ClusterCollector) invariants(ctx context.Context, emit emitFunc) error {
	counts, err := models.InvariantFindingCounts(ctx, c.db.Bun)
	if err != nil {
		return err
	}
	for kind, n := range counts {
		emit("gpusched_invariant_findings_total", prometheus.CounterValue, float64(n), kind)
	}
	return nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
