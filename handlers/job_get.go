package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// JobDetailJSON is the body of GET /api/v1/jobs/{id}.
type JobDetailJSON struct {
	api.Job
	// RestartCount is how many times the job was stopped and put back in
	// the queue (preempted, or requeued after its node was lost): the
	// GPUSCHED_RESTART_COUNT its next (or current) run sees, so that run
	// is attempt RestartCount+1.
	RestartCount int                `json:"restart_count"`
	Events       []models.JobEvent  `json:"events"`
	GPUs         []api.AllocatedGPU `json:"gpus"`
}

// JobGet handles GET /api/v1/jobs/{id}: the job (an array's task with the
// array's summary), its state timeline, its GPUs, the conditions it waits
// for and, while pending, the scheduler's explanation. The owner reading a
// granted lease confirms that the grant reached its client.
func (h *Handlers) JobGet(c echo.Context) error {
	id, err := jobID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := userOf(c)
	j, err := ownJob(ctx, h.DB.Bun, u, id)
	if err != nil {
		return err
	}
	if j.OwnerID == u.ID {
		if j, err = h.confirmLease(ctx, j); err != nil {
			return err
		}
	}
	out, err := h.jobDetail(c, j)
	if err != nil {
		return fmt.Errorf("handlers: job %d: %w", id, err)
	}
	return c.JSON(http.StatusOK, out)
}

func (h *Handlers) jobDetail(c echo.Context, j *models.Job) (JobDetailJSON, error) {
	ctx := c.Request().Context()
	owner, err := models.GetUser(ctx, h.DB.Bun, j.OwnerID)
	if err != nil {
		return JobDetailJSON{}, err
	}
	events, err := models.JobEvents(ctx, h.DB.Bun, j.ID)
	if err != nil {
		return JobDetailJSON{}, err
	}
	gpus, err := models.JobGPUs(ctx, h.DB.Bun, j.ID)
	if err != nil {
		return JobDetailJSON{}, err
	}
	conds, err := models.DependenciesOf(ctx, h.DB.Bun, j.ID)
	if err != nil {
		return JobDetailJSON{}, err
	}
	out := JobDetailJSON{Job: jobJSON(j, owner.Email, h.Now()), Events: events, GPUs: []api.AllocatedGPU{}}
	out.After = dependencyStates(conds)
	for _, g := range gpus {
		out.GPUs = append(out.GPUs, api.AllocatedGPU{Node: g.NodeName, Index: g.Index, UUID: g.UUID, Model: g.Model})
	}
	out.RestartCount = j.RestartCount
	if j.ArrayJobID != nil { // a task: its array's summary too
		arrays, err := h.arraysOf(ctx, []models.Job{*j})
		if err != nil {
			return JobDetailJSON{}, err
		}
		out.Array = arrays[*j.ArrayJobID]
	}
	return out, nil
}
