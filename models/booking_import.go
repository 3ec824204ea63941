package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/bookingcsv"
)

// Import outcomes of a row.
const (
	ImportCreate  = "create"  // written (or, in a dry run, would be)
	ImportExists  = "exists"  // imported before: reported, not duplicated
	ImportInvalid = "invalid" // refused; Reason says why
)

// ImportOptions are the choices of one import.
type ImportOptions struct {
	DryRun      bool // report only; write nothing
	CreateUsers bool // an unknown email becomes a member (else the row is invalid)
	SkipInvalid bool // write the valid rows even when some are invalid
	ActorID     int64
	// The booking rules of the API (zero: no limit): GPUs in one booking,
	// longest booking, how far ahead one may start. A row already over is
	// refused; one in progress is kept.
	MaxGPUs   int
	MaxLength time.Duration
	MaxAhead  time.Duration
}

// importRules says why row breaks the booking rules, or "".
func importRules(r *bookingcsv.Row, o ImportOptions, now time.Time) string {
	switch {
	case !r.End.After(now):
		return fmt.Sprintf("already over (it ended %s)", r.End.UTC().Format("Mon 2 Jan 15:04 UTC"))
	case o.MaxGPUs > 0 && r.GPUs > o.MaxGPUs:
		return fmt.Sprintf("asks for %d GPUs; one booking may take at most %d", r.GPUs, o.MaxGPUs)
	case o.MaxLength > 0 && r.End.Sub(r.Start) > o.MaxLength:
		return fmt.Sprintf("lasts %.0fh; a booking may last at most %.0fh", r.End.Sub(r.Start).Hours(), o.MaxLength.Hours())
	case o.MaxAhead > 0 && r.Start.After(now.Add(o.MaxAhead)):
		return fmt.Sprintf("starts more than %.0f days ahead", o.MaxAhead.Hours()/24)
	}
	return ""
}

// ImportRowResult is what became (or would become) of one row.
type ImportRowResult struct {
	Line      int       `json:"row"`
	Status    string    `json:"status"`
	Reason    string    `json:"reason,omitempty"`
	Email     string    `json:"email"`
	GPUs      string    `json:"gpus"`
	StartsAt  time.Time `json:"starts_at"`
	EndsAt    time.Time `json:"ends_at"`
	Note      string    `json:"note,omitempty"`
	BookingID int64     `json:"booking_id,omitempty"`
	NewUser   bool      `json:"new_user,omitempty"`
}

// ImportResult is the outcome of an import: per row, and counted. Written
// says whether anything was written.
type ImportResult struct {
	Rows     []ImportRowResult `json:"rows"`
	Create   int               `json:"create"`
	Existing int               `json:"existing"`
	Invalid  int               `json:"invalid"`
	DryRun   bool              `json:"dry_run"`
	Written  bool              `json:"written"`
}

