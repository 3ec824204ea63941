package web_test

import (
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestRaySubmitValidation: Ray jobs refused at the edge, nothing queued.
func TestRaySubmitValidation(t *testing.T) {
	t.Parallel()
	withRay := newRayEnv(t, nil)
	without := testserver.New(t)
	withoutTok, _ := without.UserToken(t, models.RoleMember)
	tests := map[string]struct {
		s     *testserver.Server
		token string
		body  string
		msg   string
	}{
		"runtime_env not an object": {s: withRay.s, token: withRay.token,
			body: `{"command": "python t.py", "gpu_count": 1, "executor": "ray", "env": {"RAY_RUNTIME_ENV": "[1]"}}`,
			msg:  `env: RAY_RUNTIME_ENV must be a JSON object like {"pip": ["torch"]}`},
		"runtime_env field we do not pass": {s: withRay.s, token: withRay.token,
			body: `{"command": "python t.py", "gpu_count": 1, "executor": "ray", "env": {"RAY_RUNTIME_ENV": "{\"gpus\": 2}"}}`,
			msg:  `env: RAY_RUNTIME_ENV: "gpus" is not a runtime_env field GPUScheduler passes on (one of working_dir, pip, conda, uv, container, image_uri, py_modules, py_executable, config, excludes)`},
		"no ray cluster": {s: without, token: withoutTok,
			body: `{"command": "python t.py", "gpu_count": 1, "executor": "ray"}`,
			msg:  `executor: this server cannot run ray jobs: it has no Ray cluster (its admin sets GPUSCHED_RAY_ADDRESS); use executor "node" or "lease"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st, body := tc.s.Do(t, "POST", "/api/v1/queue/submit", tc.token, tc.body)
			if st != 400 {
				t.Fatalf("status %d %s, want 400", st, body)
			}
			if msg, _ := testserver.APIError(t, body); msg != tc.msg {
				t.Errorf("message %q, want %q", msg, tc.msg)
			}
		})
	}
	n, err := withRay.s.DB.Bun.NewSelect().Model((*models.Job)(nil)).Count(t.Context())
	if err != nil || n != 0 {
		t.Errorf("%d jobs queued (%v), want 0", n, err)
	}
}
