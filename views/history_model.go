package views

import (
	"net/url"
	"strconv"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
)

// History is the history page's model: ended jobs, newest end first, one
// page of them, and the filters that chose them.
type History struct {
	Filter  HistoryFilter
	Jobs    []HistoryJob
	NextURL string // the page of older ends; "" on the last page
	Paged   bool   // this is not the first page
}

// HistoryFilter narrows the history; it travels in the query string.
type HistoryFilter struct {
	Mine, Team bool
	HasTeam    bool   // the viewer belongs to a team (the filter is offered)
	User       string // an owner's email
	State      string // "", completed, failed, canceled or timeout
	From, To   string // dates (2026-11-20) in the viewer's zone, as given
	Since      string
}

// Params is the filter as a query string ("" or "?mine=1&state=failed").
func (f HistoryFilter) Params() string {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	if f.Mine {
		v.Set("mine", "1")
	}
	if f.Team {
		v.Set("team", "1")
	}
	set("user", f.User)
	set("state", f.State)
	set("from", f.From)
	set("to", f.To)
	set("since", f.Since)
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// With is f with whose jobs replaced: everyone, the viewer's team, or
// the viewer's own.
func (f HistoryFilter) With(mine, team bool) HistoryFilter {
	f.Mine, f.Team = mine, team
	if mine || team {
		f.User = ""
	}
	return f
}

// HistoryJob is one row of the history page.
type HistoryJob struct {
	ID       int64
	Name     string
	User     string
	State    string
	ExitCode *int
	Reason   string // why it failed or was canceled
	Ended    time.Time
	Elapsed  time.Duration
	GPUHours float64
	GPUs     string // "sim-node-1:4,5"
	Runs     int
	Retries  int
}

// historyLabel is "name (#id)", or "#id" without a name.
func historyLabel(j HistoryJob) string {
	if j.Name != "" {
		return j.Name + " (#" + strconv.FormatInt(j.ID, 10) + ")"
	}
	return "#" + strconv.FormatInt(j.ID, 10)
}

// exitText is the exit code, or "–" when there is none.
func exitText(code *int) string {
	if code == nil {
		return "–"
	}
	return strconv.Itoa(*code)
}

// elapsedText is how long a job held GPUs: "1h 20m", "45s", "–" for none.
func elapsedText(d time.Duration) string {
	if d <= 0 {
		return "–"
	}
	return localtime.Span(d)
}

// hoursText is GPU-hours with two decimals.
func hoursText(h float64) string { return strconv.FormatFloat(h, 'f', 2, 64) }
