package models_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestDependenciesSettle: conditions are checked at submission (met at
// once, refused when they never can be, singleton on the owner's live jobs
// of the name) and settled by the end of the job they name: met ones let
// their job go, never-met ones cancel it, saying why.
func TestDependenciesSettle(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	u := testdb.User(t, db, models.RoleMember)
	first := testdb.Job(t, db, u, 1)
	submit := func(name string, deps ...models.Condition) (*models.Job, error) {
		j := &models.Job{Name: name, OwnerID: u.ID, Command: "true", GPUCount: 1}
		err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			conds, err := models.PrepareDependencies(ctx, tx, u.ID, name, deps, testdb.Now)
			if err != nil {
				return err
			}
			j.WaitsFor = models.FormatWaits(models.Waiting(conds))
			if err := models.CreateJob(ctx, tx.PGX(), j, testdb.Now); err != nil {
				return err
			}
			return models.AddDependencies(ctx, tx, []int64{j.ID}, conds)
		})
		return j, err
	}
	okFirst := models.Condition{Kind: scheduler.DependOK, JobID: first.ID}
	waiting, err := submit("train", okFirst)
	if err != nil || waiting.WaitsFor != "ok:"+strconv.FormatInt(first.ID, 10) {
		t.Fatalf("afterok: %+v %v", waiting, err)
	}
	single, err := submit(first.Name, models.Condition{Kind: scheduler.DependSingleton})
	if err != nil || single.WaitsFor != "singleton:"+strconv.FormatInt(first.ID, 10) {
		t.Fatalf("singleton: %+v %v", single, err)
	}
	if _, err := submit("", models.Condition{Kind: scheduler.DependSingleton}); !isDependencyError(err, "give the job a name") {
		t.Errorf("singleton without a name: %v", err)
	}
	if _, err := submit("x", models.Condition{Kind: scheduler.DependAny, JobID: 1 << 40}); !isDependencyError(err, "does not exist") {
		t.Errorf("no such job: %v", err)
	}

	testdb.End(t, db, first.ID, models.StopCancel, testdb.Now) // canceled while queued
	got, err := models.GetJob(ctx, db.Bun, waiting.ID)
	if err != nil || got.State != models.JobCanceled || !strings.Contains(lastReason(t, db, waiting.ID),
		"its dependency can never be met: job "+strconv.FormatInt(first.ID, 10)+" ended canceled (afterok)") {
		t.Errorf("afterok of a canceled job: %s %q %v", got.State, lastReason(t, db, waiting.ID), err)
	}
	if got, err = models.GetJob(ctx, db.Bun, single.ID); err != nil || got.State != models.JobQueued || got.WaitsFor != "" {
		t.Errorf("singleton after the end: %s waits for %q %v", got.State, got.WaitsFor, err)
	}
	// On a job already ended: met at once, or refused.
	later, err := submit("cleanup", models.Condition{Kind: scheduler.DependNotOK, JobID: first.ID})
	if err != nil || later.WaitsFor != "" {
		t.Errorf("afternotok of a canceled job: %+v %v", later, err)
	}
	if conds, err := models.DependenciesOf(ctx, db.Bun, later.ID); err != nil || len(conds) != 1 || conds[0].MetAt == nil {
		t.Errorf("recorded: %+v %v", conds, err)
	}
	if _, err := submit("again", okFirst); !isDependencyError(err, "already ended canceled, so afterok can never be met") {
		t.Errorf("afterok of a canceled job: %v", err)
	}
}

func isDependencyError(err error, says string) bool {
	var de *models.DependencyError
	return errors.As(err, &de) && strings.Contains(de.Reason, says)
}

func lastReason(t *testing.T, db *models.DB, id int64) string {
	t.Helper()
	ev, err := models.JobEvents(context.Background(), db.Bun, id)
	if err != nil || len(ev) == 0 {
		t.Fatalf("events of %d: %v", id, err)
	}
	return ev[len(ev)-1].Reason
}
