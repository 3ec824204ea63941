package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// sbatch answers as Slurm's does, so that pipelines written for it run:
// "Submitted batch job ID" (scripts take the fourth word), --parsable only
// the id (jid=$(sbatch --parsable a.sh); sbatch -d afterok:$jid b.sh),
// --quiet nothing; --wait returns when the job has ended, with its exit
// code; directives of Slurm's that mean nothing here, with or without a
// value, are accepted on the command line with a warning.
func TestSbatchAnswersAsSlurm(t *testing.T) {
	s := testserver.New(t)
	tok, u := s.UserToken(t, models.RoleMember)
	runAs := "nobody"
	if os.Geteuid() != 0 {
		runAs = os.Getenv("USER")
	}
	if err := models.SetUnixUser(context.Background(), s.DB.Bun, u.ID, runAs, time.Now()); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GPUSCHED_SERVER", s.URL)
	t.Setenv("GPUSCHED_TOKEN", tok)
	startTestAgent(t, s)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok.sh", "#!/bin/sh\n#SBATCH -G 1\n#SBATCH --nice=10\n#SBATCH --no-kill\ntrue\n")
	bad := write("bad.sh", "#!/bin/sh\n#SBATCH -G 1\nexit 3\n")

	out, err := gpusched(t, "sbatch", "-D", "/tmp", ok)
	if err != nil || !regexp.MustCompile(`^Submitted batch job \d+\n$`).MatchString(out) {
		t.Errorf("sbatch: %q %v, want Slurm's line alone", out, err)
	}
	first := strings.Fields(out)[3]
	out, err = gpusched(t, "sbatch", "--parsable", "-D", "/tmp", "-d", "afterok:"+first, ok)
	if err != nil || !regexp.MustCompile(`^\d+\n$`).MatchString(out) {
		t.Errorf("sbatch --parsable: %q %v, want the id alone", out, err)
	}
	out, err = gpusched(t, "sbatch", "-Q", "-D", "/tmp", "--oversubscribe", "--gpu-freq=high", "-k", ok)
	if err != nil || out != "" {
		t.Errorf("sbatch --quiet with ignored directives: %q %v, want nothing", out, err)
	}
	out, err = gpusched(t, "sbatch", "--wait", "-D", "/tmp", ok)
	if err != nil || !strings.HasPrefix(out, "Submitted batch job ") {
		t.Errorf("sbatch --wait of a job that succeeds: %q %v", out, err)
	} else if j, gerr := models.GetJob(t.Context(), s.DB.Bun, mustID(t, strings.Fields(out)[3])); gerr != nil || j.State != models.JobCompleted {
		t.Errorf("sbatch --wait returned before the job completed: %+v %v", j, gerr)
	}
	_, err = gpusched(t, "sbatch", "-W", "-D", "/tmp", bad)
	var code ExitCode
	if !errors.As(err, &code) || code != 3 {
		t.Errorf("sbatch --wait of a job that exits 3: %v, want exit status 3", err)
	}
}

// mustID parses a job id the CLI printed.
func mustID(t *testing.T, s string) int64 {
	t.Helper()
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("job id %q: %v", s, err)
	}
	return id
}
