package handlers

import (
	"context"
	"errors"
	"fmt"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// maxDependencies bounds the conditions of one submission.
const maxDependencies = 100

// dependenciesFrom checks the conditions a submission waits for (its
// "after") and returns them for the domain: every kind known, a job id for
// every kind but singleton, none for singleton.
func dependenciesFrom(after []api.Dependency, executor string) ([]models.Condition, error) {
	if len(after) > maxDependencies {
		return nil, invalid("after", "at most %d conditions, got %d", maxDependencies, len(after))
	}
	if len(after) > 0 && executor == models.ExecutorLease {
		return nil, invalid("after", "a lease starts when its GPUs are free; only node and ray jobs wait for other jobs")
	}
	out := make([]models.Condition, 0, len(after))
	for _, d := range after {
		switch d.Kind {
		case api.DependOK, api.DependAny, api.DependNotOK:
			if d.JobID <= 0 {
				return nil, invalid("after", "kind %q needs the job_id it waits for", d.Kind)
			}
		case api.DependSingleton:
			if d.JobID != 0 || d.ArrayTaskID != nil {
				return nil, invalid("after", "singleton takes no job_id: it waits for your earlier jobs of the same name")
			}
		default:
			return nil, invalid("after", "kind %q is not one of ok, any, notok, singleton", d.Kind)
		}
		if d.ArrayTaskID != nil && *d.ArrayTaskID < 0 {
			return nil, invalid("after", "array_task_id must not be negative")
		}
		out = append(out, models.Condition{Kind: d.Kind, JobID: d.JobID, Task: d.ArrayTaskID})
	}
	return out, nil
}

// createQueued queues job j in tx, as an array of tasks when array is set,
// with the conditions asked (none: none): checked against what they name
// (a 400 for a job that does not exist or a condition that can never be
// met) and recorded with the job, or with every task, those not met yet
// holding it back. It returns the recorded conditions and the array (nil:
// none).
func createQueued(ctx context.Context, tx *models.Tx, j *models.Job, asked []models.Condition, array *api.ArraySpec) ([]models.JobDependency, *models.JobArray, error) {
	now := j.SubmittedAt
	conds, err := models.PrepareDependencies(ctx, tx, j.OwnerID, j.Name, asked, now)
	if de := (*models.DependencyError)(nil); errors.As(err, &de) {
		return nil, nil, invalid("after", "%s", de.Reason)
	}
	if err != nil {
		return nil, nil, err
	}
	j.WaitsFor = models.FormatWaits(models.Waiting(conds))
	if array == nil {
		if err := models.CreateJob(ctx, tx.PGX(), j, now); err != nil {
			return nil, nil, err
		}
		if err := models.AddDependencies(ctx, tx, []int64{j.ID}, conds); err != nil {
			return nil, nil, fmt.Errorf("handlers: dependencies of job %d: %w", j.ID, err)
		}
		return conds, nil, nil
	}
	a, err := models.CreateArray(ctx, tx, j, array.Tasks, array.MaxRunning, array.String(), now)
	if err != nil {
		return nil, nil, err
	}
	if err := models.AddArrayDependencies(ctx, tx, a.ID, conds); err != nil {
		return nil, nil, fmt.Errorf("handlers: dependencies of array %d: %w", a.ID, err)
	}
	return conds, a, nil
}

// dependencyStates shapes a job's recorded conditions for the API.
func dependencyStates(conds []models.JobDependency) []api.DependencyState {
	out := make([]api.DependencyState, len(conds))
	for i, c := range conds {
		out[i] = api.DependencyState{Dependency: api.Dependency{Kind: c.Kind, JobID: c.OnJobID, Array: c.OnArray}, Met: c.MetAt != nil}
	}
	return out
}

// waitsForJSON is jobs.waits_for for the API.
func waitsForJSON(waits string) []api.Dependency {
	ds := models.ParseWaits(waits)
	if len(ds) == 0 {
		return nil
	}
	out := make([]api.Dependency, len(ds))
	for i, d := range ds {
		out[i] = api.Dependency{Kind: d.Kind, JobID: d.JobID, Array: d.Array}
	}
	return out
}
