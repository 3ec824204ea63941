package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// maxOccurrences bounds one series.
const maxOccurrences = 60

// seriesClashJSON is the 409 of a series: the error body and the
// clashing occurrences.
type seriesClashJSON struct {
	api.Error
	Clashes []occurrenceClash `json:"clashes"`
}

type occurrenceClash struct {
	Occurrence int                 `json:"occurrence"`
	StartsAt   time.Time           `json:"starts_at"`
	EndsAt     time.Time           `json:"ends_at"`
	With       []models.ClashRival `json:"with"`
}

// BookingSeriesCreate handles POST /api/v1/bookings/series: a recurring
// booking (e.g. every weekday 09:00–18:00 for two weeks, in the given zone,
// DST-correct). Every occurrence follows the rules of a booking and is
// checked for clashes; nothing is written unless all fit (409 listing the
// clashing occurrences). 201 with the series id and its bookings.
func (h *Handlers) BookingSeriesCreate(c echo.Context) error {
	var r api.SeriesRequest
	body, err := readJSON(c, &r)
	if err != nil {
		return err
	}
	var status int
	var out any
	err = h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		status, out, err = idempotent(c, tx, body, func(ctx context.Context) (int, any, error) {
			id, rows, err := h.createSeries(ctx, tx, userOf(c), &r)
			var serr *models.SeriesClashError
			if errors.As(err, &serr) {
				return http.StatusConflict, seriesClash(serr, rows, viewerZone(c)), nil
			}
			if err != nil {
				return 0, nil, err
			}
			res := api.Series{SeriesID: id}
			for i := range rows {
				res.Bookings = append(res.Bookings, bookingJSON(&rows[i], h.Now()))
			}
			return http.StatusCreated, res, nil
		})
		return err
	})
	if err != nil {
		return err
	}
	return c.JSON(status, out)
}

// seriesClash is the 409 body listing the clashing occurrences; its
// sentence names times in loc (the caller's zone).
func seriesClash(serr *models.SeriesClashError, rows []models.BookingRow, loc *time.Location) seriesClashJSON {
	out := seriesClashJSON{Error: api.Error{Message: "cannot book the series: " + serr.Sentence(loc), Code: api.CodeBookingClash}}
	for _, o := range serr.Occurrences {
		occ := occurrenceClash{Occurrence: o.Index, With: o.Clash.Rivals}
		if o.Index-1 < len(rows) {
			occ.StartsAt, occ.EndsAt = rows[o.Index-1].StartsAt.UTC(), rows[o.Index-1].EndsAt.UTC()
		}
		out.Clashes = append(out.Clashes, occ)
	}
	return out
}

// createSeries validates r and books the series; on a clash it returns the
// occurrences it tried with the *SeriesClashError.
func (h *Handlers) createSeries(ctx context.Context, tx *models.Tx, u *models.User, r *api.SeriesRequest) (int64, []models.BookingRow, error) {
	now := h.Now()
	loc, err := zoneParam("time_zone", r.TimeZone, time.UTC)
	if err != nil {
		return 0, nil, err
	}
	lim, err := h.bookingLimits(ctx, tx)
	if err != nil {
		return 0, nil, err
	}
	windows, err := seriesWindows(r, loc)
	if err != nil {
		return 0, nil, err
	}
	given, err := gpuIDsOf(ctx, tx, r.GPUIDs)
	if err != nil {
		return 0, nil, err
	}
	var bs []*models.Booking
	var ids []int64
	rows := make([]models.BookingRow, 0, len(windows))
	for i, w := range windows {
		req := api.BookingRequest{GPUCount: r.GPUCount, GPUModel: r.GPUModel, Note: r.Note, StartsAt: w[0], EndsAt: w[1]}
		b, gids, err := bookingFrom(u, &req, given, lim, now)
		if err != nil {
			var apiErr *APIError
			if errors.As(err, &apiErr) {
				apiErr.Message = fmt.Sprintf("occurrence %d (%s): %s", i+1, zoneWindow(w[0], w[1], loc), apiErr.Message)
			}
			return 0, nil, err
		}
		b.Source = "series"
		bs, ids = append(bs, b), gids
		rows = append(rows, models.BookingRow{Booking: *b, OwnerEmail: u.Email, GPUIDs: gids})
	}
	id, err := models.CreateSeries(ctx, tx, bs, ids, lim.MaxLive, now)
	var serr *models.SeriesClashError
	if errors.As(err, &serr) {
		return 0, rows, err
	}
	if err != nil {
		return 0, nil, bookingError(err, userZone(u))
	}
	named := make([]*models.BookingRow, len(rows))
	for i, b := range bs {
		rows[i].Booking = *b
		named[i] = &rows[i]
	}
	if err := nameGPUs(ctx, tx, named...); err != nil {
		return 0, nil, err
	}
	return id, rows, nil
}

