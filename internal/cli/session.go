package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
)

// newNotebookCmd is `gpusched notebook`: a Jupyter notebook on GPUs, queued
// like any job; it waits (saying where it is in the queue) until the
// notebook answers and prints its link.
func newNotebookCmd() *cobra.Command {
	var gpus int
	var limit, workdir, gpuType string
	var open, noWait bool
	cmd := &cobra.Command{
		Use:   "notebook [-g 1] [--time 8h] [--workdir DIR] [--open]",
		Short: "Start a Jupyter notebook on GPUs and print its link (it stops when idle or at its time limit)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			req := map[string]any{"kind": "jupyter", "gpu_count": gpus}
			if limit != "" {
				req["time_limit"] = limit
			}
			if workdir != "" {
				req["workdir"] = workdir
			}
			if gpuType != "" {
				req["gpu_type"] = gpuType
			}
			var s api.Session
			if err := c.Do(cmd.Context(), "POST", "/api/v1/sessions", req, &s); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "session %d queued (%d GPU%s)\n", s.ID, s.GPUCount, plural(s.GPUCount))
			if noWait {
				return nil
			}
			if s, err = waitSession(cmd.Context(), c, s, out); err != nil {
				return err
			}
			fmt.Fprintf(out, "ready: %s\n", s.URL)
			if open {
				openBrowser(s.URL)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVarP(&gpus, "gpus", "g", 1, "how many GPUs")
	f.StringVar(&limit, "time", "", `time limit ("8h"; default: the policy's)`)
	f.StringVar(&workdir, "workdir", "", "working directory on the GPU host, where notebooks are saved (default: your home there)")
	f.StringVar(&gpuType, "gpu-type", "", "GPU model (part of its name)")
	f.BoolVar(&open, "open", false, "open the notebook in the browser once ready")
	f.BoolVar(&noWait, "no-wait", false, "print the session's id and return at once")
	return cmd
}

// waitSession polls session s until it is ready or has ended, telling out
// where it waits whenever that changes.
func waitSession(ctx context.Context, c *apiclient.Client, s api.Session, out io.Writer) (api.Session, error) {
	last := ""
	for {
		if s.Ready {
			return s, nil
		}
		if s.EndedAt != nil {
			return s, fmt.Errorf("session %d ended (%s) before it was ready: %s; see gpusched logs %d", s.ID, s.State, s.StopReason, s.ID)
		}
		if w := sessionWhere(s); w != last {
			fmt.Fprintln(out, w)
			last = w
		}
		select {
		case <-ctx.Done():
			return s, ctx.Err()
		case <-time.After(2 * time.Second):
		}
		if err := c.Do(ctx, "GET", fmt.Sprintf("/api/v1/sessions/%d", s.ID), nil, &s); err != nil {
			return s, err
		}
	}
}

// sessionWhere says where a session not yet ready stands.
func sessionWhere(s api.Session) string {
	switch {
	case s.State == api.JobQueued && s.QueuePosition != nil:
		w := fmt.Sprintf("waiting for GPUs: number %d in the queue", *s.QueuePosition)
		if s.PendingReason != "" {
			w += " (" + s.PendingReason + ")"
		}
		return w
	case s.State == api.JobRunning:
		return "starting the server…"
	}
	return "waiting for GPUs (" + s.State + ")"
}

// openBrowser opens url in the desktop's browser, if there is one.
func openBrowser(url string) {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	_ = exec.Command(name, url).Start()
}

// newSessionCmd is `gpusched session list|stop`.
func newSessionCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "session", Short: "Your interactive sessions (notebooks, web tools): list, stop"}
	var all bool
	list := &cobra.Command{
		Use:   "list [--all]",
		Short: "Your sessions not yet ended (--all: ended ones too)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			path := "/api/v1/sessions"
			if all {
				path += "?all=1"
			}
			var l api.SessionList
			if err := c.Do(cmd.Context(), "GET", path, nil, &l); err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tKIND\tSTATE\tGPUS\tURL")
			for _, s := range l.Sessions {
				url := s.URL
				if !s.Ready {
					url = strings.TrimPrefix(sessionWhere(s), "waiting for GPUs: ")
					if s.EndedAt != nil {
						url = "-"
					}
				}
				fmt.Fprintf(w, "%d\t%s\t%s\t%d\t%s\n", s.ID, s.Kind, s.State, s.GPUCount, url)
			}
			return w.Flush()
		},
	}
	list.Flags().BoolVar(&all, "all", false, "ended sessions too")
	stop := &cobra.Command{
		Use:   "stop ID [ID…]",
		Short: "Stop sessions; saved notebooks stay in their working directory",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			for _, id := range args {
				var s api.Session
				if err := c.Do(cmd.Context(), "DELETE", "/api/v1/sessions/"+id, nil, &s); err != nil {
					return fmt.Errorf("session %s: %w", id, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "session %d stopping; its files stay in %s on its node\n", s.ID, orHome(s.Workdir))
			}
			return nil
		},
	}
	cmd.AddCommand(list, stop)
	return cmd
}

func orHome(dir string) string {
	if dir == "" {
		return "your home directory"
	}
	return dir
}
