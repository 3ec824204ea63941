package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// maxGPUsPerNode bounds a registration; real hosts have at most 16.
const maxGPUsPerNode = 64

// NodeRegister handles POST /api/v1/nodes/register: the node agent of the
// calling node token reports its host and GPU inventory.
func (h *Handlers) NodeRegister(c echo.Context) error {
	node := PrincipalOf(c).Node
	var req api.RegisterNodeRequest
	if err := decodeNodeJSON(c, &req); err != nil {
		return err
	}
	inv, err := validateInventory(req)
	if err != nil {
		return err
	}
	now := h.Now()
	err = h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		if err := models.RegisterNode(ctx, tx, node.ID, strings.TrimSpace(req.Hostname), req.AgentVersion, inv, now); err != nil {
			return err
		}
		if err := models.Signal(ctx, tx, models.ChannelNodes, fmt.Sprint(node.ID)); err != nil {
			return err
		}
		return models.Signal(ctx, tx, models.ChannelGPUs, fmt.Sprintf("node:%d", node.ID))
	})
	if err != nil {
		return fmt.Errorf("handlers: register node %s: %w", node.Name, err)
	}
	h.log(c).Info("node registered", "node", node.Name, "hostname", req.Hostname, "gpus", len(inv), "agent_version", req.AgentVersion)
	return c.JSON(http.StatusOK, api.RegisterNodeResponse{
		NodeID:             node.ID,
		Name:               node.Name,
		HeartbeatIntervalS: int(h.Config.HeartbeatInterval.Seconds()),
	})
}

func validateInventory(req api.RegisterNodeRequest) ([]models.GPUInventory, error) {
	if len(req.Hostname) > 253 {
		return nil, invalid("hostname", "at most 253 characters")
	}
	if len(req.GPUs) > maxGPUsPerNode {
		return nil, invalid("gpus", "at most %d GPUs per node", maxGPUsPerNode)
	}
	seenUUID := map[string]bool{}
	seenIndex := map[int]bool{}
	inv := make([]models.GPUInventory, 0, len(req.GPUs))
	for i, g := range req.GPUs {
		field := fmt.Sprintf("gpus[%d]", i)
		switch {
		case strings.TrimSpace(g.UUID) == "" || len(g.UUID) > 128:
			return nil, invalid(field+".uuid", "required, at most 128 characters")
		case seenUUID[g.UUID]:
			return nil, invalid(field+".uuid", "%q appears twice", g.UUID)
		case g.Index < 0 || seenIndex[g.Index]:
			return nil, invalid(field+".index", "must be a distinct number ≥ 0, got %d", g.Index)
		case strings.TrimSpace(g.Model) == "" || len(g.Model) > 128:
			return nil, invalid(field+".model", "required, at most 128 characters")
		case g.MemoryMiB <= 0:
			return nil, invalid(field+".memory_mib", "must be positive, got %d", g.MemoryMiB)
		}
		seenUUID[g.UUID], seenIndex[g.Index] = true, true
		inv = append(inv, models.GPUInventory{Index: g.Index, UUID: g.UUID, Model: g.Model, MemoryMiB: g.MemoryMiB, NVLinkGroup: g.NVLinkGroup})
	}
	return inv, nil
}
