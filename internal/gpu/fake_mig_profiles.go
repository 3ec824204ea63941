//go:build cgo

package gpu

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/gpus"
)

// fakeMIGModels are the GPUs whose real MIG profiles go-nvml's mock
// carries, by the model names the fake uses. (Its H200 profiles are not
// the real ones: 1g.35gb where an H200 offers 1g.18gb.)
var fakeMIGModels = map[string]gpus.Config{
	"NVIDIA H100 80GB HBM3": gpus.H100_SXM5_80GB,
	"NVIDIA A100-SXM4-80GB": gpus.A100_SXM4_80GB,
	"NVIDIA A100-SXM4-40GB": gpus.A100_SXM4_40GB,
}

// fakeProfiles are the MIG profiles of model as go-nvml's mock describes
// that GPU, named as NVML's would be.
func fakeProfiles(model string) ([]Profile, error) {
	cfg, ok := fakeMIGModels[model]
	if !ok {
		return nil, fmt.Errorf("no MIG profiles known for %s; the fake knows those of %s", model, strings.Join(slices.Sorted(maps.Keys(fakeMIGModels)), ", "))
	}
	mig := cfg.MIGProfiles
	var out []Profile
	for _, id := range slices.Sorted(maps.Keys(mig.GpuInstanceProfiles)) {
		out = append(out, profileFromInfo(id, mig.GpuInstanceProfiles[id], mig.GpuInstancePlacements[id], int64(cfg.MemoryMB)))
	}
	return out, nil
}
