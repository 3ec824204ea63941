package jobs

import (
	"context"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// agentRetryPause is the node agent's longest pause between attempts to
// reach the control plane (internal/node.MaxRetryPause).
const agentRetryPause = 5 * time.Second

// settingLivenessSweep records the latest liveness sweep, whichever replica ran it.
const settingLivenessSweep = "node_liveness_sweep"

// livenessSweep is the stored record of sweeps.
type livenessSweep struct {
	At         time.Time `json:"at"`
	GraceUntil time.Time `json:"grace_until"`
}

// livenessGrace records this sweep in tx and returns the sweep's time and
// whether marking nodes down must wait. Sweeps run every livenessEvery; a gap
// longer than NodeDownAfter*5/6 and than two sweeps means the
// control plane itself was away (PostgreSQL restarting, every replica
// down), and the heartbeats nodes sent meanwhile were refused, not missed.
// Nodes then get NodeDownAfter, plus the agents' longest pause between
// retries, from the control plane's return to report again before any is
// marked down. So do they at the first sweep ever recorded, when nothing
// says how long the control plane had been away.
func livenessGrace(ctx context.Context, tx *models.Tx, d Deps) (time.Time, bool, error) {
	var st livenessSweep
	found, err := models.GetSetting(ctx, tx, settingLivenessSweep, &st)
	if err != nil {
		return time.Time{}, false, err
	}
	now := d.Now() // after the database answered
	away := max(d.Config.NodeDownAfter*5/6, 2*livenessEvery(d.Config))
	if gap := now.Sub(st.At); !found || gap > away {
		st.GraceUntil = now.Add(d.Config.NodeDownAfter + agentRetryPause)
		if found { // the first sweep ever: nothing was away
			d.Logger.Warn("the control plane was away: nodes get time to report again before any is marked down",
				"away", gap.Round(time.Second), "until", st.GraceUntil)
		} else {
			d.Logger.Debug("first liveness sweep: nodes get time to report before any is marked down", "until", st.GraceUntil)
		}
	}
	st.At = now
	if err := models.PutSetting(ctx, tx, settingLivenessSweep, st, nil, now); err != nil {
		return now, false, err
	}
	return now, now.Before(st.GraceUntil), nil
}

// livenessEvery is how often the liveness sweep runs: a third of
// NodeDownAfter, at most once a second.
func livenessEvery(cfg Config) time.Duration {
	return max(cfg.NodeDownAfter/3, time.Second)
}
