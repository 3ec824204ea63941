package handlers

import (
	"bytes"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/bookingcsv"
	"github.com/gpuscheduler/gpuscheduler/internal/calfeed"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// BookingExport handles GET /api/v1/bookings/export and the page's
// download link GET /bookings/export: everyone's bookings in [from, until)
// (default: the last 7 days to 60 days ahead) as the sheet (format=csv,
// times in ?tz=, by default UTC for the API and the viewer's zone on the
// page; what import reads back) or as iCalendar (format=ics).
func (h *Handlers) BookingExport(c echo.Context) error {
	now := h.Now()
	def := time.UTC
	if PrincipalOf(c) != nil && c.Request().Header.Get(echo.HeaderAuthorization) == "" {
		def = viewerZone(c)
	}
	loc, err := zoneParam("tz", c.QueryParam("tz"), def)
	if err != nil {
		return err
	}
	from, until := now.Add(-7*24*time.Hour), now.Add(60*24*time.Hour)
	for _, p := range []struct {
		name string
		dst  *time.Time
	}{{"from", &from}, {"until", &until}} {
		if s := c.QueryParam(p.name); s != "" {
			if *p.dst, err = bookingcsv.ParseTime(s, loc); err != nil {
				return invalid(p.name, "%v", err)
			}
		}
	}
	if !until.After(from) {
		return invalid("until", "must be after from")
	}
	format := c.QueryParam("format")
	ctx := c.Request().Context()
	switch format {
	case "", "csv":
		rows, err := models.ListBookings(ctx, h.DB.Bun, from, until, 0)
		if err != nil {
			return err
		}
		gpus, err := models.ListBookableGPUs(ctx, h.DB.Bun)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := bookingcsv.Write(&buf, sheetRows(rows, gpus), loc); err != nil {
			return fmt.Errorf("handlers: export: %w", err)
		}
		c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="bookings.csv"`)
		return c.Blob(http.StatusOK, "text/csv; charset=utf-8", buf.Bytes())
	case "ics":
		rows, err := models.FeedBookings(ctx, h.DB.Bun, 0, false, from, until)
		if err != nil {
			return err
		}
		body, err := calfeed.Write("GPU bookings", bookingEvents(rows, baseURL(c), true), now)
		if err != nil {
			return err
		}
		c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="bookings.ics"`)
		return c.Blob(http.StatusOK, "text/calendar; charset=utf-8", body)
	}
	return invalid("format", "must be csv or ics, got %q", format)
}

// BookingICS handles GET /bookings/{id}/export.ics: one booking, to add to
// one's own calendar.
func (h *Handlers) BookingICS(c echo.Context) error {
	id, err := bookingID(c)
	if err != nil {
		return err
	}
	b, err := h.bookingOf(c, id)
	if err != nil {
		return err
	}
	body, err := calfeed.Write(fmt.Sprintf("GPU booking #%d", id), bookingEvents([]models.BookingRow{*b}, baseURL(c), true), h.Now())
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="booking-%d.ics"`, id))
	return c.Blob(http.StatusOK, "text/calendar; charset=utf-8", body)
}

// sheetRows turns bookings into sheet rows: named GPUs as indexes on their
// node when they share one, else as cluster GPU ids.
func sheetRows(rows []models.BookingRow, gpus []models.BookableGPU) []bookingcsv.Row {
	byID := gpuIndex(gpus)
	out := make([]bookingcsv.Row, 0, len(rows))
	for i := range rows {
		b := &rows[i]
		if b.Kind != models.BookingKindBooking {
			continue
		}
		r := bookingcsv.Row{Email: b.OwnerEmail, GPUs: b.GPUCount, GPUModel: b.GPUModel, Start: b.StartsAt, End: b.EndsAt, Note: b.Note}
		if b.NodeID != nil {
			for _, g := range gpus {
				if g.NodeID == *b.NodeID {
					r.Node = g.NodeName
					break
				}
			}
		}
		if len(b.GPUIDs) > 0 {
			node, same := byID[b.GPUIDs[0]].NodeName, true
			for _, id := range b.GPUIDs {
				same = same && byID[id].NodeName == node && node != ""
			}
			for _, id := range b.GPUIDs {
				if same {
					r.GPUIDs = append(r.GPUIDs, int64(byID[id].Index))
				} else {
					r.GPUIDs = append(r.GPUIDs, id)
				}
			}
			if same {
				r.Node = node
			}
		}
		out = append(out, r)
	}
	return out
}
