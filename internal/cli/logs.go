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
	cmd := &cobra.Command{
		Use:   "logs ID [-f]",
		Short: "Show a job's output (the last 10 MiB are kept); -f follows it until the job ends",
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
			return printLogs(cmd, c, id, follow)
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new output until the job ends")
	return cmd
}

// printLogs copies job id's output to the command's output; with follow it
// polls for more until the job has ended and everything is printed.
func printLogs(cmd *cobra.Command, c *apiclient.Client, id int64, follow bool) error {
	w := cmd.OutOrStdout()
	ctx := cmd.Context()
	var offset int64
	for {
		page, err := c.JobLogs(ctx, id, offset)
		if err != nil {
			return err
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
