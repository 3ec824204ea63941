// Package calgrid lays out the bookings calendar: which GPU row each
// booking, hold and running job is drawn on, where its bar starts and how
// wide it is (as a share of the view's time span), which lane it takes so
// that bars never cover one another (a bar is never narrower than its
// label), the day or hour columns in the viewer's zone, and the capacity
// strip of free GPUs per half-day (per hour in the day view). It is pure:
// standard library only, time passed in.
package calgrid

import (
	"time"
)

// Views of the calendar.
const (
	Week = "week" // seven days from the date, columns are days
	Day  = "day"  // one day, columns are hours
)

// Row groupings.
const (
	ByGPU  = "gpu"  // one row per GPU, grouped under its node
	ByNode = "node" // one row per node
	ByType = "type" // one row per GPU model
)

// Kinds of item.
const (
	KindBooking = "booking"
	KindHold    = "hold"
	KindJob     = "job"
)

// GPU is a row of the calendar.
type GPU struct {
	ID     int64
	NodeID int64
	Node   string
	Index  int
	Model  string
	// Profile is a MIG device's ("1g.10gb"), "" for a whole GPU: a count
	// of a MIG profile is drawn only on MIG devices of that profile.
	Profile string
	// Ways is, for a slot of a shared GPU, how many slots the GPU is
	// shared into (0: not a slot): the slots of one GPU make one row, and
	// only a share (Item.Share) is drawn on them.
	Ways int
}

// Item is a booking, hold or running job.
type Item struct {
	ID         int64
	Kind       string
	Owner      string // short: "ana"
	OwnerFull  string // "ana@example.com"
	Count      int
	Note       string
	Start, End time.Time
	// GPUIDs are the GPUs it names or was given; empty: a count, drawn on
	// free GPUs of Model (substring, any case) on NodeID (0: any node).
	GPUIDs []int64
	Model  string
	NodeID int64
	// Share, above 0, is a booking of that fraction of one shared GPU: it
	// is drawn on that GPU's slots (GPUIDs: its slots, named or pinned).
	Share float64
	Mine  bool
	// OpenEnd: a running job without an estimate; End is a guess.
	OpenEnd bool
}

// Input is what the layout is computed from.
type Input struct {
	View  string // Week or Day
	Date  time.Time
	Zone  *time.Location
	Group string // ByGPU, ByNode or ByType
	Now   time.Time
	GPUs  []GPU
	Items []Item
}

// Layout is the computed calendar.
type Layout struct {
	View       string
	Group      string
	Start, End time.Time
	Zone       *time.Location
	Columns    []Column
	Lines      []float64 // minor grid lines (half-days, hours), in percent
	Capacity   []Slot
	Rows       []Row
	NowPct     float64 // -1 when now is outside the view
	// Snaps are the instants a selection snaps to (hours in the week view,
	// half-hours in the day view), for the page script.
	Snaps []Snap
	Total int // GPUs
}

// Column is a day (week view) or an hour (day view) heading.
type Column struct {
	Label       string
	Start, End  time.Time
	Left, Width float64 // percent of the view
	Today, Off  bool    // today; a weekend day, or a night hour
	Date        string  // YYYY-MM-DD, the day view's link
}

// Slot is one cell of the capacity strip.
type Slot struct {
	Start, End  time.Time
	Left, Width float64
	Free, Total int
	Level       string // "none", "low", "mid", "high"
}

// Row is a GPU, node or GPU type with its bars in lanes.
type Row struct {
	Key    string
	Label  string
	Sub    string
	Group  string // the node's name heading this row (ByGPU), set on a group's first row
	GPUIDs []int64
	Lanes  [][]Bar
}

// Bar is an item drawn in a row.
type Bar struct {
	Item        *Item
	Left, Width float64 // percent
	MinCh       int     // the label's width in ch: the bar is never narrower
	RoomCh      int     // the bar's width in ch at the least track width (TrackPx)
	Label       string  // "ana · 2 GPUs"
	Tentative   bool    // a count drawn on a GPU the scheduler has not picked
	CutStart    bool    // starts before the view
	CutEnd      bool    // ends after it
}

// pct is t's position in [start, end) in percent, clamped to 0..100.
func pct(t, start, end time.Time) float64 {
	p := float64(t.Sub(start)) / float64(end.Sub(start)) * 100
	return min(max(p, 0), 100)
}
