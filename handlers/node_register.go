package handlers

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// maxGPUsPerNode bounds a registration's devices; real hosts have at most
// 16 GPUs, each of at most 7 MIG devices or maxSharedSlots slots.
const maxGPUsPerNode = 16 * maxSharedSlots

// maxSharedSlots is the most slots a GPU can be shared into.
const maxSharedSlots = 16

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
	seenIndex := map[int]string{} // the kind of device each index names
	inv := make([]models.GPUInventory, 0, len(req.GPUs))
	for i, g := range req.GPUs {
		field := fmt.Sprintf("gpus[%d]", i)
		kind := cmp.Or(g.Kind, api.KindWhole)
		switch {
		case strings.TrimSpace(g.UUID) == "" || len(g.UUID) > 128:
			return nil, invalid(field+".uuid", "required, at most 128 characters")
		case seenUUID[g.UUID]:
			return nil, invalid(field+".uuid", "%q appears twice", g.UUID)
		case kind != api.KindWhole && kind != api.KindMIG && kind != api.KindShare:
			return nil, invalid(field+".kind", "must be %s, %s or %s, got %q", api.KindWhole, api.KindMIG, api.KindShare, g.Kind)
		case g.Index < 0 || (seenIndex[g.Index] != "" && (kind == api.KindWhole || seenIndex[g.Index] == api.KindWhole)):
			return nil, invalid(field+".index", "must be a distinct number ≥ 0 (MIG devices share their GPU's), got %d", g.Index)
		case strings.TrimSpace(g.Model) == "" || len(g.Model) > 128:
			return nil, invalid(field+".model", "required, at most 128 characters")
		case g.MemoryMiB <= 0:
			return nil, invalid(field+".memory_mib", "must be positive, got %d", g.MemoryMiB)
		}
		seenUUID[g.UUID], seenIndex[g.Index] = true, kind
		item := models.GPUInventory{Index: g.Index, UUID: g.UUID, Model: g.Model, MemoryMiB: g.MemoryMiB,
			NVLinkGroup: g.NVLinkGroup, Kind: kind}
		if kind == api.KindShare {
			if err := validateShare(field, g, &item); err != nil {
				return nil, err
			}
		} else if err := validateMIG(field, kind, g.MIG, &item); err != nil {
			return nil, err
		}
		inv = append(inv, item)
	}
	return inv, nil
}

// validateMIG checks a device's MIG description against its kind and
// copies it into item.
func validateMIG(field, kind string, m *api.NodeMIG, item *models.GPUInventory) error {
	switch {
	case kind == api.KindWhole && m != nil:
		return invalid(field+".mig", "only a device of kind %s describes a MIG slice", api.KindMIG)
	case kind == api.KindWhole:
		return nil
	case m == nil:
		return invalid(field+".mig", "required for a device of kind %s", api.KindMIG)
	case strings.TrimSpace(m.ParentUUID) == "" || len(m.ParentUUID) > 128:
		return invalid(field+".mig.parent_uuid", "required, at most 128 characters")
	case !migProfile.MatchString(m.Profile):
		return invalid(field+".mig.profile", "must be a MIG profile such as 1g.10gb, got %q", m.Profile)
	case m.Slices < 1 || m.ParentSlices < m.Slices || m.ParentSlices > 64:
		return invalid(field+".mig.slices", "must be 1–parent_slices (at most 64), got %d of %d", m.Slices, m.ParentSlices)
	}
	parent := m.ParentUUID
	item.ParentUUID, item.Profile, item.Slices, item.ParentSlices = &parent, m.Profile, m.Slices, m.ParentSlices
	return nil
}

// migProfile is a MIG device's profile as nvidia-smi names it: "1g.10gb",
// "1c.3g.40gb", "1g.10gb+me".
var migProfile = regexp.MustCompile(`^(?:\d+c\.)?\d+g\.\d+gb(?:[+-][a-z][a-z.]*)?$`)

// validateShare checks a shared GPU's slot and copies it into item: it
// names its GPU and 2–maxSharedSlots slots, and describes no MIG slice.
func validateShare(field string, g api.NodeGPU, item *models.GPUInventory) error {
	m := g.Share
	switch {
	case g.MIG != nil:
		return invalid(field+".mig", "only a device of kind %s describes a MIG slice", api.KindMIG)
	case m == nil:
		return invalid(field+".share", "required for a device of kind %s", api.KindShare)
	case strings.TrimSpace(m.ParentUUID) == "" || len(m.ParentUUID) > 128:
		return invalid(field+".share.parent_uuid", "required, at most 128 characters")
	case m.Slots < 2 || m.Slots > maxSharedSlots:
		return invalid(field+".share.slots", "must be 2–%d, got %d", maxSharedSlots, m.Slots)
	}
	parent := m.ParentUUID
	item.ParentUUID, item.Slices, item.ParentSlices = &parent, 1, m.Slots
	return nil
}
