package handlers

import (
	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// applySessionShare makes a session's submission (a notebook) ask for the
// policy's session_gpu_share of one shared GPU (scheduler.Config.
// SessionShare) when it names no GPUs of its own (no gpu_count, gpu_share
// or gpu_memory); otherwise, or when the policy gives sessions whole GPUs,
// s is left as it is. Session code calls it, with the policy it read
// (models.SchedulerConfig), before jobFrom; it reports whether the share
// was applied.
func applySessionShare(cfg scheduler.Config, s *api.SubmitRequest) bool {
	if s.GPUCount != nil || s.GPUShare != nil || s.GPUMemory != "" {
		return false
	}
	share, ok := cfg.SessionShare()
	if !ok {
		return false
	}
	s.GPUShare = &share
	return true
}
