package models

import (
	"context"

	"github.com/uptrace/bun"
)

// RecordPass stores the latest pass's figures, counting passes.
func RecordPass(ctx context.Context, db bun.IDB, st *PassStats) error {
	var prev PassStats
	if _, err := GetSetting(ctx, db, SettingLastPass, &prev); err != nil {
		return err
	}
	st.PassesTotal = prev.PassesTotal + 1
	return PutSetting(ctx, db, SettingLastPass, st, nil, st.At)
}

// LastPass returns the latest pass's figures; zero when none ran yet.
func LastPass(ctx context.Context, db bun.IDB) (PassStats, error) {
	var st PassStats
	_, err := GetSetting(ctx, db, SettingLastPass, &st)
	return st, err
}
