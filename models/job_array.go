package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// JobArray is what the tasks of one array share (job_arrays). Its ID is
// its first task's job id, as Slurm's ArrayJobId.
type JobArray struct {
	bun.BaseModel `bun:"table:job_arrays,alias:ja"`

	ID         int64     `bun:"id,pk" json:"id"`
	OwnerID    int64     `bun:"owner_id,notnull" json:"owner_id"`
	Spec       string    `bun:"spec,notnull" json:"spec"`
	TaskCount  int       `bun:"task_count,notnull" json:"task_count"`
	TaskMin    int       `bun:"task_min,notnull" json:"task_min"`
	TaskMax    int       `bun:"task_max,notnull" json:"task_max"`
	MaxRunning int       `bun:"max_running,notnull" json:"max_running"`
	Ended      int       `bun:"ended,notnull" json:"ended"`
	Failed     int       `bun:"failed,notnull" json:"failed"`
	CreatedAt  time.Time `bun:"created_at,notnull" json:"created_at"`
}

// createArraySQL inserts an array's row and one queued job per task with
// its first job_events row, in one statement. Every task is the job of
// $1…$21, $28…$31 (as createJobSQL's, less the token: each task gets its
// own), whole: its shape and its share too, with its task id from $22, in
// that order; the ids come from the jobs sequence in task order, the first
// being the array's.
const createArraySQL = `
WITH t AS MATERIALIZED (
    SELECT nextval('jobs_id_seq'::regclass) AS id, task, ord
    FROM unnest($22::int[]) WITH ORDINALITY AS u(task, ord)
), f AS (
    SELECT id FROM t WHERE ord = 1
), a AS (
    INSERT INTO job_arrays (id, owner_id, spec, task_count, task_min, task_max, max_running, created_at)
    SELECT f.id, $2, $23, $24, $25, $26, $27, $17 FROM f
), j AS (
    INSERT INTO jobs (id, name, owner_id, team_id, state, command, workdir, env, job_type, gpu_count, gpu_memory_mib,
        gpu_model, allow_multi_node, priority, preemptible, estimated_duration_s, executor, max_retries,
        submitted_at, updated_at, lease_ttl_s, client_ref, checkpoint, stop_grace_s, submit_token, time_limit_s,
        waits_for, array_job_id, array_task_id, gpu_share, share_memory_mib, nodes)
    SELECT t.id, $1, $2, $3, 'queued', $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
        $17, $17, NULL, $18, $19, $20, gen_random_uuid(), $21, $28, f.id, t.task, $29, $30, $31
    FROM t, f ORDER BY t.ord
    RETURNING id, owner_id, submitted_at
), e AS (` + firstEventsSQL + `
)
SELECT f.id, (SELECT count(*) FROM j) FROM f`

// CreateArray queues job j as an array of tasks (one job per task id, in
// order; at most maxRunning of them holding GPUs at once, 0: no limit), in
// one statement, spec being the array as people read it ("0-99%8"). j
// becomes the first task (its ID the array's) and the array is returned.
func CreateArray(ctx context.Context, tx *Tx, j *Job, tasks []int, maxRunning int, spec string, now time.Time) (*JobArray, error) {
	if len(tasks) == 0 {
		return nil, fmt.Errorf("models: create array: no tasks")
	}
	env, err := prepareNewJob(j, now)
	if err != nil {
		return nil, fmt.Errorf("models: create array: %w", err)
	}
	a := &JobArray{OwnerID: j.OwnerID, Spec: spec, TaskCount: len(tasks), TaskMin: tasks[0], TaskMax: tasks[len(tasks)-1],
		MaxRunning: maxRunning, CreatedAt: now}
	for _, t := range tasks {
		a.TaskMin, a.TaskMax = min(a.TaskMin, t), max(a.TaskMax, t)
	}
	ids := make([]int32, len(tasks))
	for i, t := range tasks {
		ids[i] = int32(t)
	}
	var n int
	err = tx.PGX().QueryRow(ctx, createArraySQL, j.Name, j.OwnerID, j.TeamID, j.Command, j.Workdir, string(env), j.JobType,
		j.GPUCount, j.GPUMemoryMiB, j.GPUModel, j.AllowMultiNode, j.Priority, j.Preemptible, j.EstimatedDurationS,
		j.Executor, j.MaxRetries, now, j.ClientRef, j.Checkpoint, j.StopGraceS, j.TimeLimitS,
		ids, spec, a.TaskCount, a.TaskMin, a.TaskMax, maxRunning, j.WaitsFor, j.GPUShare, j.ShareMemoryMiB, j.Nodes).Scan(&a.ID, &n)
	if err != nil {
		return nil, fmt.Errorf("models: create array: %w", err)
	}
	if n != len(tasks) {
		return nil, fmt.Errorf("models: create array: %d tasks inserted of %d", n, len(tasks))
	}
	j.ID, j.ArrayJobID, j.ArrayTaskID = a.ID, &a.ID, &tasks[0]
	return a, nil
}

