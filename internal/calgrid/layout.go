package calgrid

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// labelPxPerCh and trackPx estimate how wide a label is against the view:
// the page draws the week at least 1092 px wide (6.5 px an hour, so that
// the week and its labels fit a 1400 px screen) and a day at least 1536 px
// (64 px an hour), and a label character is about 7 px.
const labelPxPerCh = 7.5

// TrackPx is the least width, in CSS pixels, the page gives each view's
// time axis; lanes are packed so that labels fit at that width.
var TrackPx = map[string]float64{Week: 1092, Day: 1536}

// Compute lays out the calendar.
func Compute(in Input) Layout {
	loc := in.Zone
	if loc == nil {
		loc = time.UTC
	}
	view := in.View
	if view != Day {
		view = Week
	}
	group := in.Group
	if group != ByNode && group != ByType {
		group = ByGPU
	}
	l := Layout{View: view, Group: group, Zone: loc, Total: len(in.GPUs), NowPct: -1}
	day := time.Date(in.Date.In(loc).Year(), in.Date.In(loc).Month(), in.Date.In(loc).Day(), 0, 0, 0, 0, loc)
	if view == Week {
		l.Start, l.End = day, addDays(day, 7, loc)
	} else {
		l.Start, l.End = day, addDays(day, 1, loc)
	}
	if !in.Now.Before(l.Start) && in.Now.Before(l.End) {
		l.NowPct = pct(in.Now, l.Start, l.End)
	}
	l.columns(in.Now)
	l.snaps()
	placed := place(in.GPUs, in.Items)
	l.capacity(in.GPUs, placed)
	l.rows(in.GPUs, placed)
	return l
}

func addDays(day time.Time, n int, loc *time.Location) time.Time {
	d := day.In(loc)
	return time.Date(d.Year(), d.Month(), d.Day()+n, 0, 0, 0, 0, loc)
}

// columns are the days (week) or hours (day), and the minor lines.
func (l *Layout) columns(now time.Time) {
	today := now.In(l.Zone)
	if l.View == Week {
		for i := 0; i < 7; i++ {
			s, e := addDays(l.Start, i, l.Zone), addDays(l.Start, i+1, l.Zone)
			wd := s.Weekday()
			l.Columns = append(l.Columns, Column{Label: s.Format("Mon 2 Jan"), Start: s, End: e,
				Left: pct(s, l.Start, l.End), Width: pct(e, l.Start, l.End) - pct(s, l.Start, l.End),
				Today: sameDate(s, today), Off: wd == time.Saturday || wd == time.Sunday, Date: s.Format("2006-01-02")})
			noon := time.Date(s.Year(), s.Month(), s.Day(), 12, 0, 0, 0, l.Zone)
			l.Lines = append(l.Lines, pct(noon, l.Start, l.End))
			if i > 0 {
				l.Lines = append(l.Lines, pct(s, l.Start, l.End))
			}
		}
		return
	}
	for t := l.Start; t.Before(l.End); t = t.Add(time.Hour) {
		e := t.Add(time.Hour)
		if e.After(l.End) {
			e = l.End
		}
		h := t.In(l.Zone).Hour()
		l.Columns = append(l.Columns, Column{Label: t.In(l.Zone).Format("15"), Start: t, End: e,
			Left: pct(t, l.Start, l.End), Width: pct(e, l.Start, l.End) - pct(t, l.Start, l.End),
			Today: !now.Before(t) && now.Before(e), Off: h < 7 || h >= 20, Date: t.In(l.Zone).Format("2006-01-02")})
		if t != l.Start {
			l.Lines = append(l.Lines, pct(t, l.Start, l.End))
		}
	}
}

func sameDate(a, b time.Time) bool {
	b = b.In(a.Location())
	return a.Year() == b.Year() && a.YearDay() == b.YearDay()
}

// Snap is an instant a selection may start or end at.
type Snap struct {
	Pct   float64
	Value string // datetime-local in the view's zone
}

func (l *Layout) snaps() {
	step := time.Hour
	if l.View == Day {
		step = 30 * time.Minute
	}
	for t := l.Start; !t.After(l.End); t = t.Add(step) {
		l.Snaps = append(l.Snaps, Snap{Pct: pct(t, l.Start, l.End), Value: t.In(l.Zone).Format("2006-01-02T15:04")})
	}
}

