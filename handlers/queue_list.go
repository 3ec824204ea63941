package handlers

import (
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// QueueList handles GET /api/v1/queue[?mine=true][&user=EMAIL][&state=queued|running]:
// pending jobs in scheduler order with position, reason and estimated
// start; running jobs with their start and expected end. An array is one
// entry, its first task holding GPUs (else its first queued one) with the
// array's summary (tasks counted by state); with ?arrays=tasks its running
// tasks are entries of their own and its queued ones stand as one.
func (h *Handlers) QueueList(c echo.Context) error {
	ctx := c.Request().Context()
	u := userOf(c)
	f := models.JobFilter{States: []string{models.JobQueued, models.JobScheduled, models.JobAllocating, models.JobRunning}}
	switch c.QueryParam("state") {
	case "":
	case "queued":
		f.States = []string{models.JobQueued}
	case "running":
		f.States = []string{models.JobScheduled, models.JobAllocating, models.JobRunning}
	default:
		return Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "state must be queued or running, not %q", c.QueryParam("state"))
	}
	if c.QueryParam("mine") == "true" || c.QueryParam("mine") == "1" {
		f.OwnerID = &u.ID
	}
	if email := c.QueryParam("user"); email != "" {
		owner, err := models.GetUserByEmail(ctx, h.DB.Bun, email)
		if err != nil {
			return fromModel(err, "user "+email)
		}
		f.OwnerID = &owner.ID
	}
	f.Arrays = true
	// arrays=tasks: an array's running tasks one by one, its queued ones as
	// one entry (squeue's shape).
	switch c.QueryParam("arrays") {
	case "", "grouped":
	case "tasks":
		f.RunningTasks = true
	default:
		return Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "arrays must be grouped or tasks, not %q", c.QueryParam("arrays"))
	}
	jobs, err := models.ListJobs(ctx, h.DB.Bun, f)
	if err != nil {
		return fmt.Errorf("handlers: queue: %w", err)
	}
	emails, err := ownerEmails(ctx, h.DB.Bun)
	if err != nil {
		return err
	}
	arrays, err := h.arraysOf(ctx, jobs)
	if err != nil {
		return err
	}
	now := h.Now()
	out := api.Queue{QueuedJobs: []api.Job{}, RunningJobs: []api.Job{}}
	for i := range jobs {
		j := jobJSON(&jobs[i], emails[jobs[i].OwnerID], now)
		if id := jobs[i].ArrayJobID; id != nil && (!f.RunningTasks || jobs[i].State == models.JobQueued) {
			j.Array = arrays[*id]
		}
		if jobs[i].State == models.JobQueued {
			out.QueuedJobs = append(out.QueuedJobs, j)
		} else {
			out.RunningJobs = append(out.RunningJobs, j)
		}
	}
	st, err := models.QueueStatistics(ctx, h.DB.Bun, now, 24*time.Hour)
	if err != nil {
		return err
	}
	out.Statistics = api.QueueStats{TotalQueued: st.Queued, AverageWaitTime: st.AverageWaitS, QueueThroughput: st.ThroughputPerH}
	return c.JSON(http.StatusOK, out)
}

// QueueStatistics handles GET /api/v1/queue/statistics[?window=24h].
func (h *Handlers) QueueStatistics(c echo.Context) error {
	window := 24 * time.Hour
	if w := c.QueryParam("window"); w != "" {
		d, err := time.ParseDuration(w)
		if err != nil || d < time.Minute || d > 90*24*time.Hour {
			return Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "window must be a duration between 1m and 2160h, like 24h")
		}
		window = d
	}
	st, err := models.QueueStatistics(c.Request().Context(), h.DB.Bun, h.Now(), window)
	if err != nil {
		return fmt.Errorf("handlers: queue statistics: %w", err)
	}
	return c.JSON(http.StatusOK, st)
}
