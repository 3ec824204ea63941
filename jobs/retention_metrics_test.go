package jobs_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// queuedTransitions reads gpusched_job_transitions_total{state="queued"}.
func queuedTransitions(t *testing.T, reg *prometheus.Registry) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "gpusched_job_transitions_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetValue() == "queued" {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatal("no gpusched_job_transitions_total{state=\"queued\"}")
	return 0
}

// The transitions counter counts the events retention deleted too: it
// reads the same before and after a run that deletes a job's timeline.
func TestTransitionsCounterSurvivesRetention(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	owner := testdb.User(t, db, models.RoleMember)
	j := testdb.Job(t, db, owner, 1)
	testdb.Job(t, db, owner, 1) // live: its event stays
	ended := testdb.Now.Add(-365 * 24 * time.Hour)
	if _, err := db.Pool.Exec(t.Context(), `UPDATE jobs SET state = 'canceled', ended_at = $2 WHERE id = $1`, j.ID, ended); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(t.Context(), `UPDATE job_events SET created_at = $2 WHERE job_id = $1`, j.ID, ended); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(jobs.NewClusterCollector(db))
	if n := queuedTransitions(t, reg); n != 2 {
		t.Fatalf("before retention: %v moves to queued, want 2", n)
	}
	rep, err := jobs.PruneHistory(t.Context(), &jobs.Deps{DB: db, Logger: quiet(), Now: func() time.Time { return testdb.Now }})
	if err != nil || rep.Deleted["job_events"] != 1 {
		t.Fatalf("retention: %+v, %v; want the ended job's one event deleted", rep, err)
	}
	if n := queuedTransitions(t, reg); n != 2 {
		t.Errorf("after retention: %v moves to queued, want 2", n)
	}
}
