package models

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/uptrace/bun"
)

// UsageRange is a time range cut into a fixed number of equal buckets: the
// usage graphs read every series downsampled to these buckets in SQL.
type UsageRange struct {
	From, To time.Time
	Step     time.Duration
}

// NewUsageRange ends at to (rounded up to a whole step), spans span and has
// points buckets of at least a second each.
func NewUsageRange(to time.Time, span time.Duration, points int) UsageRange {
	points = max(points, 1)
	step := max((span / time.Duration(points)).Truncate(time.Second), time.Second)
	end := to.Truncate(step)
	if end.Before(to) {
		end = end.Add(step)
	}
	return UsageRange{From: end.Add(-step * time.Duration(points)), To: end, Step: step}
}

// Points is the number of buckets.
func (r UsageRange) Points() int { return int(r.To.Sub(r.From) / r.Step) }

func (r UsageRange) interval() string {
	return strconv.FormatInt(int64(r.Step/time.Second), 10) + " seconds"
}

// Series is a set of lines over one range's buckets, in the shape uPlot
// draws: Times are the buckets' starts (Unix seconds), Values[i] is the
// line Labels[i], one value per bucket, nil where there is no data.
type Series struct {
	Times  []int64      `json:"times"`
	Labels []string     `json:"labels"`
	Values [][]*float64 `json:"values"`
}

// seriesBuilder gathers (bucket, key, value) rows into a Series whose lines
// come in the order keys are first added.
type seriesBuilder struct {
	r    UsageRange
	s    Series
	line map[int64]int
}

func newSeries(r UsageRange) *seriesBuilder {
	b := &seriesBuilder{r: r, line: map[int64]int{}}
	b.s.Times = make([]int64, r.Points())
	for i := range b.s.Times {
		b.s.Times[i] = r.From.Add(time.Duration(i) * r.Step).Unix()
	}
	b.s.Labels, b.s.Values = []string{}, [][]*float64{}
	return b
}

// addLine adds a line for key, once.
func (b *seriesBuilder) addLine(key int64, label string) {
	if _, ok := b.line[key]; ok {
		return
	}
	b.line[key] = len(b.s.Labels)
	b.s.Labels = append(b.s.Labels, label)
	b.s.Values = append(b.s.Values, make([]*float64, len(b.s.Times)))
}

// set puts v at bucket for key's line (added as needed with label), adding
// to what is there.
func (b *seriesBuilder) set(bucket time.Time, key int64, label string, v float64) {
	i := int(bucket.Sub(b.r.From) / b.r.Step)
	if i < 0 || i >= len(b.s.Times) {
		return
	}
	b.addLine(key, label)
	vals := b.s.Values[b.line[key]]
	if vals[i] != nil {
		v += *vals[i]
	}
	vals[i] = &v
}

// telemetrySource picks the coarsest history table whose resolution is at
// most the range's step: raw samples, minutes or hours, as rows of (at,
// gpu_id, node_id, util, w), w weighting util.
func telemetrySource(r UsageRange) string {
	switch {
	case r.Step < RollupMinute:
		return `(SELECT at, gpu_id, node_id, utilization_pct::float8 AS util, 1 AS w FROM gpu_samples)`
	case r.Step < RollupHour:
		return `(SELECT bucket AS at, gpu_id, node_id, utilization_avg::float8 AS util, samples AS w FROM gpu_rollups WHERE resolution_s = 60)`
	}
	return `(SELECT bucket AS at, gpu_id, node_id, utilization_avg::float8 AS util, samples AS w FROM gpu_rollups WHERE resolution_s = 3600)`
}

// UtilizationByNode is each node's mean GPU utilization (percent) per bucket.
func UtilizationByNode(ctx context.Context, db bun.IDB, r UsageRange) (Series, error) {
	return utilization(ctx, db, r, "node_id", 0)
}

// UtilizationByGPU is each GPU's utilization (percent) per bucket, of one
// node (nodeID > 0) or all.
func UtilizationByGPU(ctx context.Context, db bun.IDB, r UsageRange, nodeID int64) (Series, error) {
	return utilization(ctx, db, r, "gpu_id", nodeID)
}

