package handlers

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// BookingPage handles GET /bookings/{id}: one booking's page, with the edit
// form, end now and cancel for its owner or an admin, and the occurrences
// of its series. ?done= says what the last action did.
func (h *Handlers) BookingPage(c echo.Context) error {
	id, err := bookingID(c)
	if err != nil {
		return err
	}
	d, err := h.bookingDetail(c, id)
	if err != nil {
		return err
	}
	switch c.QueryParam("done") {
	case "edited":
		d.Done = "Saved."
	case "ended":
		d.Done = "Ended: the GPUs are free again."
	case "canceled":
		d.Done = "Canceled."
	case "series":
		d.Done = "Series booked: every occurrence is below."
	}
	return render(c, http.StatusOK, views.BookingDetailPage(h.Page(c, fmt.Sprintf("Booking #%d", id), "bookings"), d))
}

// bookingDetail builds the page's model, times in the viewer's zone.
func (h *Handlers) bookingDetail(c echo.Context, id int64) (views.BookingDetail, error) {
	ctx := c.Request().Context()
	now, loc, u := h.Now(), viewerZone(c), userOf(c)
	b, err := models.GetBooking(ctx, h.DB.Bun, id)
	if err != nil {
		return views.BookingDetail{}, fromModel(err, "booking")
	}
	gpus, err := models.ListBookableGPUs(ctx, h.DB.Bun)
	if err != nil {
		return views.BookingDetail{}, err
	}
	state := b.State(now)
	d := views.BookingDetail{ID: b.ID, Owner: b.OwnerEmail, GPUs: bookingGPUsText(b, gpus), Window: zoneWindow(b.StartsAt, b.EndsAt, loc),
		Relative: relativeWindow(now, b.StartsAt, b.EndsAt), State: state, Note: b.Note, Zone: zoneName(loc, b.StartsAt), CSRF: csrfToken(c)}
	if b.CanceledAt != nil {
		d.Relative = "canceled"
	}
	d.CanEdit = (b.UserID == u.ID || u.IsAdmin()) && state != models.BookingEnded && state != models.BookingCanceled
	d.CanEnd, d.CanCancel = d.CanEdit && state == models.BookingActive, d.CanEdit
	d.Form = views.DetailForm{StartsAt: b.StartsAt.In(loc).Format(formTime), EndsAt: b.EndsAt.In(loc).Format(formTime),
		GPUCount: b.GPUCount, GPUIDs: b.GPUIDs, Note: b.Note}
	for _, g := range gpus {
		d.Form.GPUs = append(d.Form.GPUs, views.DetailGPU{ID: g.ID, Label: api.GPUName(g.NodeName, g.Index) + " " + g.Model})
	}
	if b.SeriesID != nil {
		d.SeriesID = *b.SeriesID
		occ, err := models.SeriesBookings(ctx, h.DB.Bun, *b.SeriesID)
		if err != nil {
			return d, err
		}
		for _, o := range occ {
			d.Occurrences = append(d.Occurrences, views.DetailOccurrence{ID: o.ID, Window: zoneWindow(o.StartsAt, o.EndsAt, loc),
				State: o.State(now), Current: o.ID == b.ID})
		}
	}
	return d, nil
}

// bookingGPUsText says what a booking claims: "2 × H100", "2 × any GPU" or
// the named GPUs "sim-1:0,1" (node:index).
func bookingGPUsText(b *models.BookingRow, gpus []models.BookableGPU) string {
	if len(b.GPUIDs) > 0 {
		return gpuNames(b.GPUIDs, gpuIndex(gpus)).String()
	}
	if b.GPUModel == "" {
		return fmt.Sprintf("%d × any GPU", b.GPUCount)
	}
	return fmt.Sprintf("%d × %s", b.GPUCount, b.GPUModel)
}

// bookingPageError shows a refused action on the booking's page with its
// status: the message and, for a clash, the competing bookings as links.
func (h *Handlers) bookingPageError(c echo.Context, id int64, err error, form *views.DetailForm) error {
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		return err
	}
	d, derr := h.bookingDetail(c, id)
	if derr != nil {
		return derr
	}
	if form != nil {
		form.GPUs = d.Form.GPUs
		d.Form = *form
	}
	d.Error = apiErr.Message
	var clash *models.ClashError
	if errors.As(err, &clash) {
		loc := viewerZone(c)
		d.Error = fmt.Sprintf("Cannot change it: %s %s not free at %s. It clashes with:", clash.What, isAreText(clash.Count),
			clash.At.In(loc).Format("Mon 2 Jan 15:04 MST"))
		for _, r := range clash.Rivals {
			d.Rivals = append(d.Rivals, views.DetailRival{ID: r.ID, Text: fmt.Sprintf("%s's %s #%d of %s, %s", r.Owner, r.Kind, r.ID, r.GPUs,
				zoneWindow(r.StartsAt, r.EndsAt, loc))})
		}
	}
	return render(c, apiErr.Status, views.BookingDetailPage(h.Page(c, fmt.Sprintf("Booking #%d", id), "bookings"), d))
}

func isAreText(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