// placement is an item on a GPU.
type placement struct {
	item      *Item
	tentative bool
}

// place puts every item on GPUs: named ones where they name, counts on the
// matching GPUs free for their whole window (fewest clashes first, then
// node and index order). Items on GPUs not shown are dropped.
func place(gpus []GPU, items []Item) map[int64][]placement {
	out := make(map[int64][]placement, len(gpus))
	shown := make(map[int64]bool, len(gpus))
	for _, g := range gpus {
		shown[g.ID] = true
	}
	var counts []*Item
	for i := range items {
		it := &items[i]
		if len(it.GPUIDs) == 0 {
			counts = append(counts, it)
			continue
		}
		for _, id := range it.GPUIDs {
			if shown[id] {
				out[id] = append(out[id], placement{item: it})
			}
		}
	}
	slices.SortStableFunc(counts, func(a, b *Item) int { return a.Start.Compare(b.Start) })
	for _, it := range counts {
		if it.Share > 0 {
			placeShare(gpus, it, out)
			continue
		}
		type cand struct {
			id      int64
			clashes int
			order   int
		}
		var cs []cand
		model := strings.ToLower(it.Model)
		for i, g := range gpus {
			if it.NodeID != 0 && g.NodeID != it.NodeID || !fits(g, model) {
				continue
			}
			n := 0
			for _, p := range out[g.ID] {
				if p.item.Start.Before(it.End) && it.Start.Before(p.item.End) {
					n++
				}
			}
			cs = append(cs, cand{g.ID, n, i})
		}
		slices.SortStableFunc(cs, func(a, b cand) int {
			if a.clashes != b.clashes {
				return a.clashes - b.clashes
			}
			return a.order - b.order
		})
		for i := 0; i < it.Count && i < len(cs); i++ {
			out[cs[i].id] = append(out[cs[i].id], placement{item: it, tentative: true})
		}
	}
	return out
}

// capacity counts, per half-day (hour in the day view), the GPUs nothing
// occupies at any moment of it.
func (l *Layout) capacity(gpus []GPU, placed map[int64][]placement) {
	var bounds []time.Time
	if l.View == Week {
		for i := 0; i <= 14; i++ {
			d := addDays(l.Start, i/2, l.Zone)
			bounds = append(bounds, time.Date(d.Year(), d.Month(), d.Day(), 12*(i%2), 0, 0, 0, l.Zone))
		}
	} else {
		for _, c := range l.Columns {
			bounds = append(bounds, c.Start)
		}
		bounds = append(bounds, l.End)
	}
	for i := 0; i+1 < len(bounds); i++ {
		s, e := bounds[i], bounds[i+1]
		free, total := 0, 0
		for gi, g := range gpus {
			if g.Ways > 0 && gi > 0 && gpus[gi-1].Ways > 0 && gpus[gi-1].NodeID == g.NodeID && gpus[gi-1].Index == g.Index {
				continue // a shared GPU counts once, by its first slot (see unitBusy)
			}
			total++
			if !unitBusy(gpus, gi, placed, s, e) {
				free++
			}
		}
		l.Capacity = append(l.Capacity, Slot{Start: s, End: e, Left: pct(s, l.Start, l.End),
			Width: pct(e, l.Start, l.End) - pct(s, l.Start, l.End), Free: free, Total: total, Level: level(free, total)})
	}
}

// level colours a capacity cell.
func level(free, total int) string {
	switch {
	case free <= 0:
		return "none"
	case free*4 < total:
		return "low"
	case free*5 < total*3:
		return "mid"
	}
	return "high"
}

