package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestSweepRepairsWhatMustNeverBe breaks each invariant behind the
// lifecycle's back (raw SQL, as a bug or a hand edit would) and checks that
// one sweep repairs it through the lifecycle, records the finding, tells
// the admins, and that the next sweep finds nothing.
func TestSweepRepairsWhatMustNeverBe(t *testing.T) {
	t.Parallel()
	type check func(t *testing.T, db *models.DB, job int64)
	cases := map[string]struct {
		// breakIt starts job (a lease on gpus) and breaks an invariant.
		breakIt func(t *testing.T, db *models.DB, job int64, gpus []int64, other *models.User)
		kind    string
		after   check
	}{
		"a GPU held by a canceled job": {
			breakIt: func(t *testing.T, db *models.DB, job int64, _ []int64, _ *models.User) {
				exec(t, db, `UPDATE jobs SET state = 'canceled', ended_at = now() WHERE id = ?`, job)
			},
			kind: models.FindingHeldByEnded,
			after: func(t *testing.T, db *models.DB, job int64) {
				var live int
				var cause string
				scan(t, db, `SELECT count(*) FILTER (WHERE released_at IS NULL), max(end_cause) FROM allocations WHERE job_id = ?`, []any{job}, &live, &cause)
				if live != 0 || cause != models.CauseRepaired {
					t.Errorf("job %d: %d live allocations, end cause %q; want 0, %q", job, live, cause, models.CauseRepaired)
				}
				if j, _ := models.GetJob(context.Background(), db.Bun, job); j.State != models.JobCanceled {
					t.Errorf("job %d is %s, want it left canceled", job, j.State)
				}
			},
		},
		"two live allocations on one GPU": {
			breakIt: func(t *testing.T, db *models.DB, job int64, gpus []int64, other *models.User) {
				exec(t, db, `DROP INDEX allocations_one_live_per_gpu`)
				second := testdb.Lease(t, db, other, 1)
				exec(t, db, `UPDATE jobs SET state = 'running', started_at = now() WHERE id = ?`, second.ID)
				exec(t, db, `INSERT INTO allocations (job_id, gpu_id, user_id, created_at) VALUES (?, ?, ?, now())`,
					second.ID, gpus[0], other.ID)
			},
			kind: models.FindingDoubleAllocation,
			after: func(t *testing.T, db *models.DB, job int64) {
				// The first holder keeps the GPU; the later one gives it back
				// (a lease at once: it is requeued).
				for id, want := range map[int64]bool{job: true, job + 1: false} {
					if got := holdsOrRuns(t, db, id); got != want {
						t.Errorf("job %d still holds and runs: %v, want %v", id, got, want)
					}
				}
			},
		},
		"a running job on no GPU": {
			breakIt: func(t *testing.T, db *models.DB, job int64, _ []int64, _ *models.User) {
				exec(t, db, `UPDATE allocations SET released_at = now() WHERE job_id = ?`, job)
			},
			kind: models.FindingHoldsNothing,
			after: func(t *testing.T, db *models.DB, job int64) {
				j, _ := models.GetJob(context.Background(), db.Bun, job)
				if j.State != models.JobQueued && j.StopKind != models.StopPreempt {
					t.Errorf("job %d is %s (stop %q), want it requeued or stopping to be requeued", job, j.State, j.StopKind)
				}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := testdb.New(t)
			ctx := context.Background()
			testdb.User(t, db, models.RoleAdmin)
			owner := testdb.User(t, db, models.RoleMember)
			other := testdb.User(t, db, models.RoleMember)
			_, gpus := testdb.Node(t, db, 2)
			j := testdb.Lease(t, db, owner, 1)
			now := time.Now()
			testdb.Start(t, db, j.ID, gpus[:1], now)
			d := jobs.Deps{DB: db, Logger: quiet(), Now: time.Now, Lifecycle: &models.Lifecycle{}}
			if found, err := jobs.SweepInvariants(ctx, d); err != nil || len(found) != 0 {
				t.Fatalf("sweep of a healthy database: %v, %v; want nothing", found, err)
			}
			tc.breakIt(t, db, j.ID, gpus, other)
			found, err := jobs.SweepInvariants(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, f := range found {
				kinds = append(kinds, f.Kind)
			}
			if diff := cmp.Diff([]string{tc.kind}, kinds); diff != "" {
				t.Fatalf("findings (-want +got):\n%s", diff)
			}
			tc.after(t, db, j.ID)
			counts, err := models.InvariantFindingCounts(ctx, db.Bun)
			if err != nil || counts[tc.kind] != 1 {
				t.Errorf("recorded findings %v (%v), want one %s", counts, err, tc.kind)
			}
			var told int
			scan(t, db, `SELECT count(*) FROM notifications n JOIN users u ON u.id = n.user_id
				WHERE n.event = ? AND u.role = 'admin'`, []any{models.EventInvariantRepaired}, &told)
			if told == 0 {
				t.Error("no admin was notified of the repair")
			}
			if again, err := jobs.SweepInvariants(ctx, d); err != nil || len(again) != 0 {
				t.Errorf("second sweep: %v, %v; want nothing left to repair", again, err)
			}
		})
	}
}

func exec(t *testing.T, db *models.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.Bun.NewRaw(query, args...).Exec(context.Background()); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func scan(t *testing.T, db *models.DB, query string, args []any, dest ...any) {
	t.Helper()
	if err := db.Bun.NewRaw(query, args...).Scan(context.Background(), dest...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// holdsOrRuns says whether job id runs with a live allocation and no stop
// asked.
func holdsOrRuns(t *testing.T, db *models.DB, id int64) bool {
	t.Helper()
	var n int
	scan(t, db, `SELECT count(*) FROM jobs j JOIN allocations a ON a.job_id = j.id AND a.released_at IS NULL
		WHERE j.id = ? AND j.state = 'running' AND j.stop_kind = ''`, []any{id}, &n)
	return n > 0
}