func utilization(ctx context.Context, db bun.IDB, r UsageRange, key string, nodeID int64) (Series, error) {
	b := newSeries(r)
	labels, err := telemetryLabels(ctx, db, key, nodeID)
	if err != nil {
		return b.s, err
	}
	var rows []struct {
		Bucket time.Time `bun:"bucket"`
		Key    int64     `bun:"key"`
		Util   float64   `bun:"util"`
	}
	q := `SELECT date_bin(?::interval, t.at, ?::timestamptz) AS bucket, t.` + key + ` AS key,
    sum(t.util * t.w) / sum(t.w) AS util
FROM ` + telemetrySource(r) + ` AS t
WHERE t.at >= ? AND t.at < ? AND (? = 0 OR t.node_id = ?)
GROUP BY 1, 2 ORDER BY 1`
	if err := db.NewRaw(q, r.interval(), r.From, r.From, r.To, nodeID, nodeID).Scan(ctx, &rows); err != nil {
		return b.s, fmt.Errorf("models: utilization by %s: %w", key, err)
	}
	for _, l := range labels {
		b.addLine(l.ID, l.Label)
	}
	for _, row := range rows {
		b.set(row.Bucket, row.Key, "#"+strconv.FormatInt(row.Key, 10), row.Util)
	}
	return b.s, nil
}

type label struct {
	ID    int64  `bun:"id"`
	Label string `bun:"label"`
}

// telemetryLabels names the lines: nodes by name, GPUs as "node/index".
func telemetryLabels(ctx context.Context, db bun.IDB, key string, nodeID int64) ([]label, error) {
	var out []label
	q := `SELECT id, name AS label FROM nodes WHERE ? = 0 OR id = ? ORDER BY name`
	if key == "gpu_id" {
		q = `SELECT g.id, n.name || '/' || g.idx AS label FROM gpus g JOIN nodes n ON n.id = g.node_id
WHERE g.present AND (? = 0 OR n.id = ?) ORDER BY n.name, g.idx`
	}
	if err := db.NewRaw(q, nodeID, nodeID).Scan(ctx, &out); err != nil {
		return nil, fmt.Errorf("models: usage labels: %w", err)
	}
	return out, nil
}

// QueueHistory is the queue's length (jobs and GPUs waiting, jobs running)
// and wait (longest and mean, in minutes) per bucket, from queue_samples.
func QueueHistory(ctx context.Context, db bun.IDB, r UsageRange) (length, wait Series, err error) {
	length, wait = newSeries(r).s, newSeries(r).s
	lb, wb := newSeries(r), newSeries(r)
	for i, l := range []string{"Queued jobs", "Queued GPUs", "Running jobs"} {
		lb.addLine(int64(i), l)
	}
	for i, l := range []string{"Longest wait (min)", "Mean wait (min)"} {
		wb.addLine(int64(i), l)
	}
	var rows []struct {
		Bucket     time.Time `bun:"bucket"`
		Queued     float64   `bun:"queued"`
		QueuedGPUs float64   `bun:"queued_gpus"`
		Running    float64   `bun:"running"`
		MaxWait    float64   `bun:"max_wait"`
		AvgWait    float64   `bun:"avg_wait"`
	}
	err = db.NewRaw(`
SELECT date_bin(?::interval, at, ?::timestamptz) AS bucket, avg(queued) AS queued, avg(queued_gpus) AS queued_gpus,
    avg(running) AS running, max(max_wait_s) / 60 AS max_wait, avg(avg_wait_s) / 60 AS avg_wait
FROM queue_samples WHERE at >= ? AND at < ? GROUP BY 1 ORDER BY 1`, r.interval(), r.From, r.From, r.To).Scan(ctx, &rows)
	if err != nil {
		return length, wait, fmt.Errorf("models: queue history: %w", err)
	}
	for _, row := range rows {
		lb.set(row.Bucket, 0, "", row.Queued)
		lb.set(row.Bucket, 1, "", row.QueuedGPUs)
		lb.set(row.Bucket, 2, "", row.Running)
		wb.set(row.Bucket, 0, "", row.MaxWait)
		wb.set(row.Bucket, 1, "", row.AvgWait)
	}
	return lb.s, wb.s, nil
}
