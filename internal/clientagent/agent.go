package clientagent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient/nethttp"
)

// Options are what Run needs besides the config.
type Options struct {
	Config *Config
	DryRun bool
	Logger *slog.Logger
	Now    func() time.Time
	// HTTP carries every request the agent makes (LLM and control plane);
	// nil: a client of its own. Tests pass one that records where it dials.
	HTTP *http.Client
	// Version is sent in the User-Agent.
	Version string
	// Out receives what the agent tells its user beyond its log: the
	// notebook offer (NotebookOffer). Nil: standard output.
	Out io.Writer
}

// queueSize bounds the events waiting for analysis; more are dropped.
const queueSize = 256

// Run starts every monitor and handles their events one at a time until ctx
// ends, then stops the monitors and returns.
func Run(ctx context.Context, o Options) error {
	cfg := o.Config
	if o.HTTP == nil {
		o.HTTP = &http.Client{Timeout: 2 * time.Minute}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	llm, err := NewLLM(cfg.LLM, o.HTTP)
	if err != nil {
		return err
	}
	analyzer, err := NewAnalyzer(cfg, llm, o.Logger, o.Now)
	if err != nil {
		return err
	}
	stateFile := cfg.StateFile
	if o.DryRun {
		stateFile = ""
	} else if stateFile == "" {
		if stateFile, err = DefaultStateFile(); err != nil {
			return err
		}
	}
	cooldowns, err := LoadCooldowns(stateFile)
	if err != nil {
		return err
	}
	client := apiclient.New(cfg.GPUScheduler.APIEndpoint, cfg.GPUScheduler.APIKey)
	client.Transport, client.UserAgent = nethttp.New(o.HTTP), "gpusched-agent/"+o.Version
	actor := &ActionTaker{Client: client, Config: cfg, Cooldowns: cooldowns, DryRun: o.DryRun, Logger: o.Logger, Now: o.Now}
	var offer *NotebookOfferer
	if cfg.NotebookOffer.Enabled {
		if o.Out == nil {
			o.Out = os.Stdout
		}
		offer = &NotebookOfferer{Client: client, Config: &cfg.NotebookOffer, Endpoint: cfg.GPUScheduler.APIEndpoint, Out: o.Out,
			DryRun: o.DryRun, Logger: o.Logger}
	}

	byName := map[string]*MonitorConfig{}
	var monitors []Monitor
	for i := range cfg.Monitors {
		m, err := NewMonitor(cfg.Monitors[i], o.Logger)
		if err != nil {
			return err
		}
		monitors = append(monitors, m)
		byName[cfg.Monitors[i].Name] = &cfg.Monitors[i]
	}

	events := make(chan Event, queueSize)
	mctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	for _, m := range monitors {
		wg.Go(func() {
			emit := func(ev Event) {
				if actor.Cooling(ev.Monitor) {
					return // quiet: not even an LLM call
				}
				select {
				case events <- ev:
				default:
					o.Logger.Warn("events arrive faster than they are analyzed; one dropped", "monitor", ev.Monitor)
				}
			}
			if err := m.Run(mctx, emit); err != nil {
				o.Logger.Error("monitor stopped", "monitor", m.Name(), "err", err)
			}
		})
	}
	o.Logger.Info("gpusched-agent watching", "monitors", len(monitors), "dry_run", o.DryRun, "llm", cfg.LLM.Provider)
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			stop()
			return nil
		case ev := <-events:
			handle(ctx, ev, analyzer, actor, offer, byName[ev.Monitor], o.Logger)
		}
	}
}

// handle analyzes one event and acts on a yes: a hold, then the notebook
// offer (if configured). Event contents are never logged; only the monitor
// and the sizes are.
func handle(ctx context.Context, ev Event, a *Analyzer, act *ActionTaker, offer *NotebookOfferer, m *MonitorConfig, logger *slog.Logger) {
	if m == nil || act.Cooling(ev.Monitor) {
		return
	}
	yes, err := a.Decide(ctx, ev)
	switch {
	case errors.Is(err, ErrRateLimited):
		logger.Warn("LLM rate limit reached; event skipped", "monitor", ev.Monitor)
		return
	case err != nil:
		logger.Warn("analysis failed", "monitor", ev.Monitor, "err", err)
		return
	case !yes:
		logger.Debug("no GPU work ahead", "monitor", ev.Monitor, "bytes", len(ev.Line)+len(ev.Content))
		return
	}
	if err := act.Act(ctx, m); err != nil {
		logger.Error("asking for GPUs failed", "monitor", ev.Monitor, "err", fmt.Sprint(err))
		return
	}
	if err := offer.Offer(ctx, ev.Monitor); err != nil {
		logger.Error("offering a notebook failed", "monitor", ev.Monitor, "err", fmt.Sprint(err))
	}
}
