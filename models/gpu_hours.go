package models

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// GPUHoursTotal is one principal's GPU-hours over a range.
type GPUHoursTotal struct {
	Name  string  `json:"name"`
	Hours float64 `json:"hours"`
}

// GPUHours is allocated GPU-hours per bucket, by team, by user and by kind
// (batch jobs, then each kind of interactive session: UsageKinds), and the
// range's totals, largest first (kinds: every kind, in UsageKinds' order).
type GPUHours struct {
	ByTeam     Series          `json:"by_team"`
	ByUser     Series          `json:"by_user"`
	ByKind     Series          `json:"by_kind"`
	TeamTotals []GPUHoursTotal `json:"team_totals"`
	UserTotals []GPUHoursTotal `json:"user_totals"`
	KindTotals []GPUHoursTotal `json:"kind_totals"`
}

// GPUHoursOver is the GPU-hours of allocations within each bucket of r (a
// live allocation counts up to now): the intervals fair share reads
// (readHeld), cut into the buckets by the same arithmetic, undecayed
// (scheduler.BucketGPUTime). The team is the job's, else its owner's;
// "(no team)" otherwise. With onlyUser > 0 the per-user figures are that
// user's alone (teams and kinds stay complete).
func GPUHoursOver(ctx context.Context, db bun.IDB, r UsageRange, now time.Time, onlyUser int64) (GPUHours, error) {
	held, err := readHeld(ctx, db, r.From, r.To)
	if err != nil {
		return GPUHours{}, err
	}
	userNames, teamNames, err := principalLabels(ctx, db, held)
	if err != nil {
		return GPUHours{}, err
	}
	// Lines come in the order principals first held GPUs in the range, and
	// sums are added in one order every time.
	slices.SortFunc(held, func(a, b scheduler.Held) int {
		return cmp.Or(a.Start.Compare(b.Start), cmp.Compare(a.UserID, b.UserID), cmp.Compare(a.TeamID, b.TeamID),
			a.End.Compare(b.End), cmp.Compare(a.GPUs, b.GPUs))
	})
	teams, users, kinds := newSeries(r), newSeries(r), newSeries(r)
	teamTot, userTot, kindTot := map[string]float64{}, map[string]float64{}, map[string]float64{}
	for i, k := range UsageKinds { // every kind, in its order
		kinds.addLine(int64(i), k)
	}
	for _, h := range held {
		kind := int64(slices.Index(UsageKinds, h.Kind))
		team := teamNames[h.TeamID]
		user, mine := userNames[h.UserID], onlyUser == 0 || h.UserID == onlyUser
		scheduler.BucketGPUTime(h, r.From, r.Step, r.Points(), now, func(i int, gpuSeconds float64) {
			bucket, hours := r.From.Add(time.Duration(i)*r.Step), gpuSeconds/3600
			teams.set(bucket, h.TeamID, team, hours)
			teamTot[team] += hours
			kinds.set(bucket, kind, h.Kind, hours)
			kindTot[h.Kind] += hours
			if mine {
				users.set(bucket, h.UserID, user, hours)
				userTot[user] += hours
			}
		})
	}
	kindTotals := make([]GPUHoursTotal, len(UsageKinds))
	for i, k := range UsageKinds {
		kindTotals[i] = GPUHoursTotal{Name: k, Hours: kindTot[k]}
	}
	return GPUHours{ByTeam: teams.s, ByUser: users.s, ByKind: kinds.s, TeamTotals: totals(teamTot), UserTotals: totals(userTot),
		KindTotals: kindTotals}, nil
}

// principalLabels names the users (name, else email) and teams ("(no
// team)" for 0) that held intervals charge.
func principalLabels(ctx context.Context, db bun.IDB, held []scheduler.Held) (users, teams map[int64]string, err error) {
	users, teams = map[int64]string{}, map[int64]string{0: "(no team)"}
	var userIDs, teamIDs []int64
	for _, h := range held {
		if _, ok := users[h.UserID]; !ok {
			users[h.UserID] = ""
			userIDs = append(userIDs, h.UserID)
		}
		if _, ok := teams[h.TeamID]; !ok {
			teams[h.TeamID] = ""
			teamIDs = append(teamIDs, h.TeamID)
		}
	}
	var rows []label
	if len(userIDs) > 0 {
		if err := db.NewRaw(`SELECT id, coalesce(nullif(name, ''), email) AS label FROM users WHERE id IN (?)`, bun.In(userIDs)).Scan(ctx, &rows); err != nil {
			return nil, nil, fmt.Errorf("models: GPU-hours user names: %w", err)
		}
	}
	for _, l := range rows {
		users[l.ID] = l.Label
	}
	rows = rows[:0]
	if len(teamIDs) > 0 {
		if err := db.NewRaw(`SELECT id, name AS label FROM teams WHERE id IN (?)`, bun.In(teamIDs)).Scan(ctx, &rows); err != nil {
			return nil, nil, fmt.Errorf("models: GPU-hours team names: %w", err)
		}
	}
	for _, l := range rows {
		teams[l.ID] = l.Label
	}
	return users, teams, nil
}

// totals sorts a name→hours map into a list, largest first.
func totals(m map[string]float64) []GPUHoursTotal {
	out := make([]GPUHoursTotal, 0, len(m))
	for n, h := range m {
		out = append(out, GPUHoursTotal{Name: n, Hours: h})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Hours != out[j].Hours {
			return out[i].Hours > out[j].Hours
		}
		return strings.Compare(out[i].Name, out[j].Name) < 0
	})
	return out
}
