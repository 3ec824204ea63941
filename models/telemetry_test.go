package models_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// t0 is the start of the synthetic telemetry history: on the hour.
var t0 = time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)

// seedSamples writes raw samples every 10s over [t0, t0+d) for two GPUs:
// the first steady at 40%, the second alternating 0% and 100%.
func seedSamples(t *testing.T, db *models.DB, nodeID int64, gpus []int64, d time.Duration) {
	t.Helper()
	_, err := db.Bun.ExecContext(context.Background(), `
INSERT INTO gpu_samples (at, gpu_id, node_id, utilization_pct, memory_used_mib, temperature_c, power_w)
SELECT s.at, g.id, ?, CASE WHEN g.id = ? THEN 40 ELSE (CASE WHEN (extract(epoch FROM s.at)::bigint / 10) % 2 = 0 THEN 0 ELSE 100 END) END,
    1024, 50, 300
FROM generate_series(?::timestamptz, ?::timestamptz - interval '10 seconds', interval '10 seconds') AS s(at),
     (SELECT unnest(?::bigint[]) AS id) AS g`, nodeID, gpus[0], t0, t0.Add(d), pgArray(gpus))
	if err != nil {
		t.Fatal(err)
	}
}

func pgArray(ids []int64) string {
	s := "{"
	for i, id := range ids {
		if i > 0 {
			s += ","
		}
		s += strconv.FormatInt(id, 10)
	}
	return s + "}"
}

type rollupRow struct {
	Resolution int       `bun:"resolution_s"`
	Bucket     time.Time `bun:"bucket"`
	GPU        int64     `bun:"gpu_id"`
	Samples    int       `bun:"samples"`
	Avg        float64   `bun:"utilization_avg"`
	Max        int       `bun:"utilization_max"`
}

func rollups(t *testing.T, db *models.DB, resolution int) []rollupRow {
	t.Helper()
	var out []rollupRow
	err := db.Bun.NewRaw(`SELECT resolution_s, bucket, gpu_id, samples, utilization_avg, utilization_max FROM gpu_rollups
WHERE resolution_s = ? ORDER BY gpu_id, bucket`, resolution).Scan(context.Background(), &out)
	if err != nil {
		t.Fatal(err)
	}
	for i := range out {
		out[i].Bucket = out[i].Bucket.UTC()
	}
	return out
}

