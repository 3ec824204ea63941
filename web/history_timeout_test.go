package web_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A job stopped at its time limit ends in timeout: the history lists it
// with the other ends, under state=timeout too, and GET
// /api/v1/jobs/history answers as GET /api/v1/history does.
func TestHistoryListsTimeouts(t *testing.T) {
	t.Parallel()
	f := newHistoryFixture(t)
	j := testdb.Job(t, f.s.DB, f.ana, 1)
	testdb.History(t, f.s.DB, j, models.JobTimeout, nil,
		testdb.Run{GPUs: f.gpus[7:8], Start: f.now.Add(-50 * time.Minute), End: f.now.Add(-45 * time.Minute), Reason: "timeout"})
	tests := map[string]struct {
		query string
		want  []int64
	}{
		"timeout":        {"?state=timeout", []int64{j.ID}},
		"mine, any end":  {"?mine=1", []int64{j.ID, f.twice, f.canceled}},
		"failed or not":  {"?state=failed,timeout", []int64{j.ID, f.failed}},
		"completed only": {"?state=completed&mine=1", []int64{f.twice}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st, h, body := f.history(t, f.anaTok, tc.query)
			if st != 200 {
				t.Fatalf("%d %s", st, body)
			}
			if d := cmp.Diff(tc.want, jobIDs(h)); d != "" {
				t.Errorf("jobs (-want +got):\n%s", d)
			}
		})
	}
	t.Run("the row", func(t *testing.T) {
		t.Parallel()
		_, h, _ := f.history(t, f.anaTok, "?state=timeout")
		if len(h.Jobs) != 1 {
			t.Fatalf("jobs: %+v", h.Jobs)
		}
		got := h.Jobs[0]
		if got.State != models.JobTimeout || !cmp.Equal(got.GPUs, []string{"sim-node-1:7"}) || got.ElapsedSeconds != 300 || got.Runs != 1 {
			t.Errorf("row: %+v", got)
		}
		if want := 5.0 / 60; got.GPUHours < want-1e-9 || got.GPUHours > want+1e-9 {
			t.Errorf("gpu_hours %v, want %v", got.GPUHours, want)
		}
	})
	t.Run("under /api/v1/jobs/history", func(t *testing.T) {
		t.Parallel()
		st1, a := f.s.Do(t, "GET", "/api/v1/history?mine=1&limit=2", f.anaTok, "")
		st2, b := f.s.Do(t, "GET", "/api/v1/jobs/history?mine=1&limit=2", f.anaTok, "")
		if st1 != 200 || st2 != 200 {
			t.Fatalf("%d %s / %d %s", st1, a, st2, b)
		}
		if d := cmp.Diff(string(a), string(b)); d != "" {
			t.Errorf("answers differ (-history +jobs/history):\n%s", d)
		}
	})
}
