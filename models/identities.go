package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Identity links a user to an account at a sign-in provider (an OpenID
// Connect subject, a GitHub user id), so the same person signs in through
// several providers as one user.
type Identity struct {
	bun.BaseModel `bun:"table:identities"`

	ID            int64      `bun:"id,pk,autoincrement" json:"id"`
	UserID        int64      `bun:"user_id,notnull" json:"user_id"`
	Provider      string     `bun:"provider,notnull" json:"provider"`
	Subject       string     `bun:"subject,notnull" json:"subject"`
	Email         string     `bun:"email,notnull" json:"email"`
	EmailVerified bool       `bun:"email_verified,notnull" json:"email_verified"`
	CreatedAt     time.Time  `bun:"created_at,notnull,default:now()" json:"created_at"`
	LastLoginAt   *time.Time `bun:"last_login_at" json:"last_login_at,omitempty"`
}

// GetIdentity returns the identity of provider and subject.
func GetIdentity(ctx context.Context, db bun.IDB, provider, subject string) (*Identity, error) {
	id := new(Identity)
	err := db.NewSelect().Model(id).Where("provider = ? AND subject = ?", provider, subject).Scan(ctx)
	return id, notFound(err, fmt.Sprintf("get identity %s/%s", provider, subject))
}

// CreateIdentity links a provider's subject to a user.
func CreateIdentity(ctx context.Context, db bun.IDB, id *Identity) error {
	if _, err := db.NewInsert().Model(id).Returning("*").Exec(ctx); err != nil {
		if isUniqueViolation(err, "identities_provider_subject_key") {
			return fmt.Errorf("models: create identity %s/%s: %w", id.Provider, id.Subject, ErrConflict)
		}
		return fmt.Errorf("models: create identity %s/%s: %w", id.Provider, id.Subject, err)
	}
	return nil
}

// TouchIdentity records a sign-in through id with the email the provider gave.
func TouchIdentity(ctx context.Context, db bun.IDB, id int64, email string, verified bool, now time.Time) error {
	_, err := db.NewUpdate().Model((*Identity)(nil)).Set("last_login_at = ?", now).
		Set("email = ?", email).Set("email_verified = ?", verified).Where("id = ?", id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: touch identity %d: %w", id, err)
	}
	return nil
}

// ListIdentities returns a user's identities, oldest first.
func ListIdentities(ctx context.Context, db bun.IDB, userID int64) ([]Identity, error) {
	var out []Identity
	if err := db.NewSelect().Model(&out).Where("user_id = ?", userID).OrderExpr("id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: list identities of user %d: %w", userID, err)
	}
	return out, nil
}
