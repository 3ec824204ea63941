package gpu

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// sameDevices reports whether a and b name the same devices in any order;
// nil (whole) equals only nil.
func sameDevices(a, b []string) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// plannedInstance is a GPU instance to make: its profile and where.
type plannedInstance struct {
	Profile Profile
	At      Placement
}

// maxSlices is the compute slices of a whole GPU offering profiles.
func maxSlices(profiles []Profile) int {
	n := 0
	for _, p := range profiles {
		n = max(n, p.Slices)
	}
	return n
}

// planGPU places want (profile names) on a GPU offering profiles: a
// placement for each, none overlapping, largest first. It says in words
// why a layout cannot be made.
func planGPU(profiles []Profile, want []string) ([]plannedInstance, error) {
	if len(profiles) == 0 {
		return nil, errors.New("this GPU offers no MIG profiles")
	}
	byName := map[string]Profile{}
	var names []string
	for _, p := range profiles {
		if _, dup := byName[p.Name]; !dup {
			byName[p.Name] = p
			names = append(names, p.Name)
		}
	}
	count := map[string]int{}
	todo := make([]Profile, 0, len(want))
	slicesUsed := 0
	for _, name := range want {
		p, ok := byName[name]
		switch {
		case !ok && strings.Contains(name, "c."):
			return nil, fmt.Errorf("%s: compute-instance profiles are not made by a layout; name a GPU-instance profile (%s)", name, strings.Join(names, ", "))
		case !ok:
			return nil, fmt.Errorf("this GPU offers no profile %s: it offers %s", name, strings.Join(names, ", "))
		}
		count[name]++
		if count[name] > p.Instances {
			return nil, fmt.Errorf("%d×%s: at most %d fit on this GPU", count[name], name, p.Instances)
		}
		slicesUsed += p.Slices
		todo = append(todo, p)
	}
	if total := maxSlices(profiles); slicesUsed > total {
		return nil, fmt.Errorf("%s use %d compute slices; this GPU has %d", slicesText(want), slicesUsed, total)
	}
	slices.SortStableFunc(todo, func(a, b Profile) int {
		return cmp.Or(cmp.Compare(b.Slices, a.Slices), cmp.Compare(b.MemoryMiB, a.MemoryMiB), cmp.Compare(a.ID, b.ID))
	})
	plan := make([]plannedInstance, len(todo))
	var place func(k int, used uint64) bool
	place = func(k int, used uint64) bool {
		if k == len(todo) {
			return true
		}
		for _, at := range todo[k].Placements {
			mask := (uint64(1)<<at.Size - 1) << at.Start
			if at.Size <= 0 || at.Start+at.Size > 64 || used&mask != 0 {
				continue
			}
			plan[k] = plannedInstance{Profile: todo[k], At: at}
			if place(k+1, used|mask) {
				return true
			}
		}
		return false
	}
	if !place(0, 0) {
		return nil, fmt.Errorf("%s do not fit together on this GPU's slices", slicesText(want))
	}
	return plan, nil
}
