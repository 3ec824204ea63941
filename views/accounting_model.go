package views

import (
	"net/url"
	"strconv"
	"time"
)

// Accounting is the accounting page's model: GPU time per user or team
// over a month or week, and its cost at the admins' rates.
type Accounting struct {
	Kind     string // "month" or "week"
	Period   string // "2026-11", "2026-W48"
	Prev     string // the period before and after, by name
	Next     string
	By       string // "user" or "team"
	From, To time.Time
	Rows     []AccountingRow
	Total    AccountingRow
	Currency string
	Rates    []AccountingRate
	Unpriced []string // GPU models used that no rate prices
	Admin    bool     // sees every row (members: their own and their team's)
	// Threshold is the idle policy's utilization at or below which a
	// minute of a GPU is idle.
	Threshold int
}

// AccountingRow is one user's or team's line.
type AccountingRow struct {
	Name, Email, Team                               string
	GPUHours, BookedIdleHours, ReclaimedHours, Cost float64
	Models                                          string // "H100 12.5 h × 2.50"
}

// AccountingRate is one rate of the policy.
type AccountingRate struct {
	Match string
	Rate  float64
}

// URL is the page for period (a name), grouped by.
func (a Accounting) URL(kind, period, by string) string {
	v := url.Values{}
	if period != "" {
		v.Set(kind, period)
	}
	v.Set("by", by)
	return "/accounting?" + v.Encode()
}

// Here is the page as it is, with another grouping.
func (a Accounting) Here(by string) string { return a.URL(a.Kind, a.Period, by) }

// ExportURL downloads the page's figures as CSV.
func (a Accounting) ExportURL() string {
	return "/accounting/export?" + url.Values{a.Kind: {a.Period}, "by": {a.By}}.Encode()
}

// money is a cost with two decimals and the currency.
func money(v float64, currency string) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	if currency != "" {
		s += " " + currency
	}
	return s
}

// accountingWho is the first column's title.
func accountingWho(by string) string {
	if by == "team" {
		return "Team"
	}
	return "User"
}

// accountingRowID tells rows and the total apart for tests.
func accountingRowID(total bool) string {
	if total {
		return "accounting-total"
	}
	return "accounting-row"
}

// ratesText says the rates: "Rates per GPU-hour: A100 1.20 EUR, H100 2.50 EUR."
func ratesText(a Accounting) string {
	s := "Rates per GPU-hour: "
	for i, r := range a.Rates {
		if i > 0 {
			s += ", "
		}
		s += r.Match + " " + money(r.Rate, a.Currency)
	}
	return s + "."
}

// joinComma joins with ", ".
func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}
