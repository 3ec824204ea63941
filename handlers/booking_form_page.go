package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// formTime is the value format of <input type="datetime-local">; the page
// reads and writes it in the viewer's zone (viewerZone).
const formTime = "2006-01-02T15:04"

// BookingCreatePage handles POST /bookings, the calendar's form (CSRF
// checked by the page group). htmx gets the form card back, with the
// outcome; a plain form is sent to the booking's week, or gets the page
// again with the refusal and its status (409 clash, 422/400 bad input).
func (h *Handlers) BookingCreatePage(c echo.Context) error {
	u := userOf(c)
	ctx := c.Request().Context()
	gpus, err := models.ListBookableGPUs(ctx, h.DB.Bun)
	if err != nil {
		return err
	}
	p := calParamsOf(c)
	loc := viewerZone(c)
	if _, err := calendarDay(p.Date, h.Now(), loc); err != nil {
		return err
	}
	form := bookingForm(gpus, p, h.Now(), loc)
	form.CSRF = csrfToken(c)
	r, err := readBookingForm(c, h.DB.Bun, &form, loc)
	var row *models.BookingRow
	if err == nil {
		err = h.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			row, err = h.createBooking(ctx, tx, u, r)
			return err
		})
	}
	htmx := c.Request().Header.Get("HX-Request") == "true"
	var apiErr *APIError
	switch {
	case errors.As(err, &apiErr):
		form.Error = apiErr.Message
		if htmx {
			return render(c, http.StatusOK, views.BookingFormCard(form))
		}
		cal, cerr := h.calendar(c, p)
		if cerr != nil {
			return cerr
		}
		cal.Form = form
		return render(c, apiErr.Status, views.BookingsPage(h.Page(c, "Bookings", "bookings"), cal))
	case err != nil:
		return err
	}
	h.log(c).Info("booking created", "user", u.Email, "booking", row.ID, "gpus", row.GPUCount)
	if !htmx {
		p.Date = row.StartsAt.In(loc).Format("2006-01-02")
		return c.Redirect(http.StatusSeeOther, calendarURL(p))
	}
	done := bookingForm(gpus, p, h.Now(), loc)
	done.CSRF = csrfToken(c)
	done.Done = fmt.Sprintf("Booked #%d: %s, %s.", row.ID, bookingWhat(row, gpuIndex(gpus)), localtime.Window(row.StartsAt, row.EndsAt, loc))
	return render(c, http.StatusOK, views.BookingFormCard(done))
}

// readBookingForm reads the form into a request, and into f so that a
// refused form comes back as it was filled in. Named GPUs win over a count.
func readBookingForm(c echo.Context, db bun.IDB, f *views.BookingForm, loc *time.Location) (*api.BookingRequest, error) {
	f.GPUModel, f.Note = strings.TrimSpace(c.FormValue("gpu_model")), c.FormValue("note")
	f.StartsAt, f.EndsAt = c.FormValue("starts_at"), c.FormValue("ends_at")
	r := &api.BookingRequest{GPUModel: f.GPUModel, Note: f.Note}
	ids, err := formGPUIDs(c, db)
	if err != nil {
		return r, err
	}
	f.GPUIDs = ids
	if f.Share = strings.TrimSpace(c.FormValue("gpu_share")); f.Share != "" {
		return r, readShareForm(c, f, r, loc)
	}
	if s := strings.TrimSpace(c.FormValue("gpu_count")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return r, invalid("GPUs", "%q is not a number", s)
		}
		f.GPUCount = n
	}
	if len(f.GPUIDs) > 0 {
		r.GPUIDs = api.RefsOfIDs(f.GPUIDs)
		r.GPUModel = ""
	} else {
		r.GPUCount = f.GPUCount
	}
	return r, readFormWindow(f, r, loc)
}

// readFormWindow reads the form's From and Until (in loc) into r.
func readFormWindow(f *views.BookingForm, r *api.BookingRequest, loc *time.Location) error {
	for _, v := range []struct {
		name, s string
		dst     *time.Time
	}{{"From", f.StartsAt, &r.StartsAt}, {"Until", f.EndsAt, &r.EndsAt}} {
		if v.s == "" {
			return invalid(v.name, "is required")
		}
		var err error
		if *v.dst, err = parseFormTime(v.s, loc); err != nil {
			return invalid(v.name, "%q is not a date and time like 2026-11-23 09:00 (%s)", v.s, loc)
		}
	}
	return nil
}

func gpuIndex(gpus []models.BookableGPU) map[int64]models.BookableGPU {
	out := make(map[int64]models.BookableGPU, len(gpus))
	for _, g := range gpus {
		out[g.ID] = g
	}
	return out
}

// BookingCancelPage handles POST /bookings/{id}/cancel from the calendar:
// htmx gets the refreshed grid, a plain form is sent back to the week.
func (h *Handlers) BookingCancelPage(c echo.Context) error {
	id, err := bookingID(c)
	if err != nil {
		return err
	}
	if _, err := h.cancelBooking(c, id); err != nil {
		return err
	}
	if c.Request().Header.Get("HX-Request") == "true" {
		return h.BookingsFragment(c)
	}
	return c.Redirect(http.StatusSeeOther, calendarURL(calParamsOf(c)))
}

// parseFormTime reads a form's time: local time in loc (datetime-local,
// with or without seconds), or RFC 3339 with an offset.
func parseFormTime(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{formTime, "2006-01-02T15:04:05", "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Parse(time.RFC3339, s)
}
