package web_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestWorkloadValidation: submissions with a bad time limit, array or
// dependency are 400s whose code and sentence say what is wrong; the
// policy's time limits apply (its default when none is asked, its maximum
// refused above).
func TestWorkloadValidation(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	ctx := context.Background()
	cfg, err := models.SchedulerConfig(ctx, s.DB.Bun)
	if err != nil {
		t.Fatal(err)
	}
	cfg.TimeLimit = scheduler.TimeLimitPolicy{Default: scheduler.Duration(time.Hour), Max: scheduler.Duration(4 * time.Hour)}
	if err := models.PutSchedulerConfig(ctx, s.DB.Bun, cfg, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	member, _ := s.UserToken(t, models.RoleMember)
	tests := map[string]struct {
		body string
		code string
		says string
	}{
		"limit over the max": {`{"gpu_count":1,"command":"x","time_limit":"5h"}`, "time_limit_over_max",
			"time_limit: 5h is over the maximum of 4h (14400 seconds)"},
		"limit not a duration":  {`{"gpu_count":1,"command":"x","time_limit":"soon"}`, "invalid_field", "time_limit"},
		"limit of zero seconds": {`{"gpu_count":1,"command":"x","time_limit":0.5}`, "invalid_field", "between 1 second and 30 days"},
		"a lease with a limit":  {`{"gpu_count":1,"executor":"lease","time_limit":"1h"}`, "invalid_field", "a lease has no time limit"},
		"dependency of an unknown kind": {`{"gpu_count":1,"command":"x","after":[{"kind":"okay","job_id":1}]}`, "invalid_field",
			`after: kind "okay" is not one of ok, any, notok, singleton`},
		"dependency without a job": {`{"gpu_count":1,"command":"x","after":[{"kind":"ok"}]}`, "invalid_field", `kind "ok" needs the job_id`},
		"dependency on no such job": {`{"gpu_count":1,"command":"x","after":[{"kind":"any","job_id":999999}]}`, "invalid_field",
			"after: job 999999 does not exist"},
		"singleton with a job": {`{"gpu_count":1,"command":"x","name":"n","after":[{"kind":"singleton","job_id":3}]}`, "invalid_field",
			"singleton takes no job_id"},
		"singleton without a name": {`{"gpu_count":1,"command":"x","after":[{"kind":"singleton"}]}`, "invalid_field",
			"singleton waits for your earlier jobs of the same name: give the job a name"},
		"a lease that waits": {`{"gpu_count":1,"executor":"lease","after":[{"kind":"any","job_id":1}]}`, "invalid_field",
			"only node and ray jobs wait for other jobs"},
		"dependencies not a list": {`{"gpu_count":1,"command":"x","after":"afterok:1"}`, "invalid_field", "after"},
		"a task of what is no array": {`{"gpu_count":1,"command":"x","after":[{"kind":"ok","job_id":JOB,"array_task_id":2}]}`,
			"invalid_field", "is not an array: JOB_2 names no task"},
		"array backwards":  {`{"gpu_count":1,"command":"x","array":"9-3"}`, "invalid_field", `array "9-3": "9-3": the range ends before it starts`},
		"array too big":    {`{"gpu_count":1,"command":"x","array":"0-10000"}`, "invalid_field", "10001 tasks, at most 10000"},
		"array bad limit":  {`{"gpu_count":1,"command":"x","array":"0-9%0"}`, "invalid_field", "a number from 1"},
		"array bad step":   {`{"gpu_count":1,"command":"x","array":"0-9:0"}`, "invalid_field", "the step after : must be a number from 1"},
		"array of words":   {`{"gpu_count":1,"command":"x","array":"all"}`, "invalid_field", `"all" is not a task id`},
		"array not a text": {`{"gpu_count":1,"command":"x","array":[1,2]}`, "invalid_field", "array"},
		"a lease array":    {`{"gpu_count":1,"executor":"lease","array":"0-3"}`, "invalid_field", "only node and ray jobs run as arrays"},
	}
	status, body := s.Do(t, "POST", "/api/v1/queue/submit", member, `{"gpu_count":1,"command":"x"}`)
	var plain struct{ ID int64 }
	if status != 201 || json.Unmarshal(body, &plain) != nil {
		t.Fatalf("submit: %d %s", status, body)
	}
	job := strconv.FormatInt(plain.ID, 10)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			tc.body, tc.says = strings.ReplaceAll(tc.body, "JOB", job), strings.ReplaceAll(tc.says, "JOB", job)
			status, body := s.Do(t, "POST", "/api/v1/queue/submit", member, tc.body)
			msg, code := testserver.APIError(t, body)
			if status != 400 || code != tc.code || !strings.Contains(msg, tc.says) {
				t.Errorf("%s: %d %s %q, want 400 %s saying %q", tc.body, status, code, msg, tc.code, tc.says)
			}
		})
	}
	// Within the policy: the limit asked, else the default.
	for body, want := range map[string]int64{
		`{"gpu_count":1,"command":"x","time_limit":"4h"}`: 4 * 3600,
		`{"gpu_count":1,"command":"x"}`:                   3600,
	} {
		status, out := s.Do(t, "POST", "/api/v1/queue/submit", member, body)
		if status != 201 || !strings.Contains(string(out), `"time_limit_seconds":`+strconv.FormatInt(want, 10)) {
			t.Errorf("%s: %d %s, want 201 with time_limit_seconds %d", body, status, out, want)
		}
	}
}
