package models

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// SessionHandoff is a single-use ticket that carries a user's dashboard
// sign-in (one of their browser sessions) to the session origin for one
// interactive session. Only the token's SHA-256 is stored; any replica
// redeems it.
type SessionHandoff struct {
	bun.BaseModel `bun:"table:session_handoffs"`

	TokenHash        []byte    `bun:"token_hash,pk"`
	JobID            int64     `bun:"job_id,notnull"`
	UserID           int64     `bun:"user_id,notnull"`
	BrowserSessionID int64     `bun:"browser_session_id,notnull"`
	CreatedAt        time.Time `bun:"created_at,notnull"`
	ExpiresAt        time.Time `bun:"expires_at,notnull"`
}

// handoffHash is what is stored of a handoff token.
func handoffHash(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// CreateSessionHandoff records handoff token (the caller made it random)
// for user userID, through browser session browser, to session job, good
// until expires.
func CreateSessionHandoff(ctx context.Context, db bun.IDB, token string, job, userID, browser int64, expires, now time.Time) error {
	row := &SessionHandoff{TokenHash: handoffHash(token), JobID: job, UserID: userID, BrowserSessionID: browser,
		CreatedAt: now, ExpiresAt: expires}
	if _, err := db.NewInsert().Model(row).Exec(ctx); err != nil {
		return fmt.Errorf("models: handoff to session %d: %w", job, err)
	}
	return nil
}

// RedeemSessionHandoff spends handoff token for session job at now: it
// deletes its row, in one statement, so that of two replicas redeeming it
// at once one gets it; it returns the user and browser session it names.
// A token unknown, spent, expired or for another session is ErrNotFound.
func RedeemSessionHandoff(ctx context.Context, db bun.IDB, token string, job int64, now time.Time) (userID, browser int64, err error) {
	var row SessionHandoff
	err = db.NewDelete().Model(&row).Where("token_hash = ?", handoffHash(token)).Where("job_id = ?", job).
		Where("expires_at > ?", now).Returning("user_id, browser_session_id").Scan(ctx)
	if errors.Is(err, errNoRows) {
		return 0, 0, fmt.Errorf("models: handoff to session %d: %w", job, ErrNotFound)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("models: redeem handoff to session %d: %w", job, err)
	}
	return row.UserID, row.BrowserSessionID, nil
}

// DeleteExpiredSessionHandoffs removes handoffs that expired before now,
// unspent, and returns how many.
func DeleteExpiredSessionHandoffs(ctx context.Context, db bun.IDB, now time.Time) (int, error) {
	res, err := db.NewDelete().Model((*SessionHandoff)(nil)).Where("expires_at <= ?", now).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("models: delete expired handoffs: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
