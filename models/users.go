package models

import (
	"context"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// Roles a user may have.
const (
	RoleAdmin  = "admin"
	RoleMember = "member"
)

// User is a person who submits jobs, books GPUs or administers the cluster.
type User struct {
	bun.BaseModel `bun:"table:users"`

	ID              int64      `bun:"id,pk,autoincrement" json:"id"`
	Email           string     `bun:"email,notnull" json:"email"`
	Name            string     `bun:"name,notnull" json:"name"`
	Role            string     `bun:"role,notnull" json:"role"`
	TeamID          *int64     `bun:"team_id" json:"team_id,omitempty"`
	UnixUser        *string    `bun:"unix_user" json:"unix_user,omitempty"`
	FairShareWeight float64    `bun:"fair_share_weight,notnull" json:"fair_share_weight"`
	GPUCap          *int       `bun:"gpu_cap" json:"gpu_cap,omitempty"`
	DisabledAt      *time.Time `bun:"disabled_at" json:"disabled_at,omitempty"`
	// TimeZone is the IANA zone the dashboard shows the user's times in
	// ("" until set: UTC). Migration 0011; see user_time_zone.go.
	TimeZone  string    `bun:"time_zone,notnull" json:"time_zone"`
	CreatedAt time.Time `bun:"created_at,notnull,default:now()" json:"created_at"`
	UpdatedAt time.Time `bun:"updated_at,notnull,default:now()" json:"updated_at"`
}

// IsAdmin reports whether u administers the cluster.
func (u *User) IsAdmin() bool { return u.Role == RoleAdmin }

// DisplayName is the name when known, else the email.
func (u *User) DisplayName() string {
	if u.Name != "" {
		return u.Name
	}
	return u.Email
}

// ValidRole reports whether role is one of the known roles.
func ValidRole(role string) bool { return role == RoleAdmin || role == RoleMember }

// NormalizeEmail trims and lower-cases an address and checks its form.
func NormalizeEmail(email string) (string, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || !strings.Contains(email, "@") {
		return "", fmt.Errorf("%q is not an email address", email)
	}
	return email, nil
}

// CreateUser inserts a user; a second user with the same email (in any case)
// is ErrConflict.
func CreateUser(ctx context.Context, db bun.IDB, email, name, role string) (*User, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return nil, fmt.Errorf("models: create user: %w", err)
	}
	if role == "" {
		role = RoleMember
	}
	if !ValidRole(role) {
		return nil, fmt.Errorf("models: create user: role %q is not admin or member", role)
	}
	u := &User{Email: email, Name: strings.TrimSpace(name), Role: role, FairShareWeight: 1}
	if _, err := db.NewInsert().Model(u).Returning("*").Exec(ctx); err != nil {
		if isUniqueViolation(err, "users_email_key") {
			return nil, fmt.Errorf("models: create user %s: %w", email, ErrConflict)
		}
		return nil, fmt.Errorf("models: create user %s: %w", email, err)
	}
	return u, nil
}

// GetUser returns the user with id.
func GetUser(ctx context.Context, db bun.IDB, id int64) (*User, error) {
	u := new(User)
	err := db.NewSelect().Model(u).Where("id = ?", id).Scan(ctx)
	return u, notFound(err, fmt.Sprintf("get user %d", id))
}

// GetUserByEmail returns the user with email, in any case.
func GetUserByEmail(ctx context.Context, db bun.IDB, email string) (*User, error) {
	u := new(User)
	err := db.NewSelect().Model(u).Where("lower(email) = lower(?)", strings.TrimSpace(email)).Scan(ctx)
	return u, notFound(err, fmt.Sprintf("get user %s", email))
}

// ListUsers returns every user by email.
func ListUsers(ctx context.Context, db bun.IDB) ([]User, error) {
	var users []User
	if err := db.NewSelect().Model(&users).OrderExpr("lower(email)").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: list users: %w", err)
	}
	return users, nil
}

// SetUserRole changes a user's role.
func SetUserRole(ctx context.Context, db bun.IDB, id int64, role string) error {
	if !ValidRole(role) {
		return fmt.Errorf("models: set role: role %q is not admin or member", role)
	}
	res, err := db.NewUpdate().Model((*User)(nil)).Set("role = ?", role).Set("updated_at = now()").Where("id = ?", id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: set role of user %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("models: set role of user %d: %w", id, ErrNotFound)
	}
	return Signal(ctx, db, ChannelTokens, fmt.Sprintf("user:%d", id))
}

// CountAdmins returns how many enabled admins exist.
func CountAdmins(ctx context.Context, db bun.IDB) (int, error) {
	n, err := db.NewSelect().Model((*User)(nil)).Where("role = ?", RoleAdmin).Where("disabled_at IS NULL").Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("models: count admins: %w", err)
	}
	return int(n), nil
}