// ImportBookings checks the sheet's rows with the rules of booking
// creation (GPUs exist, no clash with stored bookings nor with earlier
// rows) and, unless a dry run or unless a row is invalid and SkipInvalid is
// off, writes the valid new rows in tx under the booking lock: all or
// nothing. A row imported before (same fingerprint) is reported, never
// written twice.
func ImportBookings(ctx context.Context, tx bun.IDB, rows []bookingcsv.Row, o ImportOptions, now time.Time) (*ImportResult, error) {
	if _, err := tx.NewRaw("SELECT pg_advisory_xact_lock(?)", int64(bookingLockKey)).Exec(ctx); err != nil {
		return nil, fmt.Errorf("models: import bookings: lock: %w", err)
	}
	gpus, err := ListBookableGPUs(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("models: import bookings: %w", err)
	}
	res := &ImportResult{DryRun: o.DryRun, Rows: make([]ImportRowResult, len(rows))}
	reqs := make([]*BookingRow, len(rows))
	users := map[string]*User{}
	owners := make([]*User, len(rows))
	var from, to time.Time
	fps := make([]string, len(rows))
	for i := range rows {
		r := &rows[i]
		out := &res.Rows[i]
		*out = ImportRowResult{Line: r.Line, Status: ImportInvalid, Email: r.Email, StartsAt: r.Start.UTC(), EndsAt: r.End.UTC(), Note: r.Note}
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
		if from.IsZero() || req.StartsAt.Before(from) {
			from = req.StartsAt
		}
		if req.EndsAt.After(to) {
			to = req.EndsAt
		}
	}
	var seen []struct {
		ID int64  `bun:"id"`
		FP string `bun:"import_fingerprint"`
	}
	if err := tx.NewSelect().TableExpr("bookings").Column("id", "import_fingerprint").Where("import_fingerprint IN (?)", bun.In(nonEmpty(fps))).
		Scan(ctx, &seen); err != nil && !errors.Is(err, errNoRows) {
		return nil, fmt.Errorf("models: import bookings: fingerprints: %w", err)
	}
	var others []BookingRow
	if !from.IsZero() {
		if err := liveBookings(bookingRows(tx)).Where("booking.starts_at < ?", to).Where("booking.ends_at > ?", from).
			OrderExpr("booking.starts_at, booking.id").Scan(ctx, &others); err != nil {
			return nil, fmt.Errorf("models: import bookings: overlapping bookings: %w", err)
		}
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
		if err := checkClash(req, others, gpus); err != nil {
			var clash *ClashError
			if !errors.As(err, &clash) {
				out.Reason = strings.TrimPrefix(err.Error(), ErrBookingGPUs.Error()+": ")
				reqs[i] = nil
				continue
			}
			out.Reason = "clash with " + clash.Who()
			reqs[i] = nil
			continue
		}
		out.Status = ImportCreate
		req.ID = -int64(rows[i].Line) // later rows name it "row N"
		others = append(others, *req)
	}
	for _, r := range res.Rows {
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
	return res, Notify(ctx, tx, ChannelBookings, fmt.Sprintf("import:%d", res.Create))
}

// importRequest resolves a row's owner and GPUs; reason says why it cannot.
func importRequest(ctx context.Context, tx bun.IDB, r *bookingcsv.Row, gpus []BookableGPU, users map[string]*User, create bool) (*BookingRow, string, error) {
	u, ok := users[r.Email]
	if !ok {
		email, err := NormalizeEmail(r.Email)
		if err != nil {
			return nil, "bad email: " + err.Error(), nil
		}
		u, err = GetUserByEmail(ctx, tx, email)
		switch {
		case errors.Is(err, ErrNotFound) && create:
			u = &User{Email: email, Role: RoleMember} // created when written
		case errors.Is(err, ErrNotFound):
			return nil, fmt.Sprintf("unknown email %s (import with create users to add members)", email), nil
		case err != nil:
			return nil, "", err
		}
		users[r.Email] = u
	}
	req := &BookingRow{Booking: Booking{UserID: u.ID, Kind: BookingKindBooking, GPUCount: r.GPUs, GPUModel: r.GPUModel,
		StartsAt: r.Start.UTC(), EndsAt: r.End.UTC(), Note: r.Note, Source: "import"}, OwnerEmail: u.Email}
	var node *BookableGPU
	if r.Node != "" {
		for i := range gpus {
			if strings.EqualFold(gpus[i].NodeName, r.Node) {
				node = &gpus[i]
				break
			}
		}
		if node == nil {
			return nil, fmt.Sprintf("unknown node %q", r.Node), nil
		}
		req.NodeID = &node.NodeID
	}
	for _, n := range r.GPUIDs {
		k := slices.IndexFunc(gpus, func(g BookableGPU) bool {
			if node != nil {
				return g.NodeID == node.NodeID && int64(g.Index) == n
			}
			return g.ID == n
		})
		if k < 0 {
			if node != nil {
				return nil, fmt.Sprintf("unknown GPU %d on %s", n, node.NodeName), nil
			}
			return nil, fmt.Sprintf("unknown GPU %d (give node to number GPUs per node)", n), nil
		}
		req.GPUIDs = append(req.GPUIDs, gpus[k].ID)
	}
	if len(req.GPUIDs) > 0 {
		slices.Sort(req.GPUIDs)
		if len(slices.Compact(slices.Clone(req.GPUIDs))) != len(req.GPUIDs) {
			return nil, "gpu_ids names a GPU twice", nil
		}
		req.GPUModel, req.NodeID = "", nil
	}
	return req, "", nil
}

// importFingerprint identifies a row by what it books, whatever its line.
func importFingerprint(r *bookingcsv.Row, req *BookingRow) string {
	ids := make([]string, len(req.GPUIDs))
	for i, id := range req.GPUIDs {
		ids[i] = strconv.FormatInt(id, 10)
	}
	var node int64
	if req.NodeID != nil {
		node = *req.NodeID
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s|%d|%s|%d|%s|%s|%s|%s", strings.ToLower(r.Email), req.GPUCount, strings.ToLower(req.GPUModel),
		node, strings.Join(ids, ","), req.StartsAt.UTC().Format(time.RFC3339), req.EndsAt.UTC().Format(time.RFC3339), req.Note))
	return hex.EncodeToString(sum[:16])
}

// insertImported writes one checked row (creating its owner if new).
func insertImported(ctx context.Context, tx bun.IDB, req *BookingRow, fp string, u *User) error {
	if u.ID == 0 {
		created, err := CreateUser(ctx, tx, u.Email, "", RoleMember)
		if err != nil {
			return err
		}
		*u = *created
	}
	b := req.Booking
	b.ID, b.UserID, b.ImportFingerprint = 0, u.ID, fp
	if _, err := tx.NewInsert().Model(&b).Returning("*").Exec(ctx); err != nil {
		return err
	}
	for _, id := range req.GPUIDs {
		if _, err := tx.NewRaw("INSERT INTO booking_gpus (booking_id, gpu_id) VALUES (?, ?)", b.ID, id).Exec(ctx); err != nil {
			return fmt.Errorf("GPU %d: %w", id, err)
		}
	}
	req.ID = b.ID
	return nil
}

func nonEmpty(ss []string) []string {
	out := []string{""}
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
