package scheduler

import (
	"regexp"
	"strings"
)

// migProfile is a MIG profile as nvidia-smi names it: "1g.10gb", "3g.40gb",
// "1c.3g.40gb" (a compute instance smaller than its GPU instance),
// "1g.10gb+me".
var migProfile = regexp.MustCompile(`^(?:\d+c\.)?\d+g\.\d+gb(?:[+-][a-z][a-z.]*)?$`)

// IsMIGProfile reports whether a job's GPU model names a MIG profile
// ("1g.10gb"), case-insensitively: such a job asks for MIG devices of that
// profile, never whole GPUs.
func IsMIGProfile(model string) bool {
	return migProfile.MatchString(strings.ToLower(strings.TrimSpace(model)))
}

// classMatches is the matching rule of GPU models and MIG profiles: a
// request naming a MIG profile takes only MIG devices of exactly that
// profile; any other request (a model, or none) takes only whole GPUs
// whose model contains it. So a whole-GPU job never lands on a slice, and
// a slice job never on a whole GPU. model is lowercased.
//
// A share request (share) takes only slots of shared GPUs whose model
// contains model; no other request ever takes a slot.
func classMatches(c gpuClass, model string, mem int64, share bool) bool {
	switch {
	case c.mem < mem:
		return false
	case share:
		return c.shared && c.profile == "" && strings.Contains(c.model, model)
	case c.shared:
		return false
	case IsMIGProfile(model):
		return c.profile == strings.TrimSpace(model)
	}
	return c.profile == "" && strings.Contains(c.model, model)
}
