package models_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestArrayWaitingLongOnce: an array whose tasks wait long is told of once,
// not once per task; a task held back by the array's %N is not told of.
func TestArrayWaitingLongOnce(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	u := testdb.User(t, db, models.RoleMember)
	long := testdb.Now.Add(-3 * time.Hour)
	var sweep, held *models.JobArray
	err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		var err error
		j := &models.Job{Name: "sweep", OwnerID: u.ID, Command: "true", GPUCount: 1}
		if sweep, err = models.CreateArray(ctx, tx, j, []int{0, 1, 2, 5}, 0, "0-2,5", long); err != nil {
			return err
		}
		if j.ID != sweep.ID || *j.ArrayTaskID != 0 || sweep.TaskCount != 4 || sweep.TaskMax != 5 {
			t.Errorf("first task %+v of array %+v", j, sweep)
		}
		k := &models.Job{Name: "limited", OwnerID: u.ID, Command: "true", GPUCount: 1}
		held, err = models.CreateArray(ctx, tx, k, []int{0, 1}, 1, "0-1%1", long)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE jobs SET pending_code = 'array_limit' WHERE array_job_id = $1`, held.ID); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			return models.EmitWaitingLong(ctx, tx, time.Hour, testdb.Now)
		}); err != nil {
			t.Fatal(err)
		}
	}
	var subjects []string
	if err := db.Bun.NewRaw(`SELECT subject FROM notifications WHERE event = ? AND channel_type = 'in_app' ORDER BY id`,
		models.EventJobWaitingLong).Scan(ctx, &subjects); err != nil {
		t.Fatal(err)
	}
	if want := "array:" + strconv.FormatInt(sweep.ID, 10); len(subjects) != 1 || subjects[0] != want {
		t.Errorf("waiting_long told of %q, want once, %s", subjects, want)
	}
	tasks, err := models.ArrayTasks(ctx, db.Bun, sweep.ID, 0)
	if err != nil || len(tasks) != 4 || *tasks[3].ArrayTaskID != 5 || *tasks[3].ArrayJobID != sweep.ID {
		t.Errorf("tasks %+v %v", tasks, err)
	}
}
