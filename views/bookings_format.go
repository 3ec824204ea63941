package views

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/gpuscheduler/gpuscheduler/internal/calgrid"
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
)

// laneRem is the height of one lane of bars.
const laneRem = 1.75

func pctStr(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// span places an element at left% with width%.
func span(left, width float64) templ.SafeCSS {
	return templ.SafeCSS("left:" + pctStr(left) + "%;width:" + pctStr(width) + "%")
}

// at places a line at left%.
func at(left float64) templ.SafeCSS { return templ.SafeCSS("left:" + pctStr(left) + "%") }

// lanesHeight is a row's height for n lanes (at least one).
func lanesHeight(n int) templ.SafeCSS {
	return templ.SafeCSS("height:" + strconv.FormatFloat(float64(max(n, 1))*laneRem+0.25, 'f', 2, 64) + "rem")
}

// barStyle2 places a bar: its span and its lane. It is as wide as its
// span; its label may run on past it (the lanes keep room for it).
func barStyle2(b calgrid.Bar, lane int) templ.SafeCSS {
	return templ.SafeCSS(fmt.Sprintf("left:%s%%;width:%s%%;top:%.2frem", pctStr(b.Left), pctStr(b.Width), float64(lane)*laneRem+0.15))
}

func barClass(b calgrid.Bar) string {
	c := "cg-bar kind-" + b.Item.Kind
	if b.Item.Mine {
		c += " is-mine"
	}
	if b.Tentative {
		c += " is-tentative"
	}
	if b.Item.OpenEnd {
		c += " is-open"
	}
	if b.CutStart {
		c += " cut-start"
	}
	if b.CutEnd {
		c += " cut-end"
	}
	return c
}

// barTitle is the bar's full text for the tooltip.
func barTitle(ctx context.Context, b calgrid.Bar) string {
	it := b.Item
	var s strings.Builder
	switch it.Kind {
	case calgrid.KindJob:
		fmt.Fprintf(&s, "Job #%d of %s on %s, %s", it.ID, it.OwnerFull, words.Count(it.Count, "GPU"), LocalWindow(ctx, it.Start, it.End))
		if it.OpenEnd {
			s.WriteString(" (no expected end known)")
		}
	case calgrid.KindHold:
		fmt.Fprintf(&s, "Hold #%d of %s for %s, %s", it.ID, it.OwnerFull, words.Count(it.Count, "GPU"), LocalWindow(ctx, it.Start, it.End))
	default:
		what := words.Count(it.Count, "GPU")
		if it.Share > 0 {
			what = calgrid.ShareText(it.Share) + " of a shared GPU"
		}
		fmt.Fprintf(&s, "Booking #%d of %s for %s, %s", it.ID, it.OwnerFull, what, LocalWindow(ctx, it.Start, it.End))
		if b.Tentative {
			s.WriteString(" (booked by count: the scheduler picks the GPUs)")
		}
	}
	if it.Note != "" {
		s.WriteString(": " + it.Note)
	}
	return s.String()
}

func capTitle(ctx context.Context, s calgrid.Slot) string {
	return fmt.Sprintf("%d of %s free, %s", s.Free, words.Count(s.Total, "GPU"), LocalWindow(ctx, s.Start, s.End))
}

func ids(v []int64) string {
	parts := make([]string, len(v))
	for i, id := range v {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, ",")
}

func rowAria(r calgrid.Row) string {
	return strings.TrimSpace(r.Group+" "+r.Label+" "+r.Sub) + ": arrow keys pick a time, Shift extends, Enter fills in the booking form"
}

// snapsJSON is the times a selection snaps to: [[percent, "2026-11-24T09:00"], ...].
func snapsJSON(l calgrid.Layout) string {
	out := make([][2]any, len(l.Snaps))
	for i, s := range l.Snaps {
		out[i] = [2]any{s.Pct, s.Value}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func calendarTitle(c Calendar) string {
	loc := c.Grid.Zone
	if c.View == calgrid.Day {
		return c.Date.In(loc).Format("Monday 2 January 2006")
	}
	last := localtime.AddDays(c.Date, 6, loc)
	return c.Date.In(loc).Format("Mon 2 Jan") + " – " + last.Format("Mon 2 Jan 2006")
}

func prevLabel(c Calendar) string {
	if c.View == calgrid.Day {
		return "Previous day"
	}
	return "Previous week"
}

func nextLabel(c Calendar) string {
	if c.View == calgrid.Day {
		return "Next day"
	}
	return "Next week"
}

// barRelative says when a bar's item starts or ends, from now: "starts in
// 2h", "ends in 29m", "ended 3h ago".
func barRelative(b calgrid.Bar, now time.Time) string {
	switch {
	case b.Item.Start.After(now):
		return "starts " + localtime.Relative(b.Item.Start, now)
	case b.Item.End.After(now):
		return "ends " + localtime.Relative(b.Item.End, now)
	}
	return "ended " + localtime.Relative(b.Item.End, now)
}
