package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// HistoryList handles GET /api/v1/history: ended jobs (completed, failed,
// canceled), the latest end first, one page at a time; see historyFilter
// for the filters and next_cursor for the next page.
func (h *Handlers) HistoryList(c echo.Context) error {
	now := h.Now()
	_, f, err := h.historyFilter(c, userOf(c), now)
	if err != nil {
		return err
	}
	jobs, next, err := models.JobHistory(c.Request().Context(), h.DB.Bun, f, now)
	if err != nil {
		return fmt.Errorf("handlers: history: %w", err)
	}
	out := api.History{Jobs: make([]api.HistoryJob, 0, len(jobs)), Limit: f.Limit}
	for i := range jobs {
		out.Jobs = append(out.Jobs, historyJSON(&jobs[i]))
	}
	if next != nil {
		out.NextCursor = next.String()
	}
	return c.JSON(http.StatusOK, out)
}

// historyJSON shapes an ended job for the API.
func historyJSON(j *models.HistoryJob) api.HistoryJob {
	out := api.HistoryJob{ID: j.ID, Name: j.Name, User: j.OwnerEmail, Team: j.Team, State: j.State, ExitCode: j.ExitCode,
		FailureReason: j.FailureReason, RequestedGPUs: j.GPUCount, GPUModel: j.GPUModel, Executor: j.Executor,
		GPUs: make([]string, 0, len(j.GPUs)), SubmittedAt: j.SubmittedAt.UTC(), EndedAt: j.EndedAt.UTC(),
		ElapsedSeconds: j.Elapsed.Seconds(), GPUHours: j.GPUSeconds / 3600, Runs: j.Runs, Retries: j.RestartCount,
		ArrayJobID: j.ArrayJobID, ArrayTaskID: j.ArrayTaskID}
	if j.StartedAt != nil {
		t := j.StartedAt.UTC()
		out.StartedAt = &t
	}
	for _, g := range j.GPUs {
		out.GPUs = append(out.GPUs, g.String())
	}
	return out
}
