package jobs

import (
	"context"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestRestartEnv: a run's environment says how many times the job was
// preempted before it, beside the job's own variables (left unchanged).
func TestRestartEnv(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	owner := testdb.User(t, db, models.RoleMember)
	j := &models.Job{OwnerID: owner.ID, GPUCount: 1, Command: "train", Env: map[string]string{"A": "1"}, Checkpoint: true}
	if err := models.CreateJob(ctx, db.Pool, j, testdb.Now); err != nil {
		t.Fatal(err)
	}
	for n, want := range []string{"0", "1", "2"} {
		if n > 0 {
			if _, err := db.Bun.NewRaw("INSERT INTO job_events (job_id, to_state) VALUES (?, ?)", j.ID, models.JobPreempted).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			env, err := restartEnv(ctx, tx, j)
			if err != nil {
				return err
			}
			if env[RestartCountEnv] != want || env["A"] != "1" || len(j.Env) != 1 {
				t.Errorf("after %d preemptions: env %v (job's %v)", n, env, j.Env)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
