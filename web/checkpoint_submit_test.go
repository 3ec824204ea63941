package web_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
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
		ID          int64   `json:"id"`
		Checkpoint  bool    `json:"checkpoint"`
		StopGraceS  int     `json:"stop_grace_seconds"`
		AttainedGPU float64 `json:"attained_gpu_hours"`
	}
	if err := json.Unmarshal(body, &job); err != nil || !job.Checkpoint || job.StopGraceS != 90 || job.AttainedGPU != 0 {
		t.Fatalf("job %s: %+v %v", body, job, err)
	}
	// The job's page and detail say what a preemption does to it and how
	// many times it was restarted (none yet).
	status, body = s.Do(t, "GET", fmt.Sprintf("/api/v1/jobs/%d", job.ID), member, "")
	var detail struct {
		RestartCount *int `json:"restart_count"`
	}
	if err := json.Unmarshal(body, &detail); status != 200 || err != nil || detail.RestartCount == nil || *detail.RestartCount != 0 {
		t.Errorf("detail: %d %s, want restart_count 0", status, body)
	}
	page := getPage(t, s.Login(t, "ana@example.com"), fmt.Sprintf("%s/jobs/%d", s.URL, job.ID))
	if want := "SIGTERM, then 90 s to save before SIGKILL; resumes with GPUSCHED_RESTART_COUNT"; !strings.Contains(page, want) {
		t.Errorf("the job page does not say %q", want)
	}
	bad := map[string]string{
		`{"gpu_count":1,"executor":"lease","stop_grace":"90s"}`:               "only node and ray jobs are stopped with a grace",
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
