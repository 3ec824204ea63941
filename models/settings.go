package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Setting is one run-time setting (e.g. the scheduling policy), stored as JSON.
type Setting struct {
	bun.BaseModel `bun:"table:settings"`

	Key       string          `bun:"key,pk" json:"key"`
	Value     json.RawMessage `bun:"value,type:jsonb,notnull" json:"value"`
	UpdatedBy *int64          `bun:"updated_by" json:"updated_by,omitempty"`
	UpdatedAt time.Time       `bun:"updated_at,notnull" json:"updated_at"`
}

// GetSetting decodes the setting key into v; it reports false when unset.
func GetSetting(ctx context.Context, db bun.IDB, key string, v any) (bool, error) {
	s := new(Setting)
	if err := db.NewSelect().Model(s).Where("key = ?", key).Scan(ctx); err != nil {
		if errors.Is(err, errNoRows) {
			return false, nil
		}
		return false, fmt.Errorf("models: get setting %s: %w", key, err)
	}
	if err := json.Unmarshal(s.Value, v); err != nil {
		return false, fmt.Errorf("models: decode setting %s: %w", key, err)
	}
	return true, nil
}

// PutSetting stores v as the setting key.
func PutSetting(ctx context.Context, db bun.IDB, key string, v any, by *int64, now time.Time) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("models: encode setting %s: %w", key, err)
	}
	s := &Setting{Key: key, Value: raw, UpdatedBy: by, UpdatedAt: now}
	if _, err := db.NewInsert().Model(s).
		On("CONFLICT (key) DO UPDATE").
		Set("value = excluded.value, updated_by = excluded.updated_by, updated_at = excluded.updated_at").
		Exec(ctx); err != nil {
		return fmt.Errorf("models: put setting %s: %w", key, err)
	}
	return nil
}
