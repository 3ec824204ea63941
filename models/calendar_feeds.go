package models

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Calendar feed scopes: the user's own bookings, holds and jobs, or
// everyone's bookings.
const (
	FeedMine = "mine"
	FeedTeam = "team"
)

// CalendarFeed is a user's secret feed address (/calendar/{token}.ics).
// Only the token's SHA-256 hash is stored; Prefix is shown to tell feeds
// apart.
type CalendarFeed struct {
	bun.BaseModel `bun:"table:calendar_feeds,alias:feed"`

	ID        int64      `bun:"id,pk,autoincrement"`
	UserID    int64      `bun:"user_id,notnull"`
	Scope     string     `bun:"scope,notnull"`
	TokenHash []byte     `bun:"token_hash,notnull"`
	Prefix    string     `bun:"prefix,notnull"`
	CreatedAt time.Time  `bun:"created_at,notnull,default:now()"`
	RevokedAt *time.Time `bun:"revoked_at"`
}

// RegenerateFeed revokes the user's live feed of scope, if any, and makes
// a new one; it returns the new token, shown once (the feed's address).
func RegenerateFeed(ctx context.Context, tx bun.IDB, userID int64, scope string, now time.Time) (string, *CalendarFeed, error) {
	if scope != FeedMine && scope != FeedTeam {
		return "", nil, fmt.Errorf("models: feed scope %q is not mine or team", scope)
	}
	if err := RevokeFeed(ctx, tx, userID, scope, now); err != nil {
		return "", nil, err
	}
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		return "", nil, fmt.Errorf("models: feed token: %w", err)
	}
	token := "cal_" + base64.RawURLEncoding.EncodeToString(raw)
	sum := sha256.Sum256([]byte(token))
	f := &CalendarFeed{UserID: userID, Scope: scope, TokenHash: sum[:], Prefix: token[:10]}
	if _, err := tx.NewInsert().Model(f).Returning("*").Exec(ctx); err != nil {
		return "", nil, fmt.Errorf("models: create feed: %w", err)
	}
	if err := Audit(ctx, tx, &AuditEntry{ActorUserID: &userID, Action: "calendar_feed.create", TargetType: "calendar_feed",
		TargetID: fmt.Sprint(f.ID), Details: map[string]any{"scope": scope, "prefix": f.Prefix}}); err != nil {
		return "", nil, err
	}
	return token, f, nil
}

// RevokeFeed ends the user's live feed of scope (none: nothing to do).
func RevokeFeed(ctx context.Context, tx bun.IDB, userID int64, scope string, now time.Time) error {
	if _, err := tx.NewUpdate().Model((*CalendarFeed)(nil)).Set("revoked_at = ?", now).Where("user_id = ?", userID).
		Where("scope = ?", scope).Where("revoked_at IS NULL").Exec(ctx); err != nil {
		return fmt.Errorf("models: revoke feed: %w", err)
	}
	return nil
}

// UserFeeds returns the user's live feeds.
func UserFeeds(ctx context.Context, db bun.IDB, userID int64) ([]CalendarFeed, error) {
	var out []CalendarFeed
	if err := db.NewSelect().Model(&out).Where("user_id = ?", userID).Where("revoked_at IS NULL").OrderExpr("scope").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: feeds: %w", err)
	}
	return out, nil
}

// FeedByToken returns the live feed of token and its owner, if enabled;
// anything else is ErrNotFound.
func FeedByToken(ctx context.Context, db bun.IDB, token string) (*CalendarFeed, *User, error) {
	sum := sha256.Sum256([]byte(token))
	f := new(CalendarFeed)
	err := db.NewSelect().Model(f).Where("token_hash = ?", sum[:]).Where("revoked_at IS NULL").Scan(ctx)
	if errors.Is(err, errNoRows) {
		return nil, nil, fmt.Errorf("models: feed: %w", ErrNotFound)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("models: feed: %w", err)
	}
	u, err := GetUser(ctx, db, f.UserID)
	if err != nil {
		return nil, nil, err
	}
	if u.DisabledAt != nil {
		return nil, nil, fmt.Errorf("models: feed of a disabled user: %w", ErrNotFound)
	}
	return f, u, nil
}

// FeedBookings returns the bookings (and, with holds, the holds) whose
// windows meet [from, to), canceled ones included so that feeds can show
// the cancellation, by start. userID 0: everyone's.
func FeedBookings(ctx context.Context, db bun.IDB, userID int64, holds bool, from, to time.Time) ([]BookingRow, error) {
	out := []BookingRow{}
	q := bookingRows(db).Where("booking.starts_at < ?", to).Where("booking.ends_at > ?", from).
		OrderExpr("booking.starts_at, booking.id").Limit(5000)
	if userID != 0 {
		q = q.Where("booking.user_id = ?", userID)
	}
	if !holds {
		q = q.Where("booking.kind = ?", BookingKindBooking)
	}
	if err := q.Scan(ctx, &out); err != nil {
		return nil, fmt.Errorf("models: feed bookings: %w", err)
	}
	return out, nil
}

// FeedJob is a running job's expected window, for a user's feed.
type FeedJob struct {
	ID                 int64     `bun:"id"`
	Name               string    `bun:"name"`
	GPUCount           int       `bun:"gpu_count"`
	StartedAt          time.Time `bun:"started_at"`
	EstimatedDurationS *int64    `bun:"estimated_duration_s"`
	UpdatedAt          time.Time `bun:"updated_at"`
}

// FeedJobs returns userID's running jobs.
func FeedJobs(ctx context.Context, db bun.IDB, userID int64) ([]FeedJob, error) {
	var out []FeedJob
	err := db.NewSelect().TableExpr("jobs").Column("id", "name", "gpu_count", "started_at", "estimated_duration_s", "updated_at").
		Where("owner_id = ?", userID).Where("state = 'running'").Where("started_at IS NOT NULL").OrderExpr("started_at, id").
		Limit(500).Scan(ctx, &out)
	if err != nil && !errors.Is(err, errNoRows) {
		return nil, fmt.Errorf("models: feed jobs: %w", err)
	}
	return out, nil
}
