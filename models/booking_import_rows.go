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
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
)

// importRules says why row breaks the booking rules, or "".
func importRules(r *bookingcsv.Row, o ImportOptions, now time.Time) string {
	switch {
	case !r.End.After(now):
		return fmt.Sprintf("already over (it ended %s)", localtime.Stamp(r.End, o.zone()))
	case o.MaxGPUs > 0 && r.GPUs > o.MaxGPUs:
		return fmt.Sprintf("asks for %s; one booking may take at most %d", words.Count(r.GPUs, "GPU"), o.MaxGPUs)
	case o.MaxLength > 0 && r.End.Sub(r.Start) > o.MaxLength:
		return fmt.Sprintf("lasts %.0fh; a booking may last at most %.0fh", r.End.Sub(r.Start).Hours(), o.MaxLength.Hours())
	case o.MaxAhead > 0 && r.Start.After(now.Add(o.MaxAhead)):
		return fmt.Sprintf("starts more than %.0f days ahead", o.MaxAhead.Hours()/24)
	}
	return ""
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
