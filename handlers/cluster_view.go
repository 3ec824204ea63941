package handlers

import (
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// gpuState names what a GPU is doing, for tiles and the API: unavailable
// (node down, GPU failed or drained), allocated, foreign (processes the
// scheduler did not start), or free.
func gpuState(n *models.Node, g *models.GPUStatus) string {
	switch {
	case n.Status != models.NodeUp || g.Health == models.HealthFailed || g.Drained || n.Drained:
		return "unavailable"
	case g.JobID != nil:
		return "allocated"
	case len(g.Processes) > 0:
		return "foreign"
	}
	return "free"
}

func holderOf(g *models.GPUStatus) string {
	switch {
	case g.HolderName != nil && *g.HolderName != "":
		return *g.HolderName
	case g.HolderEmail != nil:
		return *g.HolderEmail
	case len(g.Processes) > 0:
		return g.Processes[0].User
	}
	return ""
}

// condition says why an unavailable GPU is unavailable, most telling first.
func condition(n *models.Node, g *models.GPUStatus) string {
	switch {
	case n.Status != models.NodeUp:
		return "node down"
	case g.Health == models.HealthFailed:
		return "failed"
	case n.Drained:
		return "node drained"
	case g.Drained:
		return "drained"
	}
	return ""
}

// idleFlagAfter is how long an allocated GPU must idle before its tile says so.
const idleFlagAfter = 10 * time.Minute

// clusterView turns the cluster's rows and the reservations in force into
// the overview page's model.
func clusterView(nodes []models.NodeStatus, res models.Reservations, now time.Time) views.Cluster {
	c := views.Cluster{UpdatedAt: now, Nodes: make([]views.Node, 0, len(nodes))}
	var utilSum int
	for i := range nodes {
		n := &nodes[i]
		vn := views.Node{ID: n.ID, Name: n.Name, Hostname: n.Hostname, Status: n.Status, GPUs: make([]views.GPU, 0, len(n.GPUs))}
		if n.Drained && n.Status == models.NodeUp {
			vn.Status = "draining"
		}
		if n.LastHeartbeatAt != nil {
			vn.LastSeen = *n.LastHeartbeatAt
		}
		c.Totals.Nodes++
		if n.Status == models.NodeUp {
			c.Totals.NodesUp++
		}
		for j := range n.GPUs {
			g := &n.GPUs[j]
			state := gpuState(&n.Node, g)
			vg := views.GPU{
				Node: n.Name, Index: g.Index, UUID: g.UUID, Model: g.Model,
				MemoryUsedMiB: g.MemoryUsedMiB, MemoryTotalMiB: g.MemoryMiB,
				UtilizationPct: g.UtilizationPct, TemperatureC: g.TemperatureC, PowerW: g.PowerW,
				Health: g.Health, State: state, Holder: holderOf(g),
				Profile: g.Profile, Slices: g.Slices,
			}
			if g.ParentUUID != nil {
				vg.ParentUUID = *g.ParentUUID
			}
			if g.Kind == models.GPUShare {
				vg.SharedSlots = g.ParentSlices
			}
			if g.JobID != nil {
				vg.JobID = *g.JobID
			}
			if g.JobName != nil {
				vg.JobName = *g.JobName
			}
			if state == "unavailable" {
				vg.Condition = condition(&n.Node, g)
			}
			if r, ok := res.ByGPU[g.ID]; ok && state == "free" {
				vg.State, vg.ReservedBy = "held", r.By
				if r.Kind == models.BookingKindBooking {
					vg.State = "booked"
				}
				c.Totals.Reserved++
			}
			if g.IdleSince != nil && g.JobID != nil && now.Sub(*g.IdleSince) >= idleFlagAfter {
				vg.IdleSince = *g.IdleSince
				c.Totals.Idle++
			}
			vn.GPUs = append(vn.GPUs, vg)
			if vg.SharedSlots > 0 { // a slot of a shared GPU: its GPU's memory once, its slots counted apart
				c.Totals.MemoryUsedMiB += g.MemoryUsedMiB / int64(vg.SharedSlots)
				c.Totals.MemoryTotalMiB += g.MemoryMiB
				c.Totals.Shares++
				switch vg.State {
				case "free":
					c.Totals.FreeShares++
				case "allocated":
					c.Totals.AllocatedShares++
				}
				continue
			}
			c.Totals.MemoryUsedMiB += g.MemoryUsedMiB
			c.Totals.MemoryTotalMiB += g.MemoryMiB
			if vg.Profile != "" { // a MIG device: counted apart, and it has no utilization of its own
				c.Totals.Slices++
				switch vg.State {
				case "free":
					c.Totals.FreeSlices++
				case "allocated":
					c.Totals.AllocatedSlices++
				}
				continue
			}
			c.Totals.GPUs++
			switch vg.State {
			case "free":
				c.Totals.Free++
			case "allocated":
				c.Totals.Allocated++
			case "foreign":
				c.Totals.Foreign++
			case "held", "booked":
			default:
				c.Totals.Unavailable++
			}
			utilSum += g.UtilizationPct
		}
		c.Nodes = append(c.Nodes, vn)
	}
	c.Totals.Reserved += res.UnnamedBooked + res.UnnamedHeld
	if c.Totals.GPUs > 0 {
		c.Totals.AvgUtilizationPct = float64(utilSum) / float64(c.Totals.GPUs)
	}
	return c
}
