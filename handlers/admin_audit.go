package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// auditPageSize is how many audit entries one page shows.
const auditPageSize = 50

// auditTimeLayout is the datetime-local form of the filter's times (the
// viewer's zone).
const auditTimeLayout = "2006-01-02T15:04"

// AdminAudit handles GET /admin/audit?actor=&action=&from=&to=&before=: the
// audit log filtered by actor email, action prefix and time range (in the viewer's zone),
// newest first, paged by id.
func (h *Handlers) AdminAudit(c echo.Context) error {
	ctx := c.Request().Context()
	a := views.AdminAudit{Actor: strings.TrimSpace(c.QueryParam("actor")), Action: strings.TrimSpace(c.QueryParam("action")),
		From: c.QueryParam("from"), To: c.QueryParam("to")}
	f := models.AuditFilter{Action: a.Action, Limit: auditPageSize + 1}
	var bad []string
	parseTime := func(s, name string) *time.Time {
		if s == "" {
			return nil
		}
		t, err := time.ParseInLocation(auditTimeLayout, s, viewerZone(c))
		if err != nil {
			bad = append(bad, name+" must be a date and time like 2026-01-31T09:00")
			return nil
		}
		return &t
	}
	f.From, f.To = parseTime(a.From, "From"), parseTime(a.To, "To")
	if s := c.QueryParam("before"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			bad = append(bad, "the page marker is not a number")
		}
		f.BeforeID = n
	}
	if a.Actor != "" {
		u, err := models.GetUserByEmail(ctx, h.DB.Bun, a.Actor)
		switch {
		case errors.Is(err, models.ErrNotFound):
			bad = append(bad, fmt.Sprintf("no user has the email %q", a.Actor))
		case err != nil:
			return err
		default:
			f.ActorUserID = &u.ID
		}
	}
	if len(bad) > 0 {
		a.Error = strings.Join(bad, "; ") + "."
		return render(c, http.StatusBadRequest, views.AdminAuditPage(h.Page(c, "Audit log", "admin"), a))
	}
	entries, err := models.ListAudit(ctx, h.DB.Bun, f)
	if err != nil {
		return err
	}
	if len(entries) > auditPageSize {
		entries = entries[:auditPageSize]
		q := c.QueryParams()
		q.Set("before", strconv.FormatInt(entries[len(entries)-1].ID, 10))
		a.Next = templ.SafeURL("/admin/audit?" + q.Encode())
	}
	loc := viewerZone(c)
	for _, e := range entries {
		row := views.AuditRow{At: localtime.DateTime(e.CreatedAt, loc), Action: e.Action, Target: strings.Trim(e.TargetType+" "+e.TargetID, " "), Remote: e.RemoteAddr, Actor: "system"}
		if e.ActorEmail != nil {
			row.Actor = *e.ActorEmail
		}
		if len(e.Details) > 0 {
			b, _ := json.Marshal(e.Details)
			row.Details = localtime.Instants(string(b), loc) // the instants it records, as the viewer reads them
		}
		a.Entries = append(a.Entries, row)
	}
	return render(c, http.StatusOK, views.AdminAuditPage(h.Page(c, "Audit log", "admin"), a))
}