var weekdays = map[string]time.Weekday{"sun": time.Sunday, "mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday,
	"thu": time.Thursday, "fri": time.Friday, "sat": time.Saturday}

// seriesWindows lists the occurrences' windows: on each chosen weekday
// from first_day to last_day, the local start and end times in loc (so a
// 09:00 stays 09:00 across a DST change).
func seriesWindows(r *api.SeriesRequest, loc *time.Location) ([][2]time.Time, error) {
	first, err := time.ParseInLocation("2006-01-02", r.FirstDay, loc)
	if err != nil {
		return nil, invalid("first_day", "must be a date like 2026-11-30, got %q", r.FirstDay)
	}
	last, err := time.ParseInLocation("2006-01-02", r.LastDay, loc)
	if err != nil {
		return nil, invalid("last_day", "must be a date like 2026-12-11, got %q", r.LastDay)
	}
	if last.Before(first) {
		return nil, invalid("last_day", "is before first_day")
	}
	clock := func(field, s string) (int, int, error) {
		t, err := time.Parse("15:04", s)
		if err != nil {
			return 0, 0, invalid(field, "must be a time like 09:00, got %q", s)
		}
		return t.Hour(), t.Minute(), nil
	}
	sh, sm, err := clock("start_time", r.StartTime)
	if err != nil {
		return nil, err
	}
	eh, em, err := clock("end_time", r.EndTime)
	if err != nil {
		return nil, err
	}
	days := map[time.Weekday]bool{}
	for _, d := range r.Days {
		wd, ok := weekdays[strings.ToLower(strings.TrimSpace(d))[:min(3, len(strings.TrimSpace(d)))]]
		if !ok {
			return nil, invalid("days", "%q is not a weekday (mon, tue, wed, thu, fri, sat, sun)", d)
		}
		days[wd] = true
	}
	if len(days) == 0 {
		days[first.Weekday()] = true
	}
	var out [][2]time.Time
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		if !days[d.Weekday()] {
			continue
		}
		if len(out) == maxOccurrences {
			return nil, unprocessable(api.CodeSeriesTooLong, "last_day: a series may have at most %d occurrences", maxOccurrences)
		}
		start := time.Date(d.Year(), d.Month(), d.Day(), sh, sm, 0, 0, loc)
		end := time.Date(d.Year(), d.Month(), d.Day(), eh, em, 0, 0, loc)
		if !end.After(start) {
			end = time.Date(d.Year(), d.Month(), d.Day()+1, eh, em, 0, 0, loc)
		}
		out = append(out, [2]time.Time{start, end})
	}
	if len(out) == 0 {
		return nil, invalid("days", "no chosen weekday falls between first_day and last_day")
	}
	return out, nil
}

// BookingSeriesCancel handles DELETE /api/v1/bookings/series/{id}: its
// owner (or an admin) cancels every occurrence that has not ended.
func (h *Handlers) BookingSeriesCancel(c echo.Context) error {
	id, err := bookingID(c)
	if err != nil {
		return err
	}
	n, err := h.cancelSeries(c, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"series_id": id, "canceled": n})
}

func (h *Handlers) cancelSeries(c echo.Context, id int64) (int, error) {
	u := userOf(c)
	var n int
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		var err error
		n, err = models.CancelSeries(ctx, tx, id, u.ID, u.IsAdmin(), h.Now())
		return err
	})
	if err != nil {
		return 0, editError(err, userZone(u))
	}
	return n, nil
}

// BookingSeriesCancelPage handles POST /bookings/series/{id}/cancel from a
// booking's page: back to the calendar.
func (h *Handlers) BookingSeriesCancelPage(c echo.Context) error {
	id, err := bookingID(c)
	if err != nil {
		return err
	}
	if _, err := h.cancelSeries(c, id); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/bookings")
}
