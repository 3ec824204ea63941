package models

import (
	"context"
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Session is one browser sign-in. The browser holds a random opaque id; only
// its SHA-256 is stored. A session is live until it expires or ends
// (sign-out, "sign out everywhere", an admin, the user disabled).
type Session struct {
	bun.BaseModel `bun:"table:sessions"`

	ID         int64      `bun:"id,pk,autoincrement" json:"id"`
	TokenHash  []byte     `bun:"token_hash,notnull" json:"-"`
	UserID     int64      `bun:"user_id,notnull" json:"user_id"`
	Via        string     `bun:"via,notnull" json:"via"`
	IP         string     `bun:"ip,notnull" json:"ip"`
	UserAgent  string     `bun:"user_agent,notnull" json:"user_agent"`
	CreatedAt  time.Time  `bun:"created_at,notnull,default:now()" json:"created_at"`
	LastSeenAt time.Time  `bun:"last_seen_at,notnull,default:now()" json:"last_seen_at"`
	ExpiresAt  time.Time  `bun:"expires_at,notnull" json:"expires_at"`
	EndedAt    *time.Time `bun:"ended_at" json:"ended_at,omitempty"`
}

// SessionHash is how a session's opaque id is stored.
func SessionHash(opaque string) []byte {
	sum := sha256.Sum256([]byte(opaque))
	return sum[:]
}

// sessionSignal tells every replica's caches of authenticated sessions (and
// tokens) to forget what they hold: sessions share the tokens channel.
func sessionSignal(ctx context.Context, db bun.IDB, what string) error {
	return Signal(ctx, db, ChannelTokens, "session:"+what)
}

// CreateSession stores a new live session for s.UserID (s.TokenHash set).
func CreateSession(ctx context.Context, db bun.IDB, s *Session) error {
	if len(s.UserAgent) > 512 {
		s.UserAgent = s.UserAgent[:512]
	}
	if _, err := db.NewInsert().Model(s).Returning("*").Exec(ctx); err != nil {
		return fmt.Errorf("models: create session for user %d: %w", s.UserID, err)
	}
	return nil
}

// LookupSession returns the live session whose opaque id hashes to hash,
// marking it seen now from ip (ErrNotFound when none is live).
func LookupSession(ctx context.Context, db bun.IDB, hash []byte, ip string, now time.Time) (*Session, error) {
	s := new(Session)
	err := db.NewUpdate().Model(s).Set("last_seen_at = ?", now).Set("ip = CASE WHEN ? = '' THEN ip ELSE ? END", ip, ip).
		Where("token_hash = ?", hash).Where("ended_at IS NULL").Where("expires_at > ?", now).
		Returning("*").Scan(ctx)
	return s, notFound(err, "look up session")
}

// SessionLive reports whether the session whose opaque id hashes to hash is
// live and its user enabled, without marking it seen.
func SessionLive(ctx context.Context, db bun.IDB, hash []byte, now time.Time) (bool, error) {
	ok, err := db.NewSelect().TableExpr("sessions AS s").Join("JOIN users AS u ON u.id = s.user_id").
		Where("s.token_hash = ?", hash).Where("s.ended_at IS NULL").Where("s.expires_at > ?", now).
		Where("u.disabled_at IS NULL").Exists(ctx)
	if err != nil {
		return false, fmt.Errorf("models: is the session live: %w", err)
	}
	return ok, nil
}

// SessionLiveByID reports whether browser session id of user is live and
// its user enabled (the session origin's cookie lives only as long).
func SessionLiveByID(ctx context.Context, db bun.IDB, id, user int64, now time.Time) (bool, error) {
	ok, err := db.NewSelect().TableExpr("sessions AS s").Join("JOIN users AS u ON u.id = s.user_id").
		Where("s.id = ?", id).Where("s.user_id = ?", user).Where("s.ended_at IS NULL").Where("s.expires_at > ?", now).
		Where("u.disabled_at IS NULL").Exists(ctx)
	if err != nil {
		return false, fmt.Errorf("models: is browser session %d live: %w", id, err)
	}
	return ok, nil
}

// ListSessions returns a user's live sessions, most recently seen first.
func ListSessions(ctx context.Context, db bun.IDB, userID int64, now time.Time) ([]Session, error) {
	var out []Session
	err := db.NewSelect().Model(&out).Where("user_id = ?", userID).Where("ended_at IS NULL").Where("expires_at > ?", now).
		OrderExpr("last_seen_at DESC, id DESC").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: list sessions of user %d: %w", userID, err)
	}
	return out, nil
}

// EndSessionByHash ends the session whose opaque id hashes to hash (sign-out).
// Ending an ended or unknown session is not an error.
func EndSessionByHash(ctx context.Context, db bun.IDB, hash []byte, now time.Time) error {
	if _, err := db.NewUpdate().Model((*Session)(nil)).Set("ended_at = ?", now).
		Where("token_hash = ?", hash).Where("ended_at IS NULL").Exec(ctx); err != nil {
		return fmt.Errorf("models: end session: %w", err)
	}
	return sessionSignal(ctx, db, "end")
}

// EndSession ends session id of user userID (ErrNotFound if it is not theirs
// or not live).
func EndSession(ctx context.Context, db bun.IDB, userID, id int64, now time.Time) error {
	res, err := db.NewUpdate().Model((*Session)(nil)).Set("ended_at = ?", now).
		Where("id = ?", id).Where("user_id = ?", userID).Where("ended_at IS NULL").Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: end session %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("models: end session %d: %w", id, ErrNotFound)
	}
	return sessionSignal(ctx, db, "end")
}

// EndUserSessions ends every live session of a user and returns how many.
func EndUserSessions(ctx context.Context, db bun.IDB, userID int64, now time.Time) (int, error) {
	res, err := db.NewUpdate().Model((*Session)(nil)).Set("ended_at = ?", now).
		Where("user_id = ?", userID).Where("ended_at IS NULL").Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("models: end sessions of user %d: %w", userID, err)
	}
	n, _ := res.RowsAffected()
	return int(n), sessionSignal(ctx, db, fmt.Sprintf("user:%d", userID))
}

// DeleteOldSessions removes sessions that ended or expired before cutoff
// (retention) and returns how many.
func DeleteOldSessions(ctx context.Context, db bun.IDB, cutoff time.Time) (int, error) {
	res, err := db.NewDelete().Model((*Session)(nil)).Where("coalesce(ended_at, expires_at) < ?", cutoff).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("models: delete old sessions: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
