package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// AccountingData handles GET /api/v1/accounting: GPU-hours used, booked
// but idle and reclaimed, and their cost at the policy's rates, per user
// or team over a month, an ISO week or a range (accountingQuery), as JSON
// or, with ?format=csv, as the sheet the accounting page downloads.
// Admins see everyone; members their own row and their team's.
func (h *Handlers) AccountingData(c echo.Context) error {
	switch c.QueryParam("format") {
	case "", "json":
	case "csv":
		return h.AccountingExport(c)
	default:
		return invalid("format", "must be json or csv, got %q", c.QueryParam("format"))
	}
	now := h.Now()
	p, err := accountingQuery(c, now)
	if err != nil {
		return err
	}
	out, err := h.accounting(c, userOf(c), p, now)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}
