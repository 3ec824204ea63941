package cli

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// squeue, scancel and sacct against a real server, in Slurm's shape: a
// running job on its node, a pending one with Slurm's reason, filters,
// silent cancels by id and by user, and the ended jobs' states.
func TestSlurmAliases(t *testing.T) {
	s := testserver.New(t)
	nodeTok, _ := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok,
		`{"hostname":"a","gpus":[{"index":0,"uuid":"G0","model":"NVIDIA H100 80GB HBM3","memory_mib":81559},{"index":1,"uuid":"G1","model":"NVIDIA H100 80GB HBM3","memory_mib":81559}]}`); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	tok, _ := s.UserToken(t, models.RoleMember)
	t.Setenv("GPUSCHED_SERVER", s.URL)
	t.Setenv("GPUSCHED_TOKEN", tok)
	submit := func(args ...string) string {
		out, err := gpusched(t, append([]string{"submit", "--json", "--executor", "lease"}, args...)...)
		if err != nil {
			t.Fatalf("submit: %v", err)
		}
		return regexp.MustCompile(`"id":\s*(\d+)`).FindStringSubmatch(out)[1]
	}
	first := submit("-g", "2", "--name", "training-run-7")
	second := submit("-g", "1", "--name", "eval")

	var out string
	var err error
	if !eventually(10*time.Second, func() bool {
		out, err = gpusched(t, "squeue")
		return err == nil && strings.Contains(out, " R ") && strings.Contains(out, " PD ")
	}) {
		t.Fatalf("squeue never showed a running and a pending job: %q %v", out, err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if d := cmp.Diff("             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)", lines[0]); d != "" {
		t.Errorf("header (-want +got):\n%s", d)
	}
	running := regexp.MustCompile(`^ +` + first + ` +gpu training +\S+ +R +\d+:\d\d +1 gpu-a$`)
	pending := regexp.MustCompile(`^ +` + second + ` +gpu +eval +\S+ +PD +0:00 +1 \((Resources|Priority|None)\)$`)
	if len(lines) != 3 || !running.MatchString(lines[1]) || !pending.MatchString(lines[2]) {
		t.Errorf("squeue lines:\n%s", out)
	}

	tests := map[string]struct {
		args []string
		want []string // ids shown
	}{
		"pending only":   {args: []string{"-h", "-t", "PD"}, want: []string{second}},
		"running only":   {args: []string{"-h", "--states", "RUNNING"}, want: []string{first}},
		"by job":         {args: []string{"-h", "-j", first}, want: []string{first}},
		"mine":           {args: []string{"-h", "--me"}, want: []string{first, second}},
		"another user's": {args: []string{"-h", "-u", "nobody-else"}, want: nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, err := gpusched(t, append([]string{"squeue"}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if f := strings.Fields(l); len(f) > 0 {
					ids = append(ids, f[0])
				}
			}
			if d := cmp.Diff(tc.want, ids); d != "" {
				t.Errorf("ids (-want +got):\n%s\n%s", d, out)
			}
		})
	}

	// scancel is silent; by id, then everything of mine.
	if out, err = gpusched(t, "scancel", second); err != nil || out != "" {
		t.Fatalf("scancel %s: %q %v", second, out, err)
	}
	if out, err = gpusched(t, "scancel", "--me"); err != nil || out != "" {
		t.Fatalf("scancel --me: %q %v", out, err)
	}
	if _, err = gpusched(t, "scancel"); err == nil || !strings.Contains(err.Error(), "no job given") {
		t.Fatalf("scancel with nothing: %v", err)
	}
	if !eventually(10*time.Second, func() bool {
		out, err = gpusched(t, "sacct", "-P", "-n", "-j", first+","+second)
		return err == nil && strings.Count(out, "|CANCELLED|") == 2
	}) {
		t.Fatalf("sacct never showed both canceled: %q %v", out, err)
	}
	want := regexp.MustCompile(`^` + first + `\|training-run-7\|CANCELLED\|0:0\|\d\d:\d\d:\d\d\|\n` + second + `\|eval\|CANCELLED\|0:0\|00:00:00\|\n$`)
	if !want.MatchString(out) {
		t.Errorf("sacct -P:\n%s", out)
	}
	out, err = gpusched(t, "sacct", "-j", first)
	if err != nil || !strings.HasPrefix(out, "JobID           JobName      State ExitCode    Elapsed\n------------ ") ||
		!strings.Contains(out, "training-+ CANCELLED+") && !strings.Contains(out, "training-r CANCELLED+") {
		t.Errorf("sacct: %q %v", out, err)
	}
	// Without -j: today's jobs, the ended ones from the history.
	out, err = gpusched(t, "sacct", "-P", "-n", "-S", "-1h")
	if err != nil || !strings.Contains(out, first+"|training-run-7|CANCELLED|") || !strings.Contains(out, second+"|eval|CANCELLED|") {
		t.Errorf("sacct without -j lists today's ended jobs:\n%s %v", out, err)
	}
	out, err = gpusched(t, "sacct", "-P", "-n", "-S", "+1h")
	if err != nil || out != "" {
		t.Errorf("sacct -S an hour from now lists nothing: %q %v", out, err)
	}
}

// Slurm's forms of times, exit codes and states.
func TestSlurmFormats(t *testing.T) {
	t.Parallel()
	code := func(n int) *int { return &n }
	tests := map[string]struct {
		got, want string
	}{
		"seconds":              {slurmDuration(42 * time.Second), "0:42"},
		"hours":                {slurmDuration(3*time.Hour + 4*time.Minute + 5*time.Second), "3:04:05"},
		"days":                 {slurmDuration(50 * time.Hour), "2-02:00:00"},
		"elapsed":              {slurmElapsedLong(65 * time.Second), "00:01:05"},
		"elapsed, days":        {slurmElapsedLong(25 * time.Hour), "1-01:00:00"},
		"exit 0":               {slurmExitCode(api.Job{ExitCode: code(0)}), "0:0"},
		"exit 3":               {slurmExitCode(api.Job{ExitCode: code(3)}), "3:0"},
		"killed":               {slurmExitCode(api.Job{ExitCode: code(137), FailureReason: "part 1 of 2 (node b): killed by SIGKILL (exit code 137)"}), "0:9"},
		"137 without a signal": {slurmExitCode(api.Job{ExitCode: code(137)}), "137:0"},
		"no exit":              {slurmExitCode(api.Job{}), "0:0"},
		"timeout":              {slurmStates[api.JobTimeout], "TIMEOUT"},
		"pending reason":       {slurmReason(api.Job{ReasonCode: "dependency"}), "(Dependency)"},
		"user":                 {slurmUser("ada@example.com"), "ada"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tc.want, tc.got); d != "" {
				t.Error(d)
			}
		})
	}
}
