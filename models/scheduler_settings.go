package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// Keys of the scheduler's settings.
const (
	SettingPolicy   = "scheduler.policy"
	SettingPaused   = "scheduler.paused"
	SettingLastPass = "scheduler.last_pass"
)

// PassStats describe the latest scheduling pass, for /orchestrator/status.
type PassStats struct {
	At          time.Time `json:"at"`
	DurationMS  float64   `json:"duration_ms"`
	CoreMS      float64   `json:"core_ms"`
	Pending     int       `json:"pending"`
	Started     int       `json:"started"`
	Preempted   int       `json:"preempted"`
	Replica     string    `json:"replica"`
	Reason      string    `json:"reason"`
	PassesTotal int64     `json:"passes_total"`
}

// SchedulerConfig returns the stored policy, or the default when none is;
// the retention ages it leaves out are filled in with their defaults.
func SchedulerConfig(ctx context.Context, db bun.IDB) (scheduler.Config, error) {
	c := scheduler.DefaultConfig()
	if _, err := GetSetting(ctx, db, SettingPolicy, &c); err != nil {
		return c, err
	}
	c.Retention = c.Retention.WithDefaults()
	return c, nil
}

// PutSchedulerConfig validates and stores the policy.
func PutSchedulerConfig(ctx context.Context, db bun.IDB, c scheduler.Config, by *int64, now time.Time) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("models: scheduler policy: %w", err)
	}
	if err := PutSetting(ctx, db, SettingPolicy, c, by, now); err != nil {
		return err
	}
	return Signal(ctx, db, ChannelScheduler, "policy")
}

// SchedulingPaused reports whether an admin stopped scheduling.
func SchedulingPaused(ctx context.Context, db bun.IDB) (bool, error) {
	var paused bool
	_, err := GetSetting(ctx, db, SettingPaused, &paused)
	return paused, err
}

// SetSchedulingPaused stops or resumes scheduling.
func SetSchedulingPaused(ctx context.Context, db bun.IDB, paused bool, by *int64, now time.Time) error {
	if err := PutSetting(ctx, db, SettingPaused, paused, by, now); err != nil {
		return err
	}
	return Signal(ctx, db, ChannelScheduler, fmt.Sprintf("paused=%t", paused))
}
