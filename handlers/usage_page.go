package handlers

import (
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// UsagePage handles GET /usage[?range=day|week|month]: the graphs (drawn by
// uPlot from /usage/data) and, readable without JavaScript, their key
// numbers as tables.
func (h *Handlers) UsagePage(c echo.Context) error {
	rng, node, err := usageQuery(c)
	if err != nil {
		return err
	}
	u, err := h.loadUsage(c.Request().Context(), userOf(c), rng, node)
	if err != nil {
		return err
	}
	v := views.Usage{Range: rng, Node: node, StepS: u.StepS,
		From: time.Unix(u.From, 0).UTC(), To: time.Unix(u.To, 0).UTC(), Admin: userOf(c).IsAdmin()}
	for i, l := range u.Utilization.ByNode.Labels {
		v.Nodes = append(v.Nodes, views.UsageRow{Name: l, Value: mean(u.Utilization.ByNode.Values[i])})
	}
	for _, t := range u.GPUHours.TeamTotals {
		v.TeamHours = append(v.TeamHours, views.UsageRow{Name: t.Name, Value: t.Hours})
	}
	for _, t := range u.GPUHours.UserTotals {
		v.UserHours = append(v.UserHours, views.UsageRow{Name: t.Name, Value: t.Hours})
	}
	for _, t := range u.GPUHours.KindTotals {
		v.KindHours = append(v.KindHours, views.UsageRow{Name: usageKindLabels[t.Name], Value: t.Hours})
	}
	for _, t := range u.Idle.Teams {
		v.IdleTeams = append(v.IdleTeams, views.UsageRow{Name: t.Name, Value: t.Hours})
	}
	for _, t := range u.Idle.Users {
		v.IdleUsers = append(v.IdleUsers, views.UsageRow{Name: t.Name, Value: t.Hours})
	}
	v.Reclaimed = []views.UsageRow{{Name: "Jobs reclaimed", Value: float64(u.Idle.Reclaims)},
		{Name: "GPUs given back", Value: float64(u.Idle.ReclaimedGPUs)}, {Name: "Idle GPU-hours ended", Value: u.Idle.ReclaimedHours}}
	v.Queue = lastQueue(u.Queue.Length, u.Queue.Wait)
	v.TeamShare, v.UserShare = standingRows(u.FairShare.Teams), standingRows(u.FairShare.Users)
	nodes, err := models.ListNodes(c.Request().Context(), h.DB.Bun)
	if err != nil {
		return fmt.Errorf("handlers: usage page: %w", err)
	}
	for _, n := range nodes {
		v.NodeChoices = append(v.NodeChoices, views.UsageNode{ID: n.ID, Name: n.Name})
	}
	return render(c, http.StatusOK, views.UsagePage(h.Page(c, "Usage", "usage"), v))
}

// usageKindLabels name the usage kinds (models.UsageKinds) for people.
var usageKindLabels = map[string]string{models.UsageKindBatch: "Batch jobs", models.SessionJupyter: "Jupyter sessions",
	models.SessionTensorBoard: "TensorBoard sessions", models.SessionWeb: "Web sessions"}

// mean is the average of the values present, nil when there are none.
func mean(vals []*float64) *float64 {
	var sum float64
	n := 0
	for _, v := range vals {
		if v != nil {
			sum += *v
			n++
		}
	}
	if n == 0 {
		return nil
	}
	m := sum / float64(n)
	return &m
}

// lastQueue is the queue's latest sampled figures in the range, if any.
func lastQueue(length, wait models.Series) *views.UsageQueue {
	for i := len(length.Times) - 1; i >= 0; i-- {
		if len(length.Values) == 3 && length.Values[0][i] != nil {
			q := &views.UsageQueue{At: time.Unix(length.Times[i], 0).UTC(),
				Queued: *length.Values[0][i], QueuedGPUs: *length.Values[1][i], Running: *length.Values[2][i]}
			if len(wait.Values) == 2 && wait.Values[0][i] != nil {
				q.MaxWaitMin, q.MeanWaitMin = *wait.Values[0][i], *wait.Values[1][i]
			}
			return q
		}
	}
	return nil
}

func standingRows(ss []models.Standing) []views.UsageStanding {
	out := make([]views.UsageStanding, len(ss))
	for i, s := range ss {
		out[i] = views.UsageStanding{Name: s.Name, SharePct: s.SharePct, UsagePct: s.UsagePct,
			DecayedGPUH: s.DecayedGPUH, Score: s.FairShareScore}
	}
	return out
}
