package models

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/uptrace/bun"
)

var unixUserName = regexp.MustCompile(`^[a-z_][a-z0-9_.-]{0,31}\$?$`)

// ValidUnixUser reports whether name can name a Unix account.
func ValidUnixUser(name string) bool { return unixUserName.MatchString(name) }

// UserByUnixUser returns the enabled user mapped to Unix account name: the
// owner of jobs that processes of that account ask for on a node.
func UserByUnixUser(ctx context.Context, db bun.IDB, name string) (*User, error) {
	u := new(User)
	err := db.NewSelect().Model(u).Where("unix_user = ?", name).Where("disabled_at IS NULL").OrderExpr("id").Limit(1).Scan(ctx)
	return u, notFound(err, "user with Unix user "+name)
}

// SetUnixUser maps user id to Unix account name ("" removes the mapping).
func SetUnixUser(ctx context.Context, db bun.IDB, id int64, name string, now time.Time) error {
	if name != "" && !ValidUnixUser(name) {
		return fmt.Errorf("models: Unix user %q: lower-case letters, digits, '_', '.', '-', at most 32", name)
	}
	var v *string
	if name != "" {
		v = &name
	}
	res, err := db.NewUpdate().Model((*User)(nil)).Set("unix_user = ?", v).Set("updated_at = ?", now).Where("id = ?", id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: set Unix user of user %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("models: set Unix user of user %d: %w", id, ErrNotFound)
	}
	return nil
}
