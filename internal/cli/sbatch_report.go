package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
)

// sbatchReport is how sbatch answers a submission, as Slurm's does: by
// default "Submitted batch job ID" on standard output (scripts read the
// fourth word), our own line about it on standard error; --parsable only
// the id; --quiet nothing; --wait then waits for the job to end.
type sbatchReport struct {
	parsable, quiet, wait bool
}

// submitted prints that job (or array) was queued.
func (r sbatchReport) submitted(out, errOut io.Writer, job *api.Job, asJSON bool) error {
	id := batchID(job)
	switch {
	case asJSON:
		return printSubmitted(out, job, true)
	case r.quiet:
		return nil
	case r.parsable:
		_, err := fmt.Fprintln(out, id)
		return err
	}
	if _, err := fmt.Fprintf(out, "Submitted batch job %d\n", id); err != nil {
		return err
	}
	return printSubmitted(errOut, job, false)
}

// batchID is the id sbatch answers with: the array's for an array.
func batchID(job *api.Job) int64 {
	if job.Array != nil {
		return job.Array.ID
	}
	return job.ID
}

// waitBatch waits until job (every task of an array) has ended, and
// returns its outcome as sbatch --wait does: nil when it completed, else
// an ExitCode (the job's exit code when it failed with one, else 1).
func waitBatch(cmd *cobra.Command, c *apiclient.Client, job *api.Job, quiet bool) error {
	id := strconv.FormatInt(batchID(job), 10)
	every := 500 * time.Millisecond
	for {
		d, err := getJob(cmd.Context(), c, id)
		if err != nil {
			return fmt.Errorf("sbatch --wait: job %s: %w", id, err)
		}
		if done, code := batchEnded(&d.Job); done {
			if !quiet && code != 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "sbatch: job %s ended %s\n", id, batchOutcome(&d.Job))
			}
			if code == 0 {
				return nil
			}
			return ExitCode(code)
		}
		select {
		case <-cmd.Context().Done():
			return context.Cause(cmd.Context())
		case <-time.After(every):
		}
		every = min(every*2, 5*time.Second)
	}
}

// batchEnded reports whether j (or its whole array) has ended, and the exit
// status sbatch --wait gives for it.
func batchEnded(j *api.Job) (bool, int) {
	if a := j.Array; a != nil {
		ended, completed := 0, a.States[api.JobCompleted]
		for st, n := range a.States {
			if api.IsTerminal(st) {
				ended += n
			}
		}
		if ended < a.TaskCount {
			return false, 0
		}
		if completed == a.TaskCount {
			return true, 0
		}
		return true, 1
	}
	if !api.IsTerminal(j.State) {
		return false, 0
	}
	switch {
	case j.State == api.JobCompleted:
		return true, 0
	case j.ExitCode != nil && *j.ExitCode > 0 && *j.ExitCode < 256:
		return true, *j.ExitCode
	}
	return true, 1
}

// batchOutcome says how j ended, for the line --wait prints.
func batchOutcome(j *api.Job) string {
	if a := j.Array; a != nil {
		return fmt.Sprintf("with %d of %d tasks completed", a.States[api.JobCompleted], a.TaskCount)
	}
	if j.ExitCode != nil {
		return fmt.Sprintf("%s (exit code %d)", j.State, *j.ExitCode)
	}
	return j.State
}
