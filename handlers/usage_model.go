package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// usagePoints is how many buckets every usage series has, whatever the
// range.
const usagePoints = 240

// usageSpans are the usage page's ranges.
var usageSpans = map[string]time.Duration{
	"day":   24 * time.Hour,
	"week":  7 * 24 * time.Hour,
	"month": 30 * 24 * time.Hour,
}

// UsageJSON is the usage page's data: every series over one range, and
// the fair-share standing now. Members see every team's figures but only
// their own among users.
type UsageJSON struct {
	Range       string `json:"range"`
	From        int64  `json:"from"` // Unix seconds
	To          int64  `json:"to"`
	StepS       int64  `json:"step_s"`
	Points      int    `json:"points"`
	Utilization struct {
		ByNode models.Series `json:"by_node"`
		ByGPU  models.Series `json:"by_gpu"`
	} `json:"utilization"`
	GPUHours models.GPUHours `json:"gpu_hours"`
	Queue    struct {
		Length models.Series `json:"length"`
		Wait   models.Series `json:"wait"`
	} `json:"queue"`
	FairShare struct {
		Teams []models.Standing `json:"teams"`
		Users []models.Standing `json:"users"`
	} `json:"fair_share"`
	// Idle GPU-hours and what the idle policy gave back.
	Idle models.IdleUsage `json:"idle"`
}

// usageQuery reads ?range= (day, week or month; day when absent) and
// ?node= (a node id, for the per-GPU graph; all nodes when absent).
func usageQuery(c echo.Context) (rng string, node int64, err error) {
	rng = c.QueryParam("range")
	if rng == "" {
		rng = "day"
	}
	if _, ok := usageSpans[rng]; !ok {
		return "", 0, Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "range must be day, week or month, got %q", rng)
	}
	if s := c.QueryParam("node"); s != "" {
		if node, err = strconv.ParseInt(s, 10, 64); err != nil || node <= 0 {
			return "", 0, Errorf(http.StatusBadRequest, api.CodeInvalidQuery, "node must be a node id, got %q", s)
		}
	}
	return rng, node, nil
}

// loadUsage reads every usage series for rng as u sees them.
func (h *Handlers) loadUsage(ctx context.Context, u *models.User, rng string, node int64) (*UsageJSON, error) {
	now := h.Now()
	r := models.NewUsageRange(now, usageSpans[rng], usagePoints)
	out := &UsageJSON{Range: rng, From: r.From.Unix(), To: r.To.Unix(), StepS: int64(r.Step / time.Second), Points: r.Points()}
	var err error
	if node > 0 {
		if _, err := models.GetNode(ctx, h.DB.Bun, node); err != nil {
			return nil, fromModel(err, fmt.Sprintf("node %d", node))
		}
	}
	if out.Utilization.ByNode, err = models.UtilizationByNode(ctx, h.DB.Bun, r); err != nil {
		return nil, err
	}
	if out.Utilization.ByGPU, err = models.UtilizationByGPU(ctx, h.DB.Bun, r, node); err != nil {
		return nil, err
	}
	onlyUser := u.ID
	if u.IsAdmin() {
		onlyUser = 0
	}
	if out.Queue.Length, out.Queue.Wait, err = models.QueueHistory(ctx, h.DB.Bun, r); err != nil {
		return nil, err
	}
	cfg, err := models.SchedulerConfig(ctx, h.DB.Bun)
	if err != nil {
		return nil, fmt.Errorf("handlers: usage: %w", err)
	}
	if out.Idle, err = models.IdleUsageOver(ctx, h.DB.Bun, r, cfg.Threshold(), onlyUser); err != nil {
		return nil, err
	}
	// GPU-hours and standing from one snapshot of the allocations.
	hours, teams, users, err := models.UsageFigures(ctx, h.DB, r, now, time.Duration(cfg.FairShare.HalfLife), onlyUser)
	if err != nil {
		return nil, err
	}
	out.GPUHours = hours
	out.FairShare.Teams = teams
	out.FairShare.Users = users
	if !u.IsAdmin() {
		out.FairShare.Users = []models.Standing{}
		for _, s := range users {
			if s.ID == u.ID {
				out.FairShare.Users = append(out.FairShare.Users, s)
			}
		}
	}
	return out, nil
}
