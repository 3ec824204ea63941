package views

// SeriesForm is the page that books a recurring series
// (/bookings/series/new): the same GPUs on chosen weekdays, local times of
// the viewer's zone.
type SeriesForm struct {
	CSRF      string
	Zone      string // IANA name the times are in
	ZoneLabel string // "Europe/Berlin (CET)"
	GPUCount  int
	GPUModel  string
	Models    []string
	Note      string
	FirstDay  string
	LastDay   string
	Days      []string // "mon"…
	StartTime string
	EndTime   string
	Error     string
	Clashes   []DetailRival // the clashing occurrences, each with whom
}

// HasDay reports whether the form picks weekday d.
func (f SeriesForm) HasDay(d string) bool {
	for _, x := range f.Days {
		if x == d {
			return true
		}
	}
	return false
}
