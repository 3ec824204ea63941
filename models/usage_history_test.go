package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// Every range comes back as exactly the asked number of points, whichever
// table it reads (raw samples, minutes or hours), with the right means.
func TestUtilizationIsDownsampled(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	node, gpus := testdb.Node(t, db, 2)
	seedSamples(t, db, node.ID, gpus, 3*time.Hour)
	end := t0.Add(3 * time.Hour)
	if _, err := models.RollUp(ctx, db.Bun, end, models.Retention{}); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		span   time.Duration
		points int
	}{
		"an hour from raw samples": {time.Hour, 90},
		"a day from minutes":       {24 * time.Hour, 240},
		"a month from hours":       {30 * 24 * time.Hour, 240},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := models.NewUsageRange(end, tc.span, tc.points)
			if r.Points() != tc.points {
				t.Fatalf("range has %d points, want %d", r.Points(), tc.points)
			}
			byGPU, err := models.UtilizationByGPU(ctx, db.Bun, r, node.ID)
			if err != nil {
				t.Fatal(err)
			}
			byNode, err := models.UtilizationByNode(ctx, db.Bun, r)
			if err != nil {
				t.Fatal(err)
			}
			if len(byGPU.Times) != tc.points || len(byGPU.Values) != 2 || len(byNode.Values) != 1 {
				t.Fatalf("by GPU: %d times, %d lines; by node: %d lines", len(byGPU.Times), len(byGPU.Values), len(byNode.Values))
			}
			for i, line := range append(byGPU.Values, byNode.Values...) {
				if len(line) != tc.points {
					t.Fatalf("line %d has %d points, want %d", i, len(line), tc.points)
				}
			}
			// The last bucket with data: GPU 0 at 40%, GPU 1 at 50%, the node at 45%.
			last := -1
			for i, v := range byNode.Values[0] {
				if v != nil {
					last = i
				}
			}
			if last < 0 {
				t.Fatal("no data in the range")
			}
			got := []float64{*byGPU.Values[0][last], *byGPU.Values[1][last], *byNode.Values[0][last]}
			if d := cmp.Diff([]float64{40, 50, 45}, got); d != "" {
				t.Errorf("means (-want +got):\n%s", d)
			}
			wantLabels := []string{node.Name + "/0", node.Name + "/1"}
			if d := cmp.Diff(wantLabels, byGPU.Labels); d != "" {
				t.Errorf("labels (-want +got):\n%s", d)
			}
		})
	}
}

// GPU-hours count each allocation's overlap with each bucket, by team and
// by user; a member's view keeps every team but only their own user line.
func TestGPUHoursOver(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	_, gpus := testdb.Node(t, db, 4)
	ana, bob := testdb.User(t, db, models.RoleMember), testdb.User(t, db, models.RoleMember)
	jobA, jobB := testdb.Lease(t, db, ana, 2), testdb.Lease(t, db, bob, 1)
	start := t0.Add(30 * time.Minute)
	testdb.Start(t, db, jobA.ID, gpus[:2], start)
	testdb.Start(t, db, jobB.ID, gpus[2:3], start)
	testdb.End(t, db, jobA.ID, models.StopRelease, start.Add(3*time.Hour))
	now := t0.Add(5 * time.Hour) // bob's GPU is still held: 4.5 GPU-hours so far
	r := models.NewUsageRange(now, 24*time.Hour, 24)
	all, err := models.GPUHoursOver(ctx, db.Bun, r, now, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []models.GPUHoursTotal{{Name: ana.Name, Hours: 6}, {Name: bob.Name, Hours: 4.5}}
	if d := cmp.Diff(want, all.UserTotals); d != "" {
		t.Errorf("user totals (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]models.GPUHoursTotal{{Name: "(no team)", Hours: 10.5}}, all.TeamTotals); d != "" {
		t.Errorf("team totals (-want +got):\n%s", d)
	}
	var sum float64
	for _, v := range all.ByTeam.Values[0] {
		if v != nil {
			sum += *v
		}
	}
	if sum < 10.499 || sum > 10.501 || len(all.ByTeam.Times) != 24 {
		t.Errorf("team series sums to %v over %d buckets, want 10.5 over 24", sum, len(all.ByTeam.Times))
	}
	mine, err := models.GPUHoursOver(ctx, db.Bun, r, now, bob.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]models.GPUHoursTotal{{Name: bob.Name, Hours: 4.5}}, mine.UserTotals); d != "" {
		t.Errorf("bob's view (-want +got):\n%s", d)
	}
	if d := cmp.Diff(all.TeamTotals, mine.TeamTotals); d != "" {
		t.Errorf("bob's view of teams differs:\n%s", d)
	}
}

// Queue samples record length and wait; the history averages them per bucket.
func TestQueueHistory(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	u := testdb.User(t, db, models.RoleMember)
	testdb.Job(t, db, u, 1)
	testdb.Job(t, db, u, 3)
	at := testdb.Now.Add(10 * time.Minute) // the fixtures submit at testdb.Now
	if err := models.SampleQueue(ctx, db.Bun, at); err != nil {
		t.Fatal(err)
	}
	r := models.NewUsageRange(at.Add(time.Minute), time.Hour, 60)
	length, wait, err := models.QueueHistory(ctx, db.Bun, r)
	if err != nil {
		t.Fatal(err)
	}
	i := int(at.Sub(r.From) / r.Step)
	got := []float64{*length.Values[0][i], *length.Values[1][i], *length.Values[2][i], *wait.Values[0][i], *wait.Values[1][i]}
	if d := cmp.Diff([]float64{2, 4, 0, 10, 10}, got); d != "" {
		t.Errorf("queue sample (-want +got):\n%s", d)
	}
	if len(length.Times) != 60 || len(wait.Values[0]) != 60 {
		t.Errorf("%d points, want 60", len(length.Times))
	}
}
