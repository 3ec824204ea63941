package api

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseMemoryMiB reads an amount of GPU memory as people write it: "20G",
// "20GB", "20GiB", "512M", "512MiB", "0.5T"; a bare number is GiB. Units
// are binary (1G = 1024 MiB), as nvidia-smi counts. The answer is MiB,
// at least 1.
func ParseMemoryMiB(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := 1024.0
	switch {
	case strings.HasSuffix(t, "T"):
		t, mult = t[:len(t)-1], 1024*1024
	case strings.HasSuffix(t, "G"):
		t = t[:len(t)-1]
	case strings.HasSuffix(t, "M"):
		t, mult = t[:len(t)-1], 1
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || math.IsNaN(v) || v <= 0 || v > 1<<30 {
		return 0, fmt.Errorf("%q is not an amount of memory such as 20G or 512M", s)
	}
	return max(int64(math.Ceil(v*mult)), 1), nil
}

// FormatMemoryMiB writes MiB as ParseMemoryMiB reads it: "20G", "1536M".
func FormatMemoryMiB(mib int64) string {
	if mib%1024 == 0 {
		return fmt.Sprintf("%dG", mib/1024)
	}
	return fmt.Sprintf("%dM", mib)
}

// ShareWords says what a share asks of a shared GPU: "0.25 of a shared
// GPU", "20G of a shared GPU", "0.25 and 30G of a shared GPU"; "" for no
// share (whole GPUs).
func ShareWords(share float64, memMiB int64) string {
	var s string
	switch {
	case share > 0 && memMiB > 0:
		s = strconv.FormatFloat(share, 'g', 4, 64) + " and " + FormatMemoryMiB(memMiB)
	case share > 0:
		s = strconv.FormatFloat(share, 'g', 4, 64)
	case memMiB > 0:
		s = FormatMemoryMiB(memMiB)
	default:
		return ""
	}
	return s + " of a shared GPU"
}
