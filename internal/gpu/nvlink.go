//go:build cgo

package gpu

import (
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// nvlinkGroups returns, for each GPU, the group of GPUs it shares NVLink
// with (-1: no active link). GPUs linked directly are grouped; GPUs linked
// to something that is not one of these GPUs (an NVSwitch) share that
// switch's group, as on a DGX where every GPU reaches every other.
func nvlinkGroups(devs []nvml.Device) []int {
	bus := map[string]int{}
	for i, d := range devs {
		if p, ret := d.GetPciInfo(); ret == nvml.SUCCESS {
			bus[busID(p)] = i
		}
	}
	parent := make([]int, len(devs))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	linked := make([]bool, len(devs))
	switches := map[string]int{} // remote bus id of a switch → first GPU seen on it
	for i, d := range devs {
		for link := range nvml.NVLINK_MAX_LINKS {
			state, ret := d.GetNvLinkState(link)
			if ret != nvml.SUCCESS {
				break // no more links on this GPU
			}
			if state != nvml.FEATURE_ENABLED {
				continue
			}
			linked[i] = true
			remote, ret := d.GetNvLinkRemotePciInfo(link)
			if ret != nvml.SUCCESS {
				continue
			}
			peer, ok := bus[busID(remote)]
			if !ok {
				id := busID(remote)
				if first, seen := switches[id]; seen {
					peer = first
				} else {
					switches[id] = i
					continue
				}
			}
			parent[find(peer)] = find(i)
		}
	}
	out := make([]int, len(devs))
	ids := map[int]int{}
	for i := range devs {
		if !linked[i] {
			out[i] = -1
			continue
		}
		r := find(i)
		if _, ok := ids[r]; !ok {
			ids[r] = len(ids)
		}
		out[i] = ids[r]
	}
	return out
}

func busID(p nvml.PciInfo) string {
	b := make([]byte, 0, len(p.BusId))
	for _, c := range p.BusId {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return strings.ToLower(string(b))
}
