package gpu

import (
	"fmt"
	"slices"
	"strings"
)

// CheckLayout checks a declared layout against a host's GPUs (models by
// index, as the server knows them) before any agent applies it: every GPU
// it names must exist, and its devices must be profiles that GPU offers
// and fit on it. Profiles are known for the GPUs go-nvml's tables describe
// (H100 80GB, A100 40/80GB); for other models only the form is checked
// here and the agent's NVML decides. The error names the first problem.
func CheckLayout(l Layout, models map[int]string) error {
	idx := make([]int, 0, len(l))
	for i := range l {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	for _, i := range idx {
		model, ok := models[i]
		if !ok && len(models) > 0 {
			return fmt.Errorf("the layout names GPU %d; this node has GPUs %s", i, indexRanges(models))
		}
		if l[i] == nil || !ok {
			continue
		}
		profiles, err := fakeProfiles(model)
		if err != nil {
			continue // not a GPU whose profiles are known here
		}
		if _, err := planGPU(profiles, l[i]); err != nil {
			return fmt.Errorf("GPU %d (%s): %s: %w", i, model, slicesText(l[i]), err)
		}
	}
	return nil
}

// indexRanges writes the indices of models: "0-7", "0,2".
func indexRanges(models map[int]string) string {
	idx := make([]int, 0, len(models))
	for i := range models {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	var parts []string
	for k := 0; k < len(idx); {
		j := k
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if j > k {
			parts = append(parts, fmt.Sprintf("%d-%d", idx[k], idx[j]))
		} else {
			parts = append(parts, fmt.Sprint(idx[k]))
		}
		k = j + 1
	}
	return strings.Join(parts, ",")
}
