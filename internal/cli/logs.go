package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
)

func newLogsCmd() *cobra.Command {
	var follow bool
	var run, part int
	cmd := &cobra.Command{
		Use:   "logs ID [-f] [--run N] [--part N]",
		Short: "Show a job's output (the last 10 MiB of each run are kept); -f follows it until the job ends",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return fmt.Errorf("job id %q is not a positive number", args[0])
			}
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			return printLogs(cmd, c, id, run, part, follow)
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new output until the job ends")
	cmd.Flags().IntVar(&run, "run", 0, "the output of run N (1 = the first) of a job that was preempted or requeued; default the newest")
	cmd.Flags().IntVar(&part, "part", 0, "the output of part N of a multi-node job: its node rank (NODE_RANK; 0 = the first node, the default)")
	return cmd
}

// printLogs copies the output of job id's run (0: the newest) to the
// command's output, saying on stderr when earlier runs have their own; part
// is one part of a multi-node run (its node rank; 0 the first); with
// follow it polls for more until the job has ended and everything is
// printed.
func printLogs(cmd *cobra.Command, c *apiclient.Client, id int64, run, part int, follow bool) error {
	w := cmd.OutOrStdout()
	ctx := cmd.Context()
	var offset int64
	for first := true; ; first = false {
		page, err := c.JobPartLogs(ctx, id, run, part, offset)
		if err != nil {
			return err
		}
		if first && page.Parts > 1 {
			fmt.Fprintf(cmd.ErrOrStderr(), "[part %d of %d (node rank); the other parts: gpusched logs %d --part N]\n", page.Part, page.Parts, id)
		}
		if first && run == 0 && page.Runs > 1 {
			fmt.Fprintf(cmd.ErrOrStderr(), "[run %d of %d; the output of earlier runs: gpusched logs %d --run N]\n", page.Run, page.Runs, id)
		}
		if page.Offset > offset && offset > 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "[… %d bytes of older output were dropped …]\n", page.Offset-offset)
		}
		if _, err := io.WriteString(w, page.Data); err != nil {
			return err
		}
		offset = page.Next
		switch {
		case page.Data != "":
			continue // there may be more right away
		case page.Done || !follow:
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(500 * time.Millisecond):
		}
	}
}
