package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/bookingcsv"
)

// Import outcomes of a row: the API's names.
const (
	ImportCreate  = api.ImportCreate
	ImportExists  = api.ImportExists
	ImportInvalid = api.ImportInvalid
)

// ImportOptions are the choices of one import: the API's (its TZ is the
// caller's to apply: rows arrive with their times read), who imports, and
// the booking rules.
type ImportOptions struct {
	api.ImportOptions
	ActorID int64
	// The booking rules of the API (zero: no limit): GPUs in one booking,
	// longest booking, how far ahead one may start. A row already over is
	// refused; one in progress is kept.
	MaxGPUs   int
	MaxLength time.Duration
	MaxAhead  time.Duration
	// MaxLive is the live bookings a member may have (0: no limit). An
	// import is not held to it: a row that takes its owner over is
	// imported with a warning.
	MaxLive int
	// Zone is where the rows' reasons say their times (the importer's
	// zone); nil is UTC.
	Zone *time.Location
}

// zone is the zone of the rows' reasons.
func (o ImportOptions) zone() *time.Location {
	if o.Zone == nil {
		return time.UTC
	}
	return o.Zone
}

// ImportBookings checks the sheet's rows with the rules of booking
// creation (GPUs exist, no clash with stored bookings nor with earlier
// rows) and, unless a dry run or unless a row is invalid and SkipInvalid is
// off, writes the valid new rows in tx under the booking lock: all or
// nothing. A row imported before (same fingerprint) is reported, never
// written twice.
func ImportBookings(ctx context.Context, tx bun.IDB, rows []bookingcsv.Row, o ImportOptions, now time.Time) (*api.ImportReport, error) {
	if _, err := tx.NewRaw("SELECT pg_advisory_xact_lock(?)", int64(bookingLockKey)).Exec(ctx); err != nil {
		return nil, fmt.Errorf("models: import bookings: lock: %w", err)
	}
	gpus, err := ListBookableGPUs(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("models: import bookings: %w", err)
	}
	res := &api.ImportReport{DryRun: o.DryRun, Rows: make([]api.ImportRow, len(rows))}
	reqs := make([]*BookingRow, len(rows))
	users := map[string]*User{}
	owners := make([]*User, len(rows))
	fps := make([]string, len(rows))
	for i := range rows {
		r := &rows[i]
		out := &res.Rows[i]
		*out = api.ImportRow{Row: r.Line, Status: ImportInvalid, Email: r.Email, StartsAt: r.Start.UTC(), EndsAt: r.End.UTC(), Note: r.Note}
		if r.Err != "" {
			out.Reason = r.Err
			continue
		}
		if reason := importRules(r, o, now); reason != "" {
			out.Reason = reason
			continue
		}
		req, reason, err := importRequest(ctx, tx, r, gpus, users, o.CreateUsers)
		owners[i] = users[r.Email]
		if err != nil {
			return nil, err
		}
		if reason != "" {
			out.Reason = reason
			continue
		}
		out.GPUs, out.NewUser = describeGPUs(req, gpus), req.UserID == 0
		fps[i] = importFingerprint(r, req)
		reqs[i] = req
	}
	var seen []struct {
		ID int64  `bun:"id"`
		FP string `bun:"import_fingerprint"`
	}
	if err := tx.NewSelect().TableExpr("bookings").Column("id", "import_fingerprint").Where("import_fingerprint IN (?)", bun.In(nonEmpty(fps))).
		Scan(ctx, &seen); err != nil && !errors.Is(err, errNoRows) {
		return nil, fmt.Errorf("models: import bookings: fingerprints: %w", err)
	}
	adm, err := loadBookingAdmission(ctx, tx, now, 0)
	if err != nil {
		return nil, fmt.Errorf("models: import bookings: %w", err)
	}
	for i, req := range reqs {
		if req == nil {
			continue
		}
		out := &res.Rows[i]
		if j := slices.IndexFunc(seen, func(s struct {
			ID int64  `bun:"id"`
			FP string `bun:"import_fingerprint"`
		}) bool {
			return s.FP == fps[i]
		}); j >= 0 {
			out.Status, out.BookingID, out.Reason = ImportExists, seen[j].ID, fmt.Sprintf("already imported as booking #%d", seen[j].ID)
			reqs[i] = nil
			continue
		}
		if k := slices.Index(fps[:i], fps[i]); k >= 0 && reqs[k] != nil {
			out.Reason = fmt.Sprintf("the same booking as row %d", rows[k].Line)
			reqs[i] = nil
			continue
		}
		req.ID = -int64(rows[i].Line) // later rows name it "row N"
		if err := adm.admit(req); err != nil {
			var clash *ClashError
			if !errors.As(err, &clash) {
				out.Reason = strings.TrimPrefix(err.Error(), ErrBookingGPUs.Error()+": ")
				reqs[i] = nil
				continue
			}
			out.Reason = "clash with " + clash.Who(o.zone())
			reqs[i] = nil
			continue
		}
		out.Status = ImportCreate
	}
	if err := warnLiveLimit(ctx, tx, res, owners, o.MaxLive, now); err != nil {
		return nil, err
	}
	for _, r := range res.Rows {
		if r.Warning != "" {
			res.Warnings++
		}
		switch r.Status {
		case ImportCreate:
			res.Create++
		case ImportExists:
			res.Existing++
		default:
			res.Invalid++
		}
	}
	if o.DryRun || (res.Invalid > 0 && !o.SkipInvalid) || res.Create == 0 {
		return res, nil
	}
	for i, req := range reqs {
		if req == nil {
			continue
		}
		if err := insertImported(ctx, tx, req, fps[i], owners[i]); err != nil {
			return nil, fmt.Errorf("models: import row %d: %w", rows[i].Line, err)
		}
		res.Rows[i].BookingID = req.ID
	}
	res.Written = true
	if err := Audit(ctx, tx, &AuditEntry{ActorUserID: &o.ActorID, Action: "booking.import", TargetType: "booking",
		Details: map[string]any{"created": res.Create, "existing": res.Existing, "skipped": res.Invalid}}); err != nil {
		return nil, err
	}
	return res, Signal(ctx, tx, ChannelBookings, fmt.Sprintf("import:%d", res.Create))
}
