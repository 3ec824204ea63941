package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// Hold states, derived from a hold's row.
const (
	HoldActive   = "active"
	HoldConsumed = "consumed"
	HoldExpired  = "expired"
	HoldCanceled = "canceled"
)

// ErrHoldLimit is returned when a user already has as many live holds as
// allowed.
var ErrHoldLimit = errors.New("hold limit reached")

// ErrHoldQuota is returned when a hold would take a user or team over its
// GPU cap.
var ErrHoldQuota = errors.New("hold over quota")

// Hold is a client agent's pre-warm reservation: a row of bookings with kind
// 'hold' that starts at creation and ends at its TTL, when its owner's next
// matching job starts (consumed) or when canceled (DESIGN.md "Holds and
// bookings").
type Hold struct {
	bun.BaseModel `bun:"table:bookings,alias:hold"`

	ID            int64      `bun:"id,pk,autoincrement"`
	UserID        int64      `bun:"user_id,notnull"`
	Kind          string     `bun:"kind,notnull"`
	GPUCount      int        `bun:"gpu_count,notnull"`
	GPUModel      string     `bun:"gpu_model,notnull"`
	NodeID        *int64     `bun:"node_id"`
	GPUShare      float64    `bun:"gpu_share,notnull"` // 0: a hold takes whole GPUs (see Booking.GPUShare)
	MinMemoryMiB  *int64     `bun:"min_memory_mib"`
	JobType       string     `bun:"job_type,notnull"`
	StartsAt      time.Time  `bun:"starts_at,notnull"`
	EndsAt        time.Time  `bun:"ends_at,notnull"`
	Note          string     `bun:"note,notnull"`
	Source        string     `bun:"source,notnull"` // the agent's monitor name
	CanceledAt    *time.Time `bun:"canceled_at"`
	ConsumedAt    *time.Time `bun:"consumed_at"`
	ConsumedByJob *int64     `bun:"consumed_by_job"`
	ExpiredAt     *time.Time `bun:"expired_at"`
	CreatedAt     time.Time  `bun:"created_at,notnull,default:now()"`
	PinnedGPUIDs  []int64    `bun:"pinned_gpu_ids,array"` // see Booking.PinnedGPUIDs
	// Columns of migration 0012 (see Booking).
	SeriesID          *int64     `bun:"series_id"`
	Sequence          int        `bun:"sequence,notnull"`
	UpdatedAt         time.Time  `bun:"updated_at,notnull,default:now()"`
	EndedEarlyAt      *time.Time `bun:"ended_early_at"`
	ImportFingerprint string     `bun:"import_fingerprint,nullzero"`
}

// State is the hold's state at now.
func (h *Hold) State(now time.Time) string {
	switch {
	case h.ConsumedAt != nil:
		return HoldConsumed
	case h.CanceledAt != nil:
		return HoldCanceled
	case h.ExpiredAt != nil || !h.EndsAt.After(now):
		return HoldExpired
	}
	return HoldActive
}

// liveHolds narrows q to holds that still reserve GPUs at now.
func liveHolds(q *bun.SelectQuery, now time.Time) *bun.SelectQuery {
	return q.Where("hold.kind = ?", BookingKindHold).Where("hold.canceled_at IS NULL").
		Where("hold.consumed_at IS NULL").Where("hold.expired_at IS NULL").Where("hold.ends_at > ?", now)
}

// CreateHold inserts h for its owner in tx, after checking the owner's limit
// of live holds and the user's and team's GPU caps (running GPUs plus active
// bookings and holds plus this hold), and signals the scheduler. The
// owner's row is locked so that two concurrent requests cannot both pass.
func CreateHold(ctx context.Context, tx bun.IDB, h *Hold, limit int, now time.Time) error {
	var u User
	if err := tx.NewSelect().Model(&u).Where("id = ?", h.UserID).For("UPDATE").Scan(ctx); err != nil {
		return fmt.Errorf("models: create hold: lock user %d: %w", h.UserID, err)
	}
	live, err := liveHolds(tx.NewSelect().Model((*Hold)(nil)), now).Where("hold.user_id = ?", h.UserID).Count(ctx)
	if err != nil {
		return fmt.Errorf("models: create hold: count live holds: %w", err)
	}
	if limit > 0 && live >= int64(limit) {
		return fmt.Errorf("%w: %d of %d live holds", ErrHoldLimit, live, limit)
	}
	if err := checkHoldQuota(ctx, tx, &u, h.GPUCount, now); err != nil {
		return err
	}
	h.Kind, h.StartsAt = BookingKindHold, now
	if _, err := tx.NewInsert().Model(h).Returning("*").Exec(ctx); err != nil {
		return fmt.Errorf("models: create hold: %w", err)
	}
	return Signal(ctx, tx, ChannelBookings, fmt.Sprintf("hold:%d", h.ID))
}

