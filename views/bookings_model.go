package views

import (
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/calgrid"
)

// Calendar is the bookings page's model: the laid-out grid of a week or a
// day in the viewer's zone, the bookings the viewer may cancel, and the
// form to book.
type Calendar struct {
	View  string    // calgrid.Week or calgrid.Day
	Group string    // calgrid.ByGPU, ByNode or ByType
	Date  time.Time // local midnight of the first day shown
	Now   time.Time
	Grid  calgrid.Layout
	Links CalendarLinks
	// Cancelable are the viewer's own bookings in view (everyone's for
	// admins) that have not ended: plain cancel forms, usable without script.
	Cancelable []CalendarBooking
	Form       BookingForm
	CSRF       string // for the cancel forms without JavaScript
}

// CalendarLinks are the calendar's navigation.
type CalendarLinks struct {
	Here, Prev, Next, Today string
	Week, Day               string
	ByGPU, ByNode, ByType   string
	DayOf                   func(date string) string // the day view of a date (YYYY-MM-DD)
	Fragment                string                   // the live grid of this view
	// The calendar's other pages: the view's
	// window as a sheet or iCalendar, a recurring booking, feeds, import.
	ExportCSV, ExportICS string
	Series, Feeds        string
	Import               string // admins only ("" for members)
}

// CalendarBooking is a booking in the list under the grid.
type CalendarBooking struct {
	ID     int64
	Owner  string
	What   string // "2 × H100-80GB"
	Window string // in the viewer's zone
	When   string // "starts in 2h", "ends in 29m"
	Note   string
	Mine   bool
}

// BookingForm is the create form, with what was entered and the outcome.
type BookingForm struct {
	GPUCount int
	GPUModel string
	GPUIDs   []int64
	StartsAt string // datetime-local, in Zone
	EndsAt   string
	Note     string
	Error    string // why the last attempt was refused
	Done     string // what the last attempt booked
	Models   []string
	GPUs     []BookingGPU
	// Share is the share of one shared GPU asked for ("0.5"; "" whole
	// GPUs), on SharedGPU (a slot's id naming its GPU; 0 any). Shared are
	// the shared GPUs offered, each by its first slot.
	Share     string
	SharedGPU int64
	Shared    []BookingGPU
	// The calendar view shown, carried back after a plain form post.
	Week, View, Group string
	Zone              string // IANA name the times are read in
	ZoneAbbrev        string // "CET"
	CSRF              string
}

// BookingGPU is a GPU the form offers by name.
type BookingGPU struct {
	ID    int64
	Label string // "sim-1 #0 H100-80GB"
}
