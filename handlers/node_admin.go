package handlers

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// defaultIdleAfter is how long an allocated GPU must stay near zero
// utilization to be flagged idle, unless ?after= says otherwise.
const defaultIdleAfter = 30 * time.Minute

// NodeDrain handles POST /api/v1/cluster/nodes/{name}/drain (admins):
// nothing new starts on the node; what runs there goes on.
func (h *Handlers) NodeDrain(c echo.Context) error { return h.setDrained(c, true) }

// NodeUndrain handles POST /api/v1/cluster/nodes/{name}/undrain (admins):
// the node takes new jobs again.
func (h *Handlers) NodeUndrain(c echo.Context) error { return h.setDrained(c, false) }

func (h *Handlers) setDrained(c echo.Context, drained bool) error {
	out, err := h.drain(c, c.Param("name"), drained)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// drain sets a node's drained flag, audited, and signals the change.
func (h *Handlers) drain(c echo.Context, name string, drained bool) (*models.Node, error) {
	u := userOf(c)
	var out *models.Node
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		n, err := models.GetNodeByName(ctx, tx, name)
		if err != nil {
			return fromModel(err, "node "+name)
		}
		// A pass follows (nodes is a kick topic); pages redraw.
		if err := models.SetNodeDrained(ctx, tx, n, drained, h.Now()); err != nil {
			return err
		}
		out = n
		action := map[bool]string{true: "node.drain", false: "node.undrain"}[drained]
		return models.Audit(ctx, tx, &models.AuditEntry{ActorUserID: &u.ID, Action: action, TargetType: "node",
			TargetID: fmt.Sprint(n.ID), RemoteAddr: c.RealIP()})
	})
	if err != nil {
		return nil, fmt.Errorf("handlers: drain node %s: %w", name, err)
	}
	return out, nil
}

// IdleGPUs handles GET /api/v1/cluster/idle-gpus?after=30m: allocated GPUs
// whose utilization has stayed near zero for at least after (default 30m),
// with the job and owner holding them — for a policy to warn or reclaim.
func (h *Handlers) IdleGPUs(c echo.Context) error {
	after := defaultIdleAfter
	if s := c.QueryParam("after"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return invalid("after", "a duration like 30m, got %q", s)
		}
		after = d
	}
	gpus, err := models.IdleGPUs(c.Request().Context(), h.DB.Bun, h.Now(), after)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"after_s": int(after.Seconds()), "utilization_at_most_pct": models.IdleUtilizationPct, "gpus": gpus})
}
