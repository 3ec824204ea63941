package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// bookingAdmission is what booking admission decides on, read once under
// the booking lock: the cluster (nodes and present GPUs) and every live
// booking and hold that ends after now, to which the bookings admitted in
// the same transaction are added. The decision is the scheduling core's
// (scheduler.AdmitBookings), on the pinning every pass makes, so that what
// admission accepts the pass pins in full.
type bookingAdmission struct {
	snap scheduler.Snapshot
	gpus []BookableGPU         // for naming GPUs in refusals
	rows map[int64]*BookingRow // stored and admitted bookings, by ID, for naming rivals
}

// loadBookingAdmission reads what admission decides on as of now, leaving
// out booking skip (the one being edited; 0: none).
func loadBookingAdmission(ctx context.Context, tx bun.IDB, now time.Time, skip int64) (*bookingAdmission, error) {
	a := &bookingAdmission{snap: scheduler.Snapshot{Now: now}, rows: map[int64]*BookingRow{}}
	nodes, err := ListNodes(ctx, tx)
	if err != nil {
		return nil, err
	}
	for _, n := range nodes {
		a.snap.Nodes = append(a.snap.Nodes, scheduler.Node{ID: n.ID, Name: n.Name, Up: true})
	}
	if err := loadGPUs(ctx, tx, &a.snap); err != nil {
		return nil, err
	}
	if a.gpus, err = ListBookableGPUs(ctx, tx); err != nil {
		return nil, err
	}
	var live []BookingRow
	if err := liveBookings(bookingRows(tx)).Where("booking.ends_at > ?", now).Where("booking.id <> ?", skip).
		OrderExpr("booking.starts_at, booking.id").Scan(ctx, &live); err != nil {
		return nil, fmt.Errorf("models: live bookings: %w", err)
	}
	for i := range live {
		a.add(&live[i])
	}
	return a, nil
}

// add counts b among the bookings admitted.
func (a *bookingAdmission) add(b *BookingRow) {
	a.rows[b.ID] = b
	a.snap.Bookings = append(a.snap.Bookings, schedulerBooking(b))
}

// schedulerBooking is b as the scheduling core sees it.
func schedulerBooking(b *BookingRow) scheduler.Booking {
	sb := scheduler.Booking{ID: b.ID, UserID: b.UserID, Hold: b.Kind == BookingKindHold, GPUCount: b.GPUCount,
		GPUModel: b.GPUModel, GPUIDs: b.GPUIDs, GPUShare: b.GPUShare, Start: b.StartsAt, End: b.EndsAt}
	if b.NodeID != nil {
		sb.NodeID = *b.NodeID
	}
	return sb
}

// admit asks the core whether req (its ID its own: 0 for a new booking,
// −row for a row of an import or an occurrence of a series not written
// yet) can be honoured beside the bookings admitted so far. If so it counts
// among them and admit returns nil; else ErrBookingGPUs (no such GPUs) or
// a *ClashError naming who holds its GPUs and when.
func (a *bookingAdmission) admit(req *BookingRow) error {
	verdict := scheduler.AdmitBookings(a.snap, []scheduler.Booking{schedulerBooking(req)})
	if len(verdict.Refused) == 0 {
		a.add(req)
		return nil
	}
	r := verdict.Refused[0]
	switch r.Code {
	case scheduler.RefusedNoSuchGPU:
		return fmt.Errorf("%w: a named GPU does not exist or is not present", ErrBookingGPUs)
	case scheduler.RefusedTooFew:
		if req.GPUShare > 0 {
			return fmt.Errorf("%w: no shared %s can hold %s of a GPU", ErrBookingGPUs, gpuWord(1, req.GPUModel), shareText(req.GPUShare))
		}
		return fmt.Errorf("%w: the cluster has %d %s, this booking asks for %d", ErrBookingGPUs, r.Eligible, gpuWord(r.Eligible, req.GPUModel), req.GPUCount)
	}
	e := &ClashError{What: describeGPUs(req, a.gpus), Count: req.GPUCount, At: r.At}
	for _, id := range r.Rivals {
		o, ok := a.rows[id]
		if !ok {
			continue
		}
		rival := ClashRival{ID: o.ID, Kind: o.Kind, Owner: o.OwnerEmail, GPUs: describeGPUs(o, a.gpus), StartsAt: o.StartsAt, EndsAt: o.EndsAt}
		if o.ID < 0 { // a row not written yet (import, series): −row
			rival.ID, rival.Row = 0, int(-o.ID)
		}
		e.Rivals = append(e.Rivals, rival)
	}
	return e
}
