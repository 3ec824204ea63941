package handlers

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/bookingcsv"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// BookingImport handles POST /api/v1/bookings/import (admins): the body is
// the bookings sheet (CSV: email,gpus,gpu_model,node,gpu_ids,start,end,note),
// times in ?tz= (default UTC) unless they carry an offset. ?dry_run=true
// reports only; ?create_users=true makes unknown emails members;
// ?skip_invalid=true writes the valid rows even if some are not. Nothing is
// written unless every row is valid or skip_invalid says so: then 422 with
// the per-row report. Rows imported before are reported, not duplicated.
func (h *Handlers) BookingImport(c echo.Context) error {
	loc, err := zoneParam("tz", c.QueryParam("tz"), time.UTC)
	if err != nil {
		return err
	}
	o := models.ImportOptions{ActorID: userOf(c).ID}
	for name, dst := range map[string]*bool{"dry_run": &o.DryRun, "create_users": &o.CreateUsers, "skip_invalid": &o.SkipInvalid} {
		if s := c.QueryParam(name); s != "" {
			if *dst, err = strconv.ParseBool(s); err != nil {
				return invalid(name, "must be true or false, got %q", s)
			}
		}
	}
	res, err := h.importBookings(c.Request().Context(), c.Request().Body, loc, o)
	if err != nil {
		return err
	}
	if !res.DryRun && !res.Written && res.Invalid > 0 && !o.SkipInvalid {
		res.Error, res.Code = importRefusal(res), api.CodeInvalidRows
		return c.JSON(http.StatusUnprocessableEntity, res)
	}
	return c.JSON(http.StatusOK, res)
}

// importRefusal says why nothing was written.
func importRefusal(res *api.ImportReport) string {
	return fmt.Sprintf("nothing was imported: %d of %d rows are invalid (see rows); fix them, or import with skip_invalid to write the %d valid ones",
		res.Invalid, len(res.Rows), res.Create)
}

// importBookings reads the sheet and imports it in one transaction; the
// API, the admin page and (through the API) the CLI share it.
func (h *Handlers) importBookings(ctx context.Context, body io.Reader, loc *time.Location, o models.ImportOptions) (*api.ImportReport, error) {
	rows, err := bookingcsv.Read(body, loc)
	if err != nil {
		return nil, Errorf(http.StatusBadRequest, api.CodeInvalidCSV, "the sheet cannot be read: %v", err)
	}
	o.Zone = loc // the rows' reasons name times as the sheet does
	var res *api.ImportReport
	err = h.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		lim, err := h.bookingLimits(ctx, tx)
		if err != nil {
			return err
		}
		o.MaxGPUs, o.MaxLength, o.MaxAhead, o.MaxLive = lim.MaxGPUs, lim.MaxLength, lim.MaxAhead, lim.MaxLive
		res, err = models.ImportBookings(ctx, tx, rows, o, h.Now())
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// zoneParam reads an IANA zone name (empty: def).
func zoneParam(field, name string, def *time.Location) (*time.Location, error) {
	if name == "" {
		return def, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		return nil, invalid(field, "%q is not a time zone name like Europe/Berlin or UTC", name)
	}
	return loc, nil
}
