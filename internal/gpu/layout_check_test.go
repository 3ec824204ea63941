//go:build cgo

package gpu

import (
	"strings"
	"testing"
)

// A declared layout is checked against the node's GPUs with go-nvml's
// H100 profiles: a good one passes; an unknown profile, too many slices
// and a GPU the node lacks are refused with a sentence naming them.
func TestCheckLayout(t *testing.T) {
	t.Parallel()
	h100 := map[int]string{}
	for i := range 8 {
		h100[i] = "NVIDIA H100 80GB HBM3"
	}
	for spec, want := range map[string]string{
		"gpu 0-3: 7×1g.10gb; gpu 4: 2×3g.40gb":                      "",
		"gpu 0-3: 7x1g.10gb; gpu 4: 4g.40gb, 3g.40gb; gpu 5: whole": "",
		"gpu 2: 2×1g.12gb":        "GPU 2 (NVIDIA H100 80GB HBM3): 2×1g.12gb: this GPU offers no profile 1g.12gb",
		"gpu 0: 3×3g.40gb":        "GPU 0 (NVIDIA H100 80GB HBM3): 3×3g.40gb:",
		"gpu 1: 4g.40gb, 4g.40gb": "GPU 1",
		"gpu 8: 7×1g.10gb":        "names GPU 8; this node has GPUs 0-7",
	} {
		l, err := ParseLayout(spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		err = CheckLayout(l, h100)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", spec, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want an error with %q", spec, err, want)
		}
	}
}
