package models

import (
	"context"
	"fmt"
	"time"
)

// UsageFigures reads the usage page's GPU-hours over r (see GPUHoursOver)
// and the fair-share standing at now (see FairShareStanding) from one
// snapshot of the database, a read-only repeatable-read transaction: both
// count the same allocations, even while jobs start and end.
func UsageFigures(ctx context.Context, db *DB, r UsageRange, now time.Time, halfLife time.Duration, onlyUser int64) (hours GPUHours, teams, users []Standing, err error) {
	err = db.InTx(ctx, func(ctx context.Context, tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`); err != nil {
			return fmt.Errorf("models: usage figures: %w", err)
		}
		var err error
		if hours, err = GPUHoursOver(ctx, tx, r, now, onlyUser); err != nil {
			return err
		}
		teams, users, err = FairShareStanding(ctx, tx, now, halfLife)
		return err
	})
	return hours, teams, users, err
}
