package jobs

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// QueueDepthCollector reports River's job counts by queue and state at each
// scrape (one small query; the scrape itself is the rate limit).
type QueueDepthCollector struct {
	pool *pgxpool.Pool
	desc *prometheus.Desc
}

// NewQueueDepthCollector returns a collector over pool.
func NewQueueDepthCollector(pool *pgxpool.Pool) *QueueDepthCollector {
	return &QueueDepthCollector{pool: pool, desc: prometheus.NewDesc(
		"gpusched_river_jobs", "River jobs not yet finished, by queue and state.", []string{"queue", "state"}, nil)}
}

// Describe implements prometheus.Collector.
func (c *QueueDepthCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector.
func (c *QueueDepthCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	// Every queue River knows, each unfinished state even at zero, so the
	// series exist before the first job waits.
	rows, err := c.pool.Query(ctx, `SELECT q.name, s.state, count(j.id)
		FROM river_queue q
		CROSS JOIN unnest(ARRAY['available', 'scheduled', 'retryable', 'running', 'pending']) AS s(state)
		LEFT JOIN river_job j ON j.queue = q.name AND j.state::text = s.state
		GROUP BY 1, 2`)
	if err != nil {
		return // the database is away: gpusched_database_up says so, the scrape still succeeds
	}
	defer rows.Close()
	for rows.Next() {
		var queue, state string
		var n int64
		if err := rows.Scan(&queue, &state, &n); err != nil {
			ch <- prometheus.NewInvalidMetric(c.desc, err)
			return
		}
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n), queue, state)
	}
}
