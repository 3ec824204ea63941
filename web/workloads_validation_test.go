package web_test

import (
	"context"
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
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
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
