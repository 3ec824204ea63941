package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// ErrBookingClash is returned when a booking's GPUs are already claimed by
// other bookings or holds for part of its window; the message names them.
var ErrBookingClash = errors.New("booking clash")

// ErrBookingLimit is returned when a user already has as many upcoming and
// active bookings as allowed.
var ErrBookingLimit = errors.New("booking limit reached")

// ErrBookingGPUs is returned when a booking asks for GPUs the cluster does
// not have (unknown ids, or more GPUs of a type than exist).
var ErrBookingGPUs = errors.New("no such GPUs")

// bookingLockKey is the advisory lock that serializes booking creation, so
// two concurrent requests cannot both claim the same GPUs.
const bookingLockKey = 0x6770_7573_626b // "gpusbk"

// CreateBooking inserts b (kind booking) for its owner in tx, with the
// named GPUs gpuIDs (empty: any b.GPUCount GPUs of b.GPUModel), after
// checking the owner's limit of live bookings (maxLive, 0: none) and that
// the cluster can honour it next to every overlapping booking and hold.
// Creation is serialized by a transaction-scoped advisory lock. It writes
// the audit entry and signals the calendar and the scheduler.
func CreateBooking(ctx context.Context, tx bun.IDB, b *Booking, gpuIDs []int64, maxLive int, now time.Time) error {
	if _, err := tx.NewRaw("SELECT pg_advisory_xact_lock(?)", int64(bookingLockKey)).Exec(ctx); err != nil {
		return fmt.Errorf("models: create booking: lock: %w", err)
	}
	if err := checkLiveLimit(ctx, tx, b.UserID, maxLive, now); err != nil { // a series counts once (calendar)
		return err
	}
	gpus, err := ListBookableGPUs(ctx, tx)
	if err != nil {
		return fmt.Errorf("models: create booking: %w", err)
	}
	var others []BookingRow
	if err := liveBookings(bookingRows(tx)).Where("booking.starts_at < ?", b.EndsAt).
		Where("booking.ends_at > ?", b.StartsAt).OrderExpr("booking.starts_at, booking.id").Scan(ctx, &others); err != nil {
		return fmt.Errorf("models: create booking: overlapping bookings: %w", err)
	}
	req := BookingRow{Booking: *b, GPUIDs: gpuIDs}
	if err := checkClash(&req, others, gpus); err != nil {
		return err
	}
	b.Kind = BookingKindBooking
	if _, err := tx.NewInsert().Model(b).Returning("*").Exec(ctx); err != nil {
		return fmt.Errorf("models: create booking: %w", err)
	}
	for _, id := range gpuIDs {
		if _, err := tx.NewRaw("INSERT INTO booking_gpus (booking_id, gpu_id) VALUES (?, ?)", b.ID, id).Exec(ctx); err != nil {
			return fmt.Errorf("models: create booking: GPU %d: %w", id, err)
		}
	}
	if err := Audit(ctx, tx, &AuditEntry{ActorUserID: &b.UserID, Action: "booking.create", TargetType: "booking",
		TargetID: fmt.Sprint(b.ID), Details: map[string]any{"gpu_count": b.GPUCount, "gpu_model": b.GPUModel,
			"gpu_ids": gpuIDs, "starts_at": b.StartsAt, "ends_at": b.EndsAt}}); err != nil {
		return err
	}
	return Notify(ctx, tx, ChannelBookings, fmt.Sprintf("booking:%d", b.ID))
}

// bookingPool is the set of GPUs (indexes into gpus) a booking may use.
func bookingPool(b *BookingRow, gpus []BookableGPU) []int {
	var out []int
	model := strings.ToLower(b.GPUModel)
	for i := range gpus {
		g := &gpus[i]
		switch {
		case len(b.GPUIDs) > 0:
			if slices.Contains(b.GPUIDs, g.ID) {
				out = append(out, i)
			}
		case strings.Contains(strings.ToLower(g.Model), model) && (b.NodeID == nil || *b.NodeID == g.NodeID):
			out = append(out, i)
		}
	}
	return out
}

