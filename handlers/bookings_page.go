package handlers

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/calgrid"
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// BookingsPage handles GET /bookings[?view=week|day&date=YYYY-MM-DD&group=gpu|node|type]:
// the calendar in the viewer's zone (every GPU a row, grouped by node;
// days or hours as columns), the capacity strip and the form to book.
// ?week=DATE is the older spelling of ?date=.
func (h *Handlers) BookingsPage(c echo.Context) error {
	cal, err := h.calendar(c, calParamsOf(c))
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.BookingsPage(h.Page(c, "Bookings", "bookings"), cal))
}

// BookingsFragment handles GET /fragments/bookings: the live grid.
func (h *Handlers) BookingsFragment(c echo.Context) error {
	cal, err := h.calendar(c, calParamsOf(c))
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, http.StatusOK, views.CalendarGrid(cal))
}

// calParams are the calendar's view, local date and row grouping, as given.
type calParams struct{ View, Date, Group string }

// calParamsOf reads them from the query or a posted form.
func calParamsOf(c echo.Context) calParams {
	p := calParams{View: c.FormValue("view"), Date: c.FormValue("date"), Group: c.FormValue("group")}
	if p.Date == "" {
		p.Date = c.FormValue("week")
	}
	return p
}

// calendarURL is the page for p, with any of its fields replaced by set.
func calendarURL(p calParams) string {
	q := url.Values{}
	if p.View == calgrid.Day {
		q.Set("view", p.View)
	}
	if p.Date != "" {
		q.Set("date", p.Date)
	}
	if p.Group != "" && p.Group != calgrid.ByGPU {
		q.Set("group", p.Group)
	}
	if len(q) == 0 {
		return "/bookings"
	}
	return "/bookings?" + q.Encode()
}

// calendarDay is local midnight of date (YYYY-MM-DD; empty: today) in loc.
func calendarDay(date string, now time.Time, loc *time.Location) (time.Time, error) {
	if date == "" {
		return localtime.StartOfDay(now, loc), nil
	}
	t, err := time.ParseInLocation("2006-01-02", date, loc)
	if err != nil {
		return time.Time{}, invalid("date", "must be a date like 2026-11-23, got %q", date)
	}
	return t, nil
}

// calendar builds the page's model: three queries whatever the number of
// bookings.
func (h *Handlers) calendar(c echo.Context, p calParams) (views.Calendar, error) {
	ctx := c.Request().Context()
	now, loc, u := h.Now(), viewerZone(c), userOf(c)
	day, err := calendarDay(p.Date, now, loc)
	if err != nil {
		return views.Calendar{}, err
	}
	if p.View != calgrid.Day {
		p.View = calgrid.Week
	}
	if p.Group != calgrid.ByNode && p.Group != calgrid.ByType {
		p.Group = calgrid.ByGPU
	}
	p.Date = day.Format("2006-01-02")
	end := localtime.AddDays(day, 7, loc)
	if p.View == calgrid.Day {
		end = localtime.AddDays(day, 1, loc)
	}
	gpus, err := models.ListBookableGPUs(ctx, h.DB.Bun)
	if err != nil {
		return views.Calendar{}, err
	}
	rows, err := models.ListBookings(ctx, h.DB.Bun, day, end, 0)
	if err != nil {
		return views.Calendar{}, err
	}
	jobs, err := models.ListRunningJobWindows(ctx, h.DB.Bun)
	if err != nil {
		return views.Calendar{}, err
	}
	in := calgrid.Input{View: p.View, Date: day, Zone: loc, Group: p.Group, Now: now,
		GPUs: make([]calgrid.GPU, len(gpus)), Items: make([]calgrid.Item, 0, len(rows)+len(jobs))}
	for i, g := range gpus {
		in.GPUs[i] = calgrid.GPU{ID: g.ID, NodeID: g.NodeID, Node: g.NodeName, Index: g.Index, Model: g.Model, Profile: g.Profile, Ways: g.Ways}
	}
	cal := views.Calendar{View: p.View, Group: p.Group, Date: day, Now: now, CSRF: csrfToken(c),
		Form: bookingForm(gpus, p, now, loc)}
	cal.Form.CSRF = cal.CSRF
	for i := range rows {
		b := &rows[i]
		in.Items = append(in.Items, bookingItem(u, b, now))
		if b.Kind == models.BookingKindBooking && (b.UserID == u.ID || u.IsAdmin()) && b.EndsAt.After(now) {
			cal.Cancelable = append(cal.Cancelable, views.CalendarBooking{ID: b.ID, Owner: b.OwnerEmail,
				What: bookingWhat(b, gpuIndex(gpus)), Window: localtime.Window(b.StartsAt, b.EndsAt, loc), Note: b.Note, Mine: b.UserID == u.ID,
				When: startsOrEnds(b.StartsAt, b.EndsAt, now)})
		}
	}
	for i := range jobs {
		in.Items = append(in.Items, jobItem(u, &jobs[i], now))
	}
	cal.Grid = calgrid.Compute(in)
	cal.Links = calendarLinks(p, day, loc)
	exp := url.Values{"from": {day.Format(time.RFC3339)}, "until": {end.Format(time.RFC3339)}}
	cal.Links.ExportCSV = "/bookings/export?" + exp.Encode() + "&format=csv"
	cal.Links.ExportICS = "/bookings/export?" + exp.Encode() + "&format=ics"
	cal.Links.Series, cal.Links.Feeds = "/bookings/series/new", "/settings/feeds"
	if u.IsAdmin() {
		cal.Links.Import = "/admin/import"
	}
	return cal, nil
}