// rows groups the placements into rows and packs each row's bars in lanes.
func (l *Layout) rows(gpus []GPU, placed map[int64][]placement) {
	type acc struct {
		row   Row
		items []placement
		seen  map[string]bool
	}
	var order []string
	rows := map[string]*acc{}
	lastNode := ""
	for _, g := range gpus {
		key, label, sub := "", "", ""
		switch l.Group {
		case ByNode:
			key, label = "node-"+strconv.FormatInt(g.NodeID, 10), g.Node
		case ByType:
			key, label = "type-"+g.Model, g.Model
		default:
			key, label, sub = "gpu-"+strconv.FormatInt(g.ID, 10), g.Node+":"+strconv.Itoa(g.Index), g.Model
			if g.Ways > 0 { // the slots of a shared GPU make one row
				key = "shared-" + strconv.FormatInt(g.NodeID, 10) + "-" + strconv.Itoa(g.Index)
				sub = g.Model + " · shared " + strconv.Itoa(g.Ways) + " ways"
			}
		}
		a, ok := rows[key]
		if !ok {
			a = &acc{row: Row{Key: key, Label: label, Sub: sub}, seen: map[string]bool{}}
			if l.Group == ByGPU && g.Node != lastNode {
				a.row.Group = g.Node
				lastNode = g.Node
			}
			rows[key] = a
			order = append(order, key)
		}
		a.row.GPUIDs = append(a.row.GPUIDs, g.ID)
		for _, p := range placed[g.ID] {
			k := p.item.Kind + strconv.FormatInt(p.item.ID, 10)
			if !a.seen[k] {
				a.seen[k] = true
				a.items = append(a.items, p)
			}
		}
	}
	span := l.End.Sub(l.Start)
	perCh := time.Duration(float64(span) * labelPxPerCh / TrackPx[l.View])
	for _, key := range order {
		a := rows[key]
		if l.Group != ByGPU {
			a.row.Sub = fmt.Sprintf("%d GPUs", len(a.row.GPUIDs))
		}
		slices.SortStableFunc(a.items, func(x, y placement) int {
			if c := x.item.Start.Compare(y.item.Start); c != 0 {
				return c
			}
			return int(x.item.ID - y.item.ID)
		})
		var laneEnds []time.Time
		for _, p := range a.items {
			it := p.item
			if !it.Start.Before(l.End) || !it.End.After(l.Start) {
				continue
			}
			b := Bar{Item: it, Tentative: p.tentative, Label: Label(it),
				CutStart: it.Start.Before(l.Start), CutEnd: it.End.After(l.End)}
			b.MinCh = len([]rune(b.Label)) + 2
			b.Left = pct(it.Start, l.Start, l.End)
			b.Width = pct(it.End, l.Start, l.End) - b.Left
			b.RoomCh = int(b.Width / 100 * TrackPx[l.View] / labelPxPerCh)
			// Where the bar's drawing ends: its end, or its label's.
			start := latest(it.Start, l.Start)
			shown := latest(it.End, start.Add(time.Duration(b.MinCh)*perCh))
			lane := -1
			for i, end := range laneEnds {
				if !start.Before(end) {
					lane = i
					break
				}
			}
			if lane < 0 {
				lane = len(laneEnds)
				laneEnds = append(laneEnds, time.Time{})
				a.row.Lanes = append(a.row.Lanes, nil)
			}
			laneEnds[lane] = shown
			a.row.Lanes[lane] = append(a.row.Lanes[lane], b)
		}
		l.Rows = append(l.Rows, a.row)
	}
}

// Label is a bar's short text: "ana · 2 GPUs", "ana · job 42".
func Label(it *Item) string {
	switch it.Kind {
	case KindJob:
		return fmt.Sprintf("%s · job %d", it.Owner, it.ID)
	case KindHold:
		return fmt.Sprintf("%s · hold %d", it.Owner, it.Count)
	}
	if it.Share > 0 {
		return it.Owner + " · " + ShareText(it.Share) + " of a GPU"
	}
	if scheduler.IsMIGProfile(it.Model) {
		return fmt.Sprintf("%s · %d × %s", it.Owner, it.Count, strings.ToLower(strings.TrimSpace(it.Model)))
	}
	if it.Count == 1 {
		return it.Owner + " · 1 GPU"
	}
	return fmt.Sprintf("%s · %d GPUs", it.Owner, it.Count)
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Assign is which items each GPU carries (the same placement the grid
// draws): named GPUs as named, counts on matching GPUs free for their
// window. The overview uses it to say until when a GPU is free.
func Assign(gpus []GPU, items []Item) map[int64][]*Item {
	placed := place(gpus, items)
	out := make(map[int64][]*Item, len(placed))
	for id, ps := range placed {
		for _, p := range ps {
			out[id] = append(out[id], p.item)
		}
	}
	return out
}
