package handlers

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// AccountingPage handles GET /accounting[?month=2026-11|week=2026-W48][&by=user|team]:
// the figures of GET /api/v1/accounting for a month or week in the
// viewer's zone, with links to the periods around it and a CSV download.
func (h *Handlers) AccountingPage(c echo.Context) error {
	u, now := userOf(c), h.Now()
	p, err := accountingQuery(c, now)
	if err != nil {
		return err
	}
	if p.Period.Kind == "" { // a range is for the API; the page shows periods
		p.Period = localtime.PeriodOf(localtime.PeriodMonth, p.From, p.Zone)
		p.From, p.To = p.Period.From.UTC(), p.Period.To.UTC()
	}
	a, err := h.accounting(c, u, p, now)
	if err != nil {
		return err
	}
	cfg, err := models.SchedulerConfig(c.Request().Context(), h.DB.Bun)
	if err != nil {
		return fmt.Errorf("handlers: accounting page: %w", err)
	}
	v := views.Accounting{Kind: p.Period.Kind, Period: p.Period.Name, Prev: p.Period.Prev().Name, Next: p.Period.Next().Name,
		By: p.By, From: a.From, To: a.To, Currency: a.Currency, Unpriced: a.UnpricedModels, Admin: u.IsAdmin(),
		Rows: make([]views.AccountingRow, 0, len(a.Rows)), Total: accountingViewRow(a.Total), Threshold: cfg.Threshold()}
	for _, r := range a.Rows {
		v.Rows = append(v.Rows, accountingViewRow(r))
	}
	for k, r := range a.Rates {
		v.Rates = append(v.Rates, views.AccountingRate{Match: k, Rate: r})
	}
	sort.Slice(v.Rates, func(i, j int) bool { return v.Rates[i].Match < v.Rates[j].Match })
	return render(c, http.StatusOK, views.AccountingPage(h.Page(c, "Accounting "+p.Period.Name, "usage"), v))
}

// accountingViewRow shapes one row for the page: "H100 12.50 h × 2.50".
func accountingViewRow(r api.AccountingRow) views.AccountingRow {
	out := views.AccountingRow{Name: r.Name, Email: r.Email, Team: r.Team, GPUHours: r.GPUHours,
		BookedIdleHours: r.BookedIdleGPUHours, ReclaimedHours: r.ReclaimedGPUHours, Cost: r.Cost}
	var parts []string
	for _, m := range r.Models {
		s := fmt.Sprintf("%s %.2f h", m.Model, m.GPUHours)
		if m.Rate != nil {
			s += fmt.Sprintf(" × %.2f", *m.Rate)
		} else {
			s += " (no rate)"
		}
		parts = append(parts, s)
	}
	out.Models = strings.Join(parts, "; ")
	return out
}
