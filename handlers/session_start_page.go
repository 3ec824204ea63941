package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// SessionStartPage handles POST /sessions, the "Start a notebook" form
// (no JavaScript needed): queue the session and show the Sessions page,
// where it says where it waits and, once ready, its Open link.
func (h *Handlers) SessionStartPage(c echo.Context) error {
	r := api.SessionRequest{Kind: c.FormValue("kind"), Workdir: strings.TrimSpace(c.FormValue("workdir"))}
	if r.Kind == "" {
		r.Kind = "jupyter"
	}
	if v := strings.TrimSpace(c.FormValue("gpu_count")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return h.renderSessions(c, http.StatusBadRequest, "Give the number of GPUs as a whole number.")
		}
		r.GPUCount = &n
	}
	if v := strings.TrimSpace(c.FormValue("time_limit")); v != "" {
		if err := r.TimeLimit.UnmarshalJSON([]byte(strconv.Quote(v))); err != nil {
			return h.renderSessions(c, http.StatusBadRequest, "The time limit "+err.Error())
		}
	}
	if _, err := h.createSession(c, userOf(c), &r); err != nil {
		var apiErr *APIError
		if errors.As(err, &apiErr) && apiErr.Status < 500 {
			return h.renderSessions(c, apiErr.Status, apiErr.Message)
		}
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/sessions")
}

// SessionStopPage handles POST /sessions/{id}/stop: stop one's own session
// (admins: any) and show the Sessions page again.
func (h *Handlers) SessionStopPage(c echo.Context) error {
	s, _, err := h.ownSession(c)
	if err != nil {
		return err
	}
	if _, err := h.cancelJob(c, userOf(c), s.Job.ID); err != nil {
		var apiErr *APIError
		if errors.As(err, &apiErr) && apiErr.Status == http.StatusConflict {
			return c.Redirect(http.StatusSeeOther, "/sessions") // already ended
		}
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/sessions")
}
