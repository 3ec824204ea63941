package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// settingEnvTeamChannel records, per channel type, which team channel the
// server's environment made (GPUSCHED_SLACK_WEBHOOK_URL): 0 for none.
const settingEnvTeamChannel = "notify.env_team_channel."

// EnsureTeamChannel makes the team channel of a type that the server's
// environment sets point at target; an empty target removes it. Serve calls
// it at start with its configuration (GPUSCHED_SLACK_WEBHOOK_URL). It
// touches only the channel it made: the ones admins set on Admin →
// Notifications stay. (Before it kept a record, every team channel came
// from the environment; the first start with the record treats them so.)
func EnsureTeamChannel(ctx context.Context, db bun.IDB, box *SecretBox, typ, target string) error {
	var envID int64
	recorded, err := GetSetting(ctx, db, settingEnvTeamChannel+typ, &envID)
	if err != nil {
		return err
	}
	var cur []NotificationChannel
	q := db.NewSelect().Model(&cur).Where("user_id IS NULL AND type = ?", typ)
	if recorded {
		q = q.Where("id = ?", envID)
	}
	if err := q.Scan(ctx); err != nil {
		return fmt.Errorf("models: team %s channels: %w", typ, err)
	}
	var kept int64
	for _, ch := range cur {
		if t, err := box.Open(ch.Target); err == nil && t == target && target != "" && kept == 0 {
			kept = ch.ID
			continue
		}
		if _, err := db.NewDelete().Model((*NotificationChannel)(nil)).Where("id = ?", ch.ID).Exec(ctx); err != nil {
			return fmt.Errorf("models: replace team %s channel: %w", typ, err)
		}
	}
	if target != "" && kept == 0 {
		ch := &NotificationChannel{Type: typ, Target: box.Seal(target), CreatedAt: time.Now()}
		if err := CreateChannel(ctx, db, ch); err != nil {
			return err
		}
		kept = ch.ID
	}
	return PutSetting(ctx, db, settingEnvTeamChannel+typ, kept, nil, time.Now())
}

// TeamChannel is a channel without an owner: the team's.
type TeamChannel struct {
	NotificationChannel
	// FromEnv: the server's environment set it; it is used only while
	// admins have set no team channel.
	FromEnv bool
	// InUse: team events go to it now.
	InUse bool
}

// TeamChannels returns the channels without an owner, oldest first, with
// which of them team events go to: the ones admins set, else the one from
// the server's environment, as a fallback.
func TeamChannels(ctx context.Context, db bun.IDB) ([]TeamChannel, error) {
	var rows []NotificationChannel
	if err := db.NewSelect().Model(&rows).Where("user_id IS NULL").OrderExpr("id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: team channels: %w", err)
	}
	env := map[int64]bool{}
	for _, typ := range []string{KindSlack, KindWebhook} {
		var id int64
		if _, err := GetSetting(ctx, db, settingEnvTeamChannel+typ, &id); err != nil {
			return nil, err
		}
		env[id] = id != 0
	}
	out := make([]TeamChannel, len(rows))
	admins := 0
	for i, ch := range rows {
		out[i] = TeamChannel{NotificationChannel: ch, FromEnv: env[ch.ID]}
		if !out[i].FromEnv {
			admins++
		}
	}
	for i := range out {
		out[i].InUse = !out[i].FromEnv || admins == 0
	}
	return out, nil
}

// TeamChannelsInUse are the channels team events go to now.
func TeamChannelsInUse(ctx context.Context, db bun.IDB) ([]NotificationChannel, error) {
	all, err := TeamChannels(ctx, db)
	if err != nil {
		return nil, err
	}
	var out []NotificationChannel
	for _, ch := range all {
		if ch.InUse {
			out = append(out, ch.NotificationChannel)
		}
	}
	return out, nil
}

// DeleteTeamChannel removes a team channel an admin set; the one from the
// server's environment is removed by unsetting the variable.
func DeleteTeamChannel(ctx context.Context, db bun.IDB, id int64) error {
	all, err := TeamChannels(ctx, db)
	if err != nil {
		return err
	}
	for _, ch := range all {
		if ch.ID != id {
			continue
		}
		if ch.FromEnv {
			return fmt.Errorf("models: team channel %d comes from the server's environment; unset GPUSCHED_SLACK_WEBHOOK_URL to remove it: %w", id, ErrBadTransition)
		}
		if _, err := db.NewDelete().Model((*NotificationChannel)(nil)).Where("id = ? AND user_id IS NULL", id).Exec(ctx); err != nil {
			return fmt.Errorf("models: delete team channel %d: %w", id, err)
		}
		return nil
	}
	return fmt.Errorf("models: team channel %d: %w", id, ErrNotFound)
}