func count(t *testing.T, db *models.DB, query string) int {
	t.Helper()
	var n int
	if err := db.Bun.NewRaw(query).Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Heartbeats land in gpu_samples one per GPU every SampleEvery: the first
// beat at once, then the mean and the peak of the beats since the last
// sample, and at once again when the clock goes back.
func TestRecordSamples(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	node, _ := testdb.Node(t, db, 2)
	uuid := func(i int) string { return "GPU-" + node.Name[len("node-"):] + "-" + strconv.Itoa(i) }
	beat := func(at time.Duration, util0, util1 int) {
		t.Helper()
		err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			samples := []models.GPUTelemetry{
				{UUID: uuid(0), UtilizationPct: util0, Health: models.HealthOK},
				{UUID: uuid(1), UtilizationPct: util1, Health: models.HealthOK},
			}
			_, err := models.RecordHeartbeat(ctx, tx, node.ID, samples, t0.Add(at))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Every 2 s for 20 s; GPU 0 has a burst at 6 s, GPU 1 is steady.
	for i, u := range []int{0, 0, 0, 90, 0, 0, 0, 0, 0, 0, 0} {
		beat(time.Duration(i)*2*time.Second, u, 40)
	}
	beat(13*time.Second, 50, 50) // the clock went back: a sample at once
	type sample struct {
		At   time.Duration
		GPU  int
		Mean int
		Max  int
	}
	var rows []struct {
		At   time.Time `bun:"at"`
		UUID string    `bun:"uuid"`
		Util int       `bun:"utilization_pct"`
		Max  int       `bun:"utilization_max"`
	}
	if err := db.Bun.NewRaw(`SELECT s.at, g.uuid, s.utilization_pct, s.utilization_max
FROM gpu_samples s JOIN gpus g ON g.id = s.gpu_id ORDER BY s.at, g.uuid`).Scan(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	var got []sample
	for _, r := range rows {
		gpu := 0
		if r.UUID == uuid(1) {
			gpu = 1
		}
		got = append(got, sample{At: r.At.Sub(t0), GPU: gpu, Mean: r.Util, Max: r.Max})
	}
	want := []sample{
		{0, 0, 0, 0}, {0, 1, 40, 40},
		// 2, 4, 6, 8 and 10 s: GPU 0's mean is 90/5, its peak 90.
		{10 * time.Second, 0, 18, 90}, {10 * time.Second, 1, 40, 40},
		{20 * time.Second, 0, 0, 0}, {20 * time.Second, 1, 40, 40},
	}
	// The beat at 13 s sorts between; it holds that beat alone.
	want = append(want[:4], append([]sample{{13 * time.Second, 0, 50, 50}, {13 * time.Second, 1, 50, 50}}, want[4:]...)...)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("samples (-want +got):\n%s", d)
	}
}

// Roll-ups: complete minutes, hours from minutes weighted by samples,
// idempotent reruns, and retention per resolution.
func TestRollUp(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	node, gpus := testdb.Node(t, db, 2)
	seedSamples(t, db, node.ID, gpus, 2*time.Hour+20*time.Second)
	now := t0.Add(2*time.Hour + 30*time.Second)
	keepAll := models.Retention{}

	res, err := models.RollUp(ctx, db.Bun, now, keepAll)
	if err != nil {
		t.Fatal(err)
	}
	if res.Minutes != 2*120 || res.Hours != 2*2 {
		t.Errorf("first run wrote %d minute and %d hour rows, want 240 and 4", res.Minutes, res.Hours)
	}
	minutes := rollups(t, db, 60)
	for _, m := range minutes {
		want := rollupRow{Resolution: 60, Bucket: m.Bucket, GPU: m.GPU, Samples: 6, Avg: 40, Max: 40}
		if m.GPU == gpus[1] {
			want.Avg, want.Max = 50, 100
		}
		if d := cmp.Diff(want, m); d != "" {
			t.Fatalf("minute roll-up (-want +got):\n%s", d)
		}
	}
	hours := rollups(t, db, 3600)
	want := []rollupRow{
		{3600, t0, gpus[0], 360, 40, 40}, {3600, t0.Add(time.Hour), gpus[0], 360, 40, 40},
		{3600, t0, gpus[1], 360, 50, 100}, {3600, t0.Add(time.Hour), gpus[1], 360, 50, 100},
	}
	if d := cmp.Diff(want, hours); d != "" {
		t.Errorf("hour roll-ups (-want +got):\n%s", d)
	}

	// Running again changes nothing.
	if _, err := models.RollUp(ctx, db.Bun, now, keepAll); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(minutes, rollups(t, db, 60)); d != "" {
		t.Errorf("rerun changed minute roll-ups:\n%s", d)
	}
	if d := cmp.Diff(hours, rollups(t, db, 3600)); d != "" {
		t.Errorf("rerun changed hour roll-ups:\n%s", d)
	}

	// A minute later the third hour starts, partial, and is redone as it fills.
	if _, err := models.RollUp(ctx, db.Bun, now.Add(time.Minute), keepAll); err != nil {
		t.Fatal(err)
	}
	third := rollups(t, db, 3600)
	if len(third) != 6 || third[2].Bucket != t0.Add(2*time.Hour) || third[2].Samples != 2 {
		t.Errorf("partial third hour: %+v", third)
	}

	// Retention: each resolution keeps its own span.
	keep := models.Retention{Raw: 30 * time.Minute, Minute: time.Hour, Hour: 90 * time.Minute}
	res, err = models.RollUp(ctx, db.Bun, now, keep)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name, query string
		want        int
	}{
		{"raw samples older than 30m", `SELECT count(*) FROM gpu_samples WHERE at < '2026-11-02T07:30:30Z'`, 0},
		{"raw samples kept: 07:30:30 to 08:00:10, every 10s, two GPUs", `SELECT count(*) FROM gpu_samples`, 2 * 179},
		{"minutes older than 1h", `SELECT count(*) FROM gpu_rollups WHERE resolution_s = 60 AND bucket < '2026-11-02T07:00:30Z'`, 0},
		{"hours older than 90m", `SELECT count(*) FROM gpu_rollups WHERE resolution_s = 3600 AND bucket < '2026-11-02T06:30:30Z'`, 0},
		{"hours kept", `SELECT count(*) FROM gpu_rollups WHERE resolution_s = 3600`, 4},
	}
	for _, c := range checks {
		if got := count(t, db, c.query); got != c.want {
			t.Errorf("%s: %d rows, want %d", c.name, got, c.want)
		}
	}
	if res.RawDeleted == 0 || res.MinutesDeleted == 0 || res.HoursDeleted != 2 {
		t.Errorf("retention deleted %+v", res)
	}
}
