package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
)

func newQueueCmd() *cobra.Command {
	var mine, asJSON bool
	cmd := &cobra.Command{
		Use:   "queue [--mine]",
		Short: "Show running and pending jobs, like squeue: place, reason, expected start",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			q, err := c.Queue(cmd.Context(), mine)
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(q)
			}
			now := time.Now()
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tUSER\tNAME\tST\tGPUS\tPRIO\tWHEN\tREASON")
			for _, j := range q.RunningJobs {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", queueID(j), j.User, j.Name, stateCode(j.State), gpusColumn(j),
					j.PriorityName, running(j, now), arrayWords(j, ""))
			}
			for _, j := range q.QueuedJobs {
				pos := "-"
				if j.Position != nil {
					pos = "#" + strconv.Itoa(*j.Position)
				}
				fmt.Fprintf(w, "%s\t%s\t%s\tPD\t%s\t%s\t%s\t%s\n", queueID(j), j.User, j.Name, gpusColumn(j), j.PriorityName,
					eta(j, now), arrayWords(j, pos+" "+localtime.InstantsNear(j.Reason, now, time.Local)))
			}
			if err := w.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d running, %d pending\n", len(q.RunningJobs), len(q.QueuedJobs))
			return nil
		},
	}
	cmd.Flags().BoolVar(&mine, "mine", false, "only my jobs")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// queueID is a queue entry's id: an array as Slurm shows one, "40_[0-99%8]".
func queueID(j api.Job) string {
	if j.Array != nil {
		return fmt.Sprintf("%d_[%s]", j.Array.ID, j.Array.Spec)
	}
	return strconv.FormatInt(j.ID, 10)
}

// arrayWords is an entry's reason, an array's tasks counted by state first.
func arrayWords(j api.Job, reason string) string {
	if j.Array == nil {
		return reason
	}
	if reason == "" {
		return arrayCounts(j.Array)
	}
	return arrayCounts(j.Array) + "; next: " + reason
}

func stateCode(s string) string {
	switch s {
	case api.JobRunning:
		return "R"
	case api.JobScheduled, api.JobAllocating:
		return "CF"
	}
	return s
}

func running(j api.Job, now time.Time) string {
	if j.StartedAt == nil {
		return "starting"
	}
	s := "for " + now.Sub(*j.StartedAt).Round(time.Second).String()
	if j.ExpectedEndAt != nil {
		s += ", ends ~" + j.ExpectedEndAt.Local().Format("15:04 MST")
	}
	return s
}

func eta(j api.Job, now time.Time) string {
	if j.EstimatedStartTime == nil {
		return "unknown"
	}
	if !j.EstimatedStartTime.After(now) {
		return "now"
	}
	return "~" + j.EstimatedStartTime.Local().Format("15:04 MST") + " (in " + j.EstimatedStartTime.Sub(now).Round(time.Minute).String() + ")"
}

func newCancelCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "cancel ID [ID…]",
		Short: "Cancel jobs (yours; admins: any); an array's id cancels all its tasks, ID_4 or ID_[1-3,7] some",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			for _, ref := range args {
				if !cancelRef.MatchString(ref) {
					return fmt.Errorf("%q is not a job id, ARRAY_TASK or ARRAY_[TASKS] (\"123\", \"123_4\", \"123_[1-3,7]\")", ref)
				}
				j, err := c.CancelRef(cmd.Context(), ref)
				if err != nil {
					return fmt.Errorf("job %s: %w", ref, err)
				}
				switch {
				case j.Array != nil: // tasks ask their nodes to stop them; they end when that is confirmed
					fmt.Fprintf(cmd.OutOrStdout(), "array %d: %s\n", j.Array.ID, arrayCounts(j.Array))
				case j.State == api.JobCanceled:
					fmt.Fprintf(cmd.OutOrStdout(), "job %s canceled\n", ref)
				default: // a node or Ray stops it; the job ends when that is confirmed
					fmt.Fprintf(cmd.OutOrStdout(), "job %s stopping (%s until its executor confirms)\n", ref, j.State)
				}
			}
			return nil
		},
	}
}

// cancelRef is what cancel takes: a job id, ARRAY_TASK or ARRAY_[TASKS].
var cancelRef = regexp.MustCompile(`^[0-9]+(_([0-9]+|\[[0-9,:%-]+\]))?$`)

// arrayCounts words an array's tasks by state: "8 running, 90 queued, 2 completed".
func arrayCounts(a *api.ArraySummary) string {
	var parts []string
	for _, st := range []string{api.JobRunning, api.JobAllocating, api.JobScheduled, api.JobQueued, api.JobCompleted,
		api.JobFailed, api.JobTimeout, api.JobCanceled} {
		if n := a.States[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	return strings.Join(parts, ", ")
}
