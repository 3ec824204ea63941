package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// ConsumeHolds marks as used the live holds of job's owner that the job,
// starting now, takes up: the oldest matching holds first, until they cover
// the job's GPUs. A consumed hold ends now (its ends_at moves to now), so
// the next pass no longer reserves its GPUs. It returns the holds' IDs.
// applyPlan calls it in the pass's transaction for every start.
func ConsumeHolds(ctx context.Context, tx bun.IDB, job *Job, now time.Time) ([]int64, error) {
	var hs []Hold
	if err := liveHolds(tx.NewSelect().Model(&hs), now).Where("hold.user_id = ?", job.OwnerID).
		Where("hold.starts_at <= ?", now).OrderExpr("hold.id").For("UPDATE").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: consume holds for job %d: %w", job.ID, err)
	}
	var ids []int64
	covered := 0
	for i := range hs {
		if covered >= job.GPUCount {
			break
		}
		if !holdMatches(&hs[i], job) {
			continue
		}
		ids = append(ids, hs[i].ID)
		covered += hs[i].GPUCount
	}
	if len(ids) == 0 {
		return nil, nil
	}
	_, err := tx.NewUpdate().Model((*Hold)(nil)).
		Set("consumed_at = ?", now).Set("consumed_by_job = ?", job.ID).
		Set("ends_at = greatest(?, hold.starts_at + interval '1 millisecond')", now).
		Where("hold.id IN (?)", bun.In(ids)).Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: consume holds %v for job %d: %w", ids, job.ID, err)
	}
	return ids, Signal(ctx, tx, ChannelBookings, fmt.Sprintf("consumed:%d", job.ID))
}

// ExpireHolds marks every hold whose TTL passed unused as expired (at its
// end), counts it for the hit rate, and signals the scheduler so that jobs
// waiting for those GPUs get them. It returns the expired holds' IDs.
func ExpireHolds(ctx context.Context, tx bun.IDB, now time.Time) ([]int64, error) {
	var ids []int64
	err := tx.NewRaw(`UPDATE bookings SET expired_at = ends_at
		WHERE kind = ? AND canceled_at IS NULL AND consumed_at IS NULL AND expired_at IS NULL AND ends_at <= ?
		RETURNING id`, BookingKindHold, now).Scan(ctx, &ids)
	if err != nil {
		return nil, fmt.Errorf("models: expire holds: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return ids, Signal(ctx, tx, ChannelBookings, fmt.Sprintf("expired:%d", len(ids)))
}
