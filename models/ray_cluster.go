package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// RayCluster is what GPUScheduler last saw of its Ray cluster: whether the
// Jobs API answered, and since when it has not.
type RayCluster struct {
	bun.BaseModel `bun:"table:ray_cluster,alias:rc"`

	ID         int        `bun:"id,pk" json:"-"`
	Address    string     `bun:"address,notnull" json:"address"`
	Connected  bool       `bun:"connected,notnull" json:"connected"`
	RayVersion string     `bun:"ray_version,notnull" json:"ray_version,omitempty"`
	LastError  string     `bun:"last_error,notnull" json:"last_error,omitempty"`
	DownSince  *time.Time `bun:"down_since" json:"down_since,omitempty"`
	CheckedAt  *time.Time `bun:"checked_at" json:"checked_at,omitempty"`
}

// rayCheckedEvery is how often checked_at is refreshed while nothing else
// changes.
const rayCheckedEvery = 30 * time.Second

// RayUnreachable is the reason a queued Ray job waits while the cluster
// does not answer.
const RayUnreachable = "Ray cluster unreachable"

// GetRayCluster returns the Ray cluster's state, or ErrNotFound when this
// server has never been configured with one.
func GetRayCluster(ctx context.Context, db bun.IDB) (*RayCluster, error) {
	c := new(RayCluster)
	err := db.NewSelect().Model(c).Where("id = 1").Scan(ctx)
	return c, notFound(err, "ray cluster")
}

// RecordRayContact stores the outcome of a contact with the cluster at
// address: errText "" for an answer. It reports whether the connection
// state changed, and signals the change on the nodes channel (a pass then
// runs: Ray jobs may start again, or must wait).
func RecordRayContact(ctx context.Context, db bun.IDB, address, version, errText string, now time.Time) (*RayCluster, bool, error) {
	prev, err := GetRayCluster(ctx, db)
	first := err != nil
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, false, err
	}
	c := &RayCluster{ID: 1, Address: address, Connected: errText == "", RayVersion: version, LastError: errText, CheckedAt: &now}
	if !first && prev.Connected && c.Connected && prev.Address == address && prev.RayVersion == version &&
		prev.CheckedAt != nil && now.Sub(*prev.CheckedAt) < rayCheckedEvery {
		return prev, false, nil // nothing new: no write
	}
	if !c.Connected {
		c.RayVersion = prev.RayVersion
		c.DownSince = &now
		if !first && prev.DownSince != nil {
			c.DownSince = prev.DownSince
		}
	}
	if _, err := db.NewInsert().Model(c).On("CONFLICT (id) DO UPDATE").
		Set("address = EXCLUDED.address, connected = EXCLUDED.connected, ray_version = EXCLUDED.ray_version").
		Set("last_error = EXCLUDED.last_error, down_since = EXCLUDED.down_since, checked_at = EXCLUDED.checked_at").
		Exec(ctx); err != nil {
		return nil, false, fmt.Errorf("models: record ray contact: %w", err)
	}
	changed := first || prev.Connected != c.Connected
	if changed {
		if err := Signal(ctx, db, ChannelNodes, "ray"); err != nil {
			return nil, false, err
		}
	}
	return c, changed, nil
}

// RayDisconnected reports whether a Ray cluster is configured and does not
// answer.
func RayDisconnected(ctx context.Context, db bun.IDB) (bool, error) {
	var down bool
	err := db.NewRaw(`SELECT EXISTS (SELECT 1 FROM ray_cluster WHERE NOT connected)`).Scan(ctx, &down)
	if err != nil {
		return false, fmt.Errorf("models: ray cluster state: %w", err)
	}
	return down, nil
}
