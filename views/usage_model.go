package views

import (
	"fmt"
	"strconv"
	"time"

	"github.com/a-h/templ"
)

// Usage is the usage page's model: the chosen range and, for reading
// without JavaScript, the key numbers behind the graphs.
type Usage struct {
	Range    string // "day", "week" or "month"
	Node     int64  // node of the per-GPU graph; 0: all
	From, To time.Time
	StepS    int64
	Admin    bool // admins see every user's figures; members their own
	// Nodes is each node's mean GPU utilization over the range (nil Value: no data).
	Nodes                []UsageRow
	TeamHours, UserHours []UsageRow
	// KindHours are GPU-hours by kind: batch jobs, then each session kind.
	KindHours            []UsageRow
	Queue                *UsageQueue // the latest queue sample in the range; nil if none
	TeamShare, UserShare []UsageStanding
	// NodeChoices are the nodes the per-GPU graph may be narrowed to.
	NodeChoices []UsageNode
	// Idle GPU-hours by team and user, and what reclaim gave back.
	IdleTeams, IdleUsers []UsageRow
	Reclaimed            []UsageRow
}

// UsageNode is a node as the per-GPU graph's picker offers it.
type UsageNode struct {
	ID   int64
	Name string
}

// UsageRow is one named figure; Value nil means no data.
type UsageRow struct {
	Name  string
	Value any // float64 or *float64
}

// UsageQueue is one queue sample.
type UsageQueue struct {
	At                          time.Time
	Queued, QueuedGPUs, Running float64
	MaxWaitMin, MeanWaitMin     float64
}

// UsageStanding is a team's or user's fair-share standing.
type UsageStanding struct {
	Name               string
	SharePct, UsagePct float64
	DecayedGPUH, Score float64
}

// usageRanges are the range picker's choices in order.
var usageRanges = []string{"day", "week", "month"}

// usageRangeURL is the page for range r, keeping the node choice.
func usageRangeURL(u Usage, r string) templ.SafeURL {
	s := "/usage?range=" + r
	if u.Node > 0 {
		s += "&node=" + strconv.FormatInt(u.Node, 10)
	}
	return templ.SafeURL(s)
}

// usageDataURL is the JSON the charts draw from.
func usageDataURL(u Usage) string {
	s := "/usage/data?range=" + u.Range
	if u.Node > 0 {
		s += "&node=" + strconv.FormatInt(u.Node, 10)
	}
	return s
}

// nodeValue is a node id as a form value.
func nodeValue(id int64) string { return strconv.FormatInt(id, 10) }

// fmtNum formats a figure with one decimal, or "—" for no data.
func fmtNum(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case *float64:
		if x != nil {
			return strconv.FormatFloat(*x, 'f', 1, 64)
		}
	}
	return "—"
}

// fmtScore formats a fair-share score with two decimals.
func fmtScore(v float64) string { return fmt.Sprintf("%.2f", v) }

// stepLabel says how wide one point of the graphs is.
func stepLabel(s int64) string {
	d := time.Duration(s) * time.Second
	if d >= time.Hour {
		return strconv.FormatFloat(d.Hours(), 'f', -1, 64) + " h"
	}
	return strconv.FormatFloat(d.Minutes(), 'f', -1, 64) + " min"
}
