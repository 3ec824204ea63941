package handlers

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/bookingcsv"
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
)

// accountingHeader is the accounting sheet's header row.
var accountingHeader = []string{"period", "from", "to", "time_zone", "by", "name", "email", "team", "gpu_hours",
	"booked_idle_gpu_hours", "reclaimed_gpu_hours", "cost", "currency"}

// AccountingExport handles GET /accounting/export (the accounting page's
// download) and GET /api/v1/accounting?format=csv: the report as CSV, one
// row per user or team and a total, times in the period's zone, every text
// cell safe from spreadsheet formulas.
func (h *Handlers) AccountingExport(c echo.Context) error {
	now := h.Now()
	p, err := accountingQuery(c, now)
	if err != nil {
		return err
	}
	a, err := h.accounting(c, userOf(c), p, now)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := writeAccountingCSV(&buf, a); err != nil {
		return fmt.Errorf("handlers: accounting sheet: %w", err)
	}
	name := "accounting"
	if a.Period != "" {
		name += "-" + a.Period
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s-by-%s.csv"`, name, a.By))
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", buf.Bytes())
}

// writeAccountingCSV writes a's rows and total as CSV.
func writeAccountingCSV(buf *bytes.Buffer, a api.Accounting) error {
	w := csv.NewWriter(buf)
	if err := w.Write(accountingHeader); err != nil {
		return err
	}
	loc := localtime.OrUTC(a.TimeZone)
	from, to := a.From.In(loc).Format("2006-01-02 15:04"), a.To.In(loc).Format("2006-01-02 15:04")
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	rows := append(append([]api.AccountingRow{}, a.Rows...), a.Total)
	for _, r := range rows {
		rec := []string{a.Period, from, to, a.TimeZone, a.By, r.Name, r.Email, r.Team, num(r.GPUHours), num(r.BookedIdleGPUHours),
			num(r.ReclaimedGPUHours), num(r.Cost), a.Currency}
		for i := range rec {
			rec[i] = bookingcsv.SafeCell(rec[i])
		}
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	w.Flush()
	return w.Error()
}
