package handlers

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// History page sizes: the default, and the most one page may hold.
const (
	historyDefaultLimit = 50
	historyMaxLimit     = 200
)

// historyParams are the history's filters as given, for the page to show
// them back.
type historyParams struct {
	Mine, Team bool
	User       string // owner's email
	State      string // "", or states separated by commas
	From, To   string // as given: dates (2026-11-20) or RFC 3339
	Since      string // "7d", "24h"
	Cursor     string
	Limit      int
}

// historyFilter reads GET /api/v1/history's and /history's query:
// mine=1, team=1 (the caller's team), user=EMAIL, state=failed[,canceled],
// from and to (RFC 3339, or a date in the caller's zone: to's day is
// included; until is another name for to), since=7d (from that long ago;
// or a date or time, as from), limit (1–200, default 50) and cursor (the
// answer's next_cursor). Everyone sees every ended job, as in
// the queue.
func (h *Handlers) historyFilter(c echo.Context, u *models.User, now time.Time) (historyParams, models.HistoryFilter, error) {
	on := func(name string) bool { v := c.QueryParam(name); return v == "1" || v == "true" }
	p := historyParams{Mine: on("mine"), Team: on("team"), User: strings.TrimSpace(c.QueryParam("user")),
		State: c.QueryParam("state"), From: c.QueryParam("from"), To: cmp.Or(c.QueryParam("to"), c.QueryParam("until")), Since: c.QueryParam("since"),
		Cursor: c.QueryParam("cursor"), Limit: historyDefaultLimit}
	f := models.HistoryFilter{}
	loc := userZone(u)
	if s := c.QueryParam("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > historyMaxLimit {
			return p, f, Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "limit must be a number from 1 to %d, not %q", historyMaxLimit, s)
		}
		p.Limit = n
	}
	f.Limit = p.Limit
	for _, s := range strings.Split(p.State, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if !slices.Contains(models.HistoryStates, s) {
			return p, f, Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "state must be completed, failed, canceled or timeout (or several, comma-separated), not %q", s)
		}
		f.States = append(f.States, s)
	}
	switch {
	case p.Mine:
		f.OwnerID = &u.ID
	case p.Team && u.TeamID != nil:
		f.TeamID = u.TeamID
	case p.Team:
		return p, f, Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "team=1 shows your team's jobs, and you are in no team")
	}
	if p.User != "" {
		owner, err := models.GetUserByEmail(c.Request().Context(), h.DB.Bun, p.User)
		if err != nil {
			return p, f, fromModel(err, "user "+p.User)
		}
		f.OwnerID = &owner.ID
	}
	var err error
	if f.From, err = historyTime("from", p.From, loc, false); err != nil {
		return p, f, err
	}
	if f.To, err = historyTime("to", p.To, loc, true); err != nil {
		return p, f, err
	}
	if p.Since != "" {
		since, err := sinceTime(p.Since, now, loc)
		if err != nil {
			return p, f, err
		}
		if since.After(f.From) {
			f.From = since
		}
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.To.After(f.From) {
		return p, f, Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "to must be after from")
	}
	if p.Cursor != "" {
		cur, err := models.ParseHistoryCursor(p.Cursor)
		if err != nil {
			return p, f, Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "cursor is not one this listing gave: start again without it")
		}
		f.After = &cur
	}
	return p, f, nil
}

// historyTime reads a bound of the end: RFC 3339, or a date in loc (an
// upper bound's day is included: it ends at the next midnight).
func historyTime(name, s string, loc *time.Location, upper bool) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	day, err := time.ParseInLocation("2006-01-02", s, loc)
	if err != nil {
		return time.Time{}, Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "%s must be a date (2026-11-20) or an RFC 3339 time, not %q", name, s)
	}
	if upper {
		day = localtime.AddDays(day, 1, loc)
	}
	return day.UTC(), nil
}

// sinceTime reads since: a span back from now (7d, 24h, 90m), or a date
// or time as from takes them.
func sinceTime(s string, now time.Time, loc *time.Location) (time.Time, error) {
	if d, err := parseSince(s); err == nil {
		return now.Add(-d), nil
	}
	if t, err := historyTime("since", s, loc, false); err == nil {
		return t, nil
	}
	return time.Time{}, Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "since must be a span like 7d, 24h or 90m, or a date (2026-11-20), not %q", s)
}

// parseSince reads a span back from now: "7d", "36h", "90m".
func parseSince(s string) (time.Duration, error) {
	var d time.Duration
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil {
			return 0, err
		}
		d = time.Duration(days) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, err
		}
	}
	if d <= 0 || d > 10*365*24*time.Hour {
		return 0, strconv.ErrRange
	}
	return d, nil
}
