package web_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestSubmitCheckpoint: checkpoint and stop_grace go through the API in
// snake_case; bad values are 400s naming the field.
func TestSubmitCheckpoint(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	member, _ := s.UserToken(t, models.RoleMember)
	status, body := s.Do(t, "POST", "/api/v1/queue/submit", member, `{"gpu_count":1,"command":"python train.py","checkpoint":true,"stop_grace":"90s"}`)
	if status != 201 {
		t.Fatalf("submit: %d %s", status, body)
	}
	var job struct {
		Checkpoint  bool    `json:"checkpoint"`
		StopGraceS  int     `json:"stop_grace_seconds"`
		AttainedGPU float64 `json:"attained_gpu_hours"`
	}
	if err := json.Unmarshal(body, &job); err != nil || !job.Checkpoint || job.StopGraceS != 90 || job.AttainedGPU != 0 {
		t.Fatalf("job %s: %+v %v", body, job, err)
	}
	bad := map[string]string{
		`{"gpu_count":1,"command":"x","stop_grace":"90s"}`:                    "set checkpoint too",
		`{"gpu_count":1,"command":"x","checkpoint":true,"stop_grace":"2h"}`:   "between 1 s and 1 h",
		`{"gpu_count":1,"command":"x","checkpoint":true,"stop_grace":"soon"}`: "stop_grace",
		`{"gpu_count":1,"executor":"lease","checkpoint":true}`:                "only node and ray jobs checkpoint",
	}
	for req, says := range bad {
		status, body := s.Do(t, "POST", "/api/v1/queue/submit", member, req)
		msg, code := testserver.APIError(t, body)
		if status != 400 || code != "invalid_field" || !strings.Contains(msg, says) {
			t.Errorf("%s: %d %s %q, want 400 saying %q", req, status, code, msg, says)
		}
	}
}
