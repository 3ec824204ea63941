package ray_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/ray"
)

// TestPlacementRequest: the pinning (node resource, GPU count, visible
// devices) and the user's runtime_env wishes.
func TestPlacementRequest(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		p       ray.Placement
		want    ray.SubmitRequest
		wantErr bool
	}{
		"two GPUs on one node, pip wish": {
			p: ray.Placement{JobID: 9, SubmissionID: "gpusched-9-1", Owner: "ana@lab", Name: "t", Entrypoint: "python t.py", RunToken: "4@17",
				Env: map[string]string{"SEED": "1", ray.RuntimeEnvVar: `{"pip": ["torch"]}`}, RayNode: "10.0.0.5",
				Nodes: []ray.NodeGPUs{{Node: "gpu-a", GPUs: []int{2, 3}, UUIDs: []string{"GPU-2", "GPU-3"}}}},
			want: ray.SubmitRequest{Entrypoint: "python t.py", SubmissionID: "gpusched-9-1",
				RuntimeEnv: map[string]any{"pip": []any{"torch"}, "env_vars": map[string]string{
					"SEED": "1", "CUDA_VISIBLE_DEVICES": "2,3", "RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES": "1",
					"GPUSCHED_JOB_ID": "9", "GPUSCHED_GPUS": "gpu-a:2,3", "GPUSCHED_GPU_UUIDS": "GPU-2,GPU-3"}},
				Metadata:          map[string]string{"gpusched_job_id": "9", "owner": "ana@lab", "job_name": "t", "submitted_by": "gpuscheduler", "gpusched_run": "4@17"},
				EntrypointNumGPUs: 2, EntrypointResources: map[string]float64{"node:10.0.0.5": 0.001}},
		},
		"two nodes: the driver on the first": {
			p: ray.Placement{JobID: 3, SubmissionID: "s", Entrypoint: "x", RayNode: "10.0.0.6",
				Nodes: []ray.NodeGPUs{{Node: "a", GPUs: []int{0}}, {Node: "b", GPUs: []int{0, 1}}}},
			want: ray.SubmitRequest{Entrypoint: "x", SubmissionID: "s",
				RuntimeEnv: map[string]any{"env_vars": map[string]string{"CUDA_VISIBLE_DEVICES": "0",
					"RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES": "1", "GPUSCHED_JOB_ID": "3", "GPUSCHED_GPUS": "a:0;b:0,1"}},
				Metadata:          map[string]string{"gpusched_job_id": "3", "owner": "", "job_name": "", "submitted_by": "gpuscheduler", "gpusched_run": ""},
				EntrypointNumGPUs: 1, EntrypointResources: map[string]float64{"node:10.0.0.6": 0.001}},
		},
		"unknown runtime_env field": {
			p:       ray.Placement{Entrypoint: "x", Env: map[string]string{ray.RuntimeEnvVar: `{"gpus": 3}`}},
			wantErr: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.p.Request()
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error %t", err, tc.wantErr)
			}
			if err == nil {
				if d := cmp.Diff(tc.want, got); d != "" {
					t.Errorf("request (-want +got):\n%s", d)
				}
			}
		})
	}
}
