package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
)

// EmitNodeEvent tells admins (and team channels) that node name went down or came up.
func EmitNodeEvent(ctx context.Context, tx *Tx, event, name string, now time.Time) error {
	var id int64
	if err := tx.NewSelect().Table("nodes").Column("id").Where("name = ?", name).Scan(ctx, &id); err != nil {
		return fmt.Errorf("models: node %s for %s: %w", name, event, err)
	}
	title := fmt.Sprintf("Node %s is down: no heartbeat", name)
	if event == EventNodeUp {
		title = fmt.Sprintf("Node %s is back up", name)
	}
	return Emit(ctx, tx, NotifyEvent{Name: event, Subject: fmt.Sprintf("node:%d@%d", id, now.UnixMilli()),
		Payload: EventPayload{Title: title, Node: &EventNode{ID: id, Name: name}}}, now)
}

// bookingRow is a booking with its owner's email, for notifications.
type bookingRow struct {
	Booking
	Owner string `bun:"owner"`
}

func emitBookings(ctx context.Context, tx *Tx, event, titleFmt string, where string, args []any, now time.Time) (int, error) {
	var rows []bookingRow
	q := `SELECT b.*, u.email AS owner FROM bookings b JOIN users u ON u.id = b.user_id WHERE b.canceled_at IS NULL AND ` + where +
		` AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.event = ? AND n.subject = 'booking:' || b.id) ORDER BY b.id LIMIT 200`
	if err := tx.NewRaw(q, append(args, event)...).Scan(ctx, &rows); err != nil {
		return 0, fmt.Errorf("models: bookings for %s: %w", event, err)
	}
	for _, b := range rows {
		p := EventPayload{Title: fmt.Sprintf(titleFmt, words.Count(b.GPUCount, "GPU")),
			Booking: &EventBooking{ID: b.ID, Kind: b.Kind, Owner: b.Owner, GPUCount: b.GPUCount, StartsAt: b.StartsAt.UTC(), EndsAt: b.EndsAt.UTC()}}
		if err := Emit(ctx, tx, NotifyEvent{Name: event, Subject: fmt.Sprintf("booking:%d", b.ID), Users: []int64{b.UserID}, Payload: p}, now); err != nil {
			return 0, err
		}
	}
	return len(rows), nil
}

// EmitBookingTimes tells owners of bookings that start within lead
// (booking.starting) or ended in the last hour (booking.ended), once each.
func EmitBookingTimes(ctx context.Context, tx *Tx, lead time.Duration, now time.Time) error {
	if _, err := emitBookings(ctx, tx, EventBookingStart, "Your booking of %s starts soon",
		"b.kind = 'booking' AND b.starts_at > ? AND b.starts_at <= ?", []any{now, now.Add(lead)}, now); err != nil {
		return err
	}
	_, err := emitBookings(ctx, tx, EventBookingEnded, "Your booking of %s has ended",
		"b.kind = 'booking' AND b.ends_at <= ? AND b.ends_at > ?", []any{now, now.Add(-time.Hour)}, now)
	return err
}

// EmitHoldsExpired tells owners that their pre-warm holds ids expired unused.
func EmitHoldsExpired(ctx context.Context, tx *Tx, ids []int64, now time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := emitBookings(ctx, tx, EventHoldExpired, "Your hold of %s expired unused",
		"b.id IN (?)", []any{bun.In(ids)}, now)
	return err
}

// EmitWaitingLong tells owners of jobs queued for longer than after, once
// per job (an array's tasks: once per array), with the scheduler's reason
// and estimated start. A job that waits by its owner's choice (for another
// job, or its array's %N) is not told of.
func EmitWaitingLong(ctx context.Context, tx *Tx, after time.Duration, now time.Time) error {
	var jobs []Job
	err := tx.NewSelect().Model(&jobs).Where("state = ? AND submitted_at <= ?", JobQueued, now.Add(-after)).
		Where("pending_code NOT IN (?, ?)", scheduler.ReasonDependency, scheduler.ReasonArrayLimit).
		Where("NOT EXISTS (SELECT 1 FROM notifications n WHERE n.event = ? AND n.subject = 'job:' || job.id)", EventJobWaitingLong).
		Where("(job.array_job_id IS NULL OR NOT EXISTS (SELECT 1 FROM notifications n WHERE n.event = ? AND n.subject = 'array:' || job.array_job_id))", EventJobWaitingLong).
		OrderExpr("id").Limit(200).Scan(ctx)
	if err != nil {
		return fmt.Errorf("models: long-waiting jobs: %w", err)
	}
	told := map[int64]bool{}
	for i := range jobs {
		j := &jobs[i]
		subject := fmt.Sprintf("job:%d", j.ID)
		if j.ArrayJobID != nil {
			if told[*j.ArrayJobID] {
				continue
			}
			told[*j.ArrayJobID], subject = true, fmt.Sprintf("array:%d", *j.ArrayJobID)
		}
		p, err := JobPayload(ctx, tx, j, now)
		if err != nil {
			return err
		}
		p.Title = fmt.Sprintf("Job %s has waited %s", j.Name, now.Sub(j.SubmittedAt).Round(time.Minute))
		p.Reason = j.PendingReason
		if j.EstimatedStartAt != nil {
			p.Reason += fmt.Sprintf(" (expected start %s)", j.EstimatedStartAt.UTC().Format(time.RFC3339))
		}
		if err := Emit(ctx, tx, NotifyEvent{Name: EventJobWaitingLong, Subject: subject, Users: []int64{j.OwnerID}, Payload: *p}, now); err != nil {
			return err
		}
	}
	return nil
}

func emitNodeUp(ctx context.Context, tx *Tx, nodeID int64, now time.Time) error {
	var name string
	if err := tx.NewSelect().Table("nodes").Column("name").Where("id = ?", nodeID).Scan(ctx, &name); err != nil {
		return fmt.Errorf("models: node %d for node.up: %w", nodeID, err)
	}
	return EmitNodeEvent(ctx, tx, EventNodeUp, name, now)
}

// EmitBookingClashed tells a booking's owner that an admin's edit moved or
// shrank it (call it in the edit's transaction). subject distinguishes edits
// of one booking (e.g. the audit entry's id).
func EmitBookingClashed(ctx context.Context, tx *Tx, bookingID int64, reason, subject string, now time.Time) error {
	var b bookingRow
	err := tx.NewRaw(`SELECT b.*, u.email AS owner FROM bookings b JOIN users u ON u.id = b.user_id WHERE b.id = ?`, bookingID).Scan(ctx, &b)
	if err != nil {
		return fmt.Errorf("models: booking %d for booking.clashed: %w", bookingID, err)
	}
	p := EventPayload{Title: "Your booking of " + words.Count(b.GPUCount, "GPU") + " was changed by an admin", Reason: reason,
		Booking: &EventBooking{ID: b.ID, Kind: b.Kind, Owner: b.Owner, GPUCount: b.GPUCount, StartsAt: b.StartsAt.UTC(), EndsAt: b.EndsAt.UTC()}}
	return Emit(ctx, tx, NotifyEvent{Name: EventBookingClashed, Subject: fmt.Sprintf("booking:%d#%s", b.ID, subject),
		Users: []int64{b.UserID}, Payload: p}, now)
}
