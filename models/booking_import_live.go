package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// warnLiveLimit marks the rows to be created whose owner would then have
// more live bookings than maxLive (0: no limit), the limit members are held
// to when they book. The import is exempt: the rows stay, each with a
// warning that says so. owners[i] is row i's owner (ID 0 when new).
func warnLiveLimit(ctx context.Context, tx bun.IDB, res *api.ImportReport, owners []*User, maxLive int, now time.Time) error {
	if maxLive <= 0 {
		return nil
	}
	added := map[string]int{}
	for _, r := range res.Rows {
		if r.Status == ImportCreate && r.EndsAt.After(now) {
			added[r.Email]++
		}
	}
	total := map[string]int64{}
	for i, r := range res.Rows {
		if added[r.Email] == 0 {
			continue
		}
		if _, ok := total[r.Email]; ok {
			continue
		}
		var have int64
		if u := owners[i]; u != nil && u.ID != 0 {
			var err error
			if have, err = liveBookingCount(ctx, tx, u.ID, now); err != nil {
				return fmt.Errorf("models: import bookings: %w", err)
			}
		}
		total[r.Email] = have + int64(added[r.Email])
	}
	for i := range res.Rows {
		r := &res.Rows[i]
		if n := total[r.Email]; r.Status == ImportCreate && r.EndsAt.After(now) && n > int64(maxLive) {
			r.Warning = fmt.Sprintf("%s will have %d upcoming or active bookings, over the %d a member may make; an admin's import is exempt, "+
				"but %s cannot book more in the calendar until some end", r.Email, n, maxLive, r.Email)
		}
	}
	return nil
}
