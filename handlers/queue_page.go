package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// QueuePage handles GET /queue[?mine=1|team=1][&state=waiting|running]:
// waiting jobs in scheduler order with place, reason and expected start;
// running jobs with elapsed time and expected end; the form to submit.
func (h *Handlers) QueuePage(c echo.Context) error {
	q, err := h.queueView(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.QueuePage(h.Page(c, "Queue", "queue"), q))
}

// QueueFragment handles GET /fragments/queue: the live part of the page.
func (h *Handlers) QueueFragment(c echo.Context) error {
	q, err := h.queueView(c)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, http.StatusOK, views.QueueTables(q))
}

// JobCancelPage handles POST /jobs/{id}/cancel from the queue page (CSRF
// checked by the page group): an array's row cancels the whole array, a
// job's page (return=job) the one job. htmx gets the refreshed tables; a
// plain form is sent back to the queue.
func (h *Handlers) JobCancelPage(c echo.Context) error {
	id, err := jobID(c)
	if err != nil {
		return err
	}
	if _, err := h.cancel(c, userOf(c), cancelTarget{id: id}, c.FormValue("return") != "job"); err != nil {
		return err
	}
	if c.FormValue("return") != "job" && c.Request().Header.Get("HX-Request") == "true" {
		return h.QueueFragment(c)
	}
	return c.Redirect(http.StatusSeeOther, pageBack(c, id))
}

func (h *Handlers) queueView(c echo.Context) (views.Queue, error) {
	ctx := c.Request().Context()
	u := userOf(c)
	filter, f, err := queueFilter(c, u)
	if err != nil {
		return views.Queue{}, err
	}
	mine := filter.Mine
	f.Arrays = true
	jobs, err := models.ListJobs(ctx, h.DB.Bun, f)
	if err != nil {
		return views.Queue{}, fmt.Errorf("handlers: queue page: %w", err)
	}
	arrays, err := h.arraysOf(ctx, jobs)
	if err != nil {
		return views.Queue{}, err
	}
	emails, err := ownerEmails(ctx, h.DB.Bun)
	if err != nil {
		return views.Queue{}, err
	}
	q := views.Queue{Mine: mine, Filter: filter, UpdatedAt: h.Now(), CSRF: csrfToken(c)}
	if q.Form, err = h.submitForm(ctx, u, filter); err != nil {
		return views.Queue{}, err
	}
	q.Form.CSRF = q.CSRF
	gpus, err := models.LiveJobGPUs(ctx, h.DB.Bun)
	if err != nil {
		return views.Queue{}, err
	}
	loc := viewerZone(c)
	for i := range jobs {
		j := &jobs[i]
		row := views.QueueJob{ID: j.ID, Name: j.Name, User: emails[j.OwnerID], State: j.State, GPUs: j.GPUCount,
			Priority: priorityName(j.Priority), Executor: j.Executor, Code: j.PendingCode, Reason: localtime.InstantsNear(j.PendingReason, q.UpdatedAt, loc),
			Submitted: j.SubmittedAt, CanCancel: j.OwnerID == u.ID || u.IsAdmin(), GPUNames: gpus[j.ID].String()}
		row.RunsOn = placesWords(gpus[j.ID])
		if j.QueuePosition != nil {
			row.Position = *j.QueuePosition
		}
		if j.EstimatedStartAt != nil {
			row.ETA = *j.EstimatedStartAt
		}
		if j.StartedAt != nil {
			row.Started = *j.StartedAt
			if end, ok := expectedEnd(j); ok {
				row.ExpectedEnd = end
			}
		}
		if j.ArrayJobID != nil {
			if row.Array, err = h.arrayRow(ctx, arrays[*j.ArrayJobID]); err != nil {
				return views.Queue{}, err
			}
			row.ID, row.GPUNames = *j.ArrayJobID, "" // its tasks hold GPUs each
		}
		if j.State == models.JobQueued {
			q.Pending = append(q.Pending, row)
		} else {
			q.Running = append(q.Running, row)
		}
	}
	return q, nil
}

// queueFilter reads the page's filters: mine=1, team=1 (the viewer's team),
// state=waiting|running.
func queueFilter(c echo.Context, u *models.User) (views.QueueFilter, models.JobFilter, error) {
	on := func(name string) bool { v := c.QueryParam(name); return v == "1" || v == "true" }
	vf := views.QueueFilter{Mine: on("mine"), Team: on("team") && u.TeamID != nil, State: c.QueryParam("state"), HasTeam: u.TeamID != nil}
	f := models.JobFilter{Limit: 2000, Columns: queuePageColumns}
	switch vf.State {
	case "":
		f.States = []string{models.JobQueued, models.JobScheduled, models.JobAllocating, models.JobRunning}
	case "waiting":
		f.States = []string{models.JobQueued}
	case "running":
		f.States = []string{models.JobScheduled, models.JobAllocating, models.JobRunning}
	default:
		return vf, f, invalid("state", "must be waiting or running, not %q", vf.State)
	}
	switch {
	case vf.Mine:
		f.OwnerID = &u.ID
	case vf.Team:
		f.TeamID = u.TeamID
	}
	return vf, f, nil
}

// queuePageColumns are the job columns the queue page shows.
var queuePageColumns = []string{"id", "name", "owner_id", "state", "gpu_count", "priority", "executor", "queue_position",
	"pending_code", "pending_reason", "estimated_start_at", "submitted_at", "started_at", "estimated_duration_s",
	"time_limit_s", "array_job_id", "array_task_id"}