// checkClash refuses req when, at some moment of its window, the GPUs of
// the cluster cannot serve it beside the overlapping bookings (each
// booking's GPU units matched to distinct GPUs of its pool). The error
// names the overlapping bookings that compete for req's GPUs then.
func checkClash(req *BookingRow, others []BookingRow, gpus []BookableGPU) error {
	pool := bookingPool(req, gpus)
	if len(req.GPUIDs) > 0 && len(pool) < len(req.GPUIDs) {
		return fmt.Errorf("%w: a named GPU does not exist or is not present", ErrBookingGPUs)
	}
	if len(pool) < req.GPUCount {
		return fmt.Errorf("%w: the cluster has %d %s, this booking asks for %d", ErrBookingGPUs, len(pool), gpuWord(len(pool), req.GPUModel), req.GPUCount)
	}
	// The demand can only rise when a booking starts: check req's start and
	// every later start inside its window.
	moments := []time.Time{req.StartsAt}
	for i := range others {
		if s := others[i].StartsAt; s.After(req.StartsAt) && s.Before(req.EndsAt) {
			moments = append(moments, s)
		}
	}
	for _, t := range moments {
		var active []*BookingRow
		for i := range others {
			if o := &others[i]; !o.StartsAt.After(t) && o.EndsAt.After(t) {
				active = append(active, o)
			}
		}
		before := matchUnits(active, gpus)
		if matchUnits(append(active, req), gpus) == before+req.GPUCount {
			continue
		}
		return clashError(req, active, pool, gpus, t)
	}
	return nil
}

// matchUnits returns how many GPU units of bs can be given distinct GPUs of
// their pools (a maximum bipartite matching by augmenting paths).
func matchUnits(bs []*BookingRow, gpus []BookableGPU) int {
	owner := make([]int, len(gpus)) // unit holding each GPU, -1: free
	for i := range owner {
		owner[i] = -1
	}
	var pools [][]int
	for _, b := range bs {
		p := bookingPool(b, gpus)
		for range b.GPUCount {
			pools = append(pools, p)
		}
	}
	var try func(u int, seen []bool) bool
	try = func(u int, seen []bool) bool {
		for _, g := range pools[u] {
			if seen[g] {
				continue
			}
			seen[g] = true
			if owner[g] < 0 || try(owner[g], seen) {
				owner[g] = u
				return true
			}
		}
		return false
	}
	n := 0
	for u := range pools {
		if try(u, make([]bool, len(gpus))) {
			n++
		}
	}
	return n
}

// clashError names who holds req's GPUs at t: every overlapping booking
// that competes for them, directly (its GPUs meet req's) or through
// another (its GPUs meet a competitor's), with owner, GPUs and window.
func clashError(req *BookingRow, active []*BookingRow, pool []int, gpus []BookableGPU, t time.Time) error {
	reach := map[int]bool{}
	for _, g := range pool {
		reach[g] = true
	}
	named := make([]bool, len(active))
	for grew := true; grew; {
		grew = false
		for i, o := range active {
			p := bookingPool(o, gpus)
			if named[i] || !slices.ContainsFunc(p, func(g int) bool { return reach[g] }) {
				continue
			}
			named[i], grew = true, true
			for _, g := range p {
				reach[g] = true
			}
		}
	}
	e := &ClashError{What: describeGPUs(req, gpus), Count: req.GPUCount, At: t}
	for i, o := range active {
		if named[i] {
			r := ClashRival{ID: o.ID, Kind: o.Kind, Owner: o.OwnerEmail, GPUs: describeGPUs(o, gpus), StartsAt: o.StartsAt, EndsAt: o.EndsAt}
			if o.ID < 0 { // a row not written yet (import, series): -row
				r.ID, r.Row = 0, int(-o.ID)
			}
			e.Rivals = append(e.Rivals, r)
		}
	}
	return e
}

// describeGPUs says which GPUs a booking claims: "GPU 3 (sim-1 #2), GPU 4
// (sim-1 #3)" for named GPUs, else "2 H100 GPUs".
func describeGPUs(b *BookingRow, gpus []BookableGPU) string {
	if len(b.GPUIDs) == 0 {
		return fmt.Sprintf("%d %s", b.GPUCount, gpuWord(b.GPUCount, b.GPUModel))
	}
	var names []string
	for _, id := range b.GPUIDs {
		name := fmt.Sprintf("GPU %d", id)
		for i := range gpus {
			if gpus[i].ID == id {
				name = fmt.Sprintf("GPU %d (%s #%d)", id, gpus[i].NodeName, gpus[i].Index)
			}
		}
		names = append(names, name)
	}
	return strings.Join(names, ", ")
}

func gpuWord(n int, model string) string {
	w := "GPUs"
	if n == 1 {
		w = "GPU"
	}
	if model != "" {
		return model + " " + w
	}
	return w
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// Window formats a booking's window for people: "Mon 23 Nov 09:00–18:00
// UTC", or with both days when it spans more than one.
func Window(from, to time.Time) string {
	from, to = from.UTC(), to.UTC()
	if from.YearDay() == to.YearDay() && from.Year() == to.Year() {
		return from.Format("Mon 2 Jan 15:04") + "–" + to.Format("15:04 UTC")
	}
	return from.Format("Mon 2 Jan 15:04") + " – " + to.Format("Mon 2 Jan 15:04 UTC")
}
