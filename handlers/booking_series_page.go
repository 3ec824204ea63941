package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// BookingSeriesNewPage handles GET /bookings/series/new: the form, filled
// with weekdays 09:00–18:00 for the next two weeks.
func (h *Handlers) BookingSeriesNewPage(c echo.Context) error {
	f, err := h.seriesForm(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.SeriesPage(h.Page(c, "Recurring booking", "bookings"), f))
}

func (h *Handlers) seriesForm(c echo.Context) (views.SeriesForm, error) {
	loc, now := viewerZone(c), h.Now()
	gpus, err := models.ListBookableGPUs(c.Request().Context(), h.DB.Bun)
	if err != nil {
		return views.SeriesForm{}, err
	}
	first := now.In(loc).AddDate(0, 0, 1)
	f := views.SeriesForm{CSRF: csrfToken(c), Zone: loc.String(), ZoneLabel: zoneName(loc, now), GPUCount: 1,
		FirstDay: first.Format("2006-01-02"), LastDay: first.AddDate(0, 0, 13).Format("2006-01-02"),
		Days: []string{"mon", "tue", "wed", "thu", "fri"}, StartTime: "09:00", EndTime: "18:00"}
	for _, g := range gpus {
		if !slices.Contains(f.Models, g.Model) {
			f.Models = append(f.Models, g.Model)
		}
	}
	return f, nil
}

// BookingSeriesCreatePage handles POST /bookings/series, the form: on
// success to the first occurrence's page; a refusal comes back with its
// status, a clash listing each clashing occurrence and with whom.
func (h *Handlers) BookingSeriesCreatePage(c echo.Context) error {
	f, err := h.seriesForm(c)
	if err != nil {
		return err
	}
	params, _ := c.FormParams()
	f.GPUModel, f.Note, f.FirstDay, f.LastDay = c.FormValue("gpu_model"), c.FormValue("note"), c.FormValue("first_day"), c.FormValue("last_day")
	f.StartTime, f.EndTime, f.Days = c.FormValue("start_time"), c.FormValue("end_time"), params["days"]
	r := &api.SeriesRequest{GPUModel: f.GPUModel, Note: f.Note, TimeZone: f.Zone, FirstDay: f.FirstDay, LastDay: f.LastDay,
		Days: f.Days, StartTime: f.StartTime, EndTime: f.EndTime}
	if z := c.FormValue("time_zone"); z != "" {
		r.TimeZone = z
	}
	n, convErr := strconv.Atoi(strings.TrimSpace(c.FormValue("gpu_count")))
	f.GPUCount, r.GPUCount = n, n
	var rows []models.BookingRow
	if convErr != nil {
		err = invalid("GPUs", "%q is not a number", c.FormValue("gpu_count"))
	} else {
		err = h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
			var err error
			_, rows, err = h.createSeries(ctx, tx, userOf(c), r)
			return err // a clash rolls back: nothing was written anyway
		})
	}
	page := h.Page(c, "Recurring booking", "bookings")
	var serr *models.SeriesClashError
	var apiErr *APIError
	switch {
	case errors.As(err, &serr):
		loc := viewerZone(c)
		f.Error = fmt.Sprintf("Cannot book the series: %d of the %s %s not free.", len(serr.Occurrences), words.Count(serr.Total, "occurrence"), words.Plural(len(serr.Occurrences), "is"))
		for _, o := range serr.Occurrences {
			w := rows[o.Index-1]
			for _, rv := range o.Clash.Rivals {
				f.Clashes = append(f.Clashes, views.DetailRival{ID: rv.ID, Text: fmt.Sprintf("%s clashes with %s's %s #%d (%s, %s)",
					zoneWindow(w.StartsAt, w.EndsAt, loc), rv.Owner, rv.Kind, rv.ID, rv.GPUs, zoneWindow(rv.StartsAt, rv.EndsAt, loc))})
			}
		}
		return render(c, http.StatusConflict, views.SeriesPage(page, f))
	case errors.As(err, &apiErr):
		f.Error = apiErr.Message
		return render(c, apiErr.Status, views.SeriesPage(page, f))
	case err != nil:
		return err
	}
	return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/bookings/%d?done=series", rows[0].ID))
}
