package handlers

import (
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// accountingParams is what an accounting report covers: a period (or a
// range from and to), its zone, and the grouping.
type accountingParams struct {
	Period localtime.Period // Kind "" for a range given by from and to
	From   time.Time
	To     time.Time
	Zone   *time.Location
	By     string
}

// accountingQuery reads ?month=2026-11 | week=2026-W48 | from=&to= (RFC
// 3339), ?by=user|team (default user) and ?tz= (the period's zone: by
// default UTC for the API, the viewer's on pages). ?period=month|week
// names the kind of period: alone it is the current one, beside month or
// week it must agree with it. Without a period it is the current month.
func accountingQuery(c echo.Context, now time.Time) (accountingParams, error) {
	def := time.UTC
	if PrincipalOf(c) != nil && c.Request().Header.Get(echo.HeaderAuthorization) == "" {
		def = viewerZone(c)
	}
	loc, err := zoneParam("tz", c.QueryParam("tz"), def)
	if err != nil {
		return accountingParams{}, err
	}
	p := accountingParams{Zone: loc, By: c.QueryParam("by")}
	switch p.By {
	case "":
		p.By = models.AccountByUser
	case models.AccountByUser, models.AccountByTeam:
	default:
		return p, Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "by must be user or team, not %q", p.By)
	}
	month, week, from, to := c.QueryParam("month"), c.QueryParam("week"), c.QueryParam("from"), c.QueryParam("to")
	kind, err := periodParam(c.QueryParam("period"), month, week, from+to)
	if err != nil {
		return p, err
	}
	given := 0
	for _, s := range []string{month, week, from + to} {
		if s != "" {
			given++
		}
	}
	if given > 1 {
		return p, Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "give one of month, week, or from and to")
	}
	switch {
	case month != "" || week != "":
		s := month + week
		if p.Period, err = localtime.ParsePeriod(s, loc); err != nil {
			return p, Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "%v", err)
		}
		if (month != "") != (p.Period.Kind == localtime.PeriodMonth) {
			return p, Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "month is like 2026-11 and week like 2026-W48, not %q", s)
		}
	case from != "" || to != "":
		f, err1 := time.Parse(time.RFC3339, from)
		t, err2 := time.Parse(time.RFC3339, to)
		if err1 != nil || err2 != nil || !t.After(f) {
			return p, Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "from and to must be RFC 3339 times, to after from")
		}
		if t.Sub(f) > 400*24*time.Hour {
			return p, Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "a range is at most 400 days")
		}
		p.From, p.To = f.UTC(), t.UTC()
		return p, nil
	default:
		p.Period = localtime.PeriodOf(kind, now, loc)
	}
	p.From, p.To = p.Period.From.UTC(), p.Period.To.UTC()
	return p, nil
}

// accounting reads the report p asks for as u may see it: admins every
// user and team, members their own row and their team's.
func (h *Handlers) accounting(c echo.Context, u *models.User, p accountingParams, now time.Time) (api.Accounting, error) {
	ctx := c.Request().Context()
	cfg, err := models.SchedulerConfig(ctx, h.DB.Bun)
	if err != nil {
		return api.Accounting{}, fmt.Errorf("handlers: accounting: %w", err)
	}
	q := models.AccountingQuery{From: p.From, To: p.To, By: p.By, Threshold: cfg.Threshold(), Cost: cfg.CostPolicy}
	if !u.IsAdmin() {
		q.OnlyUser, q.OnlyTeam = u.ID, -1
		if u.TeamID != nil {
			q.OnlyTeam = *u.TeamID
		}
	}
	r, err := models.Accounting(ctx, h.DB, q, now)
	if err != nil {
		return api.Accounting{}, err
	}
	out := api.Accounting{Period: p.Period.Name, From: p.From, To: p.To, TimeZone: p.Zone.String(), By: p.By,
		Currency: cfg.Currency, Rates: cfg.CostRates, Rows: make([]api.AccountingRow, 0, len(r.Rows)),
		Total: accountRowJSON(r.Total), UnpricedModels: r.Unpriced}
	if out.Rates == nil {
		out.Rates = map[string]float64{}
	}
	for _, row := range r.Rows {
		out.Rows = append(out.Rows, accountRowJSON(row))
	}
	return out, nil
}

// accountRowJSON shapes one row for the API.
func accountRowJSON(r models.AccountRow) api.AccountingRow {
	out := api.AccountingRow{Name: r.Name, Email: r.Email, Team: r.Team, GPUHours: r.GPUHours,
		BookedIdleGPUHours: r.BookedIdleHours, ReclaimedGPUHours: r.ReclaimedHours, Cost: r.Cost}
	for _, m := range r.Models {
		mu := api.AccountingModelUse{Model: m.Model, GPUHours: m.GPUHours, Cost: m.Cost}
		if m.Priced {
			rate := m.Rate
			mu.Rate = &rate
		}
		out.Models = append(out.Models, mu)
	}
	return out
}

// periodParam reads ?period= (month or week; "" is month) against the
// period's other parameters: it must agree with month or week when one is
// given, and cannot go with a range.
func periodParam(period, month, week, rng string) (string, error) {
	switch {
	case period == "":
		if week != "" {
			return localtime.PeriodWeek, nil
		}
		return localtime.PeriodMonth, nil
	case period != localtime.PeriodMonth && period != localtime.PeriodWeek:
		return "", Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "period must be month or week, not %q", period)
	case rng != "":
		return "", Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "give period, or from and to, not both")
	case (period == localtime.PeriodMonth && week != "") || (period == localtime.PeriodWeek && month != ""):
		return "", Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "period=%s goes with %s=, not with the other", period, period)
	}
	return period, nil
}
