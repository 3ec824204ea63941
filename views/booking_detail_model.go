package views

// BookingDetail is the page of one booking (/bookings/{id}): what it
// claims and when, in the viewer's zone, and for its owner or an admin the
// edit form and the end, cancel and series actions.
type BookingDetail struct {
	ID       int64
	Owner    string
	GPUs     string // "2 × H100", "sim-1 #0, sim-1 #1"
	Window   string // in the viewer's zone, with its abbreviation
	Relative string // "starts in 3h", "ends in 29m", "ended 2h ago"
	State    string
	Note     string
	Zone     string // the zone's name and abbreviation the times are in: "Europe/Berlin (CET)"

	CanEdit   bool // owner or admin, and not ended or canceled
	CanEnd    bool // CanEdit and active
	CanCancel bool // CanEdit

	Form DetailForm

	SeriesID    int64
	Occurrences []DetailOccurrence // the series' occurrences, when it is one

	Error  string        // the refusal of the last action
	Rivals []DetailRival // the bookings a refused edit clashes with
	Done   string        // what the last action did
	CSRF   string
}

// DetailForm is the edit form, in the viewer's zone.
type DetailForm struct {
	StartsAt string // datetime-local value
	EndsAt   string
	GPUCount int
	GPUIDs   []int64
	Note     string
	GPUs     []DetailGPU
}

// DetailGPU is a GPU the edit form offers by name.
type DetailGPU struct {
	ID    int64
	Label string
}

// DetailRival is a booking an edit clashes with.
type DetailRival struct {
	ID   int64 // 0: not a stored booking
	Text string
}

// DetailOccurrence is one occurrence of a series.
type DetailOccurrence struct {
	ID      int64
	Window  string
	State   string
	Current bool
}

// HasGPU reports whether the form names GPU id.
func (f DetailForm) HasGPU(id int64) bool {
	for _, g := range f.GPUIDs {
		if g == id {
			return true
		}
	}
	return false
}
