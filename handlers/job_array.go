package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// arrayFrom reads a submission's "array" (none: nil): Slurm's spec, for
// node and ray jobs.
func arrayFrom(spec, executor string) (*api.ArraySpec, error) {
	if spec == "" {
		return nil, nil
	}
	if executor == models.ExecutorLease {
		return nil, invalid("array", "a lease is one client's GPUs; only node and ray jobs run as arrays")
	}
	a, err := api.ParseArray(spec)
	if err != nil { // its sentence names the array already
		return nil, Errorf(http.StatusBadRequest, api.CodeInvalidField, "%s", err)
	}
	return &a, nil
}

// arraySummary shapes array a, its tasks counted by state, for the API.
func arraySummary(a *models.JobArray, states map[string]int) *api.ArraySummary {
	if states == nil {
		states = map[string]int{}
	}
	return &api.ArraySummary{ID: a.ID, Spec: a.Spec, TaskCount: a.TaskCount, MaxRunning: a.MaxRunning, States: states}
}

// arraysOf summarises the arrays the jobs are tasks of, by array id.
func (h *Handlers) arraysOf(ctx context.Context, jobs []models.Job) (map[int64]*api.ArraySummary, error) {
	var ids []int64
	for i := range jobs {
		if id := jobs[i].ArrayJobID; id != nil {
			ids = append(ids, *id)
		}
	}
	out := map[int64]*api.ArraySummary{}
	if len(ids) == 0 {
		return out, nil
	}
	arrays, err := models.Arrays(ctx, h.DB.Bun, ids)
	if err != nil {
		return nil, err
	}
	states, err := models.ArrayStates(ctx, h.DB.Bun, ids)
	if err != nil {
		return nil, err
	}
	for id, a := range arrays {
		out[id] = arraySummary(a, states[id])
	}
	return out, nil
}

// arrayTasksShown bounds the tasks an array's row of the queue page lists.
const arrayTasksShown = 100

// arrayRow is array a as a row of the queue page shows it.
func (h *Handlers) arrayRow(ctx context.Context, a *api.ArraySummary) (*views.QueueArray, error) {
	if a == nil {
		return nil, nil
	}
	tasks, err := models.ArrayTasks(ctx, h.DB.Bun, a.ID, arrayTasksShown)
	if err != nil {
		return nil, err
	}
	out := &views.QueueArray{Spec: a.Spec, TaskCount: a.TaskCount, Counts: stateCounts(a.States), More: a.TaskCount - len(tasks)}
	for _, t := range tasks {
		if t.ArrayTaskID != nil {
			out.Tasks = append(out.Tasks, views.QueueTask{ID: t.ID, Task: *t.ArrayTaskID, State: t.State})
		}
	}
	return out, nil
}

// stateCounts words tasks counted by state, in the order of a job's life:
// "8 running, 90 queued, 2 completed".
func stateCounts(states map[string]int) string {
	var parts []string
	for _, st := range []string{models.JobRunning, models.JobAllocating, models.JobScheduled, models.JobQueued, models.JobPreempted,
		models.JobCompleted, models.JobFailed, models.JobTimeout, models.JobCanceled} {
		if n := states[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	return strings.Join(parts, ", ")
}
