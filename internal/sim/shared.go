package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// SharedGroup is GPUs GPUs of the cluster each shared into Slots slots
// (time-sliced): the spec "4x4".
type SharedGroup struct {
	GPUs  int
	Slots int
}

// ParseShared reads simulated shared GPUs: GROUP[+GROUP…], each
// GPUSxSLOTS, e.g. "4x4" (four GPUs of four slots each) or "4x4+2x2".
// They are the cluster's GPUs after those the MIG layout splits, in node
// order. "" is none.
func ParseShared(spec string) ([]SharedGroup, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, nil
	}
	var out []SharedGroup
	for part := range strings.SplitSeq(spec, "+") {
		n, per, ok := strings.Cut(strings.ToLower(strings.TrimSpace(part)), "x")
		gpus, err1 := strconv.Atoi(n)
		slots, err2 := strconv.Atoi(per)
		if !ok || err1 != nil || err2 != nil || gpus < 1 || slots < 2 || slots > 16 {
			return nil, fmt.Errorf("shared %q: %q is not GPUSxSLOTS with 2–16 slots, e.g. 4x4", spec, part)
		}
		out = append(out, SharedGroup{GPUs: gpus, Slots: slots})
	}
	return out, nil
}

// SharedString writes shared groups back as ParseShared reads them.
func SharedString(groups []SharedGroup) string {
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = fmt.Sprintf("%dx%d", g.GPUs, g.Slots)
	}
	return strings.Join(parts, "+")
}

// sharedGPUs is how many of the cluster's GPUs are shared.
func (c Cluster) sharedGPUs() int {
	n := 0
	for _, g := range c.Shared {
		n += g.GPUs
	}
	return n
}

// sharedOf returns the shared group of the k-th GPU of the cluster in
// node order (the GPUs after the MIG layout's), or nil.
func (c Cluster) sharedOf(k int) *SharedGroup {
	k -= c.splitGPUs()
	if k < 0 {
		return nil
	}
	for i := range c.Shared {
		if k < c.Shared[i].GPUs {
			return &c.Shared[i]
		}
		k -= c.Shared[i].GPUs
	}
	return nil
}

// assignShares makes the fractional jobs of a cluster with shared GPUs
// (and no MIG layout, which takes them first) ask for their Share of one
// shared GPU. It returns how many do.
func assignShares(jobs []Job, c Cluster) int {
	if len(c.Shared) == 0 || len(c.MIG) > 0 {
		return 0
	}
	n := 0
	for i := range jobs {
		if j := &jobs[i]; j.Share > 0 && j.Share < 1 && j.GPUs == 1 {
			j.GPUShare = j.Share
			n++
		}
	}
	return n
}
