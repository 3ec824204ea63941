package handlers

import (
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// sessionJSON shapes session s of owner for the API; the URL is absolute,
// on the host the request came to.
func sessionJSON(c echo.Context, s *models.SessionJob, owner string) api.Session {
	j := &s.Job
	out := api.Session{ID: j.ID, Kind: s.Session.Kind, State: j.State, User: owner, Name: j.Name, GPUCount: j.GPUCount,
		GPUModel: j.GPUModel, Workdir: j.Workdir, TimeLimitS: j.TimeLimitS, SubmittedAt: j.SubmittedAt.UTC(),
		StartedAt: utcPtr(j.StartedAt), ReadyAt: utcPtr(s.Session.ReadyAt), LastActivityAt: utcPtr(s.Session.LastActivityAt),
		EndedAt: utcPtr(j.EndedAt), StopReason: j.StopReason}
	out.Ready = j.State == models.JobRunning && s.Session.ReadyAt != nil
	out.URL = c.Scheme() + "://" + c.Request().Host + api.SessionPath(j.ID)
	if j.State == models.JobQueued {
		out.QueuePosition, out.PendingReason, out.EstimatedStart = j.QueuePosition, j.PendingReason, utcPtr(j.EstimatedStartAt)
	}
	return out
}

// utcPtr returns t in UTC, or nil.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
