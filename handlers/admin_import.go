package handlers

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/bookingcsv"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// maxSheet bounds an uploaded sheet.
const maxSheet = 1 << 20

// AdminImport handles GET /admin/import: the upload form, the zone
// defaulting to the admin's own.
func (h *Handlers) AdminImport(c echo.Context) error {
	m := views.AdminImport{CSRF: csrfToken(c), TZ: viewerZone(c).String()}
	return render(c, http.StatusOK, views.AdminImportPage(h.Page(c, "Import bookings", "admin"), m))
}

// AdminImportPreview handles POST /admin/import: a dry run of the uploaded
// (or pasted) sheet, shown per row, with the confirm form.
func (h *Handlers) AdminImportPreview(c echo.Context) error {
	return h.adminImport(c, true)
}

// AdminImportConfirm handles POST /admin/import/confirm: the import itself,
// all or nothing (unless skip invalid), shown per row.
func (h *Handlers) AdminImportConfirm(c echo.Context) error {
	return h.adminImport(c, false)
}

func (h *Handlers) adminImport(c echo.Context, dry bool) error {
	m := views.AdminImport{CSRF: csrfToken(c), TZ: strings.TrimSpace(c.FormValue("tz")),
		CreateUsers: c.FormValue("create_users") != "", SkipInvalid: c.FormValue("skip_invalid") != ""}
	if m.TZ == "" {
		m.TZ = viewerZone(c).String()
	}
	page := h.Page(c, "Import bookings", "admin")
	fail := func(status int, err error) error {
		var apiErr *APIError
		if !errors.As(err, &apiErr) {
			return err
		}
		m.Error = apiErr.Message
		return render(c, status, views.AdminImportPage(page, m))
	}
	loc, err := zoneParam("Time zone", m.TZ, time.UTC)
	if err != nil {
		return fail(http.StatusBadRequest, err)
	}
	sheet, err := uploadedSheet(c)
	if err != nil {
		return fail(http.StatusBadRequest, err)
	}
	m.Sheet = sheet
	o := models.ImportOptions{ImportOptions: api.ImportOptions{DryRun: dry, CreateUsers: m.CreateUsers, SkipInvalid: m.SkipInvalid}, ActorID: userOf(c).ID}
	res, err := h.importBookings(c.Request().Context(), strings.NewReader(sheet), loc, o)
	if err != nil {
		return fail(http.StatusBadRequest, err)
	}
	for _, r := range res.Rows {
		row := views.ImportPreviewRow{Row: r.Row, Status: r.Status, Email: r.Email, GPUs: r.GPUs, Reason: r.Reason, Warning: r.Warning}
		if !r.StartsAt.IsZero() && !r.EndsAt.IsZero() {
			row.Window = zoneWindow(r.StartsAt, r.EndsAt, loc)
		}
		switch r.Status {
		case models.ImportCreate:
			row.What = "will create"
			if res.Written {
				row.What, row.BookingID = fmt.Sprintf("created #%d", r.BookingID), r.BookingID
			}
			if r.NewUser && !res.Written {
				row.Reason = "new member " + r.Email
			}
		case models.ImportExists:
			row.What, row.BookingID = "already imported", r.BookingID
		default:
			row.What = "refused"
		}
		m.Rows = append(m.Rows, row)
	}
	if res.Warnings > 0 {
		m.Warning = fmt.Sprintf("%d %s its owner over the limit of upcoming and active bookings a member may make. "+
			"An admin's import is exempt, so %s imported all the same; those members cannot book more until some end.",
			res.Warnings, pick(res.Warnings == 1, "row takes", "rows take"), pick(res.Warnings == 1, "it is", "they are"))
	}
	status := http.StatusOK
	switch {
	case dry:
		m.Summary = fmt.Sprintf("%d to create, %d already imported, %d invalid.", res.Create, res.Existing, res.Invalid)
		m.CanConfirm = res.Create > 0 && (res.Invalid == 0 || m.SkipInvalid)
		if res.Invalid > 0 && !m.SkipInvalid {
			m.Summary += " Fix the invalid rows, or tick \"import the valid rows\", to import."
		}
	case res.Written:
		m.Confirmed, m.Done = true, "Imported "+words.Count(res.Create, "booking")+"."
		m.Summary = fmt.Sprintf("%d created, %d already imported, %d invalid rows skipped.", res.Create, res.Existing, res.Invalid)
		status = http.StatusCreated
	case res.Invalid > 0 && !m.SkipInvalid:
		m.Confirmed, m.Error, status = true, importRefusal(res), http.StatusUnprocessableEntity
	default:
		m.Confirmed, m.Done = true, fmt.Sprintf("Nothing to import: %s already imported.", words.Count(res.Existing, "row"))
	}
	return render(c, status, views.AdminImportPage(page, m))
}

// uploadedSheet is the uploaded file, or else the pasted text.
func uploadedSheet(c echo.Context) (string, error) {
	if fh, err := c.FormFile("file"); err == nil && fh.Size > 0 {
		if fh.Size > maxSheet {
			return "", invalid("file", "is larger than 1 MiB")
		}
		f, err := fh.Open()
		if err != nil {
			return "", fmt.Errorf("handlers: import: %w", err)
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxSheet))
		if err != nil {
			return "", fmt.Errorf("handlers: import: %w", err)
		}
		return string(b), nil
	}
	if s := c.FormValue("sheet"); strings.TrimSpace(s) != "" {
		if len(s) > maxSheet {
			return "", invalid("sheet", "is larger than 1 MiB")
		}
		return s, nil
	}
	return "", invalid("file", "choose a .csv file (or paste the sheet); its header is %s", strings.Join(bookingcsv.Header, ","))
}
