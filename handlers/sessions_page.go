package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// SessionsPage handles GET /sessions: the user's sessions (where each
// waits, Open once ready, Stop) and the form that starts a notebook.
func (h *Handlers) SessionsPage(c echo.Context) error {
	return h.renderSessions(c, http.StatusOK, "")
}

// SessionsFragment handles GET /fragments/sessions: the live part of the
// Sessions page (where each session waits, Open once it is ready), which
// the page fetches again on every change signal.
func (h *Handlers) SessionsFragment(c echo.Context) error {
	out, err := h.sessionLists(c, "")
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, http.StatusOK, views.SessionsLive(csrfToken(c), out))
}

// renderSessions shows the Sessions page with msg as its error.
func (h *Handlers) renderSessions(c echo.Context, status int, msg string) error {
	out, err := h.sessionLists(c, msg)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, status, views.GPUSessionsPage(h.Page(c, "Sessions", "sessions"), out))
}

// sessionLists reads the viewer's sessions: the live ones, and the last
// ten that ended.
func (h *Handlers) sessionLists(c echo.Context, msg string) (views.GPUSessions, error) {
	rows, err := models.ListInteractive(c.Request().Context(), h.DB.Bun, userOf(c).ID, true, 30)
	if err != nil {
		return views.GPUSessions{}, err
	}
	out := views.GPUSessions{Error: msg}
	for i := range rows {
		r := sessionRow(c, &rows[i])
		if r.Live {
			out.List = append(out.List, r)
		} else if len(out.Ended) < 10 {
			out.Ended = append(out.Ended, r)
		}
	}
	return out, nil
}

// sessionRow shapes s for the page, times in the viewer's zone.
func sessionRow(c echo.Context, s *models.SessionJob) views.GPUSessionRow {
	j := &s.Job
	zone := viewerZone(c)
	r := views.GPUSessionRow{ID: j.ID, Kind: s.Session.Kind, State: j.State, GPUs: fmt.Sprint(j.GPUCount), Workdir: orHomeDir(j.Workdir),
		Started: "—", Live: j.EndedAt == nil}
	if j.GPUModel != "" {
		r.GPUs += " × " + j.GPUModel
	}
	if j.StartedAt != nil {
		r.Started = localtime.DateTime(*j.StartedAt, zone)
	}
	switch {
	case j.State == models.JobRunning && s.Session.ReadyAt != nil:
		r.Where, r.URL = "ready", api.SessionPath(j.ID)
	case j.State == models.JobRunning:
		r.Where = "starting its server"
	case j.State == models.JobQueued && j.QueuePosition != nil:
		r.Where = fmt.Sprintf("waiting: number %d in the queue", *j.QueuePosition)
		if j.PendingReason != "" {
			r.Where += " · " + j.PendingReason
		}
	case r.Live:
		r.Where = "waiting for GPUs"
	default:
		r.Where = j.State
		if j.StopReason != "" {
			r.Where += ": " + j.StopReason
		}
		r.Where += "; files kept in " + r.Workdir
	}
	return r
}

func orHomeDir(dir string) string {
	if dir == "" {
		return "your home directory"
	}
	return dir
}
