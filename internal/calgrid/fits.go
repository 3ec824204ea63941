package calgrid

import (
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// fits reports whether a count of model (lowercased; "" any) may be drawn
// on g, as the scheduler matches: a MIG profile ("1g.10gb") only on MIG
// devices of that profile, any other model only on whole GPUs whose model
// contains it; never on a slot of a shared GPU.
func fits(g GPU, model string) bool {
	if g.Ways > 0 { // a slot of a shared GPU carries only shares (placeShare)
		return false
	}
	if scheduler.IsMIGProfile(model) {
		return strings.EqualFold(g.Profile, strings.TrimSpace(model))
	}
	return g.Profile == "" && (model == "" || strings.Contains(strings.ToLower(g.Model), model))
}
