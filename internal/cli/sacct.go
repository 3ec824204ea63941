package cli

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

func newSacctCmd() *cobra.Command {
	var ids, states, startTime string
	var noHeader, parsable bool
	cmd := &cobra.Command{
		Use:   "sacct [-j ID[,ID]] [-S TIME] [-s STATE[,STATE]] [-n] [-P]",
		Short: "Jobs in Slurm's sacct columns: JobID JobName State ExitCode Elapsed",
		Long: `Jobs in Slurm's sacct shape: JobID JobName State ExitCode Elapsed. -j lists those jobs, ended
ones included; without -j it lists, as Slurm does, your jobs since midnight (-S moves the
start: "2026-11-23", "yesterday 09:00", "-7d"): those still running or pending and those that
ended since, from the job history. States are Slurm's (COMPLETED, FAILED, CANCELLED, TIMEOUT, RUNNING, PENDING…); an exit
by a signal shows as 0:SIGNAL. -P prints fields separated by |, -n no header.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			var jobs []api.Job
			if ids != "" {
				for _, id := range strings.Split(ids, ",") {
					if id = strings.TrimSpace(id); id == "" {
						continue
					}
					if !jobIDRef.MatchString(id) {
						return fmt.Errorf("-j %q: want job ids", id)
					}
					d, err := getJob(cmd.Context(), c, id)
					if err != nil {
						return fmt.Errorf("job %s: %w", id, err)
					}
					jobs = append(jobs, d.Job)
				}
			} else {
				q, err := c.Queue(cmd.Context(), true)
				if err != nil {
					return err
				}
				jobs = append(q.RunningJobs, q.QueuedJobs...)
				ended, err := sacctEnded(cmd, c, startTime)
				if err != nil {
					return err
				}
				jobs = append(jobs, ended...)
			}
			keep := squeueFilter("", "", states)
			w := cmd.OutOrStdout()
			row := func(cols ...string) {
				if parsable {
					fmt.Fprintln(w, strings.Join(cols, "|")+"|")
					return
				}
				fmt.Fprintf(w, "%-12s %10s %10s %8s %10s\n", cols[0], cols[1], cols[2], cols[3], cols[4])
			}
			if !noHeader {
				row("JobID", "JobName", "State", "ExitCode", "Elapsed")
				if !parsable {
					fmt.Fprintln(w, strings.Repeat("-", 12)+" "+strings.Repeat("-", 10)+" "+strings.Repeat("-", 10)+" "+strings.Repeat("-", 8)+" "+strings.Repeat("-", 10))
				}
			}
			now := time.Now()
			for _, j := range jobs {
				if !keep(j) {
					continue
				}
				state, name := slurmStates[j.State], j.Name
				if !parsable {
					name = truncate(name, 10)
				}
				if j.State == api.JobCanceled && !parsable {
					state = "CANCELLED+"
				}
				row(slurmJobID(j), name, state, slurmExitCode(j), slurmElapsedLong(elapsed(j, now)))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&ids, "jobs", "j", "", "these jobs (ids), ended ones included, comma-separated")
	f.StringVarP(&startTime, "starttime", "S", "", "without -j: jobs ended since this time (default: midnight today, local time)")
	f.StringVarP(&states, "state", "s", "", "only jobs in these states (COMPLETED, FAILED, CANCELLED, TIMEOUT, RUNNING, PENDING, or CD, F, CA, TO, R, PD)")
	f.BoolVarP(&noHeader, "noheader", "n", false, "no header lines")
	f.BoolVarP(&parsable, "parsable2", "P", false, "fields separated by |")
	return cmd
}

// slurmElapsedLong is sacct's Elapsed: [D-]HH:MM:SS.
func slurmElapsedLong(d time.Duration) string {
	s := int64(max(d, 0) / time.Second)
	if days := s / 86400; days > 0 {
		return fmt.Sprintf("%d-%02d:%02d:%02d", days, s/3600%24, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}

// jobIDRef is a job id sacct takes: the job's number (an array task has its own).
var jobIDRef = regexp.MustCompile(`^[0-9]+$`)
