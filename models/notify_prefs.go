package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
)

// NotificationPrefs are a user's choices: for each event the channel kinds it
// goes by, and quiet hours during which only in-app notifications are made
// (others wait for the end). Quiet hours are clock times (minutes of the
// day) in QuietZone, so they keep to the user's clock across DST changes.
type NotificationPrefs struct {
	bun.BaseModel `bun:"table:notification_preferences"`

	UserID     int64               `bun:"user_id,pk" json:"-"`
	Events     map[string][]string `bun:"events,type:jsonb,notnull" json:"events"`
	QuietStart *int                `bun:"quiet_start" json:"quiet_start,omitempty"`
	QuietEnd   *int                `bun:"quiet_end" json:"quiet_end,omitempty"`
	// QuietZone is the IANA zone of the quiet hours ("" is UTC).
	QuietZone string    `bun:"quiet_zone,notnull" json:"quiet_zone,omitempty"`
	UpdatedAt time.Time `bun:"updated_at,notnull" json:"updated_at"`
}

// QuietLocation is the zone of the quiet hours (UTC when unset or unknown).
func (p *NotificationPrefs) QuietLocation() *time.Location { return localtime.OrUTC(p.QuietZone) }

// Wants returns the kinds event goes by, the user's choice or the default.
func (p *NotificationPrefs) Wants(event string) []string {
	if k, ok := p.Events[event]; ok {
		return k
	}
	return DefaultPreferences()[event]
}

// Quiet reports whether t falls in the quiet hours, and when they end:
// both read on the clock of QuietZone.
func (p *NotificationPrefs) Quiet(t time.Time) (bool, time.Time) {
	if p.QuietStart == nil || p.QuietEnd == nil || *p.QuietStart == *p.QuietEnd {
		return false, time.Time{}
	}
	loc := p.QuietLocation()
	l := t.In(loc)
	m := l.Hour()*60 + l.Minute()
	s, e := *p.QuietStart, *p.QuietEnd
	in := (s < e && m >= s && m < e) || (s > e && (m >= s || m < e))
	if !in {
		return false, time.Time{}
	}
	end := localtime.At(l, e/60, e%60, loc)
	if !end.After(t) {
		end = localtime.At(localtime.AddDays(l, 1, loc), e/60, e%60, loc)
	}
	return true, end
}

// ErrBadPrefs is returned for preferences naming an unknown event or kind.
var ErrBadPrefs = errors.New("bad notification preferences")

// GetPrefs returns a user's preferences, filled with the defaults for every
// event the user has not chosen.
func GetPrefs(ctx context.Context, db bun.IDB, userID int64) (*NotificationPrefs, error) {
	p := &NotificationPrefs{UserID: userID}
	err := db.NewSelect().Model(p).WherePK().Scan(ctx)
	if err != nil && !errors.Is(err, errNoRows) {
		return nil, fmt.Errorf("models: preferences of user %d: %w", userID, err)
	}
	full := DefaultPreferences()
	for e, k := range p.Events {
		if IsEvent(e) {
			full[e] = k
		}
	}
	p.Events = full
	return p, nil
}

// SavePrefs stores a user's preferences after checking every event and kind.
func SavePrefs(ctx context.Context, db bun.IDB, p *NotificationPrefs, now time.Time) error {
	for e, kinds := range p.Events {
		if !IsEvent(e) {
			return fmt.Errorf("models: unknown event %q: %w", e, ErrBadPrefs)
		}
		for _, k := range kinds {
			if !slices.Contains(ChannelKinds, k) {
				return fmt.Errorf("models: unknown channel kind %q for %s: %w", k, e, ErrBadPrefs)
			}
		}
	}
	if !localtime.Valid(p.QuietZone) {
		return fmt.Errorf("models: quiet hours' zone %q: %w", p.QuietZone, ErrBadPrefs)
	}
	if p.QuietZone == "" {
		p.QuietZone = "UTC"
	}
	p.UpdatedAt = now
	_, err := db.NewInsert().Model(p).On("CONFLICT (user_id) DO UPDATE").
		Set("events = EXCLUDED.events, quiet_start = EXCLUDED.quiet_start, quiet_end = EXCLUDED.quiet_end, quiet_zone = EXCLUDED.quiet_zone, updated_at = EXCLUDED.updated_at").
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: save preferences of user %d: %w", p.UserID, err)
	}
	return nil
}