// calendarLinks are the navigation's links from the view p shows.
func calendarLinks(p calParams, day time.Time, loc *time.Location) views.CalendarLinks {
	with := func(f func(q *calParams)) string {
		q := p
		f(&q)
		return calendarURL(q)
	}
	step := 7
	if p.View == calgrid.Day {
		step = 1
	}
	return views.CalendarLinks{
		Here:  calendarURL(p),
		Prev:  with(func(q *calParams) { q.Date = localtime.AddDays(day, -step, loc).Format("2006-01-02") }),
		Next:  with(func(q *calParams) { q.Date = localtime.AddDays(day, step, loc).Format("2006-01-02") }),
		Today: with(func(q *calParams) { q.Date = "" }),
		Week:  with(func(q *calParams) { q.View = calgrid.Week }),
		Day:   with(func(q *calParams) { q.View = calgrid.Day }),
		ByGPU: with(func(q *calParams) { q.Group = calgrid.ByGPU }), ByNode: with(func(q *calParams) { q.Group = calgrid.ByNode }),
		ByType: with(func(q *calParams) { q.Group = calgrid.ByType }),
		DayOf: func(date string) string {
			return with(func(q *calParams) { q.View, q.Date = calgrid.Day, date })
		},
		Fragment: "/fragments/bookings?" + strings.TrimPrefix(strings.TrimPrefix(calendarURL(p), "/bookings"), "?"),
	}
}

// shortName is the part of an email before the @: "ana".
func shortName(email string) string {
	if i := strings.IndexByte(email, '@'); i > 0 {
		return email[:i]
	}
	return email
}

// bookingItem is a booking or hold for the grid: on its named GPUs, or on
// those the scheduler pinned to it while in force, else drawn by count.
func bookingItem(u *models.User, b *models.BookingRow, now time.Time) calgrid.Item {
	it := calgrid.Item{ID: b.ID, Kind: calgrid.KindBooking, Owner: shortName(b.OwnerEmail), OwnerFull: b.OwnerEmail,
		Count: b.GPUCount, Note: b.Note, Start: b.StartsAt, End: b.EndsAt, GPUIDs: b.GPUIDs, Model: b.GPUModel,
		Share: b.GPUShare, Mine: u != nil && b.UserID == u.ID}
	if b.Kind == models.BookingKindHold {
		it.Kind = calgrid.KindHold
	}
	if (len(it.GPUIDs) == 0 || b.GPUShare > 0) && b.State(now) == models.BookingActive && len(b.PinnedGPUIDs) > 0 {
		it.GPUIDs = b.PinnedGPUIDs // a share in force: the slots kept for it
	}
	if len(b.GPUIDs) > 0 && b.GPUShare == 0 {
		it.Count = len(b.GPUIDs)
	}
	if b.NodeID != nil {
		it.NodeID = *b.NodeID
	}
	return it
}

