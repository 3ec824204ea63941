package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// migParentSlices is the compute slices of a whole A100 or H100.
const migParentSlices = 7

// MIGGroup is GPUs GPUs of the cluster split, each, into PerGPU MIG devices
// of one Profile ("1g.10gb"): the spec "4x7:1g.10gb".
type MIGGroup struct {
	GPUs    int
	PerGPU  int
	Profile string
}

// ParseMIG reads a simulated MIG layout: GROUP[+GROUP…], each
// GPUSxPERGPU:PROFILE, e.g. "4x7:1g.10gb" (four GPUs as seven 1g.10gb
// slices each) or "4x7:1g.10gb+2x2:3g.40gb". The slices of one GPU must fit
// its seven compute slices. "" is no MIG.
func ParseMIG(spec string) ([]MIGGroup, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, nil
	}
	var out []MIGGroup
	for part := range strings.SplitSeq(spec, "+") {
		shape, profile, ok := strings.Cut(strings.TrimSpace(part), ":")
		n, per, ok2 := strings.Cut(strings.ToLower(shape), "x")
		gpus, err1 := strconv.Atoi(n)
		perGPU, err2 := strconv.Atoi(per)
		profile = strings.ToLower(strings.TrimSpace(profile))
		switch {
		case !ok || !ok2 || err1 != nil || err2 != nil || gpus < 1 || perGPU < 1:
			return nil, fmt.Errorf("mig %q: %q is not GPUSxPERGPU:PROFILE, e.g. 4x7:1g.10gb", spec, part)
		case !scheduler.IsMIGProfile(profile):
			return nil, fmt.Errorf("mig %q: %q is not a MIG profile such as 1g.10gb", spec, profile)
		case perGPU*profileSlices(profile) > migParentSlices:
			return nil, fmt.Errorf("mig %q: %d × %s take %d compute slices; a GPU has %d", spec, perGPU, profile,
				perGPU*profileSlices(profile), migParentSlices)
		}
		out = append(out, MIGGroup{GPUs: gpus, PerGPU: perGPU, Profile: profile})
	}
	return out, nil
}

// MIGString writes a layout back as ParseMIG reads it.
func MIGString(groups []MIGGroup) string {
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = fmt.Sprintf("%dx%d:%s", g.GPUs, g.PerGPU, g.Profile)
	}
	return strings.Join(parts, "+")
}

// profileSlices is the compute slices of a MIG profile: the number before
// "c." ("1c.3g.40gb": 1), else before "g" ("3g.40gb": 3).
func profileSlices(profile string) int {
	head, _, _ := strings.Cut(profile, ".")
	n, err := strconv.Atoi(strings.TrimRight(head, "cg"))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// profileFraction is the share of a GPU a device of profile is.
func profileFraction(profile string) float64 {
	return float64(profileSlices(profile)) / migParentSlices
}

// splitGPUs is how many of the cluster's GPUs the layout splits.
func (c Cluster) splitGPUs() int {
	n := 0
	for _, g := range c.MIG {
		n += g.GPUs
	}
	return n
}

// migOf returns the MIG group of the k-th GPU of the cluster in node
// order (the layout splits the first GPUs: node 1's first), or nil when it
// stays whole.
func (c Cluster) migOf(k int) *MIGGroup {
	for i := range c.MIG {
		if k < c.MIG[i].GPUs {
			return &c.MIG[i]
		}
		k -= c.MIG[i].GPUs
	}
	return nil
}

// assignSlices makes the fractional jobs of a cluster with MIG ask for a
// slice, by this rule: a job that used a fraction of one GPU (Share > 0)
// asks for one MIG device of the smallest profile in the layout whose
// fraction of a GPU is at least its Share, else of the largest profile.
// Every other job asks for whole GPUs as before. It returns how many jobs
// ask for slices.
func assignSlices(jobs []Job, c Cluster) int {
	if len(c.MIG) == 0 {
		return 0
	}
	var profiles []string
	for _, g := range c.MIG {
		if !slices.Contains(profiles, g.Profile) {
			profiles = append(profiles, g.Profile)
		}
	}
	slices.SortStableFunc(profiles, func(a, b string) int { return profileSlices(a) - profileSlices(b) })
	n := 0
	for i := range jobs {
		j := &jobs[i]
		if j.Share <= 0 || j.GPUs != 1 {
			continue
		}
		j.Profile = profiles[len(profiles)-1]
		for _, p := range profiles {
			if profileFraction(p) >= j.Share {
				j.Profile = p
				break
			}
		}
		n++
	}
	return n
}

// WithoutMIG is w with every GPU whole and every job asking for whole
// GPUs, arrivals unchanged: the replay to compare a MIG layout with.
func (w *Workload) WithoutMIG() *Workload {
	out := *w
	out.Cluster.MIG, out.Cluster.Shared = nil, nil
	out.Jobs = slices.Clone(w.Jobs)
	for i := range out.Jobs {
		out.Jobs[i].Profile, out.Jobs[i].GPUShare = "", 0
	}
	out.SliceJobs = 0
	return &out
}

// sliceSlowdown is how many times its runtime job j takes on a slice when
// the workload stretches slice jobs (Workload.MIGStretch): its Share over
// the slice's fraction of a GPU, at least 1.
func (w *Workload) sliceSlowdown(j Job) float64 {
	if !w.MIGStretch || j.Profile == "" {
		return 1
	}
	return max(1, j.Share/profileFraction(j.Profile))
}