// checkHoldQuota refuses a hold of n GPUs that would take u or u's team over
// its cap. It counts conservatively: every live allocation plus every
// active booking and hold in full.
func checkHoldQuota(ctx context.Context, tx bun.IDB, u *User, n int, now time.Time) error {
	check := func(who, col string, id int64, limit *int) error {
		if limit == nil || *limit == 0 {
			return nil
		}
		var used int
		err := tx.NewRaw(`SELECT
			(SELECT count(*) FROM allocations a JOIN users au ON au.id = a.user_id WHERE a.released_at IS NULL AND au.`+col+` = ?)
			+ (SELECT coalesce(sum(b.gpu_count), 0) FROM bookings b JOIN users bu ON bu.id = b.user_id
			   WHERE bu.`+col+` = ? AND b.canceled_at IS NULL AND b.consumed_at IS NULL AND b.expired_at IS NULL
			   AND b.starts_at <= ? AND b.ends_at > ?)`, id, id, now, now).Scan(ctx, &used)
		if err != nil {
			return fmt.Errorf("models: hold quota of %s: %w", who, err)
		}
		if used+n > *limit {
			return fmt.Errorf("%w: %s quota: %d of %d GPUs in use or reserved; this hold needs %d more", ErrHoldQuota, who, used, *limit, n)
		}
		return nil
	}
	if err := check("user", "id", u.ID, u.GPUCap); err != nil {
		return err
	}
	if u.TeamID == nil {
		return nil
	}
	var team Team
	if err := tx.NewSelect().Model(&team).Where("id = ?", *u.TeamID).Scan(ctx); err != nil {
		return fmt.Errorf("models: hold quota: team %d: %w", *u.TeamID, err)
	}
	return check("team", "team_id", team.ID, team.GPUCap)
}

// GetHold returns hold id.
func GetHold(ctx context.Context, db bun.IDB, id int64) (*Hold, error) {
	h := new(Hold)
	err := db.NewSelect().Model(h).Where("hold.id = ?", id).Where("hold.kind = ?", BookingKindHold).Scan(ctx)
	if errors.Is(err, errNoRows) {
		return nil, fmt.Errorf("models: hold %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("models: hold %d: %w", id, err)
	}
	return h, nil
}

// ListHolds returns holds newest first: live ones, and with recent also
// those that ended after since. userID 0 lists everyone's.
func ListHolds(ctx context.Context, db bun.IDB, userID int64, since, now time.Time) ([]Hold, error) {
	var hs []Hold
	q := db.NewSelect().Model(&hs).Where("hold.kind = ?", BookingKindHold).
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return liveHolds(q, now).WhereOr("hold.created_at >= ?", since)
		}).OrderExpr("hold.id DESC").Limit(500)
	if userID != 0 {
		q = q.Where("hold.user_id = ?", userID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: list holds: %w", err)
	}
	return hs, nil
}

// CancelHold cancels a live hold of userID (any user's when admin) and
// signals the scheduler. Canceling an ended hold is ErrBadTransition.
func CancelHold(ctx context.Context, tx bun.IDB, id, userID int64, admin bool, now time.Time) (*Hold, error) {
	h := new(Hold)
	q := tx.NewSelect().Model(h).Where("hold.id = ?", id).Where("hold.kind = ?", BookingKindHold).For("UPDATE")
	if !admin {
		q = q.Where("hold.user_id = ?", userID)
	}
	if err := q.Scan(ctx); err != nil {
		if errors.Is(err, errNoRows) {
			return nil, fmt.Errorf("models: cancel hold %d: %w", id, ErrNotFound)
		}
		return nil, fmt.Errorf("models: cancel hold %d: %w", id, err)
	}
	if st := h.State(now); st != HoldActive {
		return nil, fmt.Errorf("models: cancel hold %d: it is already %s: %w", id, st, ErrBadTransition)
	}
	h.CanceledAt = &now
	if _, err := tx.NewUpdate().Model(h).Column("canceled_at").WherePK().Exec(ctx); err != nil {
		return nil, fmt.Errorf("models: cancel hold %d: %w", id, err)
	}
	return h, Signal(ctx, tx, ChannelBookings, fmt.Sprintf("hold:%d", h.ID))
}

// holdMatches reports whether a job of model (and memory) may use a hold.
func holdMatches(h *Hold, j *Job) bool {
	if h.GPUModel != "" && !strings.Contains(strings.ToLower(j.GPUModel), strings.ToLower(h.GPUModel)) && j.GPUModel != "" {
		return false
	}
	return true
}