// jobItem is a running job for the grid, until its expected end (an hour
// past now, open-ended, when it has no estimate or overran it).
func jobItem(u *models.User, j *models.RunningJobWindow, now time.Time) calgrid.Item {
	it := calgrid.Item{ID: j.JobID, Kind: calgrid.KindJob, Owner: shortName(j.OwnerEmail), OwnerFull: j.OwnerEmail,
		Count: len(j.GPUIDs), Note: j.Name, Start: j.StartedAt, GPUIDs: j.GPUIDs, Mine: u != nil && j.OwnerID == u.ID}
	end, ok := j.ExpectedEnd()
	if !ok || !end.After(now) {
		end, it.OpenEnd = now.Add(time.Hour), true
	}
	it.End = end
	return it
}

// bookingWhat is what a booking asks for: "2 × H100", "any 1 GPU", "sim-1:0,1".
func bookingWhat(b *models.BookingRow, byID map[int64]models.BookableGPU) string {
	switch {
	case b.GPUShare > 0 && len(b.GPUIDs) > 0:
		return calgrid.ShareText(b.GPUShare) + " of " + gpuNames(b.GPUIDs[:1], byID).String()
	case b.GPUShare > 0 && b.GPUModel != "":
		return calgrid.ShareText(b.GPUShare) + " of a shared " + b.GPUModel
	case b.GPUShare > 0:
		return calgrid.ShareText(b.GPUShare) + " of a shared GPU"
	case len(b.GPUIDs) > 0:
		return gpuNames(b.GPUIDs, byID).String()
	case b.GPUModel != "":
		return fmt.Sprintf("%d × %s", b.GPUCount, b.GPUModel)
	}
	return fmt.Sprintf("%d × any GPU", b.GPUCount)
}

// bookingForm is an empty form: one GPU, tomorrow 09:00–18:00 in loc.
func bookingForm(gpus []models.BookableGPU, p calParams, now time.Time, loc *time.Location) views.BookingForm {
	day := localtime.AddDays(now, 1, loc)
	f := views.BookingForm{GPUCount: 1, Week: p.Date, View: p.View, Group: p.Group, Zone: loc.String(),
		ZoneAbbrev: localtime.Abbrev(now, loc),
		StartsAt:   localtime.FormValue(localtime.At(day, 9, 0, loc), loc), EndsAt: localtime.FormValue(localtime.At(day, 18, 0, loc), loc)}
	for _, g := range gpus {
		if g.Ways > 0 { // a shared GPU is booked by share, once, never its slots
			label := api.GPUName(g.NodeName, g.Index) + " " + g.Model
			if k := len(f.Shared) - 1; k < 0 || f.Shared[k].Label != label {
				f.Shared = append(f.Shared, views.BookingGPU{ID: g.ID, Label: label})
			}
			continue
		}
		if g.Profile != "" { // a MIG slice is booked by its profile, never named as a whole GPU
			if !slices.Contains(f.Models, g.Profile) {
				f.Models = append(f.Models, g.Profile)
			}
			continue
		}
		if !slices.Contains(f.Models, g.Model) {
			f.Models = append(f.Models, g.Model)
		}
		f.GPUs = append(f.GPUs, views.BookingGPU{ID: g.ID, Label: api.GPUName(g.NodeName, g.Index) + " " + g.Model})
	}
	slices.Sort(f.Models)
	return f
}

// startsOrEnds is "starts in 2h" for an upcoming window, "ends in 29m" for
// one in force.
func startsOrEnds(start, end, now time.Time) string {
	if start.After(now) {
		return "starts " + localtime.Relative(start, now)
	}
	return "ends " + localtime.Relative(end, now)
}
