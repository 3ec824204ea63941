package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
)

// SetUserTimeZone stores the IANA zone the user's times are shown in ("" is
// UTC). An unknown zone is refused. onlyIfUnset leaves an already chosen
// zone alone (the browser's guess on first sign-in must not override a
// choice); it reports whether the row changed, and signals the change on
// the tokens channel so that session caches reload the user.
func SetUserTimeZone(ctx context.Context, db bun.IDB, userID int64, zone string, onlyIfUnset bool) (bool, error) {
	if _, err := localtime.Load(zone); err != nil {
		return false, fmt.Errorf("models: set time zone of user %d: %w", userID, err)
	}
	q := db.NewUpdate().Table("users").Set("time_zone = ?", zone).Set("updated_at = now()").Where("id = ?", userID)
	if onlyIfUnset {
		q = q.Where("time_zone = ''")
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("models: set time zone of user %d: %w", userID, err)
	}
	n, _ := res.RowsAffected()
	if n == 0 {
		return false, nil
	}
	// Caches of signed-in users (sessions) drop the old zone.
	return true, Signal(ctx, db, ChannelTokens, fmt.Sprintf("user:%d:time_zone", userID))
}

// RecipientZone is the zone a notification's recipient reads times in:
// the user's Settings → Time zone; UTC for a team channel (no user) or a
// user deleted since.
func RecipientZone(ctx context.Context, db bun.IDB, userID *int64) (*time.Location, error) {
	if userID == nil {
		return time.UTC, nil
	}
	var zone string
	err := db.NewSelect().Table("users").Column("time_zone").Where("id = ?", *userID).Scan(ctx, &zone)
	if errors.Is(err, errNoRows) {
		return time.UTC, nil
	} else if err != nil {
		return nil, fmt.Errorf("models: time zone of user %d: %w", *userID, err)
	}
	return localtime.OrUTC(zone), nil
}
