package cli

import (
	"regexp"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// The CLI counts in the right number: an array of one task is "1 task",
// not "1 tasks"; a job of two GPUs "2 GPUs".
func TestCLICountsInTheRightNumber(t *testing.T) {
	s := testserver.New(t)
	nodeTok, _ := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok,
		`{"hostname":"a","gpus":[{"index":0,"uuid":"G0","model":"NVIDIA H100 80GB HBM3","memory_mib":81559},{"index":1,"uuid":"G1","model":"NVIDIA H100 80GB HBM3","memory_mib":81559}]}`); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	tok, _ := s.UserToken(t, models.RoleMember)
	t.Setenv("GPUSCHED_SERVER", s.URL)
	t.Setenv("GPUSCHED_TOKEN", tok)
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"one task": {[]string{"submit", "--array", "0", "--name", "one", "--", "true"}, `^array \d+ queued: 1 task \[0\] \(1 GPU each, normal priority\)\n$`},
		"two GPUs": {[]string{"submit", "-g", "2", "--name", "two", "--", "true"}, `\(2 GPUs, normal priority\)`},
	} {
		out, err := gpusched(t, tc.args...)
		if err != nil || !regexp.MustCompile(tc.want).MatchString(out) {
			t.Errorf("%s: gpusched %v printed %q (%v), want it to match %s", name, tc.args, out, err, tc.want)
		}
	}
}
