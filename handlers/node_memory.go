package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// maxMemoryReadings bounds one report: a node runs at most one share job
// per slot.
const maxMemoryReadings = 256

// NodeMemory handles POST /api/v1/nodes/{id}/memory: a node agent's
// readings of the GPU memory its share jobs use against their shares. The
// policy's gpu_memory_overrun decides: the owner of a job over its share is
// warned, and the job stopped once over for the grace (models.
// RecordMemoryReadings). A node token may only report for its own node.
func (h *Handlers) NodeMemory(c echo.Context) error {
	node := PrincipalOf(c).Node
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return Errorf(http.StatusBadRequest, api.CodeInvalidPath, "node id %q is not a number", c.Param("id"))
	}
	if id != node.ID {
		return Errorf(http.StatusForbidden, api.CodeForbidden, "this token belongs to node %s (id %d), not node %d", node.Name, node.ID, id)
	}
	var req api.MemoryReadingsRequest
	if err := decodeNodeJSON(c, &req); err != nil {
		return err
	}
	if len(req.Readings) > maxMemoryReadings {
		return invalid("readings", "at most %d readings, got %d", maxMemoryReadings, len(req.Readings))
	}
	for i, r := range req.Readings {
		if r.JobID <= 0 || r.UsedMiB < 0 || r.LimitMiB <= 0 {
			return invalid(fmt.Sprintf("readings[%d]", i), "needs a job_id, used_mib ≥ 0 and limit_mib > 0")
		}
	}
	ctx := c.Request().Context()
	cfg, err := models.SchedulerConfig(ctx, h.DB.Bun)
	if err != nil {
		return fmt.Errorf("handlers: memory of node %s: %w", node.Name, err)
	}
	var out []api.MemoryAction
	err = h.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		out, err = h.Lifecycle.RecordMemoryReadings(ctx, tx, node.ID, req.Readings, cfg.GPUMemoryOverrun, h.Now())
		return err
	})
	if err != nil {
		return fmt.Errorf("handlers: memory of node %s: %w", node.Name, err)
	}
	for _, a := range out {
		if a.Action == api.MemoryStopped || a.Action == api.MemoryWarned {
			h.log(c).Info("share job over its GPU memory", "node", node.Name, "job", a.JobID, "action", a.Action)
			h.signal(models.ChannelJobs, fmt.Sprint(a.JobID))
		}
	}
	return c.JSON(http.StatusOK, api.MemoryReadingsResponse{Actions: out})
}
