package views

import "time"

// Calendar is the bookings page's model: one week of bookings and holds,
// grouped in rows, and the form to book.
type Calendar struct {
	WeekStart time.Time // 00:00 UTC of the first of the seven days shown
	Now       time.Time
	Rows      []CalendarRow
	Form      BookingForm
	CSRF      string // for the cancel forms without JavaScript
}

// CalendarRow is a row of the week grid: a node (bookings of its named
// GPUs) or a pool of GPUs of one type (bookings by count), with one lane
// per booking.
type CalendarRow struct {
	Label string // "sim-1" or "Any H100-80GB"
	Sub   string // "8 GPUs"
	Bars  []CalendarBar
}

// CalendarBar is one booking or hold in the week grid.
type CalendarBar struct {
	ID        int64
	Kind      string // "booking" or "hold"
	Owner     string
	GPUs      string // "2 × H100" or "GPU 0, 1"
	Window    string
	Note      string
	State     string
	From, To  int  // hours since the week's start, clipped to [0, 168]
	Mine      bool // the viewer's own
	CanCancel bool
}

// BookingForm is the create form, with what was entered and the outcome.
type BookingForm struct {
	GPUCount int
	GPUModel string
	GPUIDs   []int64
	StartsAt string // datetime-local, UTC
	EndsAt   string
	Note     string
	Error    string // why the last attempt was refused
	Done     string // what the last attempt booked
	Models   []string
	GPUs     []BookingGPU
	Week     string // the week shown, carried back after a plain form post
	CSRF     string
}

// BookingGPU is a GPU the form offers by name.
type BookingGPU struct {
	ID    int64
	Label string // "sim-1 #0 H100-80GB"
}

// WeekHours is the number of hour columns of the week grid.
const WeekHours = 7 * 24
