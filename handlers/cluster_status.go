package handlers

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// GPUStatusJSON is one GPU in GET /api/v1/cluster/gpu-status. Field names
// follow the orchestration design's ClusterState.gpuResources; memory is in
// MiB, utilization in percent, temperature in °C.
type GPUStatusJSON struct {
	ID          int     `json:"id"`
	UUID        string  `json:"uuid"`
	Model       string  `json:"model"`
	MemoryTotal int64   `json:"memory_total"`
	MemoryUsed  int64   `json:"memory_used"`
	Utilization int     `json:"utilization"`
	Temperature int     `json:"temperature"`
	PowerW      int     `json:"power_w"`
	Health      string  `json:"health"`
	State       string  `json:"state"`
	AllocatedTo *string `json:"allocated_to"`
	Holder      string  `json:"holder,omitempty"`
	// Kind is "whole", "mig" for a MIG device of the GPU ParentUUID (its
	// id is its parent's index), with its Profile ("1g.10gb"), or "share"
	// for a slot of the shared GPU ParentUUID.
	Kind       string `json:"kind"`
	Profile    string `json:"profile,omitempty"`
	ParentUUID string `json:"parent_uuid,omitempty"`
}

// NodeStatusJSON is one node in the cluster status.
type NodeStatusJSON struct {
	NodeID          string          `json:"node_id"`
	Hostname        string          `json:"hostname"`
	Status          string          `json:"status"`
	Drained         bool            `json:"drained"`
	GPUCount        int             `json:"gpu_count"`
	GPUType         string          `json:"gpu_type"`
	LastHeartbeatAt *time.Time      `json:"last_heartbeat_at"`
	GPUs            []GPUStatusJSON `json:"gpus"`
}

// ClusterStatusJSON is the body of GET /api/v1/cluster/gpu-status.
type ClusterStatusJSON struct {
	TotalGPUs     int              `json:"total_gpus"`
	AvailableGPUs int              `json:"available_gpus"`
	AllocatedGPUs int              `json:"allocated_gpus"`
	Nodes         []NodeStatusJSON `json:"nodes"`
	UpdatedAt     time.Time        `json:"updated_at"`
}

// ClusterStatus handles GET /api/v1/cluster/gpu-status: every node and GPU
// with telemetry and holder, as the overview page shows them.
func (h *Handlers) ClusterStatus(c echo.Context) error {
	nodes, err := models.ClusterStatus(c.Request().Context(), h.DB.Bun)
	if err != nil {
		return fmt.Errorf("handlers: cluster status: %w", err)
	}
	out := ClusterStatusJSON{Nodes: make([]NodeStatusJSON, 0, len(nodes)), UpdatedAt: h.Now().UTC()}
	for i := range nodes {
		n := &nodes[i]
		nj := NodeStatusJSON{NodeID: n.Name, Hostname: n.Hostname, Status: n.Status, Drained: n.Drained,
			GPUCount: len(n.GPUs), LastHeartbeatAt: n.LastHeartbeatAt, GPUs: make([]GPUStatusJSON, 0, len(n.GPUs))}
		for j := range n.GPUs {
			g := &n.GPUs[j]
			state := gpuState(&n.Node, g)
			gj := GPUStatusJSON{ID: g.Index, UUID: g.UUID, Model: g.Model, MemoryTotal: g.MemoryMiB,
				MemoryUsed: g.MemoryUsedMiB, Utilization: g.UtilizationPct, Temperature: g.TemperatureC,
				PowerW: g.PowerW, Health: g.Health, State: state, Holder: holderOf(g), Kind: g.Kind, Profile: g.Profile}
			if g.ParentUUID != nil {
				gj.ParentUUID = *g.ParentUUID
			}
			if g.JobID != nil {
				s := strconv.FormatInt(*g.JobID, 10)
				gj.AllocatedTo = &s
			}
			if nj.GPUType == "" {
				nj.GPUType = g.Model
			} else if nj.GPUType != g.Model {
				nj.GPUType = "mixed"
			}
			out.TotalGPUs++
			switch state {
			case "free":
				out.AvailableGPUs++
			case "allocated":
				out.AllocatedGPUs++
			}
			nj.GPUs = append(nj.GPUs, gj)
		}
		out.Nodes = append(out.Nodes, nj)
	}
	return c.JSON(http.StatusOK, out)
}
