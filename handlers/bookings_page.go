package handlers

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// BookingsPage handles GET /bookings[?week=YYYY-MM-DD]: seven days' bookings
// and holds (GPU types and nodes as rows, hours as columns) and the form to
// book.
func (h *Handlers) BookingsPage(c echo.Context) error {
	cal, err := h.calendar(c, c.QueryParam("week"))
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.BookingsPage(h.Page(c, "Bookings", "bookings"), cal))
}

// BookingsFragment handles GET /fragments/bookings: the live grid.
func (h *Handlers) BookingsFragment(c echo.Context) error {
	cal, err := h.calendar(c, c.QueryParam("week"))
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, http.StatusOK, views.CalendarGrid(cal))
}

// weekStart is 00:00 UTC of day (YYYY-MM-DD, empty: today): the calendar
// shows seven days from there, so that by default today and the next six
// days are in view, tomorrow included whatever the weekday.
func weekStart(day string, now time.Time) (time.Time, error) {
	t := now.UTC()
	if day != "" {
		var err error
		if t, err = time.Parse("2006-01-02", day); err != nil {
			return time.Time{}, invalid("week", "must be a date like 2026-11-23, got %q", day)
		}
	}
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), nil
}

// calendar builds the page's model for the week holding day: three queries
// whatever the number of bookings.
func (h *Handlers) calendar(c echo.Context, day string) (views.Calendar, error) {
	ctx := c.Request().Context()
	now := h.Now()
	start, err := weekStart(day, now)
	if err != nil {
		return views.Calendar{}, err
	}
	gpus, err := models.ListBookableGPUs(ctx, h.DB.Bun)
	if err != nil {
		return views.Calendar{}, err
	}
	rows, err := models.ListBookings(ctx, h.DB.Bun, start, start.AddDate(0, 0, 7), 0)
	if err != nil {
		return views.Calendar{}, err
	}
	cal := views.Calendar{WeekStart: start, Now: now, Form: bookingForm(gpus, start, now), CSRF: csrfToken(c)}
	cal.Form.CSRF = cal.CSRF
	cal.Rows = calendarRows(userOf(c), gpus, rows, start, now)
	return cal, nil
}

// bookingForm is an empty form: one GPU, tomorrow 09:00–18:00 UTC.
func bookingForm(gpus []models.BookableGPU, week, now time.Time) views.BookingForm {
	day := now.UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	f := views.BookingForm{GPUCount: 1, Week: week.Format("2006-01-02"),
		StartsAt: day.Add(9 * time.Hour).Format(formTime), EndsAt: day.Add(18 * time.Hour).Format(formTime)}
	for _, g := range gpus {
		if !slices.Contains(f.Models, g.Model) {
			f.Models = append(f.Models, g.Model)
		}
		f.GPUs = append(f.GPUs, views.BookingGPU{ID: g.ID, Label: fmt.Sprintf("%s #%d %s", g.NodeName, g.Index, g.Model)})
	}
	slices.Sort(f.Models)
	return f
}

// calendarRows groups bookings into rows: one per GPU type (bookings by
// count), "Any type", then one per node (bookings of named GPUs).
func calendarRows(u *models.User, gpus []models.BookableGPU, bs []models.BookingRow, week, now time.Time) []views.CalendarRow {
	byID := map[int64]models.BookableGPU{}
	var typeRows, nodeRows []views.CalendarRow
	typeIdx, nodeIdx := map[string]int{}, map[int64]int{}
	for _, g := range gpus {
		byID[g.ID] = g
		if _, ok := typeIdx[g.Model]; !ok {
			typeIdx[g.Model] = len(typeRows)
			typeRows = append(typeRows, views.CalendarRow{Label: g.Model})
		}
		if _, ok := nodeIdx[g.NodeID]; !ok {
			nodeIdx[g.NodeID] = len(nodeRows)
			nodeRows = append(nodeRows, views.CalendarRow{Label: g.NodeName})
		}
	}
	count := func(match func(g models.BookableGPU) bool) int {
		n := 0
		for _, g := range gpus {
			if match(g) {
				n++
			}
		}
		return n
	}
	for i := range typeRows {
		typeRows[i].Sub = fmt.Sprintf("%d GPUs, any of them", count(func(g models.BookableGPU) bool { return g.Model == typeRows[i].Label }))
	}
	for id, i := range nodeIdx {
		nodeRows[i].Sub = fmt.Sprintf("%d GPUs, named", count(func(g models.BookableGPU) bool { return g.NodeID == id }))
	}
	anyRow := views.CalendarRow{Label: "Any type", Sub: fmt.Sprintf("%d GPUs", len(gpus))}
	for i := range bs {
		b := &bs[i]
		bar := calendarBar(u, b, byID, week, now)
		switch {
		case len(b.GPUIDs) > 0:
			if i, ok := nodeIdx[byID[b.GPUIDs[0]].NodeID]; ok {
				nodeRows[i].Bars = append(nodeRows[i].Bars, bar)
			}
		case b.NodeID != nil:
			if i, ok := nodeIdx[*b.NodeID]; ok {
				nodeRows[i].Bars = append(nodeRows[i].Bars, bar)
			}
		case b.GPUModel == "":
			anyRow.Bars = append(anyRow.Bars, bar)
		default:
			placed := false
			for _, r := range typeRows {
				if strings.Contains(strings.ToLower(r.Label), strings.ToLower(b.GPUModel)) {
					typeRows[typeIdx[r.Label]].Bars = append(typeRows[typeIdx[r.Label]].Bars, bar)
					placed = true
					break
				}
			}
			if !placed {
				anyRow.Bars = append(anyRow.Bars, bar)
			}
		}
	}
	for i := range typeRows {
		typeRows[i].Label = "Any " + typeRows[i].Label
	}
	out := append(typeRows, anyRow)
	return append(out, nodeRows...)
}

// calendarBar shapes one booking for the grid of the week starting at week.
func calendarBar(u *models.User, b *models.BookingRow, byID map[int64]models.BookableGPU, week, now time.Time) views.CalendarBar {
	hours := func(t time.Time, up bool) int {
		d := t.Sub(week)
		h := int(d / time.Hour)
		if up && d%time.Hour != 0 {
			h++
		}
		return min(max(h, 0), views.WeekHours)
	}
	bar := views.CalendarBar{ID: b.ID, Kind: b.Kind, Owner: b.OwnerEmail, Window: models.Window(b.StartsAt, b.EndsAt),
		Note: b.Note, State: b.State(now), From: hours(b.StartsAt, false), To: hours(b.EndsAt, true), Mine: b.UserID == u.ID,
		CanCancel: b.Kind == models.BookingKindBooking && (b.UserID == u.ID || u.IsAdmin())}
	if bar.To <= bar.From {
		bar.To = bar.From + 1
	}
	switch {
	case len(b.GPUIDs) > 0:
		var names []string
		for _, id := range b.GPUIDs {
			g := byID[id]
			names = append(names, fmt.Sprintf("%s #%d", g.NodeName, g.Index))
		}
		bar.GPUs = strings.Join(names, ", ")
	case b.GPUModel != "":
		bar.GPUs = fmt.Sprintf("%d × %s", b.GPUCount, b.GPUModel)
	default:
		bar.GPUs = fmt.Sprintf("%d × any GPU", b.GPUCount)
	}
	return bar
}
