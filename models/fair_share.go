package models

import (
	"context"
	"math"
	"sort"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// Standing is one principal's fair-share position as the scheduler sees it:
// its share of the cluster, its decayed usage, and the factor 2^(−U/S) the
// fairshare policy ranks its jobs by (1: unused share, 0.5: used exactly its
// share, lower: used more).
type Standing struct {
	ID             int64   `json:"-"` // the team's or user's id
	Name           string  `json:"name"`
	Share          float64 `json:"share"`            // configured weight
	SharePct       float64 `json:"share_pct"`        // weight over all weights of its kind
	DecayedGPUH    float64 `json:"decayed_gpu_h"`    // GPU-hours, decayed with the half-life
	UsagePct       float64 `json:"usage_pct"`        // usage over all usage of its kind
	FairShareScore float64 `json:"fair_share_score"` // 2^(−U/S)
}

// FairShareStanding computes every team's and user's standing now, from
// the same decayed usage the scheduling pass reads. Teams and users come
// sorted by score, lowest (most over its share) first.
func FairShareStanding(ctx context.Context, db bun.IDB, now time.Time, halfLife time.Duration) (teams, users []Standing, err error) {
	s := scheduler.Snapshot{Now: now, Users: map[int64]scheduler.Principal{}, Teams: map[int64]scheduler.Principal{}}
	if err := loadPrincipals(ctx, db, &s, now, halfLife); err != nil {
		return nil, nil, err
	}
	return standings(s.Teams), standings(s.Users), nil
}

func standings(ps map[int64]scheduler.Principal) []Standing {
	var shares, usage float64
	for _, p := range ps {
		shares += shareOf(p)
		usage += max(p.Usage, 0)
	}
	out := make([]Standing, 0, len(ps))
	for id, p := range ps {
		st := Standing{ID: id, Name: p.Name, Share: shareOf(p), DecayedGPUH: max(p.Usage, 0) / 3600, FairShareScore: 1}
		if shares > 0 {
			st.SharePct = 100 * st.Share / shares
		}
		if usage > 0 {
			st.UsagePct = 100 * max(p.Usage, 0) / usage
			st.FairShareScore = math.Exp2(-(st.UsagePct / 100) / (st.SharePct / 100))
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].FairShareScore != out[j].FairShareScore {
			return out[i].FairShareScore < out[j].FairShareScore
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// shareOf is a principal's weight, 1 when unset (as the scheduler counts it).
func shareOf(p scheduler.Principal) float64 {
	if p.Share <= 0 || math.IsNaN(p.Share) || math.IsInf(p.Share, 0) {
		return 1
	}
	return p.Share
}
