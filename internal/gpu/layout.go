package gpu

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Layout is a node's MIG layout: for each GPU index it names, the MIG
// devices to make of that GPU, by profile name, one entry per device. A GPU
// it does not name is used whole (MIG off).
type Layout map[int][]string

// layoutItem is one group of MIG devices: an optional count, then a
// profile ("7×1g.10gb", "7x1g.10gb", "3g.40gb", "1g.10gb+me").
var layoutItem = regexp.MustCompile(`^(?:(\d+)\s*[x×*]\s*)?((?:\d+c\.)?\d+g\.\d+gb(?:[+-][a-z][a-z.]*)?)$`)

// maxLayoutGPU bounds GPU indices in a layout: no host has more.
const maxLayoutGPU = 63

// ParseLayout reads an admin's layout: entries separated by ";" (or new
// lines), each "gpu GPUS: DEVICES". GPUS is an index, a range or a list
// ("0-3", "0,2,5-6"; the word "gpu" is optional); DEVICES is a list of
// COUNT×PROFILE separated by "," or "+" (x for ×; the count defaults to 1),
// or "whole". Example: "gpu 0-3: 7×1g.10gb; gpu 4: 2×3g.40gb". Profiles
// are checked against what a GPU offers only when the layout is applied.
func ParseLayout(s string) (Layout, error) {
	l := Layout{}
	named := map[int]bool{}
	for _, entry := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == '\n' }) {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		gpus, devices, ok := strings.Cut(entry, ":")
		if !ok {
			return nil, fmt.Errorf("gpu: MIG layout entry %q: want GPUS: DEVICES, e.g. \"gpu 0-3: 7×1g.10gb\"", entry)
		}
		idx, err := parseIndices(gpus)
		if err != nil {
			return nil, fmt.Errorf("gpu: MIG layout entry %q: %w", entry, err)
		}
		devs, err := parseDevices(devices)
		if err != nil {
			return nil, fmt.Errorf("gpu: MIG layout entry %q: %w", entry, err)
		}
		for _, i := range idx {
			if named[i] {
				return nil, fmt.Errorf("gpu: MIG layout names GPU %d twice", i)
			}
			named[i] = true
			if devs != nil {
				l[i] = slices.Clone(devs)
			}
		}
	}
	return l, nil
}

// parseIndices reads "gpu 0-3", "gpus 0,2", "4".
func parseIndices(s string) ([]int, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(s, "gpus"), "gpu"))
	if s == "" {
		return nil, errors.New("no GPU index before the colon")
	}
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, errA := strconv.Atoi(strings.TrimSpace(lo))
		b, errB := a, error(nil)
		if isRange {
			b, errB = strconv.Atoi(strings.TrimSpace(hi))
		}
		if errA != nil || errB != nil || a < 0 || b < a || b > maxLayoutGPU {
			return nil, fmt.Errorf("GPUs %q: want an index, a range such as 0-3, or a list such as 0,2,4-5 (0–%d)", part, maxLayoutGPU)
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}

// parseDevices reads "7×1g.10gb", "4g.40gb + 3g.40gb", "whole" (nil).
func parseDevices(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "whole", "none", "off":
		return nil, nil
	case "":
		return nil, errors.New(`no MIG devices after the colon (write "whole" for a GPU without MIG)`)
	}
	var out []string
	for _, item := range splitItems(s) {
		m := layoutItem.FindStringSubmatch(strings.TrimSpace(item))
		if m == nil {
			return nil, fmt.Errorf("%q: want COUNT×PROFILE, e.g. 7×1g.10gb or 2x3g.40gb", strings.TrimSpace(item))
		}
		n := 1
		if m[1] != "" {
			n, _ = strconv.Atoi(m[1])
		}
		if n < 1 || n > 8 {
			return nil, fmt.Errorf("%q: a GPU holds 1 to 8 MIG devices of a profile", item)
		}
		for range n {
			out = append(out, m[2])
		}
	}
	return out, nil
}

// splitItems splits at "," and at a "+" that starts a new item (a digit
// follows), not at a profile's suffix ("1g.10gb+me").
func splitItems(s string) []string {
	var out []string
	start := 0
	for i, r := range s {
		split := r == ','
		if r == '+' {
			rest := strings.TrimLeft(s[i+1:], " \t")
			split = rest != "" && rest[0] >= '0' && rest[0] <= '9'
		}
		if split {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// String is the layout in the form ParseLayout reads, GPUs in order, runs
// of GPUs with the same devices as one range: "gpu 0-3: 7×1g.10gb; gpu 4: 2×3g.40gb".
func (l Layout) String() string {
	idx := make([]int, 0, len(l))
	for i, devs := range l {
		if devs != nil {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	var parts []string
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 && slices.Equal(l[idx[j+1]], l[idx[i]]) {
			j++
		}
		r := strconv.Itoa(idx[i])
		if j > i {
			r += "-" + strconv.Itoa(idx[j])
		}
		parts = append(parts, "gpu "+r+": "+slicesText(l[idx[i]]))
		i = j + 1
	}
	return strings.Join(parts, "; ")
}

// slicesText writes a GPU's devices: "7×1g.10gb", "4g.40gb, 3g.40gb",
// "whole" for nil, "none (MIG on)" for a GPU in MIG mode without any.
func slicesText(devs []string) string {
	if devs == nil {
		return "whole"
	}
	if len(devs) == 0 {
		return "none (MIG on)"
	}
	var parts []string
	for i := 0; i < len(devs); {
		j := i
		for j < len(devs) && devs[j] == devs[i] {
			j++
		}
		if j-i > 1 {
			parts = append(parts, fmt.Sprintf("%d×%s", j-i, devs[i]))
		} else {
			parts = append(parts, devs[i])
		}
		i = j
	}
	return strings.Join(parts, ", ")
}
