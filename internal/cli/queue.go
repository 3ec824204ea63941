package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
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
				fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", j.ID, j.User, j.Name, stateCode(j.State), j.RequestedGPUs,
					j.PriorityName, running(j, now), "")
			}
			for _, j := range q.QueuedJobs {
				pos := "-"
				if j.Position != nil {
					pos = "#" + strconv.Itoa(*j.Position)
				}
				fmt.Fprintf(w, "%d\t%s\t%s\tPD\t%d\t%s\t%s\t%s %s\n", j.ID, j.User, j.Name, j.RequestedGPUs, j.PriorityName,
					eta(j, now), pos, j.Reason)
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
		Short: "Cancel jobs (yours; admins: any)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			return eachID(args, "job", func(id int64) error {
				j, err := c.Cancel(cmd.Context(), id)
				if err != nil {
					return err
				}
				switch j.State {
				case api.JobCanceled:
					fmt.Fprintf(cmd.OutOrStdout(), "job %d canceled\n", j.ID)
				default: // a node or Ray stops it; the job ends when that is confirmed
					fmt.Fprintf(cmd.OutOrStdout(), "job %d stopping (%s until its executor confirms)\n", j.ID, j.State)
				}
				return nil
			})
		},
	}
}
