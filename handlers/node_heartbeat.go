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

// NodeHeartbeat handles POST /api/v1/nodes/{id}/heartbeat: the node is alive
// and here is each GPU's telemetry, and the leases whose processes its agent
// watches, which are renewed (the answer names those no longer granted). A
// node token may only beat for its own node.
func (h *Handlers) NodeHeartbeat(c echo.Context) error {
	node := PrincipalOf(c).Node
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return Errorf(http.StatusBadRequest, api.CodeInvalidPath, "node id %q is not a number", c.Param("id"))
	}
	if id != node.ID {
		return Errorf(http.StatusForbidden, api.CodeForbidden, "this token belongs to node %s (id %d), not node %d", node.Name, node.ID, id)
	}
	var req api.HeartbeatRequest
	if err := decodeNodeJSON(c, &req); err != nil {
		return err
	}
	samples, err := validateSamples(req)
	if err != nil {
		return err
	}
	if err := validateLeaseIDs(req.Leases); err != nil {
		return err
	}
	// One statement, committed on its own (models/heartbeat.go); the change
	// signals go out after it, coalesced (128 nodes beating every 2 s would
	// otherwise serialise their commits on PostgreSQL's notify lock).
	res, err := h.DB.Heartbeat(c.Request().Context(), node.ID, samples, h.Now())
	if err != nil {
		return fmt.Errorf("handlers: heartbeat of node %s: %w", node.Name, err)
	}
	reregister := len(res.Unknown) > 0 || res.Unregistered
	if res.CameBack {
		h.signal(models.ChannelNodes, fmt.Sprint(node.ID))
	}
	if res.AvailabilityChanged {
		// GPUs turned healthy or idle (or the reverse): worth a scheduling pass.
		h.signal(models.ChannelScheduler, "heartbeat")
	}
	if !res.Unregistered {
		h.signal(models.ChannelGPUs, fmt.Sprintf("node:%d", node.ID))
	}
	out := api.HeartbeatResponse{Reregister: reregister}
	if len(req.Leases) > 0 && !res.Unregistered {
		renewed, err := h.Lifecycle.RenewNodeLeases(c.Request().Context(), h.DB.Bun, node.ID, req.Leases, h.Now())
		if err != nil {
			return fmt.Errorf("handlers: heartbeat of node %s: %w", node.Name, err)
		}
		live := make(map[int64]bool, len(renewed))
		for _, id := range renewed {
			live[id] = true
		}
		for _, id := range req.Leases {
			if !live[id] {
				out.EndedLeases = append(out.EndedLeases, id)
			}
		}
	}
	if !res.Unregistered {
		if err := h.migLayoutBeat(c.Request().Context(), node.ID, req.MIGLayoutReport, &out); err != nil {
			return fmt.Errorf("handlers: heartbeat of node %s: %w", node.Name, err)
		}
	}
	return c.JSON(http.StatusOK, out)
}

// migLayoutBeat keeps the agent's report of the declared MIG layout, when
// it sent one, and tells it the layout and the GPUs to keep as they are.
func (h *Handlers) migLayoutBeat(ctx context.Context, id int64, report *string, out *api.HeartbeatResponse) error {
	if report != nil {
		if len(*report) > 4000 {
			*report = (*report)[:4000]
		}
		if err := models.SaveMIGLayoutReport(ctx, h.DB.Bun, id, *report, h.Now()); err != nil {
			return err
		}
	}
	w, err := models.NodeMIGLayoutWanted(ctx, h.DB.Bun, id, h.Now())
	if err != nil {
		return err
	}
	out.MIGLayout, out.MIGKeep = w.Layout, w.Keep
	return nil
}

// maxLeasesPerBeat bounds the leases one heartbeat renews.
const maxLeasesPerBeat = 4096

func validateLeaseIDs(ids []int64) error {
	if len(ids) > maxLeasesPerBeat {
		return invalid("leases", "at most %d leases per heartbeat", maxLeasesPerBeat)
	}
	for i, id := range ids {
		if id <= 0 {
			return invalid(fmt.Sprintf("leases[%d]", i), "must be a lease's job id, got %d", id)
		}
	}
	return nil
}

func validateSamples(req api.HeartbeatRequest) ([]models.GPUTelemetry, error) {
	if len(req.GPUs) > maxGPUsPerNode {
		return nil, invalid("gpus", "at most %d GPUs per node", maxGPUsPerNode)
	}
	out := make([]models.GPUTelemetry, 0, len(req.GPUs))
	for i, s := range req.GPUs {
		field := fmt.Sprintf("gpus[%d]", i)
		health := s.Health
		if health == "" {
			health = models.HealthOK
		}
		switch {
		case s.UUID == "":
			return nil, invalid(field+".uuid", "required")
		case s.UtilizationPct < 0 || s.UtilizationPct > 100:
			return nil, invalid(field+".utilization_pct", "must be 0–100, got %d", s.UtilizationPct)
		case s.MemoryUsedMiB < 0:
			return nil, invalid(field+".memory_used_mib", "must not be negative")
		case s.TemperatureC < -273 || s.TemperatureC > 1000:
			return nil, invalid(field+".temperature_c", "must be -273–1000, got %d", s.TemperatureC)
		case s.PowerW < 0 || s.PowerLimitW < 0:
			return nil, invalid(field+".power_w", "must not be negative")
		case health != models.HealthOK && health != models.HealthDegraded && health != models.HealthFailed:
			return nil, invalid(field+".health", "must be ok, degraded or failed, got %q", s.Health)
		case len(s.Processes) > 256:
			return nil, invalid(field+".processes", "at most 256 processes")
		}
		procs := make([]models.GPUProcess, len(s.Processes))
		for j, p := range s.Processes {
			switch {
			case p.PID <= 0:
				return nil, invalid(fmt.Sprintf("%s.processes[%d].pid", field, j), "must be positive, got %d", p.PID)
			case p.MemoryMiB < 0:
				return nil, invalid(fmt.Sprintf("%s.processes[%d].memory_mib", field, j), "must not be negative")
			}
			procs[j] = models.GPUProcess{PID: p.PID, User: p.User, Name: p.Name, MemoryMiB: p.MemoryMiB}
		}
		out = append(out, models.GPUTelemetry{
			UUID: s.UUID, UtilizationPct: s.UtilizationPct, MemoryUsedMiB: s.MemoryUsedMiB,
			TemperatureC: s.TemperatureC, PowerW: s.PowerW, PowerLimitW: s.PowerLimitW,
			Health: health, HealthReason: s.HealthReason, Processes: procs,
		})
	}
	return out, nil
}

// signal announces a committed change: through the coalescing signaler
// when there is one, else directly.
func (h *Handlers) signal(channel, payload string) {
	if h.Signals != nil {
		h.Signals.Signal(channel, payload)
		return
	}
	if err := models.Signal(context.Background(), h.DB.Bun, channel, payload); err != nil {
		h.Logger.Warn("could not send a change signal", "channel", channel, "err", err)
	}
}
