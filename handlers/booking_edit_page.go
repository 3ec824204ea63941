package handlers

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// BookingEditPage handles POST /bookings/{id}/edit, the booking page's
// form (times in the viewer's zone) and its "Extend 1h" buttons (extend=).
// Success goes back to the page; a refusal shows it there with its status
// (409 naming the clash, 400/422 naming the field).
func (h *Handlers) BookingEditPage(c echo.Context) error {
	id, err := bookingID(c)
	if err != nil {
		return err
	}
	p, form, err := h.readEditForm(c, id)
	if err == nil {
		_, err = h.editBooking(c.Request().Context(), userOf(c), id, p)
	}
	if err != nil {
		return h.bookingPageError(c, id, err, form)
	}
	return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/bookings/%d?done=edited", id))
}

// readEditForm turns the form into a patch, and into the form as filled in.
func (h *Handlers) readEditForm(c echo.Context, id int64) (*api.BookingPatch, *views.DetailForm, error) {
	if ext := c.FormValue("extend"); ext != "" {
		d, err := time.ParseDuration(ext)
		if err != nil || d <= 0 {
			return nil, nil, invalid("extend", "%q is not a length like 1h", ext)
		}
		b, err := h.bookingOf(c, id)
		if err != nil {
			return nil, nil, err
		}
		end := b.EndsAt.Add(d)
		return &api.BookingPatch{EndsAt: &end}, nil, nil
	}
	loc := viewerZone(c)
	f := &views.DetailForm{StartsAt: c.FormValue("starts_at"), EndsAt: c.FormValue("ends_at"), Note: c.FormValue("note")}
	p := &api.BookingPatch{Note: &f.Note}
	from, err := parseZoneTime("From", f.StartsAt, loc)
	if err != nil {
		return nil, f, err
	}
	until, err := parseZoneTime("Until", f.EndsAt, loc)
	if err != nil {
		return nil, f, err
	}
	p.StartsAt, p.EndsAt = &from, &until
	ids, err := formGPUIDs(c, h.DB.Bun)
	if err != nil {
		return nil, f, err
	}
	if ids == nil {
		ids = []int64{}
	}
	f.GPUIDs = ids
	refs := api.RefsOfIDs(ids)
	p.GPUIDs = &refs
	if s := strings.TrimSpace(c.FormValue("gpu_count")); s != "" && len(ids) == 0 {
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, f, invalid("GPUs", "%q is not a number", s)
		}
		f.GPUCount, p.GPUCount = n, &n
	}
	return p, f, nil
}

// BookingEndPage handles POST /bookings/{id}/end from the booking's page.
func (h *Handlers) BookingEndPage(c echo.Context) error {
	id, err := bookingID(c)
	if err != nil {
		return err
	}
	if _, err := h.endBooking(c.Request().Context(), userOf(c), id); err != nil {
		return h.bookingPageError(c, id, err, nil)
	}
	return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/bookings/%d?done=ended", id))
}

// BookingCancelOnePage handles POST /bookings/{id}/cancel-one from the
// booking's page (one occurrence of a series, or a single booking): back
// to the page.
func (h *Handlers) BookingCancelOnePage(c echo.Context) error {
	id, err := bookingID(c)
	if err != nil {
		return err
	}
	if _, err := h.cancelBooking(c, id); err != nil {
		return h.bookingPageError(c, id, err, nil)
	}
	return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/bookings/%d?done=canceled", id))
}
