package localtime

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Period kinds: a calendar month, or an ISO week (Monday to Monday).
const (
	PeriodMonth = "month"
	PeriodWeek  = "week"
)

// Period is a month or an ISO week in a zone, from its first local
// midnight to the next period's.
type Period struct {
	Kind     string
	Name     string // "2026-11", "2026-W48"
	From, To time.Time
}

// PeriodOf is the month or week (kind) that holds t in loc.
func PeriodOf(kind string, t time.Time, loc *time.Location) Period {
	l := t.In(loc)
	if kind == PeriodWeek {
		back := (int(l.Weekday()) + 6) % 7 // days since Monday
		from := time.Date(l.Year(), l.Month(), l.Day()-back, 0, 0, 0, 0, loc)
		y, w := from.ISOWeek()
		return Period{Kind: PeriodWeek, Name: fmt.Sprintf("%04d-W%02d", y, w), From: from,
			To: time.Date(from.Year(), from.Month(), from.Day()+7, 0, 0, 0, 0, loc)}
	}
	from := time.Date(l.Year(), l.Month(), 1, 0, 0, 0, 0, loc)
	return Period{Kind: PeriodMonth, Name: from.Format("2006-01"), From: from,
		To: time.Date(l.Year(), l.Month()+1, 1, 0, 0, 0, 0, loc)}
}

// ParsePeriod reads a month ("2026-11") or an ISO week ("2026-W48") in loc.
func ParsePeriod(s string, loc *time.Location) (Period, error) {
	s = strings.TrimSpace(s)
	if y, w, ok := strings.Cut(strings.ToUpper(s), "-W"); ok {
		year, err1 := strconv.Atoi(y)
		week, err2 := strconv.Atoi(w)
		if err1 != nil || err2 != nil || len(y) != 4 || week < 1 || week > 53 {
			return Period{}, fmt.Errorf("%q is not a week: write it like 2026-W48", s)
		}
		// 4 January is always in week 1; its Monday starts the year's weeks.
		jan4 := time.Date(year, time.January, 4, 0, 0, 0, 0, loc)
		p := PeriodOf(PeriodWeek, jan4.AddDate(0, 0, 7*(week-1)), loc)
		if p.Name != fmt.Sprintf("%04d-W%02d", year, week) {
			return Period{}, fmt.Errorf("%d has no week %d", year, week)
		}
		return p, nil
	}
	t, err := time.ParseInLocation("2006-01", s, loc)
	if err != nil {
		return Period{}, fmt.Errorf("%q is not a month: write it like 2026-11", s)
	}
	return PeriodOf(PeriodMonth, t, loc), nil
}

// Prev is the period before p.
func (p Period) Prev() Period { return PeriodOf(p.Kind, p.From.Add(-time.Hour), p.From.Location()) }

// Next is the period after p.
func (p Period) Next() Period { return PeriodOf(p.Kind, p.To.Add(time.Hour), p.From.Location()) }
