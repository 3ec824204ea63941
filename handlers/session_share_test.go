package handlers

import (
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

func TestApplySessionShare(t *testing.T) {
	t.Parallel()
	one, half := 1, 0.5
	tests := map[string]struct {
		policy  float64
		req     api.SubmitRequest
		applied bool
		share   float64
	}{
		"policy gives a quarter":       {policy: 0.25, applied: true, share: 0.25},
		"policy gives whole GPUs":      {policy: 0},
		"the session asks for GPUs":    {policy: 0.25, req: api.SubmitRequest{GPUCount: &one}},
		"the session asks for a share": {policy: 0.25, req: api.SubmitRequest{GPUShare: &half}, share: 0.5},
		"the session asks for memory":  {policy: 0.25, req: api.SubmitRequest{GPUMemory: "20G"}},
	}
	for name, tc := range tests {
		cfg := scheduler.DefaultConfig()
		cfg.SessionGPUShare = tc.policy
		req := tc.req
		got := applySessionShare(cfg, &req)
		share := 0.0
		if req.GPUShare != nil {
			share = *req.GPUShare
		}
		if got != tc.applied || share != tc.share {
			t.Errorf("%s: applied %t, share %g; want %t, %g", name, got, share, tc.applied, tc.share)
		}
	}
}

// A session that asks for no GPUs gets the policy's share, else one whole
// GPU; one that asks keeps what it asked.
func TestSessionSubmissionTakesThePolicyShare(t *testing.T) {
	t.Parallel()
	two, half := 2, 0.5
	tests := map[string]struct {
		policy float64
		req    api.SessionRequest
		count  int
		share  float64
		memory string
	}{
		"no policy: one GPU":         {req: api.SessionRequest{Kind: "jupyter"}, count: 1},
		"policy: a quarter":          {policy: 0.25, req: api.SessionRequest{Kind: "jupyter"}, share: 0.25},
		"asks two GPUs":              {policy: 0.25, req: api.SessionRequest{Kind: "jupyter", GPUCount: &two}, count: 2},
		"asks half a GPU":            {req: api.SessionRequest{Kind: "jupyter", GPUShare: &half}, share: 0.5},
		"asks memory, policy or not": {policy: 0.25, req: api.SessionRequest{Kind: "jupyter", GPUMemory: "20G"}, memory: "20G"},
	}
	for name, tc := range tests {
		cfg := scheduler.DefaultConfig()
		cfg.SessionGPUShare = tc.policy
		req := tc.req
		s, err := sessionSubmission(&req, cfg)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		count, share := 0, 0.0
		if s.GPUCount != nil {
			count = *s.GPUCount
		}
		if s.GPUShare != nil {
			share = *s.GPUShare
		}
		if count != tc.count || share != tc.share || s.GPUMemory != tc.memory {
			t.Errorf("%s: gpu_count %d, gpu_share %g, gpu_memory %q; want %d, %g, %q", name, count, share, s.GPUMemory, tc.count, tc.share, tc.memory)
		}
	}
}
