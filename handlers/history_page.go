package handlers

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// HistoryPage handles GET /history: ended jobs with the filters of
// GET /api/v1/history (historyFilter), a page at a time, times in the
// viewer's zone.
func (h *Handlers) HistoryPage(c echo.Context) error {
	u, now := userOf(c), h.Now()
	p, f, err := h.historyFilter(c, u, now)
	if err != nil {
		return err
	}
	jobs, next, err := models.JobHistory(c.Request().Context(), h.DB.Bun, f, now)
	if err != nil {
		return fmt.Errorf("handlers: history page: %w", err)
	}
	v := views.History{Paged: p.Cursor != "", Filter: views.HistoryFilter{Mine: p.Mine, Team: p.Team && u.TeamID != nil,
		HasTeam: u.TeamID != nil, User: p.User, State: p.State, From: p.From, To: p.To, Since: p.Since}}
	for i := range jobs {
		j := &jobs[i]
		row := views.HistoryJob{ID: j.ID, Name: j.Name, User: j.OwnerEmail, State: j.State, ExitCode: j.ExitCode,
			Ended: j.EndedAt, Elapsed: j.Elapsed, GPUHours: j.GPUSeconds / 3600, GPUs: j.GPUs.String(), Runs: j.Runs, Retries: j.RestartCount}
		if j.State != models.JobCompleted {
			row.Reason = j.FailureReason
		}
		v.Jobs = append(v.Jobs, row)
	}
	if next != nil {
		q := v.Filter.Params()
		sep := "?"
		if q != "" {
			sep = "&"
		}
		v.NextURL = "/history" + q + sep + "cursor=" + url.QueryEscape(next.String())
		if p.Limit != historyDefaultLimit {
			v.NextURL += fmt.Sprintf("&limit=%d", p.Limit)
		}
	}
	title := "History"
	if s := strings.TrimSpace(p.State); s != "" {
		title = "History: " + s
	}
	return render(c, http.StatusOK, views.HistoryPage(h.Page(c, title, "history"), v))
}
