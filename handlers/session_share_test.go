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