// GetArray returns array id.
func GetArray(ctx context.Context, db bun.IDB, id int64) (*JobArray, error) {
	a := new(JobArray)
	err := db.NewSelect().Model(a).Where("id = ?", id).Scan(ctx)
	return a, notFound(err, fmt.Sprintf("array %d", id))
}

// Arrays returns the arrays of ids, by id.
func Arrays(ctx context.Context, db bun.IDB, ids []int64) (map[int64]*JobArray, error) {
	out := map[int64]*JobArray{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []JobArray
	if err := db.NewSelect().Model(&rows).Where("id IN (?)", bun.In(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: arrays: %w", err)
	}
	for i := range rows {
		out[rows[i].ID] = &rows[i]
	}
	return out, nil
}

// ArrayStates counts the tasks of each array of ids by state.
func ArrayStates(ctx context.Context, db bun.IDB, ids []int64) (map[int64]map[string]int, error) {
	out := map[int64]map[string]int{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		ArrayJobID int64  `bun:"array_job_id"`
		State      string `bun:"state"`
		N          int    `bun:"n"`
	}
	if err := db.NewRaw(`SELECT array_job_id, state, count(*) AS n FROM jobs WHERE array_job_id IN (?)
		GROUP BY array_job_id, state`, bun.In(ids)).Scan(ctx, &rows); err != nil && err != errNoRows {
		return nil, fmt.Errorf("models: array states: %w", err)
	}
	for _, r := range rows {
		if out[r.ArrayJobID] == nil {
			out[r.ArrayJobID] = map[string]int{}
		}
		out[r.ArrayJobID][r.State] = r.N
	}
	return out, nil
}

// ArrayTasks returns the first limit tasks of array id in task order
// (0: all).
func ArrayTasks(ctx context.Context, db bun.IDB, id int64, limit int) ([]Job, error) {
	var out []Job
	q := db.NewSelect().Model(&out).Where("array_job_id = ?", id).OrderExpr("array_task_id")
	if limit > 0 {
		q = q.Limit(int64(limit))
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: tasks of array %d: %w", id, err)
	}
	return out, nil
}

// ArrayTaskJob returns the job of task task of array id.
func ArrayTaskJob(ctx context.Context, db bun.IDB, id int64, task int) (*Job, error) {
	j := new(Job)
	err := db.NewSelect().Model(j).Where("array_job_id = ? AND array_task_id = ?", id, task).Scan(ctx)
	return j, notFound(err, fmt.Sprintf("task %d of array %d", task, id))
}

// LiveArrayTasks returns the job ids of the tasks of array id that have
// not ended, in id order: those of tasks only (nil: every task).
func LiveArrayTasks(ctx context.Context, db bun.IDB, id int64, tasks []int) ([]int64, error) {
	var out []int64
	q := db.NewSelect().Table("jobs").Column("id").Where("array_job_id = ?", id).
		Where("state NOT IN (?)", bun.In(terminalStates())).OrderExpr("id")
	if tasks != nil {
		q = q.Where("array_task_id IN (?)", bun.In(tasks))
	}
	if err := q.Scan(ctx, &out); err != nil && err != errNoRows {
		return nil, fmt.Errorf("models: live tasks of array %d: %w", id, err)
	}
	return out, nil
}
