package clientagent

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
)

// NotebookOfferer offers a Jupyter notebook on a GPU when a monitor's event
// says GPU work is about to start (NotebookOffer): it prints the command
// that opens one and the dashboard's sessions page, or, with start, starts
// it and prints where it will open. It is told of a monitor only after
// that monitor's hold was asked for, so it offers once per cooldown.
type NotebookOfferer struct {
	Client   *apiclient.Client
	Config   *NotebookOffer
	Endpoint string // the control plane, for the sessions page's link
	Out      io.Writer
	DryRun   bool
	Logger   *slog.Logger
	mu       sync.Mutex // one offer is written at a time
}

// Offer offers (or starts) a notebook for an event of monitor.
func (n *NotebookOfferer) Offer(ctx context.Context, monitor string) error {
	if n == nil || !n.Config.offersFor(monitor) {
		return nil
	}
	o := n.Config
	gpus := words.Count(o.gpus(), "GPU")
	if !o.Start || n.DryRun {
		line := fmt.Sprintf("GPU work looks about to start (monitor %s). Open a Jupyter notebook on %s: %s, or from %s/sessions",
			monitor, gpus, n.command(), strings.TrimRight(n.Endpoint, "/"))
		if o.Start {
			line = "dry run: would start a Jupyter notebook on " + gpus + " (" + n.command() + ")"
		}
		n.Logger.Info("notebook offered", "monitor", monitor, "gpus", o.gpus(), "start", o.Start)
		return n.print(line)
	}
	req := api.SessionRequest{Kind: "jupyter", GPUCount: new(int), GPUType: o.GPUType, Workdir: o.Workdir,
		TimeLimit: api.SecondsOf(time.Duration(o.TimeLimit)), Name: "notebook for " + monitor}
	*req.GPUCount = o.gpus()
	s, err := n.Client.CreateSession(ctx, req, newKey())
	if err != nil {
		return fmt.Errorf("clientagent: start a notebook for %s: %w", monitor, err)
	}
	n.Logger.Info("notebook started", "monitor", monitor, "session", s.ID, "gpus", s.GPUCount)
	return n.print(fmt.Sprintf("GPU work looks about to start (monitor %s): notebook session %d queued on %s; it opens at %s%s once ready (gpusched session list)",
		monitor, s.ID, words.Count(s.GPUCount, "GPU"), strings.TrimRight(n.Endpoint, "/"), api.SessionPath(s.ID)))
}

// command is the gpusched command that opens the offered notebook.
func (n *NotebookOfferer) command() string {
	o := n.Config
	parts := []string{"gpusched", "notebook", "-g", fmt.Sprint(o.gpus())}
	if o.GPUType != "" {
		parts = append(parts, "--gpu-type", shellQuote(o.GPUType))
	}
	if o.TimeLimit > 0 {
		parts = append(parts, "--time", shortDuration(time.Duration(o.TimeLimit)))
	}
	if o.Workdir != "" {
		parts = append(parts, "--workdir", shellQuote(o.Workdir))
	}
	return strings.Join(append(parts, "--open"), " ")
}

func (n *NotebookOfferer) print(line string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, err := fmt.Fprintln(n.Out, line); err != nil {
		return fmt.Errorf("clientagent: print the notebook offer: %w", err)
	}
	return nil
}

// shortDuration writes d as the CLI reads it, without zero units ("4h",
// "1h30m", "90s").
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
